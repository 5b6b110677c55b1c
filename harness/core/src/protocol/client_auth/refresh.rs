//! Refresh tokens (2026-07-28 and later), in scenarios whose scripted
//! authorization server issues none: the client must not count on one
//! (AUTH-071), so a token granted without a refresh token is still used.

use super::{Evidence, Finding};
use crate::Level;
use crate::protocol::cite;

impl Evidence<'_> {
    /// AUTH-071, when the scenario issues no refresh tokens.
    pub(super) fn without_refresh_token(&self) -> Option<Finding> {
        if self.setup.refresh_tokens {
            return None;
        }
        let mut finding = self.finding(
            "the client works without a refresh token",
            cite::AUTH_071,
            Level::Must,
            "the client was granted no access token",
        );
        let Some(granted) = self.redemptions().find(|r| r.status == 200) else {
            return Some(finding);
        };
        finding.unobserved = None;
        if !self.auth.tokens.iter().any(|t| t.in_header || t.in_query) {
            finding.problem_at(
                &granted.label,
                "granted an access token without a refresh token, the client never presented it".into(),
            );
        }
        Some(finding)
    }
}
