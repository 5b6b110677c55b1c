//! The baseline: failures a project has accepted, each with a reason and
//! an optional expiry date, so a gate fails only on what is new.
//!
//! ```yaml
//! - scenario: tools.call-unknown
//!   requirement: TOOL-002
//!   reason: upstream SDK answers with a result (issue 123)
//!   expires: 2027-01-31
//!   protocol_version: 2026-07-28   # optional: only that version's case
//! ```
//!
//! An entry without `requirement` accepts a scenario's product checks that
//! cite none.

use std::path::Path;

use mcp_conform_core::Verdict;
use mcp_conform_core::diag::Diagnostic;
use mcp_conform_core::scenario::load::parse_diagnostic;
use mcp_conform_core::span::{Located, SourceFile, Span};
use mcp_conform_report::{Acceptance, BaselineInfo, BaselineNote, Case, provenance};
use serde::Deserialize;

/// A parsed baseline file.
#[derive(Debug, Clone)]
pub struct Baseline {
    pub info: BaselineInfo,
    pub entries: Vec<Entry>,
}

/// One accepted failure: every failing check of `requirement` in `scenario`
/// (in its case of `protocol_version` only, when given).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub scenario: String,
    pub requirement: String,
    pub protocol_version: Option<String>,
    pub reason: String,
    /// `YYYY-MM-DD`: the last day the entry accepts anything.
    pub expires: Option<String>,
    /// The entry's first line in the file.
    pub line: usize,
    /// The entry's lines as written (what to delete when it is stale).
    pub text: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EntryFile {
    scenario: String,
    /// Left out: the scenario's product checks citing no requirement.
    #[serde(default)]
    requirement: String,
    #[serde(default)]
    protocol_version: Option<String>,
    reason: Option<String>,
    expires: Option<Located<String>>,
}

/// What applying a baseline to a run found about the baseline itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Findings {
    /// Entries whose checks pass now.
    pub stale: Vec<BaselineNote>,
    /// Entries past their expiry date.
    pub expired: Vec<BaselineNote>,
}

impl Baseline {
    /// Reads and checks a baseline file; every entry needs a reason.
    pub fn load(path: &Path) -> Result<Baseline, Vec<Diagnostic>> {
        let text = std::fs::read_to_string(path).map_err(|error| {
            let source = SourceFile {
                path: path.to_owned(),
                text: "".into(),
            };
            vec![Diagnostic::error(
                &source,
                Span::default(),
                format!("cannot read the baseline {}: {error}", path.display()),
            )]
        })?;
        Baseline::parse(path, &text)
    }

    /// Parses baseline text read from `path`.
    pub fn parse(path: &Path, text: &str) -> Result<Baseline, Vec<Diagnostic>> {
        let source = SourceFile {
            path: path.to_owned(),
            text: text.into(),
        };
        let parsed: Option<Vec<Located<EntryFile>>> =
            serde_saphyr::from_str(text).map_err(|e| vec![parse_diagnostic(&source, &e)])?;
        let parsed = parsed.unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let starts: Vec<usize> = parsed.iter().map(|e| e.span.line as usize).collect();
        let mut entries = Vec::new();
        let mut diagnostics = Vec::new();
        for (i, located) in parsed.into_iter().enumerate() {
            let span = located.span;
            let entry = located.value;
            let reason = entry.reason.map(|r| r.trim().to_owned()).unwrap_or_default();
            if reason.is_empty() {
                diagnostics.push(
                    Diagnostic::error(&source, span, format!("baseline entry for {} {} has no reason", entry.scenario, entry.requirement))
                        .with_label("this entry")
                        .with_help("say why the failure is accepted: `reason: …` (and when it should end: `expires: YYYY-MM-DD`)"),
                );
            }
            if let Some(expires) = entry.expires.as_ref().filter(|e| !is_date(e)) {
                diagnostics.push(
                    Diagnostic::error(
                        &source,
                        expires.span,
                        format!("`{}` is not a date", expires.value),
                    )
                    .with_label("expected YYYY-MM-DD"),
                );
            }
            let first = span.line as usize;
            let end = starts.get(i + 1).map_or(lines.len(), |next| next - 1);
            entries.push(Entry {
                scenario: entry.scenario,
                requirement: entry.requirement,
                protocol_version: entry.protocol_version,
                reason,
                expires: entry.expires.map(|e| e.value),
                line: first,
                text: entry_text(&lines, first, end),
            });
        }
        if !diagnostics.is_empty() {
            return Err(diagnostics);
        }
        Ok(Baseline {
            info: BaselineInfo {
                path: path.display().to_string(),
                digest: provenance::fingerprint([text.as_bytes()]),
                entries: entries.len(),
            },
            entries,
        })
    }

    /// Marks the failing checks an unexpired entry accepts, and says which
    /// entries are stale (their scenario ran and nothing of the requirement
    /// failed) or expired.
    /// An entry whose scenario did not run (another shard, a filter) is neither.
    pub fn apply(&self, cases: &mut [Case], today: &str) -> Findings {
        let mut findings = Findings::default();
        for entry in &self.entries {
            if entry.expires.as_deref().is_some_and(|date| date < today) {
                findings.expired.push(entry.note());
                continue;
            }
            // The scenario ran to a verdict on the peer, so every check of
            // it (frame rules included, which only report breaks) was made.
            let mut ran = false;
            let mut diverges = false;
            let covers = |case: &Case| {
                case.scenario == entry.scenario
                    && entry
                        .protocol_version
                        .as_ref()
                        .is_none_or(|version| case.protocol_version.as_ref() == Some(version))
            };
            for case in cases.iter_mut().filter(|c| covers(c)) {
                ran |= matches!(case.verdict, Verdict::Pass | Verdict::NonStrict | Verdict::Fail);
                for check in case
                    .checks
                    .iter_mut()
                    .filter(|c| c.requirement == entry.requirement)
                {
                    if matches!(check.verdict, Verdict::NonStrict | Verdict::Fail) {
                        diverges = true;
                        check.accepted = Some(Acceptance {
                            reason: entry.reason.clone(),
                            expires: entry.expires.clone(),
                            line: entry.line,
                        });
                    }
                }
            }
            if ran && !diverges {
                findings.stale.push(entry.note());
            }
        }
        findings
    }
}

impl Entry {
    fn note(&self) -> BaselineNote {
        BaselineNote {
            line: self.line,
            text: self.text.clone(),
            scenario: self.scenario.clone(),
            requirement: self.requirement.clone(),
            protocol_version: self.protocol_version.clone(),
        }
    }
}

/// Lines `first..=end` (1-based), trailing blank and comment lines dropped.
fn entry_text(lines: &[&str], first: usize, end: usize) -> String {
    let mut taken: Vec<&str> = lines
        .get(first.saturating_sub(1)..end.min(lines.len()))
        .unwrap_or_default()
        .to_vec();
    while taken
        .last()
        .is_some_and(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
    {
        taken.pop();
    }
    taken.join("\n")
}

fn is_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 10
        && bytes.iter().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                *b == b'-'
            } else {
                b.is_ascii_digit()
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "# accepted\n- scenario: a.one\n  requirement: X-001\n  reason: known\n\n- scenario: b.two\n  requirement: Y-002\n  reason: later\n  expires: 2020-01-01\n";

    #[test]
    fn entries_keep_their_lines() {
        let baseline = Baseline::parse(Path::new("b.yaml"), TEXT).unwrap();
        assert_eq!(baseline.entries.len(), 2);
        assert_eq!(baseline.entries[0].line, 2);
        assert_eq!(
            baseline.entries[0].text,
            "- scenario: a.one\n  requirement: X-001\n  reason: known"
        );
        assert_eq!(baseline.entries[1].expires.as_deref(), Some("2020-01-01"));
    }

    /// A failing case of `a.one` on `version`, one failing check per requirement.
    fn failing(version: &str, requirements: &[&str]) -> Case {
        let check = |requirement: &&str| mcp_conform_report::CheckResult {
            requirement: (*requirement).into(),
            scope: Default::default(),
            name: "x".into(),
            level: mcp_conform_core::Level::Must,
            basis: Default::default(),
            verdict: Verdict::Fail,
            message: None,
            expected: None,
            actual: None,
            location: None,
            frame: None,
            accepted: None,
        };
        Case {
            scenario: "a.one".into(),
            title: String::new(),
            area: "a".into(),
            file: String::new(),
            protocol_version: Some(version.into()),
            verdict: Verdict::Fail,
            note: None,
            checks: requirements.iter().map(check).collect(),
            remarks: Vec::new(),
            transcript: Vec::new(),
            transcript_cut: None,
            stderr_tail: None,
            startup_ms: None,
        }
    }

    #[test]
    fn an_entry_without_a_requirement_accepts_the_product_checks_citing_none() {
        let text = "- scenario: a.one\n  reason: the booking tool is being rewritten\n";
        let baseline = Baseline::parse(Path::new("b.yaml"), text).unwrap();
        let mut cases = vec![failing("2025-11-25", &["", "RPC-004"])];
        baseline.apply(&mut cases, "2026-01-01");
        let accepted: Vec<bool> = cases[0].checks.iter().map(|c| c.accepted.is_some()).collect();
        assert_eq!(accepted, [true, false]);
    }

    #[test]
    fn an_entry_with_a_version_accepts_that_case_only() {
        let text = "- scenario: a.one\n  requirement: X-001\n  reason: modern only\n  protocol_version: 2026-07-28\n";
        let baseline = Baseline::parse(Path::new("b.yaml"), text).unwrap();
        let mut cases = vec![
            failing("2025-11-25", &["X-001"]),
            failing("2026-07-28", &["X-001"]),
        ];
        let findings = baseline.apply(&mut cases, "2026-01-01");
        assert!(cases[0].checks[0].accepted.is_none());
        assert!(cases[1].checks[0].accepted.is_some());
        assert!(findings.stale.is_empty());
    }

    #[test]
    fn a_missing_reason_is_located() {
        let text = "- scenario: a.one\n  requirement: X-001\n";
        let diagnostics = Baseline::parse(Path::new("b.yaml"), text).unwrap_err();
        let rendered = diagnostics[0].render(false);
        assert!(
            rendered.contains("has no reason") && rendered.contains("b.yaml:1"),
            "{rendered}"
        );
    }

    #[test]
    fn a_bad_date_is_located() {
        let text = "- scenario: a.one\n  requirement: X-001\n  reason: r\n  expires: soon\n";
        let diagnostics = Baseline::parse(Path::new("b.yaml"), text).unwrap_err();
        assert!(
            diagnostics[0].render(false).contains("b.yaml:4"),
            "{}",
            diagnostics[0].render(false)
        );
    }
}
