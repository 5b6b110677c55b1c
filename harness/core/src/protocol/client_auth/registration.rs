//! How a client registers with the scripted authorization server, judged
//! on its Dynamic Client Registration requests: the `application_type` its
//! redirect URIs call for (AUTH-046), and authorization requests that name
//! only redirect URIs it registered (AUTH-060).

use serde_json::Value;
use url::Url;

use super::{Evidence, is_loopback_http};
use crate::Level;
use crate::evidence::oauth::OAuthRequest;
use crate::protocol::cite;
use crate::protocol::client_http::Finding;

/// The redirect URIs a registration request lists.
pub(super) fn redirect_uris(registration: &OAuthRequest) -> Vec<String> {
    let body: Value = serde_json::from_str(&registration.body).unwrap_or(Value::Null);
    body["redirect_uris"]
        .as_array()
        .map(|uris| uris.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default()
}

impl Evidence<'_> {
    /// AUTH-046: a registration whose redirect URIs are all on this
    /// machine is a native client's. A registration without
    /// `application_type` is AUTH-045's to judge.
    pub(super) fn registers_native_for_loopback(&self) -> Finding {
        let mut finding = self.finding(
            "a client redirecting to loopback registers as native",
            cite::AUTH_046,
            Level::Should,
            "the client registered no client with an application_type and loopback redirect URIs",
        );
        let mut seen = false;
        for request in self.registrations() {
            let body: Value = serde_json::from_str(&request.body).unwrap_or(Value::Null);
            let Some(kind) = body.get("application_type") else {
                continue;
            };
            let uris = redirect_uris(request);
            let loopback = !uris.is_empty()
                && uris
                    .iter()
                    .all(|uri| Url::parse(uri).is_ok_and(|url| is_loopback_http(&url)));
            if !loopback {
                continue;
            }
            seen = true;
            if kind.as_str() != Some("native") {
                finding.problem_at(
                    &request.label,
                    format!("application_type {kind}, though every redirect URI is on loopback"),
                );
            }
        }
        Self::observed(finding, seen)
    }

    /// AUTH-060: once the client registered redirect URIs here, each
    /// authorization request names one of them. Pre-registered clients and
    /// metadata documents leave nothing in the record to compare with.
    pub(super) fn redirects_as_registered(&self) -> Finding {
        let mut finding = self.finding(
            "the redirect URI is one registered",
            cite::AUTH_060,
            Level::Must,
            "the client registered no redirect URI with the authorization server, or sent no authorization request",
        );
        let registered: Vec<String> = self.registrations().flat_map(redirect_uris).collect();
        let mut seen = false;
        for request in self.auth.authorizations() {
            let Some(uri) = request.param("redirect_uri").filter(|_| !registered.is_empty()) else {
                continue;
            };
            seen = true;
            if !registered.iter().any(|known| known == uri) {
                finding.problem_at(
                    &request.label,
                    format!(
                        "redirect_uri `{uri}` is not among those registered ({})",
                        registered.join(", ")
                    ),
                );
            }
        }
        Self::observed(finding, seen)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::correct;
    use super::super::trust::tests::verdict_of;
    use crate::Verdict;

    const REGISTERED: &str = "http://127.0.0.1:1/cb";

    fn registering(body: &str) -> crate::evidence::http::HttpClientRecord {
        let mut record = correct();
        record.auth.as_mut().unwrap().conversation[1].body = body.into();
        record
    }

    #[test]
    fn a_loopback_client_registers_as_native() {
        let native = format!(r#"{{"redirect_uris": ["{REGISTERED}"], "application_type": "native"}}"#);
        assert_eq!(
            verdict_of(&registering(&native), "{}", "AUTH-046"),
            [Verdict::Pass]
        );
        let web = native.replace("native", "web");
        assert_eq!(
            verdict_of(&registering(&web), "{}", "AUTH-046"),
            [Verdict::NonStrict]
        );
        let remote = r#"{"redirect_uris": ["https://app.example.com/cb"], "application_type": "web"}"#;
        assert_eq!(
            verdict_of(&registering(remote), "{}", "AUTH-046"),
            [Verdict::NotObserved]
        );
        let unnamed = format!(r#"{{"redirect_uris": ["{REGISTERED}"]}}"#);
        assert_eq!(
            verdict_of(&registering(&unnamed), "{}", "AUTH-046"),
            [Verdict::NotObserved]
        );
    }

    #[test]
    fn the_redirect_uri_is_one_registered() {
        assert_eq!(verdict_of(&correct(), "{}", "AUTH-060"), [Verdict::Pass]);
        let elsewhere = r#"{"redirect_uris": ["http://127.0.0.1:2/cb"], "application_type": "native"}"#;
        assert_eq!(
            verdict_of(&registering(elsewhere), "{}", "AUTH-060"),
            [Verdict::Fail]
        );
        let mut pre_registered = correct();
        pre_registered.auth.as_mut().unwrap().conversation.remove(1);
        assert_eq!(
            verdict_of(&pre_registered, "{}", "AUTH-060"),
            [Verdict::NotObserved]
        );
    }
}
