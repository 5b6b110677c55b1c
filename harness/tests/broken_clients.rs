//! The client oracle, proven: the bundled reference client passes every
//! `role: client` scenario, and each broken variant (`reference-client
//! --fault NAME`) is flagged under the requirement its fault breaks.
//! fixtures/broken-clients/README.md lists the faults; a test keeps it true.

use mcp_mock_peers::reference_client::ClientFault;
use regex::Regex;

mod faults;

#[test]
fn the_reference_client_passes_every_client_scenario() {
    let stdout = faults::judge_fixture("test-client", "reference-client", None, "{server}");
    let summary = Regex::new(r"(?m)^(\d+) scenarios: (\d+) pass in").unwrap();
    let counts = summary.captures(&stdout).expect("a summary line");
    assert_eq!(counts[1], counts[2], "{stdout}");
    assert!(counts[1].parse::<usize>().unwrap() >= 10, "{stdout}");
}

#[test]
fn every_broken_client_is_caught_under_the_requirement_it_breaks() {
    faults::assert_each_caught("clients", &faults::fault_list!(ClientFault), |name| {
        faults::judge_fixture("test-client", "reference-client", Some(name), "{server}")
    });
}

#[test]
fn the_fixture_list_names_every_fault() {
    faults::assert_readme_lists(
        "fixtures/broken-clients/README.md",
        &faults::fault_list!(ClientFault),
    );
}
