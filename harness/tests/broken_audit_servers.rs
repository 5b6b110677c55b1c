//! Realistic server bugs the reference server's faults lists do not have,
//! each switched on in the independent unusual server
//! (`fixtures/servers/unusual.py bug=NAME`, over HTTP `unusual_http.py`):
//! the scenario that shows it does not pass, under the requirement the bug
//! breaks, at the verdict its level gives, in bounded time and without a
//! panic. The same server without a bug passes (audit_servers.rs).

use std::time::{Duration, Instant};

use common::report::judge;
use mcp_conform_report::Verdict;

mod common;
mod http_server;

/// A bug, the scenario that shows it, and the check it breaks there.
struct Bug {
    name: &'static str,
    http: bool,
    scenario: &'static str,
    requirement: &'static str,
    verdict: Verdict,
}

const fn bug(name: &'static str, scenario: &'static str, requirement: &'static str, verdict: Verdict) -> Bug {
    Bug {
        name,
        http: false,
        scenario,
        requirement,
        verdict,
    }
}

const fn over_http(bug: Bug) -> Bug {
    Bug { http: true, ..bug }
}

use Verdict::{Fail, NonStrict};

/// A broken SHOULD is non-strict: still not a pass.
const BUGS: [Bug; 20] = [
    bug(
        "duplicate-response",
        "lifecycle.ping-before-initialize",
        "RPC-004",
        Fail,
    ),
    // After the last step: the copy is in the same write, filed at shutdown.
    bug("duplicate-response", "lifecycle.unknown-version", "RPC-004", Fail),
    bug(
        "answer-notifications",
        "base.notification-no-response",
        "RPC-008",
        Fail,
    ),
    bug("no-jsonrpc", "base.invalid-params", "RPC-001", Fail),
    bug("stringified-id", "lifecycle.ping", "RPC-004", Fail),
    bug("error-with-result", "tools.unknown-tool", "RPC-005", Fail),
    bug("error-id-null", "tools.unknown-tool", "RPC-004", Fail),
    bug(
        "wrong-id-after-cancel",
        "cancellation.unknown-request",
        "RPC-004",
        Fail,
    ),
    bug(
        "answer-cancelled",
        "cancellation.no-response",
        "CANC-002",
        NonStrict,
    ),
    bug(
        "tool-error-as-rpc-error",
        "tools.execution-error",
        "TOOL-005",
        NonStrict,
    ),
    bug("endless-cursor", "pagination.tools", "PAGE-005", NonStrict),
    // A walk's paging breaks stable cursors (PAGE-005, a SHOULD), not the
    // listing's own MUST.
    bug("endless-cursor", "tools.list", "PAGE-005", NonStrict),
    bug("null-cursor", "pagination.tools", "SCHEMA-001", Fail),
    bug("invented-version", "lifecycle.initialize", "LIFE-003", Fail),
    bug("silent-list-changed", "list-changed.tools", "LIST-001", NonStrict),
    bug(
        "undeclared-list-changed",
        "list-changed.tools-undeclared",
        "LIST-002",
        Fail,
    ),
    bug("client-notification", "tools.list", "SCHEMA-001", Fail),
    over_http(bug("sse-malformed", "lifecycle.ping", "RPC-001", Fail)),
    over_http(bug("session-ignored", "http.session-end", "HTTP-015", Fail)),
    over_http(bug("json-text-plain", "http.post-answer-forms", "HTTP-007", Fail)),
];

/// How `bug`'s scenario judged it, or what is wrong with the run.
fn judged(bug: &Bug) -> Result<(), String> {
    let servers = format!("{}/../fixtures/servers", env!("CARGO_MANIFEST_DIR"));
    let profile = format!("{servers}/unusual.profile.yaml");
    let habit = format!("bug={}", bug.name);
    let (port, url);
    let mut args = vec!["run", "--profile", &profile, "--filter", bug.scenario];
    let server = if bug.http {
        port = http_server::free_port().to_string();
        url = format!("http://127.0.0.1:{port}/mcp");
        args.extend(["--url", &url, "--start"]);
        format!("python3 {servers}/unusual_http.py {port} {habit}")
    } else {
        args.push("--stdio");
        format!("python3 {servers}/unusual.py {habit}")
    };
    args.push(&server);
    let started = Instant::now();
    let run = judge(&args, Duration::from_secs(60));
    let took = started.elapsed();
    let expected = if bug.verdict == Fail { 1 } else { 0 };
    if run.code() != Some(expected) {
        return Err(format!(
            "exit {:?}, not {expected}:\n{}",
            run.code(),
            run.stdout()
        ));
    }
    let case = run.report.cases.iter().find(|c| c.scenario == bug.scenario);
    let Some(case) = case else {
        return Err(format!("no case of {}:\n{}", bug.scenario, run.stdout()));
    };
    let broken = case
        .checks
        .iter()
        .any(|c| c.requirement == bug.requirement && c.verdict == bug.verdict);
    if case.verdict != bug.verdict || !broken {
        return Err(format!(
            "not {} under {}:\n{}",
            bug.verdict,
            bug.requirement,
            run.stdout()
        ));
    }
    // The slowest waits on a 5 s response timeout; a hang would take the whole budget.
    if took > Duration::from_secs(30) {
        return Err(format!("took {took:?}"));
    }
    Ok(())
}

#[test]
fn every_realistic_bug_is_judged_under_its_requirement() {
    let wrong: Vec<String> = BUGS
        .iter()
        .filter_map(|bug| {
            judged(bug)
                .err()
                .map(|e| format!("bug={} ({}): {e}", bug.name, bug.scenario))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}
