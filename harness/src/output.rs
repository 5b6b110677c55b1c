//! The terminal reporter: a line per case as it finishes (only those that
//! need attention unless `--verbose`, see [`crate::quiet`]), then each
//! failure with its diff and scenario location, a summary and the gate.
//! It renders the report model ([`Case`], [`Report`]), the same values the
//! report files are written from, so the terminal and the files cannot
//! disagree. Peer text reaches the terminal only through
//! [`sanitize::controls`]: no escape sequence of a peer's acts on it.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::time::Duration;

use anstyle::{AnsiColor, Style};
use mcp_conform_core::redact::Secrets;
use mcp_conform_report::{Case, CheckResult, Report, Verdict, sanitize, text};

use crate::progress::Progress;
use crate::quiet::Listing;
use crate::report::CaseLog;
use crate::runner::RunEvent;

/// The live side of a run on the terminal: consumes the runner's events,
/// converting each finished case into the report model and printing its
/// line (above the progress bar, on a terminal).
#[derive(Debug)]
pub struct LiveOutput {
    progress: Progress,
    cases: CaseLog,
    /// Whether cases are named with their version (see [`case_name`]).
    named: bool,
    /// Which cases get a line as they finish.
    listing: Listing,
}

impl LiveOutput {
    /// Output for a run of `total` cases that never shows `secrets`, with
    /// a line for each case `listing` lists.
    pub fn new(total: usize, named: bool, secrets: Secrets, listing: Listing) -> LiveOutput {
        LiveOutput {
            progress: Progress::new(total),
            cases: CaseLog::new(secrets),
            named,
            listing,
        }
    }

    /// What no output may show, to add the secrets the run made as it went
    /// (tokens minted during it).
    pub fn secrets_mut(&mut self) -> &mut Secrets {
        self.cases.secrets_mut()
    }

    /// Takes in one event of the run.
    pub fn on_event(&mut self, event: &RunEvent) {
        match event {
            RunEvent::Started { id, .. } => self.progress.started(id),
            RunEvent::Finished { index, outcome } => {
                let case = self.cases.record(*index, outcome);
                let line = self
                    .listing
                    .lists(case.verdict)
                    .then(|| case_line(case, outcome.duration, self.named));
                self.progress.finished(line.as_deref());
            }
        }
    }

    /// Removes the progress bar; returns the cases in the run's order.
    pub fn finish(self) -> Vec<Case> {
        self.progress.finish();
        self.cases.into_cases()
    }
}

/// How a verdict reads in a status column.
pub fn label(verdict: Verdict) -> &'static str {
    match verdict {
        // Shouted, so that they stand out in a column of lower-case verdicts.
        Verdict::Fail => "FAIL",
        Verdict::Error => "ERROR",
        quiet => quiet.as_str(),
    }
}

/// The colour of a verdict's label.
pub fn style(verdict: Verdict) -> Style {
    let color = match verdict {
        Verdict::Pass => AnsiColor::Green,
        Verdict::NotApplicable | Verdict::NotObserved => AnsiColor::BrightBlack,
        Verdict::NonStrict => AnsiColor::Yellow,
        Verdict::Fail | Verdict::Error => AnsiColor::Red,
    };
    Style::new().fg_color(Some(color.into()))
}

/// How a case is named: its scenario's id, with `@version` when the run
/// has several versions (`named`).
pub fn case_name(case: &Case, named: bool) -> String {
    if named { case.name() } else { case.scenario.clone() }
}

/// The line printed when a case finishes.
pub fn case_line(case: &Case, duration: Duration, named: bool) -> String {
    let verdict = style(case.verdict);
    let mut line = format!(
        "{verdict}{:<14}{verdict:#} {:<40} {:>6}",
        label(case.verdict),
        sanitize::controls(&case_name(case, named)),
        seconds(duration)
    );
    if let Some(note) = case.note.as_ref().filter(|_| case.verdict != Verdict::Fail) {
        write!(line, "  ({})", sanitize::controls(note)).expect("writing to a String");
    }
    match case.remarks.len() {
        0 => {}
        1 => line.push_str("  (1 remark)"),
        n => write!(line, "  ({n} remarks)").expect("writing to a String"),
    }
    line
}

/// The details of every case that did not pass, not-applicable and
/// not-observed ones excepted (their line says why). Remarks are spelled out
/// only here: the scenario citing their requirement gives the verdict on them.
pub fn failure_details(cases: &[Case], named: bool) -> String {
    sanitize::controls(&unsanitized_details(cases, named)).into_owned()
}

fn unsanitized_details(cases: &[Case], named: bool) -> String {
    let mut out = String::new();
    for case in cases
        .iter()
        .filter(|c| matches!(c.verdict, Verdict::Fail | Verdict::NonStrict | Verdict::Error))
    {
        let location = case
            .checks
            .iter()
            .find(|c| c.verdict == case.verdict)
            .and_then(|c| c.location.as_ref());
        let at = match location {
            Some(location) => format!("{}:{location}", case.file),
            None => case.file.clone(),
        };
        let name = case_name(case, named);
        writeln!(out, "\n── {name} ({}) ── {at}", label(case.verdict)).expect("String");
        writeln!(out, "   {}", case.title).expect("String");
        if let Some(note) = &case.note {
            writeln!(out, "   {note}").expect("String");
        }
        for check in case.checks.iter().filter(|c| c.verdict >= Verdict::NonStrict) {
            out.push_str(&check_details(case, check, label(check.verdict)));
        }
        for remark in &case.remarks {
            out.push_str(&check_details(case, remark, "remark"));
        }
        if let Some(tail) = &case.stderr_tail {
            // Over HTTP the tail holds the transport's incidents (`[http …]` lines).
            let title = if tail.starts_with("[http ") {
                "what the HTTP transport saw"
            } else {
                "stderr of the peer (last lines)"
            };
            writeln!(out, "   {title}:").expect("String");
            for line in tail.lines() {
                writeln!(out, "   | {line}").expect("String");
            }
        }
    }
    out
}

fn check_details(case: &Case, check: &CheckResult, label: &str) -> String {
    let mut out = String::new();
    let at = match &check.location {
        Some(location) => format!(" at {}:{location}", case.file),
        None => String::new(),
    };
    let product = (!check.scope.is_spec()).then_some("product check");
    let notes: String = check
        .basis
        .label()
        .into_iter()
        .chain(product)
        .map(|note| format!(", {note}"))
        .collect();
    writeln!(
        out,
        "   {label} {} [{} {}{notes}]{at}",
        check.name,
        check.cited(),
        check.level,
    )
    .expect("String");
    for line in check.message.iter().flat_map(|m| m.lines()) {
        writeln!(out, "     {line}").expect("String");
    }
    if let (Some(expected), Some(actual)) = (&check.expected, &check.actual) {
        out.push_str(&text::diff_text(expected, actual, "     "));
    }
    if let Some(frame) = check.frame.and_then(|i| case.transcript.get(i)) {
        let short: String = frame.text.chars().take(300).collect();
        writeln!(
            out,
            "     frame: {short}{}",
            if short.len() < frame.text.len() { "…" } else { "" }
        )
        .expect("String");
    }
    out
}

/// The closing summary line; for a run on several versions (`named`), a
/// line per version after it.
pub fn summary(cases: &[Case], elapsed: Duration, named: bool) -> String {
    let what = if named { "cases" } else { "scenarios" };
    let mut out = format!(
        "\n{} {what}: {} in {}",
        cases.len(),
        counts(cases.iter()),
        seconds(elapsed)
    );
    if named {
        // Version names are dates, so their text order is their age.
        let versions: BTreeSet<Option<&str>> = cases.iter().map(|c| c.protocol_version.as_deref()).collect();
        for version in versions {
            let of_version = cases.iter().filter(|c| c.protocol_version.as_deref() == version);
            let name = version.unwrap_or("no version");
            write!(out, "\n  {name:<12} {}", counts(of_version)).expect("String");
        }
    }
    out
}

/// The line on the product checks (the user's own requirements, or none)
/// after the summary: how many ended with each verdict. Empty without any.
pub fn product_checks(cases: &[Case]) -> String {
    let verdicts: Vec<Verdict> = cases
        .iter()
        .flat_map(|c| &c.checks)
        .filter(|c| !c.scope.is_spec())
        .map(|c| c.verdict)
        .collect();
    if verdicts.is_empty() {
        return String::new();
    }
    let counts: Vec<String> = Verdict::ALL
        .iter()
        .rev()
        .filter_map(|v| {
            let n = verdicts.iter().filter(|verdict| *verdict == v).count();
            (n > 0).then(|| format!("{n} {}", v.as_str()))
        })
        .collect();
    format!("product checks: {} ({})\n", verdicts.len(), counts.join(", "))
}

/// `N pass, N fail, …` of some cases (pass always named).
fn counts<'c>(cases: impl Iterator<Item = &'c Case> + Clone) -> String {
    let count = |verdict| cases.clone().filter(|c| c.verdict == verdict).count();
    let parts: Vec<String> = [
        Verdict::Pass,
        Verdict::Fail,
        Verdict::NonStrict,
        Verdict::Error,
        Verdict::NotApplicable,
        Verdict::NotObserved,
    ]
    .into_iter()
    .filter(|v| count(*v) > 0 || *v == Verdict::Pass)
    .map(|v| format!("{} {}", count(v), v.as_str()))
    .collect();
    parts.join(", ")
}

/// What the gate says on the terminal after the summary: baseline
/// bookkeeping and the stale lines to delete.
pub fn gate_lines(report: &Report) -> String {
    sanitize::controls(&unsanitized_gate_lines(report)).into_owned()
}

fn unsanitized_gate_lines(report: &Report) -> String {
    let gate = &report.gate;
    let mut out = String::new();
    if let Some(baseline) = &report.run.baseline {
        writeln!(
            out,
            "baseline {}: {} failing checks accepted, {} new",
            baseline.path,
            gate.accepted,
            gate.new_failures.len()
        )
        .expect("String");
        for note in &gate.expired {
            writeln!(
                out,
                "expired baseline entry {}:{} ({} {}) accepts nothing any more",
                baseline.path, note.line, note.scenario, note.requirement
            )
            .expect("String");
        }
        for note in &gate.stale {
            writeln!(
                out,
                "stale baseline entry {}:{}: {} {} passes now; delete:\n{}",
                baseline.path, note.line, note.scenario, note.requirement, note.text
            )
            .expect("String");
        }
    }
    if report.run.strict {
        let non_strict = gate
            .new_failures
            .iter()
            .filter(|f| f.verdict == Verdict::NonStrict)
            .count();
        if non_strict > 0 {
            writeln!(out, "--strict: {non_strict} non-strict findings fail the gate").expect("String");
        }
    }
    out
}

fn seconds(duration: Duration) -> String {
    format!("{:.2}s", duration.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use mcp_conform_report::{Direction, Level, WireFrame};
    use serde_json::json;

    use super::*;

    fn failing_case(version: &str) -> Case {
        let check = CheckResult {
            requirement: "TOOL-004".into(),
            scope: Default::default(),
            name: "response to tools/call".into(),
            level: Level::Must,
            basis: Default::default(),
            verdict: Verdict::Fail,
            message: Some("expected an error".into()),
            expected: Some(json!({"code": -32602})),
            actual: Some(json!({"code": -32601})),
            location: Some("11:15".into()),
            frame: Some(0),
            accepted: None,
        };
        Case {
            scenario: "tools.unknown-tool".into(),
            title: "Calling an unknown tool gets a JSON-RPC error".into(),
            area: "tools".into(),
            file: "scenarios/tools/unknown-tool.yaml".into(),
            protocol_version: Some(version.into()),
            verdict: Verdict::Fail,
            note: None,
            checks: vec![check],
            remarks: Vec::new(),
            transcript: vec![WireFrame {
                index: 0,
                direction: Direction::Received,
                text: r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601}}"#.into(),
                answers: None,
                http: None,
            }],
            transcript_cut: None,
            stderr_tail: None,
            startup_ms: None,
        }
    }

    #[test]
    fn a_failure_shows_its_location_diff_and_frame() {
        let details = failure_details(&[failing_case("2025-11-25")], true);
        assert_eq!(
            details,
            concat!(
                "\n── tools.unknown-tool@2025-11-25 (FAIL) ── scenarios/tools/unknown-tool.yaml:11:15\n",
                "   Calling an unknown tool gets a JSON-RPC error\n",
                "   FAIL response to tools/call [TOOL-004 MUST] at scenarios/tools/unknown-tool.yaml:11:15\n",
                "     expected an error\n",
                "     diff (- expected, + actual):\n",
                "      {\n",
                "     -  \"code\": -32602\n",
                "     +  \"code\": -32601\n",
                "      }\n",
                "     frame: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32601}}\n",
            )
        );
    }

    #[test]
    fn peer_text_reaches_the_terminal_with_its_controls_escaped() {
        let active = "\x1b]8;;http://evil/\x1b\\x\x1b[2J\x1b]0;title\x07\0\x08\u{202e}";
        let mut case = failing_case("2025-11-25");
        case.verdict = Verdict::Error;
        case.note = Some(active.into());
        case.checks[0].message = Some(active.into());
        case.checks[0].actual = Some(json!({"code": active}));
        case.transcript[0].text = active.into();
        case.stderr_tail = Some(active.into());
        let details = failure_details(&[case.clone()], false);
        let line = case_line(&case, Duration::ZERO, false);
        for shown in [&details, &line] {
            assert!(
                !shown.contains("\x1b]") && !shown.contains("\x1b[2J"),
                "{shown:?}"
            );
            assert!(!shown.contains(['\0', '\x07', '\x08', '\u{202e}']), "{shown:?}");
            assert!(shown.contains("\\x1b]8;;http://evil/"), "{shown:?}");
        }
        assert_eq!(details.matches("\\u{202e}").count(), 5, "{details}");
    }

    #[test]
    fn the_summary_counts_each_version_in_date_order() {
        let cases = [failing_case("2025-11-25"), failing_case("2024-11-05")];
        assert_eq!(
            summary(&cases, Duration::from_millis(1500), true),
            "\n2 cases: 0 pass, 2 fail in 1.50s\n  2024-11-05   0 pass, 1 fail\n  2025-11-25   0 pass, 1 fail"
        );
    }
}
