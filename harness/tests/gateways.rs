//! The gateway oracle, proven: the bundled reference gateway passes every
//! `role: gateway` scenario (or they do not apply to it), and each broken
//! variant (`reference-gateway --fault NAME`) is flagged under the
//! requirement its fault breaks. fixtures/gateways/README.md lists the
//! faults; a test keeps it true.

use mcp_mock_peers::reference_gateway::GatewayFault;
use regex::Regex;

mod faults;

#[test]
fn the_reference_gateway_passes_every_gateway_scenario() {
    let stdout = faults::judge_fixture("test-gateway", "reference-gateway", None, "{config}", &[]).stdout;
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
        faults::judge_fixture("test-gateway", "reference-gateway", Some(name), "{config}", &[])
    });
}

#[test]
fn the_fixture_list_names_every_fault() {
    faults::assert_readme_lists("fixtures/gateways/README.md", &faults::fault_list!(GatewayFault));
}
