//! `junit.xml`: one test suite per case, one test case per check; a case's
//! product checks (the user's own requirements, or none) are a suite of
//! their own, `<case> (product checks)`.
//!
//! A fail is a `<failure type="fail">`; a non-strict finding is a
//! `<failure type="non-strict">` under `--strict` and a `<skipped
//! type="non-strict">` otherwise; not-applicable and not-observed are
//! `<skipped>` with their verdict as type; a failure a baseline accepts is
//! `<skipped type="accepted">`; an error is `<error>`. No times and no
//! timestamp: the file is byte-identical across runs of the same inputs.
//! Every text goes through [`sanitize::controls`]: XML 1.0 cannot carry
//! control characters even escaped, and CI pages show this text raw.
//!
//! The transcript is the `<system-out>` of the case's suite, once. When the
//! transcripts are also written as files, each test case that failed or
//! erred says `[[ATTACHMENT|path]]` in its own `<system-out>`: the line
//! GitLab's test report (and Jenkins' attachments plugin) turns into a link
//! to the file, which the job must keep as an artifact.

use std::path::Path;

use quick_junit::{NonSuccessKind, TestCase, TestCaseStatus, TestSuite};

use crate::model::{Case, CheckResult, Report};
use crate::sanitize::controls;
use crate::{Verdict, text};

/// The report as JUnit XML; `transcripts` is where [`transcript_file`]s
/// are written, as the CI job names it (relative to its working directory
/// for GitLab), when they are.
pub fn write(report: &Report, transcripts: Option<&Path>) -> String {
    let mut junit = quick_junit::Report::new("mcp-conform");
    let strict = report.run.strict;
    for case in &report.cases {
        let (spec, product): (Vec<&CheckResult>, Vec<&CheckResult>) =
            case.checks.iter().partition(|c| c.scope.is_spec());
        // The transcript goes with the first suite of the case, once.
        let spec_suite = !spec.is_empty() || product.is_empty();
        if spec_suite {
            junit.add_test_suite(suite(case, case.name(), &spec, strict, true, transcripts));
        }
        if !product.is_empty() {
            let name = format!("{} (product checks)", case.name());
            junit.add_test_suite(suite(case, name, &product, strict, !spec_suite, transcripts));
        }
    }
    junit.to_string().expect("JUnit XML serializes")
}

/// The file of `case`'s transcript among the transcripts: its name (with
/// the version it ran on) made safe as a file name.
pub fn transcript_file(case: &Case) -> String {
    let name: String = case
        .name()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{name}.txt")
}

/// Whether a case's transcript is written as a file: it missed something
/// (non-strict or worse). Its failed test cases attach it.
pub fn has_attachment(case: &Case) -> bool {
    case.verdict >= Verdict::NonStrict
}

fn suite(
    case: &Case,
    name: String,
    checks: &[&CheckResult],
    strict: bool,
    transcript: bool,
    transcripts: Option<&Path>,
) -> TestSuite {
    let mut suite = TestSuite::new(controls(&name).into_owned());
    if transcript {
        suite.set_system_out(controls(&text::transcript(case)).into_owned());
    }
    if checks.is_empty() {
        // A case with nothing checked still shows up, with the reason.
        let mut status = status_of(case.verdict, strict);
        if let Some(note) = &case.note {
            status.set_message(controls(note).into_owned());
        }
        let name = format!("{} ({})", case.scenario, case.verdict);
        let mut test = TestCase::new(controls(&name).into_owned(), status);
        test.set_classname(controls(&case.scenario).into_owned());
        suite.add_test_case(attach(test, case, transcripts));
    }
    for check in checks {
        suite.add_test_case(attach(test_case(case, check, strict), case, transcripts));
    }
    suite
}

/// A test case that failed or erred, with its transcript file attached.
fn attach(mut test: TestCase, case: &Case, transcripts: Option<&Path>) -> TestCase {
    if let (Some(dir), TestCaseStatus::NonSuccess { .. }) = (transcripts, &test.status) {
        let line = format!("[[ATTACHMENT|{}]]", dir.join(transcript_file(case)).display());
        test.set_system_out(controls(&line).into_owned());
    }
    test
}

fn test_case(case: &Case, check: &CheckResult, strict: bool) -> TestCase {
    let mut status = match &check.accepted {
        Some(acceptance) if check.verdict >= Verdict::NonStrict => {
            let mut status = TestCaseStatus::skipped();
            let message = format!(
                "{}: accepted by the baseline: {}",
                check.verdict, acceptance.reason
            );
            status
                .set_type("accepted")
                .set_message(controls(&message).into_owned());
            status
        }
        _ => status_of(check.verdict, strict),
    };
    if let Some(message) = &check.message {
        if check.accepted.is_none() && check.verdict != Verdict::Pass {
            let first = message.lines().next().unwrap_or_default();
            let verdict = check.basis.annotate(check.verdict);
            status.set_message(controls(&format!("{verdict}: {first}")).into_owned());
        }
        status.set_description(controls(&description(check, message)).into_owned());
    }
    let name = format!("{} {}", check.cited(), check.name);
    let mut test = TestCase::new(controls(&name).into_owned(), status);
    test.set_classname(controls(&case.scenario).into_owned());
    test
}

fn status_of(verdict: Verdict, strict: bool) -> TestCaseStatus {
    let mut status = match verdict {
        Verdict::Pass => return TestCaseStatus::success(),
        Verdict::Fail => TestCaseStatus::non_success(NonSuccessKind::Failure),
        Verdict::NonStrict if strict => TestCaseStatus::non_success(NonSuccessKind::Failure),
        Verdict::Error => TestCaseStatus::non_success(NonSuccessKind::Error),
        Verdict::NonStrict | Verdict::NotApplicable | Verdict::NotObserved => TestCaseStatus::skipped(),
    };
    status.set_type(verdict.as_str()).set_message(verdict.as_str());
    status
}

fn description(check: &CheckResult, message: &str) -> String {
    let mut text = message.to_owned();
    if let (Some(expected), Some(actual)) = (&check.expected, &check.actual) {
        text.push('\n');
        text.push_str(&text::diff_text(expected, actual, ""));
    }
    text
}
