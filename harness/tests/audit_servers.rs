//! Correct servers written apart from the reference server, whose choices
//! differ from it where the spec leaves them open, pass the bundled suite:
//! `fixtures/servers/unusual.py` over stdio and `unusual_http.py` over
//! Streamable HTTP (stdlib Python; their docstrings list the habits). Each
//! run has no failure, no error, and at least the passes it had when
//! written, and the scenarios its habits touch pass, so none of it can be
//! vacuous. The broken variants (`bug=NAME`) are in broken_audit_servers.rs.

use std::time::Duration;

use common::report::{Judged, judge};
use mcp_conform_report::{Case, Verdict};

mod common;
mod http_server;

fn fixture(path: &str) -> String {
    format!("{}/../fixtures/servers/{path}", env!("CARGO_MANIFEST_DIR"))
}

/// The scenarios whose ids contain one of `filters` (all when none), run
/// against `unusual.py HABITS` over stdio on 2025-11-25, four at once (they
/// mostly wait).
fn stdio(habits: &str, profile: &str, filters: &[&str]) -> Judged {
    let server = format!("python3 {} {habits}", fixture("unusual.py"));
    let profile = fixture(profile);
    let mut args = vec!["run", "--stdio", &server, "--profile", &profile, "--jobs", "4"];
    for filter in filters {
        args.extend(["--filter", filter]);
    }
    judge(&args, Duration::from_secs(120))
}

/// No case failed or broke, at least `passes` passed, and each of `passed` did.
fn assert_correct(run: &Judged, passes: usize, passed: &[&str]) {
    let summary = &run.report.summary;
    for bad in [Verdict::Fail, Verdict::NonStrict, Verdict::Error] {
        assert_eq!(summary.count(bad), 0, "{bad} cases:\n{}", run.stdout());
    }
    assert!(
        summary.count(Verdict::Pass) >= passes,
        "fewer passes than {passes}:\n{}",
        run.stdout()
    );
    for scenario in passed {
        let cases: Vec<_> = run
            .report
            .cases
            .iter()
            .filter(|c| c.scenario == *scenario)
            .collect();
        assert!(
            !cases.is_empty() && cases.iter().all(|c| c.verdict == Verdict::Pass),
            "{scenario} did not pass:\n{}",
            run.stdout()
        );
    }
    assert_eq!(run.code(), Some(0), "{}", run.stdout());
}

/// `_meta` and unknown members in every result (ping's too), one item a
/// page behind opaque cursors, logs and progress before answers, string and
/// 2^53+ ids on its own requests, every content type in a tool's answer.
#[test]
fn a_server_with_unusual_habits_passes_over_stdio() {
    let areas = [
        "lifecycle",
        "pagination",
        "progress",
        "elicitation",
        "sampling",
        "roots",
        "logging",
        "tools",
    ];
    let run = stdio("", "unusual.profile.yaml", &areas);
    assert_correct(
        &run,
        24,
        &[
            "lifecycle.ping",
            "lifecycle.initialize",
            "pagination.tools",
            "pagination.resources",
            "progress.token",
            "elicitation.accept",
            "sampling.round-trip",
            "roots.round-trip",
            "logging.filtering",
            "tools.call",
        ],
    );
}

/// SSE answers in chunks split mid-line, with CRLF, comments, `retry`,
/// event ids and the JSON over two `data:` lines; JSON with a charset; 405
/// to GET; a session per initialize. On every version it speaks.
#[test]
fn a_server_with_unusual_habits_passes_over_streamable_http() {
    let port = http_server::free_port().to_string();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let start = format!("python3 {} {port}", fixture("unusual_http.py"));
    let profile = fixture("unusual.profile.yaml");
    let args = [
        "run",
        "--url",
        &url,
        "--start",
        &start,
        "--profile",
        &profile,
        "--protocol",
        "all",
    ];
    let run = judge(&args, Duration::from_secs(120));
    assert_correct(
        &run,
        197,
        &[
            "http.post-answer-forms",
            "http.sse-priming",
            "http.batch",
            "http.session-end",
            "lifecycle.ping",
            "elicitation.accept",
        ],
    );
}

/// A list longer than the suite walks (120 more resources, one a page) is
/// no fault: the walk stops, not judged (before: "still a nextCursor after
/// 50 pages", a failure).
#[test]
fn a_list_longer_than_the_walk_is_not_a_failure() {
    let run = stdio("many=120", "unusual.profile.yaml", &["resources"]);
    assert_correct(&run, 2, &["resources.read-unknown"]);
    for scenario in ["pagination.resources", "resources.read-listed"] {
        assert_eq!(
            case(&run, scenario).verdict,
            Verdict::NotObserved,
            "{}",
            run.stdout()
        );
    }
}

/// Declaring `tools` alone makes the scenarios of every other capability
/// not applicable, never failed.
#[test]
fn a_server_declaring_tools_only_passes() {
    let scenarios = [
        "tools.call",
        "tools.execution-error",
        "logging.set-level",
        "prompts.get-unknown",
        "list-changed.tools",
    ];
    let run = stdio("minimal", "unusual-minimal.profile.yaml", &scenarios);
    assert_correct(&run, 2, &scenarios[..2]);
    for scenario in ["logging.set-level", "prompts.get-unknown", "list-changed.tools"] {
        assert_eq!(
            case(&run, scenario).verdict,
            Verdict::NotApplicable,
            "{}",
            run.stdout()
        );
    }
}

/// Asked for 2025-11-25, a server that speaks up to 2025-06-18 answers
/// with that; the run goes on in it (LIFE-005) and what is newer does not apply.
#[test]
fn a_server_answering_an_older_version_passes_in_it() {
    let scenarios = [
        "tools.call",
        "pagination.tools",
        "lifecycle.ping",
        "elicitation.url-mode",
    ];
    let run = stdio("max=2025-06-18", "unusual.profile.yaml", &scenarios);
    assert_correct(&run, 3, &scenarios[..3]);
    assert_eq!(case(&run, "elicitation.url-mode").verdict, Verdict::NotApplicable);
    for scenario in ["tools.call", "pagination.tools"] {
        let spoken = case(&run, scenario).protocol_version.as_deref();
        assert_eq!(spoken, Some("2025-06-18"), "{}", run.stdout());
    }
}

/// The one case of `scenario` in `run`.
fn case<'r>(run: &'r Judged, scenario: &str) -> &'r Case {
    let cases: Vec<_> = run
        .report
        .cases
        .iter()
        .filter(|c| c.scenario == scenario)
        .collect();
    let [one] = cases.as_slice() else {
        panic!("one case of {scenario}:\n{}", run.stdout());
    };
    one
}
