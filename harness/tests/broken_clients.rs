//! The client oracle, proven: the bundled reference client passes every
//! `role: client` scenario on every version, over stdio and over HTTP, and
//! each broken variant (`reference-client --fault NAME`) is flagged under
//! the requirement its fault breaks by each bundled scenario its
//! declaration names (`caught_by`), and by no other (on the whole suite,
//! for one fault): the `http-` faults over HTTP, the `modern-` faults on
//! 2026-07-28; a broken MAY counts, though its verdict is not-observed.
//! fixtures/broken-clients/README.md lists the faults; a test keeps it true.

use mcp_conform::runner::{ClientUnderTest, RunConfig, Target};
use mcp_conform_core::scenario::model::Role;
use mcp_conform_core::version::ProtocolVersion;
use mcp_mock_peers::reference_client::ClientFault;

mod common;
mod correct_peers;
mod faults;
mod fixture_readme;

/// The command line of `mcp-conform reference-client`, with `fault` when
/// given, reaching the mock server by `{url}` over HTTP, else by the
/// `{server}` command over stdio.
fn command(fault: Option<&str>, over_http: bool) -> String {
    let fault = fault.map(|f| format!(" --fault {f}")).unwrap_or_default();
    let server = if over_http { "--url {url}" } else { "{server}" };
    format!("{} reference-client{fault} {server}", common::cli::bin())
}

fn client(command: &str) -> ClientUnderTest {
    ClientUnderTest {
        serve_program: common::cli::bin().into(),
        ..ClientUnderTest::new(command)
    }
}

/// The version that shows `fault`: a fault of 2026-07-28 shows only when
/// the mock server speaks it, one of the 2025-03-26 authorization only
/// in its scenarios.
fn version(fault: ClientFault) -> ProtocolVersion {
    if fault.is_modern() {
        ProtocolVersion::V2026_07_28
    } else if fault.is_legacy_auth() {
        ProtocolVersion::V2025_03_26
    } else {
        ProtocolVersion::V2025_11_25
    }
}

/// The verdict of every case (scenario × version) of the correct client,
/// answered with that version as `test-client --protocol all` does.
fn correct_client_table(over_http: bool) -> String {
    let client = ClientUnderTest {
        pinned: true,
        ..client(&command(None, over_http))
    };
    let config = RunConfig::new(Target::Client(client));
    correct_peers::verdict_table(Role::Client, &config, &ProtocolVersion::ALL)
}

/// Every case passes, but those of the HTTP transport, which do not apply
/// over stdio.
#[test]
fn the_reference_client_passes_every_client_scenario() {
    insta::assert_snapshot!(correct_client_table(false));
}

#[test]
fn the_reference_client_passes_every_client_scenario_over_http() {
    insta::assert_snapshot!(correct_client_table(true));
}

#[test]
fn every_broken_client_is_caught_by_exactly_its_scenarios() {
    // The `fuzz-` faults only generated scenarios set off (fuzz.rs).
    let swept: Vec<faults::Fault> = faults::fault_list!(ClientFault)
        .into_iter()
        .filter(|f| !f.name.parse::<ClientFault>().unwrap().is_fuzz())
        .collect();
    faults::sweep("clients", Role::Client, &swept, |fault| {
        let declared: ClientFault = fault.name.parse().unwrap();
        let target = Target::Client(client(&command(Some(fault.name), declared.is_http())));
        let config = RunConfig {
            protocol: version(declared),
            ..RunConfig::new(target)
        };
        (config, ())
    });
}

/// The whole suite through the CLI, for a fault that fails fast.
#[test]
fn the_whole_suite_flags_a_broken_client_in_its_scenarios_only() {
    let fault = ClientFault::ModernNoClientInfo;
    let command = command(Some(fault.name()), false);
    let protocol = version(fault).to_string();
    let args = [
        "test-client",
        "--command",
        &command,
        "--protocol",
        &protocol,
        "--jobs",
        "4",
    ];
    faults::assert_smoke(&faults::fault_list!(ClientFault), fault.name(), &args);
}

#[test]
fn the_fixture_list_names_every_fault() {
    fixture_readme::assert_lists(
        "fixtures/broken-clients/README.md",
        &faults::fault_list!(ClientFault),
    );
}
