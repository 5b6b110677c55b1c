//! The oracle for protected servers: the reference server in protected
//! mode (`reference-server --http ADDR --auth ISSUER --fault NAME`), with
//! the harness as its authorization server, is flagged under the
//! requirement each `auth-` fault breaks by every scenario its declaration
//! names (`caught_by`), and by no other (on the whole suite, for one fault).

use std::time::Duration;

use mcp_conform::auth::AuthServer;
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

/// The version that exposes `fault`: the challenge's resource_metadata is
/// a MUST of 2025-06-18 only, metadata at the server's origin (and the
/// authorization endpoint it names) a thing of 2025-03-26 only,
/// requestState and scopes named all at once of 2026-07-28.
fn exposure(fault: Fault) -> ProtocolVersion {
    match fault {
        Fault::AuthNoResourceMetadata => ProtocolVersion::V2025_06_18,
        Fault::AuthNoServerMetadata
        | Fault::AuthOpenRedirect
        | Fault::AuthPlainHttpEndpoints
        | Fault::AuthDefaultNoToken => ProtocolVersion::V2025_03_26,
        Fault::AuthStateAuthenticates
        | Fault::AuthStateSharedByUsers
        | Fault::AuthScopeOneAtATime
        | Fault::AuthExtensionTasksSharedByUsers => ProtocolVersion::V2026_07_28,
        _ => ProtocolVersion::V2025_11_25,
    }
}

/// The command line that serves the protected reference server with
/// `fault` on a free loopback port (`{issuer}` still to fill in), and its
/// endpoint URL. A fault of validation by introspection needs that mode,
/// one of the default endpoints the mode that serves them.
fn served(fault: Fault) -> (String, String) {
    let port = free_loopback_port().unwrap();
    let mode = match fault {
        Fault::AuthIntrospectionIgnoresActive => " --auth-introspect",
        Fault::AuthDefaultNoToken => " --auth-default-endpoints",
        _ => "",
    };
    let command = format!(
        "{} reference-server --http 127.0.0.1:{port} --auth {{issuer}}{mode} --fault {fault}",
        common::cli::bin()
    );
    (command, format!("http://127.0.0.1:{port}/mcp"))
}

#[test]
fn every_broken_protected_server_is_caught_by_exactly_its_scenarios() {
    let auth: Vec<faults::Fault> = faults::fault_list!(Fault)
        .into_iter()
        .filter(|f| f.name.parse::<Fault>().unwrap().is_auth())
        .collect();
    faults::sweep("protected servers", Role::Server, &auth, |fault| {
        let fault: Fault = fault.name.parse().unwrap();
        let (command, url) = served(fault);
        let issuer = AuthServer::start(&url).unwrap();
        let server = StartedServer::start(&issuer.fill_in(&command), &url, STARTUP).unwrap();
        let target = Target::Http {
            url,
            headers: Vec::new(),
            mode: HttpMode::Streamable,
        };
        let mut config = RunConfig {
            protocol: exposure(fault),
            profile: Some(load_profile("reference").unwrap()),
            ..RunConfig::new(target)
        };
        issuer.protect(&mut config, &faults::bundled(Role::Server));
        // The server goes first, then its issuer.
        (config, (server, issuer))
    });
}

/// A server that ignores the token's audience, through the CLI on the
/// whole suite: AUTH-004 in auth.wrong-audience only, nothing else.
#[test]
fn the_whole_suite_flags_an_ignored_audience_in_its_scenario_only() {
    let fault = Fault::AuthIgnoresAudience;
    let (command, url) = served(fault);
    let args = faults::http_run_args(&url, &command);
    faults::assert_smoke(&faults::fault_list!(Fault), fault.name(), &args);
}
