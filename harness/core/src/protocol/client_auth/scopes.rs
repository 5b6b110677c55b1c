//! Scope selection (2025-11-25 and later): the scope the client's first
//! authorization request asks for, judged against the scope the 401
//! challenge named and the protected resource metadata's
//! `scopes_supported`, which the scenario sets.

use super::{Evidence, Finding};
use crate::Level;
use crate::evidence::oauth::OFFLINE_ACCESS;
use crate::protocol::cite;

impl Evidence<'_> {
    /// AUTH-062: the challenge's scope when it names one, else every scope
    /// of `scopes_supported`, else no `scope` parameter.
    pub(super) fn scope_selected(&self) -> Finding {
        let mut finding = self.authorization_finding(
            "the first authorization asks for the challenge's scope, else scopes_supported",
            cite::AUTH_062,
            Level::Should,
        );
        let Some(first) = self.auth.authorizations().next() else {
            return finding;
        };
        let (expected, source) = match (self.challenged_scope(), self.supported_scopes()) {
            (Some(challenged), _) => (challenged, "the challenge's scope"),
            (None, supported) if !supported.is_empty() => (supported, "every scope of scopes_supported"),
            (None, _) => (
                Vec::new(),
                "no scope (neither the challenge nor the metadata names one)",
            ),
        };
        // offline_access asks for a refresh token, not for the resource:
        // a MAY of its own (AUTH-070) where the authorization server lists it.
        let mut asked = words(first.param("scope"));
        asked.retain(|scope| !(self.setup.offline_access && *scope == OFFLINE_ACCESS));
        if !same_set(&asked, &expected) {
            finding.problem_at(
                &first.label,
                format!(
                    "asked for {}, where {source} is {}",
                    shown(&asked),
                    shown(&expected)
                ),
            );
        }
        finding
    }

    /// AUTH-063: every scope the challenge named is asked for, listed in
    /// `scopes_supported` or not.
    pub(super) fn challenged_scope_requested(&self) -> Finding {
        let name = "the challenge's scopes are asked for, even outside scopes_supported";
        let Some(challenged) = self.challenged_scope() else {
            return self.finding(
                name,
                cite::AUTH_063,
                Level::Must,
                "the 401 challenge named no scope",
            );
        };
        let mut finding = self.authorization_finding(name, cite::AUTH_063, Level::Must);
        let Some(first) = self.auth.authorizations().next() else {
            return finding;
        };
        let asked = words(first.param("scope"));
        let missing: Vec<&str> = challenged
            .iter()
            .filter(|s| !asked.contains(s))
            .copied()
            .collect();
        if !missing.is_empty() {
            let supported = self.supported_scopes();
            finding.problem_at(
                &first.label,
                format!(
                    "asked for {}, leaving out the challenged {} (scopes_supported: {})",
                    shown(&asked),
                    shown(&missing),
                    shown(&supported)
                ),
            );
        }
        finding
    }

    /// The scopes the 401 challenge named, when it named any.
    fn challenged_scope(&self) -> Option<Vec<&str>> {
        let scope = self
            .setup
            .scope
            .as_deref()
            .filter(|_| self.setup.challenge_scope)?;
        Some(words(Some(scope)))
    }

    /// The protected resource metadata's `scopes_supported`.
    fn supported_scopes(&self) -> Vec<&str> {
        match &self.setup.scopes_supported {
            Some(listed) => listed.iter().map(String::as_str).collect(),
            None => words(self.setup.scope.as_deref()),
        }
    }
}

/// The space-separated words of a scope.
fn words(scope: Option<&str>) -> Vec<&str> {
    scope
        .unwrap_or_default()
        .split(' ')
        .filter(|s| !s.is_empty())
        .collect()
}

fn same_set(a: &[&str], b: &[&str]) -> bool {
    a.iter().all(|s| b.contains(s)) && b.iter().all(|s| a.contains(s))
}

fn shown(scopes: &[&str]) -> String {
    if scopes.is_empty() {
        "no scope".into()
    } else {
        format!("`{}`", scopes.join(" "))
    }
}

#[cfg(test)]
mod tests;
