//! The oracle over HTTP: the reference server served over HTTP with one
//! fault of the HTTP transports (`reference-server --http ADDR --fault
//! NAME`) is flagged under the requirement the fault breaks by each bundled
//! scenario its declaration names (`caught_by`), and by no other (on the
//! whole suite, for one fault).

use std::time::Duration;

use mcp_conform::runner::{RunConfig, Target, free_loopback_port};
use mcp_conform::select::load_profile;
use mcp_conform::start::StartedServer;
use mcp_conform_core::scenario::model::Role;
use mcp_conform_core::version::ProtocolVersion;
use mcp_mock_peers::reference::Fault;
use mcp_mock_peers::transport::HttpMode;

mod common;
mod faults;

/// How long a server has to listen.
const STARTUP: Duration = Duration::from_secs(30);

/// The transport, URL path and protocol version that expose `fault`.
fn exposure(fault: Fault) -> (HttpMode, &'static str, ProtocolVersion) {
    match fault {
        Fault::HttpEndpointEventLate => (HttpMode::Sse, "/sse", ProtocolVersion::V2024_11_05),
        _ if fault.is_modern() => (HttpMode::Streamable, "/mcp", ProtocolVersion::V2026_07_28),
        _ => (HttpMode::Streamable, "/mcp", ProtocolVersion::V2025_11_25),
    }
}

/// The command line that serves the reference server with `fault` over
/// HTTP on a free loopback port, and the URL of its endpoint at `path`.
fn served(fault: Fault, path: &str) -> (String, String) {
    let port = free_loopback_port().unwrap();
    let command = format!(
        "{} reference-server --http 127.0.0.1:{port} --fault {fault}",
        common::cli::bin()
    );
    (command, format!("http://127.0.0.1:{port}{path}"))
}

#[test]
fn every_broken_http_server_is_caught_by_exactly_its_scenarios() {
    let http: Vec<faults::Fault> = faults::fault_list!(Fault)
        .into_iter()
        .filter(|f| {
            let fault = f.name.parse::<Fault>().unwrap();
            fault.is_http() && !fault.is_auth()
        })
        .collect();
    faults::sweep("HTTP servers", Role::Server, &http, |fault| {
        let (mode, path, protocol) = exposure(fault.name.parse().unwrap());
        let (command, url) = served(fault.name.parse().unwrap(), path);
        let server = StartedServer::start(&command, &url, STARTUP).unwrap();
        let target = Target::Http {
            url,
            headers: Vec::new(),
            mode,
        };
        let config = RunConfig {
            protocol,
            profile: Some(load_profile("reference").unwrap()),
            ..RunConfig::new(target)
        };
        (config, server)
    });
}

/// A server that answers plain JSON-RPC over POST (JSON bodies, 204 for
/// notifications) through the CLI on the whole suite: HTTP-006 in the
/// scenarios of its `caught_by`, nothing else, no error.
#[test]
fn the_whole_suite_flags_plain_json_rpc_over_post_in_its_scenarios_only() {
    let fault = Fault::HttpPlainJsonRpc;
    let (command, url) = served(fault, "/mcp");
    let args = faults::http_run_args(&url, &command);
    faults::assert_smoke(&faults::fault_list!(Fault), fault.name(), &args);
}
