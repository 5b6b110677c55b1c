//! The oracle, proven: every deliberately broken server (the bundled
//! reference server with one fault, `reference-server --fault NAME`, over
//! stdio) is flagged under the requirement the fault breaks by each bundled
//! scenario its declaration names (`caught_by`), and by no other (on the
//! whole suite, for one fault). The `http-` faults are judged over HTTP
//! (broken_http_servers.rs), the `fuzz-` faults by `mcp-conform fuzz`
//! (fuzz.rs); the correct server passing everything is
//! asserted by `conformance.rs`. fixtures/broken-servers/README.md lists the
//! faults; a test keeps it true.

use mcp_conform::runner::{RunConfig, Target};
use mcp_conform::select::load_profile;
use mcp_conform_core::scenario::model::Role;
use mcp_conform_core::version::ProtocolVersion;
use mcp_mock_peers::reference::Fault;
use mcp_mock_peers::transport::StdioCommand;

mod common;
mod faults;
mod fixture_readme;

/// The version that shows `fault`: a fault of the stateless revision shows
/// only to a client that speaks it.
fn version(fault: Fault) -> ProtocolVersion {
    if fault.is_modern() {
        ProtocolVersion::V2026_07_28
    } else {
        ProtocolVersion::V2025_11_25
    }
}

#[test]
fn every_broken_server_is_caught_by_exactly_its_scenarios() {
    let stdio: Vec<faults::Fault> = faults::fault_list!(Fault)
        .into_iter()
        .filter(|f| {
            let fault = f.name.parse::<Fault>().unwrap();
            !fault.is_http() && !fault.is_fuzz()
        })
        .collect();
    faults::sweep("servers", Role::Server, &stdio, |fault| {
        let target = Target::Stdio(StdioCommand {
            program: common::cli::bin(),
            args: vec!["reference-server".into(), "--fault".into(), fault.name.into()],
            env: Vec::new(),
            cwd: None,
        });
        let config = RunConfig {
            protocol: version(fault.name.parse().unwrap()),
            profile: Some(load_profile("reference").unwrap()),
            ..RunConfig::new(target)
        };
        (config, ())
    });
}

/// The whole suite through the CLI, for a fault that fails fast.
#[test]
fn the_whole_suite_flags_a_broken_server_in_its_scenarios_only() {
    let fault = Fault::NoParseError;
    let server = format!("{} reference-server --fault {fault}", common::cli::bin());
    let protocol = version(fault).to_string();
    let args = [
        "run",
        "--stdio",
        &server,
        "--protocol",
        &protocol,
        "--profile",
        "reference",
        "--jobs",
        "4",
    ];
    faults::assert_smoke(&faults::fault_list!(Fault), fault.name(), &args);
}

#[test]
fn the_fixture_list_names_every_fault() {
    fixture_readme::assert_lists("fixtures/broken-servers/README.md", &faults::fault_list!(Fault));
}
