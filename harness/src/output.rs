//! The terminal reporter: one line per scenario as it finishes, then each
//! failure with its diff and scenario location, then a summary.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::time::Duration;

use anstyle::{AnsiColor, Style};
use mcp_conform_core::Verdict;
use mcp_conform_core::version::ProtocolVersion;
use serde_json::Value;
use similar::TextDiff;

use crate::runner::{Check, ScenarioOutcome};

/// How a verdict reads in a status column.
pub fn label(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Pass => "pass",
        Verdict::NotApplicable => "not-applicable",
        Verdict::NotObserved => "not-observed",
        Verdict::NonStrict => "non-strict",
        Verdict::Fail => "FAIL",
        Verdict::Error => "ERROR",
    }
}

fn style(verdict: Verdict) -> Style {
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
pub fn case_name(outcome: &ScenarioOutcome, named: bool) -> String {
    match outcome.version.filter(|_| named) {
        Some(version) => format!("{}@{version}", outcome.id),
        None => outcome.id.clone(),
    }
}

/// The line printed when a scenario finishes.
pub fn scenario_line(outcome: &ScenarioOutcome) -> String {
    case_line(outcome, false)
}

/// The line printed when a case finishes (see [`case_name`]).
pub fn case_line(outcome: &ScenarioOutcome, named: bool) -> String {
    let verdict = style(outcome.verdict);
    let mut line = format!(
        "{verdict}{:<14}{verdict:#} {:<40} {:>6}",
        label(outcome.verdict),
        case_name(outcome, named),
        seconds(outcome.duration)
    );
    if let Some(note) = outcome.note.as_ref().filter(|_| outcome.verdict != Verdict::Fail) {
        write!(line, "  ({note})").expect("writing to a String");
    }
    match outcome.remarks.len() {
        0 => {}
        1 => line.push_str("  (1 remark)"),
        n => write!(line, "  ({n} remarks)").expect("writing to a String"),
    }
    line
}

/// The details of every scenario that did not pass, not-applicable and
/// not-observed ones excepted (their line says why). Remarks are spelled out
/// only here: the scenario citing their requirement gives the verdict on them.
pub fn failure_details(outcomes: &[ScenarioOutcome]) -> String {
    case_failure_details(outcomes, false)
}

/// [`failure_details`], each case named as in [`case_name`].
pub fn case_failure_details(outcomes: &[ScenarioOutcome], named: bool) -> String {
    let mut out = String::new();
    for outcome in outcomes
        .iter()
        .filter(|o| matches!(o.verdict, Verdict::Fail | Verdict::NonStrict | Verdict::Error))
    {
        let location = outcome
            .checks
            .iter()
            .find(|c| c.verdict == outcome.verdict)
            .map(|c| c.span);
        let at = match location.filter(|s| s.is_known()) {
            Some(span) => format!("{}:{span}", outcome.path.display()),
            None => outcome.path.display().to_string(),
        };
        let name = case_name(outcome, named);
        writeln!(out, "\n── {name} ({}) ── {at}", label(outcome.verdict)).expect("String");
        writeln!(out, "   {}", outcome.title).expect("String");
        if let Some(note) = &outcome.note {
            writeln!(out, "   {note}").expect("String");
        }
        for check in outcome.checks.iter().filter(|c| c.verdict >= Verdict::NonStrict) {
            out.push_str(&check_details(outcome, check, label(check.verdict)));
        }
        for remark in &outcome.remarks {
            out.push_str(&check_details(outcome, remark, "remark"));
        }
        if let Some(tail) = &outcome.stderr_tail {
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

fn check_details(outcome: &ScenarioOutcome, check: &Check, label: &str) -> String {
    let mut out = String::new();
    let at = if check.span.is_known() {
        format!(" at {}:{}", outcome.path.display(), check.span)
    } else {
        String::new()
    };
    writeln!(
        out,
        "   {label} {} [{} {}]{at}",
        check.name, check.requirement, check.level
    )
    .expect("String");
    for line in check.message.iter().flat_map(|m| m.lines()) {
        writeln!(out, "     {line}").expect("String");
    }
    if let (Some(expected), Some(actual)) = (&check.expected, &check.actual) {
        out.push_str(&diff(expected, actual));
    }
    if let Some(frame) = check.frame.and_then(|i| outcome.transcript.get(i)) {
        let text = frame.text();
        let short: String = text.chars().take(300).collect();
        writeln!(
            out,
            "     frame: {short}{}",
            if short.len() < text.len() { "…" } else { "" }
        )
        .expect("String");
    }
    out
}

/// A line diff of two values, pretty-printed: `-` expected, `+` actual.
pub fn diff(expected: &Value, actual: &Value) -> String {
    let expected = serde_json::to_string_pretty(expected).unwrap_or_default() + "\n";
    let actual = serde_json::to_string_pretty(actual).unwrap_or_default() + "\n";
    let diff = TextDiff::from_lines(&expected, &actual);
    let mut out = String::from("     diff (- expected, + actual):\n");
    for hunk in diff.unified_diff().context_radius(3).iter_hunks() {
        for change in hunk.iter_changes() {
            write!(out, "     {}{}", change.tag(), change).expect("String");
        }
    }
    out
}

/// The closing summary line; for a run on several versions (`named`), a
/// line per version after it.
pub fn summary(outcomes: &[ScenarioOutcome], elapsed: Duration, named: bool) -> String {
    let what = if named { "cases" } else { "scenarios" };
    let mut out = format!(
        "\n{} {what}: {} in {}",
        outcomes.len(),
        counts(outcomes.iter()),
        seconds(elapsed)
    );
    if named {
        let versions: BTreeSet<Option<ProtocolVersion>> = outcomes.iter().map(|o| o.version).collect();
        for version in versions {
            let cases = outcomes.iter().filter(|o| o.version == version);
            let name = version.map_or_else(|| "no version".to_owned(), |v| v.to_string());
            write!(out, "\n  {name:<12} {}", counts(cases)).expect("String");
        }
    }
    out
}

/// `N pass, N fail, …` of some outcomes (pass always named).
fn counts<'o>(outcomes: impl Iterator<Item = &'o ScenarioOutcome> + Clone) -> String {
    let count = |verdict| outcomes.clone().filter(|o| o.verdict == verdict).count();
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
    .map(|v| format!("{} {}", count(v), label(v).to_lowercase()))
    .collect();
    parts.join(", ")
}

fn seconds(duration: Duration) -> String {
    format!("{:.2}s", duration.as_secs_f64())
}
