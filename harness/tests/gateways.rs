//! The gateway oracle, proven: the bundled reference gateway passes every
//! `role: gateway` scenario (or they do not apply to it), and each broken
//! variant (`reference-gateway --fault NAME`) is flagged under the
//! requirement its fault breaks by each bundled scenario its declaration
//! names (`caught_by`), and by no other (on the whole suite, for one fault).
//! fixtures/gateways/README.md lists the faults; a test keeps it true.
//! Behind a protected HTTP front, with HTTP backends and the harness as the
//! front's authorization server, the gateway passes too, and the fault
//! that forwards the client's token is caught there.

use std::sync::Arc;
use std::time::Duration;

use common::cli::{Ran, mcp_conform, ran};
use common::tokens::{files_under, jwt_beginnings};
use mcp_conform::auth::AuthServer;
use mcp_conform::runner::{BackendTransport, GatewayUnderTest, RunConfig, Target, free_loopback_port};
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

/// The run of the reference gateway (with `fault` when given) serving
/// Streamable HTTP, protected by the harness's issuer, which is returned
/// to live as long as the run, its backends reached over HTTP.
fn protected_config(fault: Option<&str>) -> (RunConfig, AuthServer) {
    let fault = fault.map(|f| format!(" --fault {f}")).unwrap_or_default();
    let command = format!(
        "{} reference-gateway{fault} {{config}} --port {{port}} --auth {{issuer}}",
        common::cli::bin()
    );
    let issuer = AuthServer::for_gateways().expect("the mock issuer starts");
    let gateway = GatewayUnderTest {
        serve_program: common::cli::bin().into(),
        backends: BackendTransport::Http,
        ..GatewayUnderTest::new(&command, "/mcp")
    };
    let config = RunConfig {
        startup_timeout: Duration::from_secs(15),
        auth: Some(Arc::new(issuer.gateway_context())),
        ..RunConfig::new(Target::Gateway(gateway))
    };
    (config, issuer)
}

/// Every case passes, but the one that needs a gateway that declares
/// elicitation to its backends while its client did not.
#[test]
fn the_reference_gateway_passes_every_gateway_scenario() {
    let config = config(None);
    let table = correct_peers::verdict_table(Role::Gateway, &config, &[config.protocol]);
    insta::assert_snapshot!(table);
}

/// The same behind a protected HTTP front with HTTP backends, where the
/// token passthrough scenario applies and passes.
#[test]
fn the_reference_gateway_passes_every_gateway_scenario_behind_a_protected_front() {
    let (config, _issuer) = protected_config(None);
    let table = correct_peers::verdict_table(Role::Gateway, &config, &[config.protocol]);
    insta::assert_snapshot!(table);
}

/// A fault of the authorization rules shows only behind a protected front.
#[test]
fn every_broken_gateway_is_caught_by_exactly_its_scenarios() {
    faults::sweep(
        "gateways",
        Role::Gateway,
        &faults::fault_list!(GatewayFault),
        |fault| match fault.requirement.starts_with("AUTH-") {
            true => {
                let (config, issuer) = protected_config(Some(fault.name));
                (config, Some(issuer))
            }
            false => (config(Some(fault.name)), None),
        },
    );
}

/// The reference gateway's protected front is protected: without a token
/// it answers 401 with a challenge naming its metadata, with the token the
/// harness mints for its URL it serves the client.
#[test]
fn the_protected_front_admits_only_the_token_for_its_url() {
    let issuer = AuthServer::for_gateways().expect("the mock issuer starts");
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("mcp.json");
    std::fs::write(&config, r#"{"mcpServers": {}}"#).unwrap();
    let port = free_loopback_port().unwrap();
    let mut gateway = std::process::Command::new(common::cli::bin())
        .arg("reference-gateway")
        .arg(&config)
        .args(["--port", &port.to_string(), "--auth", issuer.issuer()])
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(std::time::Instant::now() < deadline, "the gateway never listened");
        std::thread::sleep(Duration::from_millis(50));
    }
    let url = format!("http://127.0.0.1:{port}/mcp");
    let post = |token: Option<&str>| {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build()
            .into();
        let mut request = agent
            .post(&url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json");
        if let Some(token) = token {
            request = request.header("authorization", &format!("Bearer {token}"));
        }
        let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        let answer = request.send(initialize).unwrap();
        let challenge = answer
            .headers()
            .get("www-authenticate")
            .map(|value| value.to_str().unwrap().to_owned());
        (answer.status().as_u16(), challenge)
    };
    let (status, challenge) = post(None);
    let other = issuer
        .gateway_context()
        .front_token("http://127.0.0.1:1/mcp")
        .unwrap();
    let (other_status, _) = post(Some(&other.token));
    let mine = issuer.gateway_context().front_token(&url).unwrap();
    let (admitted, _) = post(Some(&mine.token));
    gateway.kill().unwrap();
    gateway.wait().unwrap();
    assert_eq!(status, 401);
    assert!(challenge.unwrap().contains("resource_metadata="));
    assert_eq!(other_status, 401, "a token for another resource is refused");
    assert_eq!(admitted, 200);
}

/// `--auth` protects an HTTP front and hands the gateway `{issuer}`: a
/// command line without `{port}`, or naming `{issuer}` without `--auth`,
/// is a usage error, not a run.
#[test]
fn auth_and_its_issuer_go_together_on_an_http_front() {
    let stdio_front = format!("{} reference-gateway {{config}}", common::cli::bin());
    let no_auth = format!(
        "{} reference-gateway {{config}} --port {{port}} --auth {{issuer}}",
        common::cli::bin()
    );
    for (command, auth) in [(&stdio_front, true), (&no_auth, false)] {
        let mut run = mcp_conform();
        run.args(["test-gateway", "--command", command]);
        if auth {
            run.arg("--auth");
        }
        let Ran { code, stdout, stderr } = ran(&mut run, Duration::from_secs(60));
        assert_eq!(code, Some(2), "{command}: {stdout}{stderr}");
        assert!(stderr.contains("--auth"), "{stderr}");
    }
}

/// The gateway that forwards the client's token fails under AUTH-006
/// through the CLI, and no output shows the token: not the terminal, not
/// a report, not a transcript (where the backend's requests are).
#[test]
fn a_forwarded_token_fails_and_no_output_shows_it() {
    let dir = tempfile::tempdir().unwrap();
    let command = format!(
        "{} reference-gateway --fault forwards-token {{config}} --port {{port}} --auth {{issuer}}",
        common::cli::bin()
    );
    let mut run = mcp_conform();
    run.args([
        "test-gateway",
        "--command",
        &command,
        "--backends",
        "http",
        "--auth",
    ])
    .args(["--filter", "gateway.token-passthrough", "--report-dir"])
    .arg(dir.path());
    let Ran { code, stdout, stderr } = ran(&mut run, Duration::from_secs(120));
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    assert!(
        stdout.contains("carried the client's token in its `authorization` header"),
        "{stdout}"
    );
    let mut outputs = files_under(dir.path());
    assert!(outputs.iter().any(|(name, _)| name.contains("transcripts")));
    outputs.push(("stdout".into(), stdout));
    outputs.push(("stderr".into(), stderr));
    for (output, text) in &outputs {
        let leaked = jwt_beginnings(text);
        assert!(leaked.is_empty(), "{output} shows tokens: {leaked:?}");
    }
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
