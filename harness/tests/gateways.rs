//! The gateway oracle, proven: the bundled reference gateway passes every
//! `role: gateway` scenario (or they do not apply to it), and each broken
//! variant (`reference-gateway --fault NAME`) is flagged under the
//! requirement its fault breaks by each bundled scenario its declaration
//! names (`caught_by`), and by no other (on the whole suite, for one fault).
//! fixtures/gateways/README.md lists the faults; a test keeps it true.

use mcp_conform::runner::{GatewayUnderTest, RunConfig, Target};
use mcp_conform_core::scenario::model::Role;
use mcp_mock_peers::reference_gateway::GatewayFault;

mod common;
mod correct_peers;
mod faults;
mod fixture_readme;

/// The run of `mcp-conform reference-gateway`, with `fault` when given.
fn config(fault: Option<&str>) -> RunConfig {
    let fault = fault.map(|f| format!(" --fault {f}")).unwrap_or_default();
    let command = format!("{} reference-gateway{fault} {{config}}", common::cli::bin());
    let gateway = GatewayUnderTest {
        serve_program: common::cli::bin().into(),
        ..GatewayUnderTest::new(&command, "/mcp")
    };
    RunConfig {
        // As `test-gateway` gives it: the gateway starts its backends first.
        startup_timeout: std::time::Duration::from_secs(15),
        ..RunConfig::new(Target::Gateway(gateway))
    }
}

/// Every case passes, but the one that needs a gateway that declares
/// elicitation to its backends while its client did not.
#[test]
fn the_reference_gateway_passes_every_gateway_scenario() {
    let config = config(None);
    let table = correct_peers::verdict_table(Role::Gateway, &config, &[config.protocol]);
    insta::assert_snapshot!(table);
}

#[test]
fn every_broken_gateway_is_caught_by_exactly_its_scenarios() {
    faults::sweep(
        "gateways",
        Role::Gateway,
        &faults::fault_list!(GatewayFault),
        |fault| (config(Some(fault.name)), ()),
    );
}

/// The whole suite through the CLI, for a fault that fails fast.
#[test]
fn the_whole_suite_flags_a_broken_gateway_in_its_scenarios_only() {
    let fault = GatewayFault::CallEveryBackend;
    let command = format!(
        "{} reference-gateway --fault {fault} {{config}}",
        common::cli::bin()
    );
    let args = ["test-gateway", "--command", &command, "--jobs", "4"];
    faults::assert_smoke(&faults::fault_list!(GatewayFault), fault.name(), &args);
}

#[test]
fn the_fixture_list_names_every_fault() {
    fixture_readme::assert_lists("fixtures/gateways/README.md", &faults::fault_list!(GatewayFault));
}
