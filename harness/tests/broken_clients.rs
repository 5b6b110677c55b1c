//! The client oracle, proven: the bundled reference client passes every
//! `role: client` scenario, over stdio and over HTTP, and each broken
//! variant (`reference-client --fault NAME`) is flagged under the
//! requirement its fault breaks (the `http-` faults over HTTP).
//! fixtures/broken-clients/README.md lists the faults; a test keeps it true.

use std::collections::BTreeSet;
use std::time::Duration;

use assert_cmd::Command;
use mcp_mock_peers::reference_client::ClientFault;
use regex::Regex;

/// Runs `test-client` on the bundled client scenarios with the reference
/// client (broken by `fault`, if any; over HTTP for an HTTP fault or when
/// `over_http`); returns its stdout.
fn test_reference_client(fault: Option<ClientFault>, over_http: bool) -> String {
    let exe = assert_cmd::cargo::cargo_bin("mcp-conform");
    let server = if over_http || fault.is_some_and(ClientFault::is_http) {
        "--url {url}"
    } else {
        "{server}"
    };
    let fault = fault
        .map(|f| format!(" --fault {}", f.name()))
        .unwrap_or_default();
    let client = format!("{} reference-client{fault} {server}", exe.display());
    let output = Command::cargo_bin("mcp-conform")
        .unwrap()
        .env("NO_COLOR", "1")
        .args(["test-client", "--command", &client, "--jobs", "4"])
        .timeout(Duration::from_secs(300))
        .output()
        .unwrap();
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Every scenario passes, but those of the HTTP transport over stdio, which
/// do not apply.
fn assert_all_pass(stdout: &str, over_http: bool) {
    let scenario = Regex::new(r"(?m)^\s*(\S+)\s+(client\.\S+)").unwrap();
    let verdicts: Vec<(&str, &str)> = scenario
        .captures_iter(stdout)
        .map(|c| (c.get(1).unwrap().as_str(), c.get(2).unwrap().as_str()))
        .collect();
    assert!(verdicts.len() >= 11, "every scenario ran:\n{stdout}");
    for (verdict, id) in verdicts {
        let http_only = id.starts_with("client.http.") && verdict == "not-applicable";
        assert!(
            verdict == "pass" || (http_only && !over_http),
            "{id} {verdict}:\n{stdout}"
        );
    }
}

#[test]
fn the_reference_client_passes_every_client_scenario() {
    assert_all_pass(&test_reference_client(None, false), false);
}

#[test]
fn the_reference_client_passes_every_client_scenario_over_http() {
    assert_all_pass(&test_reference_client(None, true), true);
}

#[test]
fn every_broken_client_is_caught_under_the_requirement_it_breaks() {
    let finding = Regex::new(r"^\s+(?:FAIL|non-strict) .*\[([A-Z]+-[0-9]{3}) (?:MUST|SHOULD|MAY)\]").unwrap();
    let mut missed = Vec::new();
    for fault in ClientFault::ALL {
        let stdout = test_reference_client(Some(*fault), false);
        let ids: BTreeSet<String> = stdout
            .lines()
            .filter_map(|line| finding.captures(line))
            .map(|c| c[1].to_owned())
            .collect();
        let caught = ids.contains(fault.requirement());
        eprintln!(
            "{:<28} {:<9} {}{}",
            fault.name(),
            fault.requirement(),
            ids.iter().cloned().collect::<Vec<_>>().join(" "),
            if caught { "" } else { "   <- MISSED" }
        );
        if !caught {
            missed.push(format!("{} ({}):\n{stdout}", fault.name(), fault.requirement()));
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
