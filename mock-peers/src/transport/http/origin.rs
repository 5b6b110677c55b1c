//! The user's headers (credentials among them) never leave the origin of
//! the URL given: the URL a legacy HTTP+SSE server names in its `endpoint`
//! event is taken only on that origin, and a raw exchange elsewhere goes
//! without them.

use mcp_conform_core::evidence::origin::RefusedUrl;
use reqwest::Url;

/// Why an `endpoint` event's URL is not used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unusable {
    /// The data is not a URL, even relative to the one given.
    NotAUrl(String),
    /// A URL on another origin (scheme, host or port).
    OffOrigin(RefusedUrl),
}

impl Unusable {
    /// In words, for the error of the send that needed the endpoint.
    pub fn describe(&self) -> String {
        match self {
            Unusable::NotAUrl(message) => message.clone(),
            Unusable::OffOrigin(refused) => format!(
                "the `endpoint` event names {}, outside {}, the origin given: refused, nothing sent there",
                refused.url, refused.origin
            ),
        }
    }
}

/// The POST URL the event's `data` names, resolved against `given`.
pub fn post_url(given: &Url, data: &str) -> Result<Url, Unusable> {
    let data = data.trim();
    let url = given
        .join(data)
        .map_err(|e| Unusable::NotAUrl(format!("the `endpoint` event `{data}` is not a URL: {e}")))?;
    if url.origin() != given.origin() {
        return Err(Unusable::OffOrigin(RefusedUrl {
            named_by: "the `endpoint` event".into(),
            url: url.to_string(),
            origin: given.origin().ascii_serialization(),
        }));
    }
    Ok(url)
}

/// Whether `url` is a URL on the origin of `given` (both parsed; a URL
/// that does not parse is on no origin).
pub fn same_origin(url: &str, given: &str) -> bool {
    match (Url::parse(url), Url::parse(given)) {
        (Ok(url), Ok(given)) => url.origin() == given.origin(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_urls_on_the_given_origin_are_taken() {
        let given = Url::parse("http://127.0.0.1:8000/sse?x=1").unwrap();
        let same = ["/messages?session=1", "messages", "http://127.0.0.1:8000/other"];
        for data in same {
            assert_eq!(post_url(&given, data).unwrap().origin(), given.origin(), "{data}");
        }
        for data in [
            "http://127.0.0.1:8001/messages",
            "https://127.0.0.1:8000/messages",
            "http://localhost:8000/messages",
            "//evil.example/messages",
            "http://user@127.0.0.2:8000/",
        ] {
            let Err(Unusable::OffOrigin(refused)) = post_url(&given, data) else {
                panic!("{data} was taken");
            };
            assert_eq!(refused.origin, "http://127.0.0.1:8000");
        }
        assert!(matches!(
            post_url(&given, "http://[::1"),
            Err(Unusable::NotAUrl(_))
        ));
    }
}
