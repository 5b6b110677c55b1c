//! The client oracle, proven: the bundled reference client passes every
//! `role: client` scenario, and each broken variant (`reference-client
//! --fault NAME`) is flagged under the requirement its fault breaks.
//! fixtures/broken-clients/README.md lists the faults; a test keeps it true.

use std::time::Duration;

use assert_cmd::Command;
use mcp_mock_peers::reference_client::ClientFault;
use regex::Regex;

mod faults;

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
    faults::assert_each_caught("clients", &faults::fault_list!(ClientFault), |name| {
        test_reference_client(Some(name.parse().unwrap()))
    });
}

#[test]
fn the_fixture_list_names_every_fault() {
    faults::assert_readme_lists(
        "fixtures/broken-clients/README.md",
        &faults::fault_list!(ClientFault),
    );
}
