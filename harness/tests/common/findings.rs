//! A real-peer run's findings: every check behind a non-pass verdict, with the
//! line of evidence its report shows, made deterministic (ports, temporary
//! paths, session ids and timings masked) so it can be snapshotted beside the
//! verdict table. `findings_page.rs` assembles `docs/findings.md` from these
//! snapshots.

use std::sync::LazyLock;

use mcp_conform_report::{Basis, Case, CheckResult, Level, Report, Verdict};
use regex::Regex;
use serde::{Deserialize, Serialize};

/// One run's findings, as its `<snapshot>_findings` snapshot keeps them.
#[derive(Debug, Serialize, Deserialize)]
pub struct RunFindings {
    /// `stdio`, `http`, `client`, … : the first word of the report's target.
    pub transport: String,
    pub protocol_versions: Vec<String>,
    /// Cases per verdict, in the order of [`Verdict`]'s variants.
    pub counts: Vec<(Verdict, usize)>,
    /// The cases whose scenario could not be observed, by name.
    pub not_observed: Vec<String>,
    pub findings: Vec<Finding>,
}

/// A non-pass check of a case (or the case itself when no check says why).
#[derive(Debug, Serialize, Deserialize)]
pub struct Finding {
    pub scenario: String,
    /// The case's version, in a run of several versions.
    pub protocol_version: Option<String>,
    pub verdict: Verdict,
    /// The requirement ID; absent when only the case's note says why.
    pub requirement: Option<String>,
    pub level: Option<Level>,
    pub basis: Option<Basis>,
    /// What was checked, in a few words.
    pub check: Option<String>,
    /// The divergence line of the report (the check's message or the case's note).
    pub evidence: String,
    /// The transcript frame the check points at, as the transcript shows it.
    pub frame: Option<String>,
}

/// Characters of evidence and of a frame kept: enough for one line a reader
/// can judge, never a whole payload.
const EVIDENCE_CHARS: usize = 300;

const NON_PASS: [Verdict; 3] = [Verdict::Fail, Verdict::NonStrict, Verdict::Error];

/// The findings of `report`.
pub fn of(report: &Report) -> RunFindings {
    let versioned = report.run.protocol_versions.len() > 1;
    let mut cases: Vec<&Case> = report.cases.iter().collect();
    cases.sort_by_key(|case| case.name());
    let counts = [
        Verdict::Pass,
        Verdict::Fail,
        Verdict::NonStrict,
        Verdict::Error,
        Verdict::NotObserved,
        Verdict::NotApplicable,
    ]
    .into_iter()
    .map(|verdict| (verdict, report.summary.count(verdict)))
    .filter(|(_, count)| *count > 0)
    .collect();
    RunFindings {
        transport: report.run.target.split(':').next().unwrap_or_default().to_owned(),
        protocol_versions: report.run.protocol_versions.clone(),
        counts,
        not_observed: cases
            .iter()
            .filter(|case| case.verdict == Verdict::NotObserved)
            .map(|case| name(case, versioned))
            .collect(),
        findings: cases
            .iter()
            .filter(|case| NON_PASS.contains(&case.verdict))
            .flat_map(|case| case_findings(case, versioned))
            .collect(),
    }
}

fn name(case: &Case, versioned: bool) -> String {
    if versioned {
        case.name()
    } else {
        case.scenario.clone()
    }
}

fn case_findings(case: &Case, versioned: bool) -> Vec<Finding> {
    let finding = |check: Option<&CheckResult>, verdict, evidence: &str| Finding {
        scenario: case.scenario.clone(),
        protocol_version: case.protocol_version.clone().filter(|_| versioned),
        verdict,
        requirement: check.map(|c| c.requirement.clone()),
        level: check.map(|c| c.level),
        basis: check.map(|c| c.basis),
        check: check.map(|c| c.name.clone()),
        evidence: normalise(evidence),
        frame: check
            .and_then(|c| c.frame)
            .and_then(|index| case.transcript.iter().find(|f| f.index == index))
            .map(|frame| normalise(&mcp_conform_report::text::frame_line(frame))),
    };
    let checks: Vec<Finding> = case
        .checks
        .iter()
        .filter(|check| NON_PASS.contains(&check.verdict))
        .map(|check| {
            finding(
                Some(check),
                check.verdict,
                check.message.as_deref().unwrap_or_default(),
            )
        })
        .collect();
    if checks.is_empty() {
        vec![finding(
            None,
            case.verdict,
            case.note.as_deref().unwrap_or_default(),
        )]
    } else {
        checks
    }
}

/// What differs from run to run, masked, on one line of at most
/// [`EVIDENCE_CHARS`] characters.
pub fn normalise(text: &str) -> String {
    static VOLATILE: LazyLock<[(Regex, &str); 4]> = LazyLock::new(|| {
        [
            (r"(127\.0\.0\.1|localhost|\[::1\]):\d+", "$1:<port>"),
            (r"/tmp/[^\s\x22'`,)]+", "<tmp>"),
            (
                r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|\b[0-9a-f]{32}\b",
                "<id>",
            ),
            (r"\b(pid|process) \d+", "$1 <pid>"),
        ]
        .map(|(pattern, replacement)| (Regex::new(pattern).expect("a valid pattern"), replacement))
    });
    let mut line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for (pattern, replacement) in VOLATILE.iter() {
        line = pattern.replace_all(&line, *replacement).into_owned();
    }
    match line.char_indices().nth(EVIDENCE_CHARS) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line,
    }
}
