//! Client ID Metadata Documents (2025-11-25 and later): a client that
//! authorizes with a URL as its `client_id` must make it an https URL with
//! a path and serve there a JSON document with at least `client_id`
//! (exactly that URL), `client_name` and `redirect_uris` (AUTH-043).
//!
//! The URL's shape is judged from the authorization request. The document
//! is judged from what the scripted authorization server fetched, which it
//! does only on this machine: the harness has no network and no TLS of its
//! own, so a client whose document is elsewhere is not-observed on it,
//! with the reason, never a pass. A document served on loopback comes from
//! an `http://127.0.0.1` (or `localhost`) URL: the one exemption from
//! https, the one way a document can be fetched here.

use serde_json::Value;
use url::Url;

use super::{Evidence, Finding, is_loopback_http};
use crate::Level;
use crate::evidence::oauth::MetadataFetch;
use crate::protocol::cite;

/// The members a metadata document must have besides `client_id`.
const REQUIRED: [&str; 2] = ["client_name", "redirect_uris"];

impl Evidence<'_> {
    /// AUTH-043, when the client authorized with a URL as its client ID
    /// where the authorization server supports metadata documents.
    pub(super) fn metadata_document(&self) -> Finding {
        let mut finding = self.finding(
            "a metadata document client ID is an https URL with a path, serving the document",
            cite::AUTH_043,
            Level::Must,
            "the client used no Client ID Metadata Document",
        );
        let mut urls: Vec<(&str, &str)> = Vec::new();
        for request in self.auth.authorizations() {
            let Some(client_id) = request.param("client_id") else {
                continue;
            };
            let names_document = client_id.starts_with("https://") || client_id.starts_with("http://");
            if self.setup.metadata_documents && names_document && !urls.iter().any(|(u, _)| *u == client_id) {
                urls.push((client_id, request.label.as_str()));
            }
        }
        let mut judged = false;
        let mut unfetched = Vec::new();
        for (url, label) in &urls {
            if let Some(wrong) = shape_problem(url) {
                finding.problem_at(label, wrong);
            }
            let fetched = self.auth.documents.iter().find(|f| f.url == *url);
            match fetched.map(|f| (f, &f.outcome)) {
                Some((fetched, Ok(_))) => {
                    judged = true;
                    for wrong in document_problems(fetched) {
                        finding.problem_at(label, wrong);
                    }
                }
                Some((_, Err(why))) => unfetched.push(format!("{url}: {why}")),
                None => unfetched.push(format!("{url}: never fetched")),
            }
        }
        if !urls.is_empty() {
            finding.unobserved = (!judged).then(|| {
                format!(
                    "the client's metadata document was not read ({})",
                    unfetched.join("; ")
                )
            });
        }
        finding
    }
}

/// What is wrong with `url` as a metadata document's client ID: not https
/// (loopback http aside), or no path.
fn shape_problem(url: &str) -> Option<String> {
    let Ok(parsed) = Url::parse(url) else {
        return Some(format!("client_id `{url}` is not a URL"));
    };
    if parsed.scheme() != "https" && !is_loopback_http(&parsed) {
        return Some(format!("client_id `{url}` is not an https URL"));
    }
    (parsed.path() == "/").then(|| format!("client_id `{url}` has no path"))
}

/// What is wrong with the document `fetched`: not a JSON object, a
/// `client_id` other than its URL, a required member missing.
fn document_problems(fetched: &MetadataFetch) -> Vec<String> {
    let url = &fetched.url;
    if fetched.outcome != Ok(200) {
        let status = fetched.outcome.as_ref().map_or(0, |s| *s);
        return vec![format!("its metadata document {url} answered {status}")];
    }
    let Some(document) = &fetched.document else {
        return vec![format!("its metadata document {url} is not a JSON object")];
    };
    let mut problems = Vec::new();
    match document["client_id"].as_str() {
        Some(id) if id == url => {}
        Some(id) => problems.push(format!(
            "its metadata document's client_id `{id}` is not its URL {url}"
        )),
        None => problems.push(format!("its metadata document {url} has no client_id")),
    }
    for member in REQUIRED
        .iter()
        .filter(|m| document.get(**m).is_none_or(Value::is_null))
    {
        problems.push(format!("its metadata document {url} has no {member}"));
    }
    problems
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::tests::{cited_verdicts, correct};
    use crate::Verdict;
    use crate::evidence::http::HttpClientRecord;
    use crate::evidence::oauth::MetadataFetch;

    const URL: &str = "http://127.0.0.1:4000/client.json";

    /// The correct record, authorizing as `client_id` with `fetched` as
    /// what the authorization server read of it.
    fn documented(client_id: &str, fetched: Option<MetadataFetch>) -> HttpClientRecord {
        let mut record = correct();
        let auth = record.auth.as_mut().unwrap();
        auth.conversation.remove(1);
        auth.conversation[1].params[1].1 = client_id.to_owned();
        auth.documents.extend(fetched);
        record
    }

    fn fetched(url: &str, outcome: Result<u16, String>, document: serde_json::Value) -> MetadataFetch {
        MetadataFetch {
            url: url.to_owned(),
            outcome,
            document: Some(document).filter(serde_json::Value::is_object),
        }
    }

    /// Authorizing as `url`, whose document could not be fetched.
    fn unfetched(url: &str) -> HttpClientRecord {
        documented(url, Some(fetched(url, Err("not fetched".into()), json!(null))))
    }

    fn good(url: &str) -> serde_json::Value {
        json!({"client_id": url, "client_name": "c", "redirect_uris": ["http://127.0.0.1:1/cb"]})
    }

    #[test]
    fn a_document_served_as_its_url_says_passes() {
        let record = documented(URL, Some(fetched(URL, Ok(200), good(URL))));
        assert_eq!(cited_verdicts(&record, "{}", "AUTH-043"), [Verdict::Pass]);
        assert_eq!(
            cited_verdicts(&record, "{metadata_documents: false}", "AUTH-043"),
            [Verdict::NotObserved]
        );
    }

    #[test]
    fn a_wrong_document_fails_field_by_field() {
        let mut other = good(URL);
        other["client_id"] = json!("http://127.0.0.1:4000/other.json");
        let record = documented(URL, Some(fetched(URL, Ok(200), other)));
        assert_eq!(cited_verdicts(&record, "{}", "AUTH-043"), [Verdict::Fail]);
        let mut nameless = good(URL);
        nameless.as_object_mut().unwrap().remove("client_name");
        let record = documented(URL, Some(fetched(URL, Ok(200), nameless)));
        assert_eq!(cited_verdicts(&record, "{}", "AUTH-043"), [Verdict::Fail]);
        let record = documented(URL, Some(fetched(URL, Ok(404), json!(null))));
        assert_eq!(cited_verdicts(&record, "{}", "AUTH-043"), [Verdict::Fail]);
    }

    #[test]
    fn a_url_of_the_wrong_shape_fails_even_unfetched() {
        let plain = unfetched("http://client.example.com/client.json");
        assert_eq!(cited_verdicts(&plain, "{}", "AUTH-043"), [Verdict::Fail]);
        let pathless = "https://client.example.com";
        let record = documented(pathless, None);
        assert_eq!(cited_verdicts(&record, "{}", "AUTH-043"), [Verdict::Fail]);
    }

    #[test]
    fn a_document_not_fetched_is_not_observed() {
        let remote = unfetched("https://client.example.com/client.json");
        assert_eq!(cited_verdicts(&remote, "{}", "AUTH-043"), [Verdict::NotObserved]);
        assert_eq!(
            cited_verdicts(&correct(), "{}", "AUTH-043"),
            [Verdict::NotObserved]
        );
    }
}
