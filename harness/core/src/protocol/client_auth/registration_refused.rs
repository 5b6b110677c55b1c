//! A refused Dynamic Client Registration (2026-07-28 and later), where the
//! scenario's authorization server refuses the client's first one and
//! every later one with the same metadata (`auth: {refuse_registration:
//! …}`): the client must handle it, either stopping with an error or
//! retrying with other metadata, which this server accepts (AUTH-047).
//! What shows on the wire is a loop: a client that registers again and
//! again. A crash and a clean stop both end the attempt and look alike
//! here, so only the loop is judged.

use super::{Evidence, Finding};
use crate::Level;
use crate::protocol::cite;

/// A refused registration and one retry are all a client needs: this
/// server accepts any other metadata.
const REGISTRATIONS_ALLOWED: usize = 2;

impl Evidence<'_> {
    /// AUTH-047, when the scenario refuses the first registration.
    pub(super) fn registration_refusal_handled(&self) -> Option<Finding> {
        let refusal = self.setup.refuse_registration?;
        let mut finding = self.finding(
            "a refused registration is handled, not retried in a loop",
            cite::AUTH_047,
            Level::Must,
            "the client registered no client (Dynamic Client Registration)",
        );
        let registrations: Vec<_> = self.registrations().collect();
        let Some(refused) = registrations.first() else {
            return Some(finding);
        };
        finding.unobserved = None;
        if let Some(extra) = registrations.get(REGISTRATIONS_ALLOWED) {
            finding.problem_at(
                &extra.label,
                format!(
                    "registered {} times after {} refused it with {}: a retry with other metadata is accepted here, so more than one is a loop",
                    registrations.len() - 1,
                    refused.label,
                    refusal.error_code()
                ),
            );
        }
        Some(finding)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{cited_verdicts, correct, oauth};
    use crate::Verdict;
    use crate::evidence::http::HttpClientRecord;

    const SETUP: &str = "{refuse_registration: invalid-redirect-uri}";

    /// The correct record whose registration was refused, then sent
    /// `again` times more (each refused but the last), and nothing after.
    fn registering(again: usize) -> HttpClientRecord {
        let mut record = correct();
        let conversation = &mut record.auth.as_mut().unwrap().conversation;
        conversation.truncate(2);
        conversation[1].status = 400;
        for n in 0..again {
            conversation.push(oauth(3 + n, "POST", "/register", &[]));
        }
        record
    }

    #[test]
    fn a_refused_registration_is_retried_once_at_most() {
        assert_eq!(
            cited_verdicts(&registering(0), SETUP, "AUTH-047"),
            [Verdict::Pass]
        );
        assert_eq!(
            cited_verdicts(&registering(1), SETUP, "AUTH-047"),
            [Verdict::Pass]
        );
        assert_eq!(
            cited_verdicts(&registering(4), SETUP, "AUTH-047"),
            [Verdict::Fail]
        );
        let mut unregistered = registering(0);
        unregistered.auth.as_mut().unwrap().conversation.truncate(1);
        assert_eq!(
            cited_verdicts(&unregistered, SETUP, "AUTH-047"),
            [Verdict::NotObserved]
        );
        assert!(cited_verdicts(&registering(4), "{}", "AUTH-047").is_empty());
    }
}
