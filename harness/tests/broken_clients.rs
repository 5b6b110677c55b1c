//! The client oracle, proven: the bundled reference client passes every
//! `role: client` scenario, and each broken variant (`reference-client
//! --fault NAME`) is flagged under the requirement its fault breaks.
//! fixtures/broken-clients/README.md lists the faults; a test keeps it true.

use std::collections::BTreeSet;
use std::time::Duration;

use assert_cmd::Command;
use mcp_mock_peers::reference_client::ClientFault;
use regex::Regex;

/// Runs `test-client` on the bundled client scenarios with the reference
/// client (broken by `fault`, if any); returns its stdout.
fn test_reference_client(fault: Option<ClientFault>) -> String {
    let exe = assert_cmd::cargo::cargo_bin("mcp-conform");
    let fault = fault
        .map(|f| format!(" --fault {}", f.name()))
        .unwrap_or_default();
    let client = format!("{} reference-client{fault} {{server}}", exe.display());
    let output = Command::cargo_bin("mcp-conform")
        .unwrap()
        .env("NO_COLOR", "1")
        .args(["test-client", "--command", &client, "--jobs", "4"])
        .timeout(Duration::from_secs(300))
        .output()
        .unwrap();
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn the_reference_client_passes_every_client_scenario() {
    let stdout = test_reference_client(None);
    let summary = Regex::new(r"(?m)^(\d+) scenarios: (\d+) pass in").unwrap();
    let counts = summary.captures(&stdout).expect("a summary line");
    assert_eq!(counts[1], counts[2], "{stdout}");
    assert!(counts[1].parse::<usize>().unwrap() >= 10, "{stdout}");
}

#[test]
fn every_broken_client_is_caught_under_the_requirement_it_breaks() {
    let finding = Regex::new(r"^\s+(?:FAIL|non-strict) .*\[([A-Z]+-[0-9]{3}) (?:MUST|SHOULD|MAY)\]").unwrap();
    let mut missed = Vec::new();
    for fault in ClientFault::ALL {
        let stdout = test_reference_client(Some(*fault));
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
