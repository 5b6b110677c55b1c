//! `offline_access` (2026-07-28 and later), where the scenario's
//! authorization server lists it in `scopes_supported`: a client that
//! wants refresh tokens may ask for it (AUTH-070). A MAY is recorded,
//! never failed: asking is a pass, not asking is not-observed.

use super::{Evidence, Finding};
use crate::Level;
use crate::evidence::oauth::{OAuthRequest, OFFLINE_ACCESS};
use crate::protocol::cite;

impl Evidence<'_> {
    /// AUTH-070, when the authorization server lists `offline_access`.
    pub(super) fn offline_access(&self) -> Option<Finding> {
        if !self.setup.offline_access {
            return None;
        }
        let mut finding = self.authorization_finding(
            "offline_access is asked for when the authorization server lists it",
            cite::AUTH_070,
            Level::May,
        );
        let asked = self.auth.authorizations().any(asks_offline_access);
        if finding.unobserved.is_none() && !asked {
            finding.unobserved =
                Some("the client did not ask for offline_access (a MAY: recorded, never failed)".into());
        }
        Some(finding)
    }
}

/// Whether `request`'s scope names `offline_access`.
fn asks_offline_access(request: &OAuthRequest) -> bool {
    request
        .param("scope")
        .is_some_and(|scope| scope.split(' ').any(|word| word == OFFLINE_ACCESS))
}

#[cfg(test)]
mod tests {
    use super::super::tests::{cited_verdicts, correct};
    use crate::Verdict;
    use crate::evidence::http::HttpClientRecord;

    /// The correct record, its authorization asking for `scope`.
    fn asking(scope: &str) -> HttpClientRecord {
        let mut record = correct();
        let authorize = &mut record.auth.as_mut().unwrap().conversation[2];
        authorize.params.push(("scope".into(), scope.into()));
        record
    }

    #[test]
    fn offline_access_is_recorded_never_failed() {
        let setup = "{offline_access: true}";
        let asked = asking("mcp offline_access");
        assert_eq!(cited_verdicts(&asked, setup, "AUTH-070"), [Verdict::Pass]);
        let not_asked = asking("mcp");
        assert_eq!(
            cited_verdicts(&not_asked, setup, "AUTH-070"),
            [Verdict::NotObserved]
        );
        let mut no_oauth = correct();
        no_oauth.requests.clear();
        no_oauth.auth.as_mut().unwrap().conversation.clear();
        assert_eq!(
            cited_verdicts(&no_oauth, setup, "AUTH-070"),
            [Verdict::NotObserved]
        );
        assert!(cited_verdicts(&asked, "{}", "AUTH-070").is_empty());
    }

    #[test]
    fn offline_access_is_no_scope_of_the_resource() {
        let setup = "{scope: mcp, offline_access: true}";
        let asked = asking("mcp offline_access");
        assert_eq!(cited_verdicts(&asked, setup, "AUTH-062"), [Verdict::Pass]);
        let unlisted = "{scope: mcp}";
        assert_eq!(cited_verdicts(&asked, unlisted, "AUTH-062"), [Verdict::NonStrict]);
    }
}
