//! The gateway oracle, proven: the bundled reference gateway passes every
//! `role: gateway` scenario (or they do not apply to it), and each broken
//! variant (`reference-gateway --fault NAME`) is flagged under the
//! requirement its fault breaks. fixtures/gateways/README.md lists the
//! faults; a test keeps it true.

use std::time::Duration;

use assert_cmd::Command;
use mcp_mock_peers::reference_gateway::GatewayFault;
use regex::Regex;

mod faults;

/// Runs `test-gateway` on the bundled gateway scenarios with the reference
/// gateway (broken by `fault`, if any); returns its stdout.
fn test_reference_gateway(fault: Option<GatewayFault>) -> String {
    let exe = assert_cmd::cargo::cargo_bin("mcp-conform");
    let fault = fault
        .map(|f| format!(" --fault {}", f.name()))
        .unwrap_or_default();
    let gateway = format!("{} reference-gateway{fault} {{config}}", exe.display());
    let output = Command::cargo_bin("mcp-conform")
        .unwrap()
        .env("NO_COLOR", "1")
        .args(["test-gateway", "--command", &gateway, "--jobs", "4"])
        .timeout(Duration::from_secs(300))
        .output()
        .unwrap();
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn the_reference_gateway_passes_every_gateway_scenario() {
    let stdout = test_reference_gateway(None);
    let summary = Regex::new(r"(?m)^(\d+) scenarios: (\d+) pass(?:, (\d+) not-applicable)? in").unwrap();
    let counts = summary
        .captures(&stdout)
        .expect("a summary line with passes only");
    let total: usize = counts[1].parse().unwrap();
    let passed: usize = counts[2].parse().unwrap();
    assert!(total >= 9 && passed >= 8, "{stdout}");
    // The one that does not apply: it needs a gateway that declares
    // elicitation to its backends while its client did not.
    let not_applicable: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("not-applicable"))
        .collect();
    assert_eq!(not_applicable.len(), total - passed, "{stdout}");
    assert!(
        not_applicable
            .iter()
            .all(|l| l.contains("gateway.elicitation-undeclared")),
        "{stdout}"
    );
}

#[test]
fn every_broken_gateway_is_caught_under_the_requirement_it_breaks() {
    faults::assert_each_caught("gateways", &faults::fault_list!(GatewayFault), |name| {
        test_reference_gateway(Some(name.parse().unwrap()))
    });
}

#[test]
fn the_fixture_list_names_every_fault() {
    faults::assert_readme_lists("fixtures/gateways/README.md", &faults::fault_list!(GatewayFault));
}
