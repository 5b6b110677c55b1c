//! The oracle, proven: every deliberately broken server (the bundled
//! reference server with one fault, `reference-server --fault NAME`) is
//! flagged by the bundled suite under the requirement the fault breaks. The
//! correct server passing everything is asserted by `conformance.rs`.
//! fixtures/broken-servers/README.md lists the faults; a test keeps it true.

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::time::Duration;

use assert_cmd::Command;
use mcp_mock_peers::reference::Fault;

mod findings;

/// Broken servers judged at once (each run uses `JOBS` scenario workers).
const PARALLEL: usize = 2;
const JOBS: &str = "4";

/// The requirement IDs the suite flagged (fail or non-strict) against `fault`.
fn flagged(fault: Fault) -> (BTreeSet<String>, String) {
    let server = format!(
        "{} reference-server --fault {}",
        assert_cmd::cargo::cargo_bin("mcp-conform").display(),
        fault.name()
    );
    let output = Command::cargo_bin("mcp-conform")
        .unwrap()
        .env("NO_COLOR", "1")
        .args([
            "run",
            "--stdio",
            &server,
            "--profile",
            "reference",
            "--jobs",
            JOBS,
        ])
        .timeout(Duration::from_secs(300))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    (findings::flagged_requirements(&stdout), stdout)
}

#[test]
fn every_broken_server_is_caught_under_the_requirement_it_breaks() {
    // The HTTP transport's faults are judged over HTTP (broken_http_servers.rs);
    // the stateless revision's wait for a mock client that speaks it
    // (mock-peers/tests/reference_modern*.rs prove them meanwhile).
    let queue = Mutex::new(
        Fault::ALL
            .iter()
            .copied()
            .filter(|f| !f.is_http() && !f.is_modern())
            .collect::<Vec<_>>(),
    );
    let results = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..PARALLEL {
            scope.spawn(|| {
                while let Some(fault) = queue.lock().unwrap().pop() {
                    let (ids, stdout) = flagged(fault);
                    results.lock().unwrap().push((fault, ids, stdout));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(fault, ..)| fault.name());
    let mut missed = Vec::new();
    eprintln!("{:<30} {:<10} flagged", "fault", "breaks");
    for (fault, ids, stdout) in &results {
        let caught = ids.contains(fault.requirement());
        let list: Vec<&str> = ids.iter().map(String::as_str).collect();
        eprintln!(
            "{:<30} {:<10} {}{}",
            fault.name(),
            fault.requirement(),
            list.join(" "),
            if caught { "" } else { "   <- MISSED" }
        );
        if !caught {
            missed.push(format!("{} ({}):\n{stdout}", fault.name(), fault.requirement()));
        }
    }
    eprintln!(
        "mutation score: {}/{} broken servers caught under the right requirement",
        results.len() - missed.len(),
        results.len()
    );
    assert!(missed.is_empty(), "missed faults:\n{}", missed.join("\n"));
}

#[test]
fn the_fixture_list_names_every_fault() {
    let readme = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fixtures/broken-servers/README.md"
    ))
    .unwrap();
    let rows: BTreeSet<String> = readme
        .lines()
        .filter(|line| line.starts_with("| `"))
        .map(str::to_owned)
        .collect();
    let expected: BTreeSet<String> = Fault::ALL
        .iter()
        .map(|f| format!("| `{}` | {} | {} |", f.name(), f.requirement(), f.description()))
        .collect();
    let missing: Vec<&String> = expected.difference(&rows).collect();
    let stale: Vec<&String> = rows.difference(&expected).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "fixtures/broken-servers/README.md is out of date\nmissing rows:\n{}\nstale rows:\n{}",
        missing.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n"),
        stale.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n"),
    );
}
