//! The stateless era (2026-07-28+) from the mock server's side: there is no
//! handshake to answer. The session serves the era ([`serve_stateless`]):
//! `server/discover`, `-32022` to `initialize` naming the version it speaks
//! (MODN-011), input rounds for what the scenario asks, listen streams. The
//! client's first request of the era tells who it is ([`serve_opening`]):
//! its envelope is `${client}`, and its capabilities meet the scenario's
//! preconditions. On stdio a dual-era client probes with `server/discover`
//! before anything else (MODN-009).

use mcp_conform_core::Verdict;
use mcp_conform_core::judge::opening;
use mcp_conform_core::protocol::meta_key::{CLIENT_CAPABILITIES, CLIENT_INFO, PROTOCOL_VERSION};
use mcp_conform_core::protocol::{MethodKind, method_in};
use mcp_conform_core::scenario::Scenario;
use mcp_conform_core::scenario::model::{Step, StepKind};
use mcp_conform_core::version::ProtocolVersion;
use mcp_mock_peers::session::{MockSession, ServerFacts, WaitError};
use serde_json::{Value, json};
use tokio::time::Instant;

use super::super::RunConfig;
use super::super::handshake::{Handshaken, capability_precondition};
use super::super::steps::{Got, StepRunner, Stop, Wait};
use super::mock_server_info;

const DISCOVER: &str = "server/discover";
const INITIALIZE: &str = "initialize";

/// Makes `session` the mock server of the stateless era for `scenario`.
pub fn serve_stateless(session: &mut MockSession, scenario: &Scenario, version: ProtocolVersion) {
    let server = &scenario.server;
    session.serve_stateless(ServerFacts {
        version,
        capabilities: server.capabilities.clone(),
        info: server.info.clone().unwrap_or_else(mock_server_info),
        instructions: server.instructions.clone(),
        request_state: server.request_state,
    });
    session.expect_asks(asks_anything(&scenario.steps, version));
}

/// Whether steps send the client something that travels inside results in
/// `version` (elicitation, sampling, roots).
fn asks_anything(steps: &[Step], version: ProtocolVersion) -> bool {
    steps.iter().any(|step| match &step.kind {
        StepKind::Request(request) => {
            method_in(&request.method, version).is_some_and(|spec| spec.kind == MethodKind::InputRequest)
        }
        StepKind::ForEach { steps, .. } => asks_anything(steps, version),
        _ => false,
    })
}

/// Waits for the client's first request of the era and takes who it is
/// from its envelope. A client that opens with `initialize` and leaves when
/// refused speaks only the handshake era: the scenario does not apply.
pub async fn serve_opening(runner: &mut StepRunner<'_>, config: &RunConfig, stdio: bool) -> Handshaken {
    let deadline = Instant::now() + config.startup_timeout;
    let mut opened_with_initialize = false;
    let first = loop {
        let seen = runner.session.peer_requests().len();
        match runner.wait(Wait::PeerRequest(seen), deadline, &[]).await {
            Ok(Got::PeerRequest(request)) if request.method == INITIALIZE => opened_with_initialize = true,
            Ok(Got::PeerRequest(request)) => break request,
            Ok(_) => {}
            Err(error) => return never_went_on(runner, opened_with_initialize, &error, config),
        }
    };
    let span = runner.scenario.span;
    if stdio && (opened_with_initialize || first.method == DISCOVER) {
        runner
            .checks
            .push(opening::probes_first(opened_with_initialize, &first.method, span));
    }
    let meta = first.params.as_ref().and_then(|p| p.get("_meta"));
    let field = |key: &str| meta.and_then(|m| m.get(key)).cloned().unwrap_or(Value::Null);
    let capabilities = field(CLIENT_CAPABILITIES);
    runner.ctx.vars.insert(
        "client".into(),
        json!({
            "capabilities": capabilities,
            "info": field(CLIENT_INFO),
            "protocolVersion": field(PROTOCOL_VERSION),
        }),
    );
    match capability_precondition(runner, &capabilities, "client") {
        Some(stop) => Handshaken::Stopped(stop),
        None => Handshaken::Ready,
    }
}

/// The client sent no request of the era before `error` ended the wait.
fn never_went_on(
    runner: &StepRunner<'_>,
    opened_with_initialize: bool,
    error: &WaitError,
    config: &RunConfig,
) -> Handshaken {
    let version = runner.version;
    let how = match error {
        WaitError::TimedOut => format!("within {} ms", config.startup_timeout.as_millis()),
        other => format!("({})", runner.describe(other)),
    };
    let note = match opened_with_initialize {
        true => format!(
            "the client opened with initialize and, told this server speaks {version} only (-32022), sent nothing else {how}: it speaks the handshake era only"
        ),
        false => format!("the client sent no request {how}"),
    };
    let verdict = match opened_with_initialize {
        true => Verdict::NotApplicable,
        false => Verdict::NotObserved,
    };
    Handshaken::Stopped(Stop::halted(verdict, note))
}
