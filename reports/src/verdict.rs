use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The normative strength of a requirement (BCP 14 keywords, negations folded in).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum Level {
    /// MUST / MUST NOT / REQUIRED: breaking it is a failure.
    Must,
    /// SHOULD / SHOULD NOT / RECOMMENDED: breaking it is a non-strict finding.
    Should,
    /// MAY / OPTIONAL: absence is only ever reported as not observed.
    May,
}

impl Level {
    /// The verdict a broken expectation of this level earns.
    pub fn verdict_when_broken(self) -> Verdict {
        match self {
            Level::Must => Verdict::Fail,
            Level::Should => Verdict::NonStrict,
            Level::May => Verdict::NotObserved,
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Level::Must => "MUST",
            Level::Should => "SHOULD",
            Level::May => "MAY",
        })
    }
}

/// What a requirement's level rests on: its provenance.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Basis {
    /// An RFC 2119 keyword of the spec (MUST, SHOULD, MAY and their negations).
    #[default]
    Keyword,
    /// Lower-case prose of the spec ("the server responds with ...") read as a rule.
    Prose,
    /// Our inference: no sentence says it; it is derived from sentences that do.
    Inference,
    /// A rule of mcp-conform itself where the spec has none (gateways) or
    /// stands behind a tool (the protocol model, `--schema-dir`): it binds
    /// what the harness's own commands promise, at the level it states.
    Harness,
}

impl Basis {
    /// Whether the level is the spec's own keyword (not shown in reports).
    pub fn is_keyword(&self) -> bool {
        *self == Basis::Keyword
    }

    /// The verdict a check on this basis may stand at: a reading the spec
    /// does not state with a keyword never fails a run (non-strict at most).
    pub fn bounded(self, verdict: Verdict) -> Verdict {
        match self {
            Basis::Prose | Basis::Inference if verdict == Verdict::Fail => Verdict::NonStrict,
            _ => verdict,
        }
    }

    /// `verdict` as reports show it: with the label when it has one
    /// (`non-strict (inferred)`).
    pub fn annotate(self, verdict: Verdict) -> String {
        match self.label() {
            Some(label) => format!("{verdict} ({label})"),
            None => verdict.to_string(),
        }
    }

    /// What reports show next to a verdict resting on this basis.
    pub fn label(self) -> Option<&'static str> {
        match self {
            Basis::Keyword => None,
            Basis::Prose => Some("inferred from prose"),
            Basis::Inference => Some("inferred"),
            Basis::Harness => Some("harness rule"),
        }
    }
}

impl fmt::Display for Basis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Basis::Keyword => "keyword",
            Basis::Prose => "prose",
            Basis::Inference => "inference",
            Basis::Harness => "harness",
        })
    }
}

/// The judgement on one check, or on a whole scenario (the worst of its checks).
///
/// Declared from least to most severe, so `max()` over checks gives the
/// scenario's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The peer did what the requirement asks.
    Pass,
    /// The requirement does not apply: a capability was not declared, or the
    /// negotiated version is out of the requirement's range.
    NotApplicable,
    /// The scenario could not make the peer do what it tests; nothing is claimed.
    NotObserved,
    /// A SHOULD-level expectation was missed.
    NonStrict,
    /// A MUST-level expectation was broken.
    Fail,
    /// Our side or the infrastructure failed (the peer never started, a bad
    /// scenario at run time); nothing is claimed about the peer.
    Error,
}

impl Verdict {
    /// All verdicts, least severe first.
    pub const ALL: [Verdict; 6] = [
        Verdict::Pass,
        Verdict::NotApplicable,
        Verdict::NotObserved,
        Verdict::NonStrict,
        Verdict::Fail,
        Verdict::Error,
    ];

    /// The kebab-case name used in every output format.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::NotApplicable => "not-applicable",
            Verdict::NotObserved => "not-observed",
            Verdict::NonStrict => "non-strict",
            Verdict::Fail => "fail",
            Verdict::Error => "error",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worst_verdict_wins() {
        assert_eq!(Verdict::ALL.iter().copied().max(), Some(Verdict::Error));
        assert_eq!(Verdict::Pass.max(Verdict::NonStrict), Verdict::NonStrict);
        assert_eq!(Verdict::NotObserved.max(Verdict::Fail), Verdict::Fail);
    }

    #[test]
    fn levels_map_to_verdicts() {
        assert_eq!(Level::Must.verdict_when_broken(), Verdict::Fail);
        assert_eq!(Level::Should.verdict_when_broken(), Verdict::NonStrict);
        assert_eq!(Level::May.verdict_when_broken(), Verdict::NotObserved);
    }

    #[test]
    fn only_a_keyword_or_the_harness_can_fail_a_run() {
        assert_eq!(Basis::Keyword.bounded(Verdict::Fail), Verdict::Fail);
        assert_eq!(Basis::Harness.bounded(Verdict::Fail), Verdict::Fail);
        assert_eq!(Basis::Prose.bounded(Verdict::Fail), Verdict::NonStrict);
        assert_eq!(Basis::Inference.bounded(Verdict::Fail), Verdict::NonStrict);
        assert_eq!(Basis::Inference.bounded(Verdict::Error), Verdict::Error);
        assert_eq!(Basis::Inference.bounded(Verdict::Pass), Verdict::Pass);
    }

    #[test]
    fn names_are_kebab_case_in_json() {
        let json = serde_json::to_string(&Verdict::NotApplicable).unwrap();
        assert_eq!(json, "\"not-applicable\"");
        assert_eq!(Verdict::NonStrict.to_string(), "non-strict");
    }
}
