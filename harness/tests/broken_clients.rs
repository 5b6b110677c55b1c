//! The client oracle, proven: the bundled reference client passes every
//! `role: client` scenario, and each broken variant (`reference-client
//! --fault NAME`) is flagged under the requirement its fault breaks.
//! fixtures/broken-clients/README.md lists the faults; a test keeps it true.

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::time::Duration;

use assert_cmd::Command;
use mcp_mock_peers::reference_client::ClientFault;
use serde_json::Value;

/// Broken clients judged at once (each run uses `JOBS` scenario workers).
const PARALLEL: usize = 2;
const JOBS: &str = "4";

/// What one `test-client` run of the bundled client scenarios found.
struct Run {
    stdout: String,
    report: Value,
}

impl Run {
    /// The requirements of the checks that found something broken: failed,
    /// non-strict, or a broken MAY (whose verdict is not-observed; a MAY is
    /// never failed).
    fn flagged(&self) -> BTreeSet<String> {
        let cases = self.report["cases"].as_array().into_iter().flatten();
        cases
            .flat_map(|case| case["checks"].as_array().into_iter().flatten())
            .filter(|check| match check["verdict"].as_str() {
                Some("fail" | "non-strict") => true,
                Some("not-observed") => check["level"] == "MAY",
                _ => false,
            })
            .filter_map(|check| check["requirement"].as_str().map(str::to_owned))
            .collect()
    }
}

/// Runs `test-client` on the bundled client scenarios with the reference
/// client (broken by `fault`, if any).
fn test_reference_client(fault: Option<ClientFault>) -> Run {
    let exe = assert_cmd::cargo::cargo_bin("mcp-conform");
    let fault = fault
        .map(|f| format!(" --fault {}", f.name()))
        .unwrap_or_default();
    let client = format!("{} reference-client{fault} {{server}}", exe.display());
    let reports = tempfile::tempdir().unwrap();
    let output = Command::cargo_bin("mcp-conform")
        .unwrap()
        .env("NO_COLOR", "1")
        .args([
            "test-client",
            "--command",
            &client,
            "--jobs",
            JOBS,
            "--report-dir",
        ])
        .arg(reports.path())
        .timeout(Duration::from_secs(300))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let report = std::fs::read_to_string(reports.path().join("report.json"))
        .unwrap_or_else(|e| panic!("no report.json ({e}):\n{stdout}"));
    Run {
        report: serde_json::from_str(&report).unwrap(),
        stdout,
    }
}

#[test]
fn the_reference_client_passes_every_client_scenario() {
    let run = test_reference_client(None);
    let summary = &run.report["summary"];
    assert_eq!(summary["pass"], summary["cases"], "{}", run.stdout);
    assert!(summary["cases"].as_u64().unwrap() >= 24, "{}", run.stdout);
}

#[test]
fn every_broken_client_is_caught_under_the_requirement_it_breaks() {
    let queue = Mutex::new(ClientFault::ALL.to_vec());
    let results = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..PARALLEL {
            scope.spawn(|| {
                while let Some(fault) = queue.lock().unwrap().pop() {
                    let run = test_reference_client(Some(fault));
                    results.lock().unwrap().push((fault, run));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(fault, _)| fault.name());
    let mut missed = Vec::new();
    eprintln!("{:<30} {:<10} flagged", "fault", "breaks");
    for (fault, run) in &results {
        let ids = run.flagged();
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
            missed.push(format!(
                "{} ({}):\n{}",
                fault.name(),
                fault.requirement(),
                run.stdout
            ));
        }
    }
    eprintln!(
        "mutation score: {}/{} broken clients caught under the right requirement",
        ClientFault::ALL.len() - missed.len(),
        ClientFault::ALL.len()
    );
    assert!(missed.is_empty(), "missed faults:\n{}", missed.join("\n"));
}

#[test]
fn the_fixture_list_names_every_fault() {
    let readme = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fixtures/broken-clients/README.md"
    ))
    .unwrap();
    let rows: BTreeSet<&str> = readme.lines().filter(|line| line.starts_with("| `")).collect();
    let expected: BTreeSet<String> = ClientFault::ALL
        .iter()
        .map(|f| format!("| `{}` | {} | {} |", f.name(), f.requirement(), f.description()))
        .collect();
    let expected: BTreeSet<&str> = expected.iter().map(String::as_str).collect();
    assert_eq!(rows, expected, "fixtures/broken-clients/README.md is out of date");
}
