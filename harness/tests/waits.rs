//! Waits that end before their fixed bound: a silence window ended by a
//! ping round trip (stdio, only responses forbidden:
//! runner/steps/silence.rs) must still see a forbidden response the server
//! wrote late; a response wait fitted to the server's latency
//! (runner/latency.rs) ends at the bound given on the command line.

use std::time::{Duration, Instant};

use common::report::{Judged, judge};
use mcp_conform_report::Verdict;

mod common;

/// `run` against the fixture server `script` (with its `script_args`) and
/// `args`, as judged.
fn run_on(script: &str, script_args: &str, args: &[&str]) -> Judged {
    let server = format!(
        "sh {}/../fixtures/servers/{script} {script_args}",
        env!("CARGO_MANIFEST_DIR")
    );
    let args: Vec<&str> = ["run", "--stdio", &server]
        .into_iter()
        .chain(args.iter().copied())
        .collect();
    judge(&args, Duration::from_secs(30))
}

#[test]
fn a_late_answer_to_a_notification_is_seen_before_the_barrier_answer() {
    let judged = run_on(
        "late-answer.sh",
        "0.4",
        &["--filter", "base.notification-no-response"],
    );
    assert_eq!(judged.code(), Some(1), "{}", judged.stdout());
    let case = &judged.report.cases[0];
    assert_eq!(case.verdict, Verdict::Fail, "{}", judged.stdout());
    let breach = case
        .checks
        .iter()
        .find(|c| c.verdict == Verdict::Fail)
        .expect("a failed check");
    assert_eq!(breach.requirement, "RPC-008", "{}", judged.stdout());
}

#[test]
fn an_unanswered_request_fails_at_the_timeout_ceiling() {
    let started = Instant::now();
    let bounds = ["--timeout-ceiling", "1000", "--timeout-floor", "1000"];
    let judged = run_on(
        "initialize-only.sh",
        "",
        &[&["--filter", "lifecycle.ping"], &bounds[..]].concat(),
    );
    assert_eq!(judged.code(), Some(1), "{}", judged.stdout());
    assert!(
        judged
            .stdout()
            .contains(r#"no response to ping (id "mcp-conform-1") within 1000 ms"#),
        "{}",
        judged.stdout()
    );
    // The scenario language's default wait is 5 s.
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_floor_above_the_ceiling_is_a_usage_error() {
    let args = [
        "run",
        "--stdio",
        "true",
        "--timeout-floor",
        "2000",
        "--timeout-ceiling",
        "1000",
    ];
    let judged = std::process::Command::new(assert_cmd::cargo::cargo_bin("mcp-conform"))
        .args(args)
        .output()
        .unwrap();
    assert_eq!(judged.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&judged.stderr);
    assert!(
        stderr.contains("--timeout-floor (2000 ms) is above --timeout-ceiling (1000 ms)"),
        "{stderr}"
    );
}
