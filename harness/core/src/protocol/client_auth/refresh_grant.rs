//! The grant types of a client that refreshes (2026-07-28 and later): a
//! client that wants refresh tokens should list `refresh_token` among the
//! `grant_types` of its registration request or metadata document
//! (AUTH-069). Wanting them shows only in using one, so the rule is judged
//! on a client seen refreshing (a token request of the `refresh_token`
//! grant), against the metadata it declared here; a client that declared
//! none here (pre-registered, or configured by its user) is not-observed.

use serde_json::Value;

use super::{Evidence, Finding};
use crate::Level;
use crate::protocol::cite;

const REFRESH_TOKEN: &str = "refresh_token";

impl Evidence<'_> {
    /// AUTH-069, once the client refreshed.
    pub(super) fn refresh_grant_declared(&self) -> Finding {
        let mut finding = self.finding(
            "a client that refreshes lists refresh_token in its grant_types",
            cite::AUTH_069,
            Level::Should,
            "the client never refreshed a token",
        );
        let Some(refresh) = self.auth.conversation.iter().find(|r| r.is_grant(REFRESH_TOKEN)) else {
            return finding;
        };
        let registered = self
            .registrations()
            .filter(|r| r.status == 201)
            .filter_map(|r| Some((r.label.as_str(), serde_json::from_str::<Value>(&r.body).ok()?)));
        let documented = self
            .auth
            .documents
            .iter()
            .filter(|d| d.outcome == Ok(200))
            .filter_map(|d| Some((refresh.label.as_str(), d.document.clone()?)));
        let declared: Vec<(&str, Value)> = registered.chain(documented).collect();
        if declared.is_empty() {
            finding.unobserved = Some(
                "the client refreshed, but declared its metadata neither in a registration nor in a metadata document here"
                    .into(),
            );
            return finding;
        }
        finding.unobserved = None;
        for (label, metadata) in &declared {
            let listed = metadata["grant_types"]
                .as_array()
                .is_some_and(|grants| grants.iter().any(|g| g == REFRESH_TOKEN));
            if !listed {
                finding.problem_at(
                    label,
                    format!(
                        "the client refreshed a token at {}, and its metadata's grant_types ({}) leave out refresh_token",
                        refresh.label,
                        granted(metadata)
                    ),
                );
            }
        }
        finding
    }
}

/// The `grant_types` of `metadata` in words (RFC 7591's default when
/// absent).
fn granted(metadata: &Value) -> String {
    match &metadata["grant_types"] {
        Value::Null => "none listed: authorization_code alone by default".into(),
        listed => listed.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{cited_verdicts, correct, oauth};
    use crate::Verdict;
    use crate::evidence::http::HttpClientRecord;

    /// The correct record with its registration accepted declaring
    /// `grant_types`, and a refresh after it when `refreshed`.
    fn registered(grant_types: &str, refreshed: bool) -> HttpClientRecord {
        let mut record = correct();
        let conversation = &mut record.auth.as_mut().unwrap().conversation;
        conversation[1].status = 201;
        conversation[1].body = format!(r#"{{"redirect_uris": ["http://127.0.0.1:1/cb"]{grant_types}}}"#);
        if refreshed {
            conversation.push(oauth(5, "POST", "/token", &[("grant_type", "refresh_token")]));
        }
        record
    }

    #[test]
    fn a_client_that_refreshes_declares_the_grant() {
        let both = r#", "grant_types": ["authorization_code", "refresh_token"]"#;
        assert_eq!(
            cited_verdicts(&registered(both, true), "{}", "AUTH-069"),
            [Verdict::Pass]
        );
        let code_only = r#", "grant_types": ["authorization_code"]"#;
        assert_eq!(
            cited_verdicts(&registered(code_only, true), "{}", "AUTH-069"),
            [Verdict::NonStrict]
        );
        assert_eq!(
            cited_verdicts(&registered("", true), "{}", "AUTH-069"),
            [Verdict::NonStrict]
        );
        assert_eq!(
            cited_verdicts(&registered(code_only, false), "{}", "AUTH-069"),
            [Verdict::NotObserved]
        );
        let mut pre_registered = registered(code_only, true);
        pre_registered.auth.as_mut().unwrap().conversation.remove(1);
        assert_eq!(
            cited_verdicts(&pre_registered, "{}", "AUTH-069"),
            [Verdict::NotObserved]
        );
    }
}
