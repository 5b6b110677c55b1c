//! A peer that is unusable from the start costs seconds, not the startup
//! timeout of every scenario: a server that never answers over stdio, or a
//! client that never connects, ends the run within about twice the startup
//! timeout and never exits 0; an HTTP server that accepted the first
//! request and never answered gives every scenario its verdict at once; an
//! answer under a wrong id ends its wait at once.

use std::net::TcpListener;
use std::time::{Duration, Instant};

use common::cli::{bin, mcp_conform};
use common::report;
use mcp_conform_report::Verdict;

mod common;

/// The startup timeout the runs below give (seconds).
const STARTUP: u64 = 2;

/// Runs `mcp-conform COMMAND ARGS` on the whole bundled suite; returns the
/// exit code, stdout and the wall time.
fn judge(command: &str, args: &[&str]) -> (Option<i32>, String, Duration) {
    let started = Instant::now();
    let output = mcp_conform()
        .arg(command)
        .args(args)
        .args(["--startup-timeout", &STARTUP.to_string(), "--jobs", "2"])
        .timeout(Duration::from_secs(300))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    (output.status.code(), stdout, started.elapsed())
}

/// The run stopped early: failed, within about twice the startup timeout,
/// the cases it did not start sharing one reason.
fn assert_stopped_early(code: Option<i32>, stdout: &str, took: Duration) {
    assert_ne!(code, Some(0), "{stdout}");
    assert!(
        took < Duration::from_secs(2 * STARTUP + 4),
        "took {took:?}:\n{stdout}"
    );
    assert!(
        stdout.contains("not run: the peer answered nothing usable in the first 2 scenarios"),
        "{stdout}"
    );
}

#[test]
fn a_mute_stdio_server_stops_the_run_within_twice_the_startup_timeout() {
    let (code, stdout, took) = judge("run", &["--stdio", "sleep 600"]);
    assert_stopped_early(code, &stdout, took);
}

#[test]
fn a_mute_http_server_has_every_scenario_in_error_for_the_silence_of_its_first_request() {
    // Accepts connections and never answers a byte.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let held: Vec<_> = listener.incoming().collect();
        drop(held);
    });
    let startup = STARTUP.to_string();
    let run = report::judge(
        &["run", "--url", &url, "--startup-timeout", &startup, "--jobs", "2"],
        Duration::from_secs(300),
    );
    assert_eq!(run.code(), Some(3), "{}", run.stdout());
    let silence = format!(
        "not run: the server accepted the request without a token and answered nothing within {} ms",
        STARTUP * 1000
    );
    assert!(!run.report.cases.is_empty());
    for case in &run.report.cases {
        assert_eq!(case.verdict, Verdict::Error, "{}", case.scenario);
        let note = case.note.as_deref().unwrap_or_default();
        assert!(note.starts_with(&silence), "{}: {note}", case.scenario);
    }
}

#[test]
fn a_client_that_never_connects_stops_the_run_within_twice_the_startup_timeout() {
    let (code, stdout, took) = judge("test-client", &["--command", "sleep 600"]);
    assert_stopped_early(code, &stdout, took);
}

#[test]
fn keep_going_runs_every_scenario_on_a_mute_server() {
    let (code, stdout, _) = judge(
        "run",
        &["--stdio", "sleep 600", "--keep-going", "--filter", "lifecycle."],
    );
    assert_eq!(code, Some(1), "{stdout}");
    assert!(!stdout.contains("not run:"), "{stdout}");
}

#[test]
fn an_initialize_answered_under_a_wrong_id_type_is_a_finding_within_seconds() {
    let server = format!("{} reference-server --fault initialize-id-as-string", bin());
    let started = Instant::now();
    let output = mcp_conform()
        .args(["run", "--stdio", &server, "--filter", "lifecycle.ping"])
        .args(["--startup-timeout", "20"])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("RPC-004"), "{stdout}");
    assert!(
        stdout.contains("a response came with id \"1\", which was never sent"),
        "{stdout}"
    );
    assert!(started.elapsed() < Duration::from_secs(10), "{stdout}");
}
