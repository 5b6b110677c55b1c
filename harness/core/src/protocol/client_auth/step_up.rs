//! Step-up authorization (2025-11-25 and later), in scenarios whose
//! `auth: step_up` makes one method need a scope beyond the first
//! authorization's: after a 403 `insufficient_scope` the client authorizes
//! again with the challenged scope and retries (AUTH-064), does so only a
//! few times when every retry is refused (AUTH-065), and from 2026-07-28
//! asks for the union of the scopes it held and the challenged ones
//! (AUTH-066).

use super::{Evidence, Finding};
use crate::Level;
use crate::evidence::oauth::OAuthRequest;
use crate::protocol::cite;

/// How many re-authorizations for one operation count as "a few": the
/// spec names no number, so the bound is generous (a client that tries
/// again after a transient failure is not failed) while a loop is caught
/// at its fourth attempt.
const STEP_UP_ATTEMPTS: usize = 3;

const NO_STEP_UP: &str = "the client never got a 403 insufficient_scope";

impl Evidence<'_> {
    /// The step-up rules, in a scenario that scripts a step-up.
    pub(super) fn step_up(&self) -> Vec<Finding> {
        if self.setup.step_up.is_none() {
            return Vec::new();
        }
        vec![
            self.steps_up(),
            self.steps_up_a_few_times(),
            self.keeps_earlier_scopes(),
        ]
    }

    /// AUTH-064: re-authorizes with the challenged scope, then retries.
    fn steps_up(&self) -> Finding {
        let mut finding = self.step_up_finding(
            "a 403 insufficient_scope leads to a new authorization and a retry",
            cite::AUTH_064,
        );
        let Some((first, refused)) = self.first_step_up_refusal() else {
            return finding;
        };
        let challenged = self.challenged_step_up();
        let reauthorized = self
            .reauthorizations()
            .any(|r| challenged.iter().all(|s| scope_words(r).contains(s)));
        if !reauthorized {
            finding.problem_at(
                refused,
                format!(
                    "403 insufficient_scope, and no later authorization request asked for `{}`",
                    challenged.join(" ")
                ),
            );
        } else if self.auth.tokens.len() <= first + 1 {
            finding.problem_at(refused, "re-authorized, but never retried the request".into());
        }
        finding
    }

    /// AUTH-065: at most [`STEP_UP_ATTEMPTS`] re-authorizations.
    fn steps_up_a_few_times(&self) -> Finding {
        let mut finding = self.step_up_finding("step-up is tried only a few times", cite::AUTH_065);
        let attempts: Vec<&OAuthRequest> = self.reauthorizations().collect();
        if let Some(past) = attempts.get(STEP_UP_ATTEMPTS) {
            finding.problem_at(
                &past.label,
                format!(
                    "{} re-authorizations after 403 insufficient_scope; more than {STEP_UP_ATTEMPTS} is not a few",
                    attempts.len()
                ),
            );
        }
        finding
    }

    /// AUTH-066: each re-authorization asks for every scope asked for
    /// before and the challenged ones.
    fn keeps_earlier_scopes(&self) -> Finding {
        let mut finding = self.step_up_finding(
            "re-authorization asks for the union of the earlier and the challenged scopes",
            cite::AUTH_066,
        );
        let authorizations: Vec<&OAuthRequest> = self.auth.authorizations().collect();
        if authorizations.len() < 2 {
            if finding.unobserved.is_none() {
                finding.unobserved = Some("the client never authorized again".into());
            }
            return finding;
        }
        let challenged = self.challenged_step_up();
        for pair in authorizations.windows(2) {
            let (before, after) = (scope_words(pair[0]), scope_words(pair[1]));
            let missing: Vec<&str> = before
                .iter()
                .chain(&challenged)
                .filter(|s| !after.contains(s))
                .copied()
                .collect();
            if !missing.is_empty() {
                finding.problem_at(
                    &pair[1].label,
                    format!("re-authorized without `{}`", missing.join(" ")),
                );
            }
        }
        finding
    }

    /// A finding observed once the client got a step-up 403.
    fn step_up_finding(
        &self,
        name: &'static str,
        requirement: crate::requirements::RequirementId,
    ) -> Finding {
        let finding = self.finding(name, requirement, Level::Should, NO_STEP_UP);
        Self::observed(finding, self.first_step_up_refusal().is_some())
    }

    /// The first request refused for a missing scope after the client
    /// held a token: its index among the token checks, and its label.
    fn first_step_up_refusal(&self) -> Option<(usize, &str)> {
        self.auth
            .tokens
            .iter()
            .enumerate()
            .find(|(_, t)| t.refused.as_deref() == Some("insufficient_scope"))
            .map(|(at, t)| (at, t.label.as_str()))
    }

    /// The authorization requests after the first.
    fn reauthorizations(&self) -> impl Iterator<Item = &OAuthRequest> {
        self.auth.authorizations().skip(1)
    }

    /// The scopes the step-up 403 names.
    fn challenged_step_up(&self) -> Vec<&str> {
        self.setup
            .step_up
            .as_ref()
            .map(|s| s.scope.split(' ').filter(|s| !s.is_empty()).collect())
            .unwrap_or_default()
    }
}

/// The words of an authorization request's `scope`.
fn scope_words(request: &OAuthRequest) -> Vec<&str> {
    request
        .param("scope")
        .unwrap_or_default()
        .split(' ')
        .filter(|s| !s.is_empty())
        .collect()
}
