//! The `initialize` handshake the engine performs unless a scenario takes
//! over the lifecycle itself.

use mcp_conform_core::Verdict;
use mcp_conform_core::judge::handshake::{self, InitializeAnswer};
use mcp_mock_peers::session::WaitError;
use serde_json::{Value, json};
use tokio::time::Instant;

use super::RunConfig;
use super::scenario::{default_client_info, dotted};
use super::steps::{StepRunner, Stop, Wait};

/// How the handshake ended.
pub enum Handshaken {
    Ready,
    Stopped(Stop),
}

/// Sends `initialize`, judges the answer, checks the scenario's capability
/// preconditions, then sends `notifications/initialized`.
pub async fn handshake(runner: &mut StepRunner<'_>, config: &RunConfig) -> Handshaken {
    let scenario = runner.scenario;
    let offered = scenario
        .client
        .protocol_version
        .clone()
        .unwrap_or_else(|| config.protocol.to_string());
    let info = scenario.client.info.clone().unwrap_or_else(default_client_info);
    let params = json!({
        "protocolVersion": offered,
        "capabilities": scenario.client.capabilities,
        "clientInfo": info,
    });
    // Counted from the send: over HTTP the send itself may wait for the
    // answer's headers, and that wait is part of the budget, not before it.
    let deadline = Instant::now() + config.startup_timeout;
    let id = match runner.session.request("initialize", Some(params), None).await {
        Ok(id) => id,
        Err(error) => return Handshaken::Stopped(Stop::halted(Verdict::Error, error.to_string())),
    };
    let response = match runner.wait(Wait::Response(&id), deadline, &[]).await {
        Ok(got) => got.message(),
        Err(error) => {
            let message = match error {
                WaitError::TimedOut => {
                    format!(
                        "no answer to initialize within {} ms",
                        config.startup_timeout.as_millis()
                    )
                }
                other => runner.describe(&other),
            };
            runner.checks.push(handshake::unanswered(scenario.span, message));
            return Handshaken::Stopped(Stop::Done);
        }
    };
    let (version, result, answered) =
        match handshake::initialize_answer(&response, scenario.versions, scenario.span) {
            InitializeAnswer::Negotiated {
                version,
                result,
                answered,
            } => (version, result, answered),
            InitializeAnswer::OutOfScope(note) => {
                return Handshaken::Stopped(Stop::halted(Verdict::NotApplicable, note));
            }
            InitializeAnswer::Broken(check) => {
                runner.checks.push(*check);
                return Handshaken::Stopped(Stop::Done);
            }
        };
    runner.version = version;
    let server = json!({
        "capabilities": result.get("capabilities"),
        "info": result.get("serverInfo"),
        "protocolVersion": answered,
    });
    if let Some(stop) = server_known(runner, server) {
        return Handshaken::Stopped(stop);
    }
    if let Err(error) = runner.session.notify("notifications/initialized", None).await {
        let tag = handshake::initialized_tag(scenario.span);
        return Handshaken::Stopped(runner.peer_gone(&tag, &WaitError::Transport(error.to_string())));
    }
    Handshaken::Ready
}

/// What the handshake (or discovery) told of the server, as `${server}`:
/// first judged against the scenario's capability preconditions.
pub fn server_known(runner: &mut StepRunner<'_>, server: Value) -> Option<Stop> {
    let capabilities = server.get("capabilities").cloned().unwrap_or(Value::Null);
    if let Some(stop) = capability_precondition(runner, &capabilities, "server") {
        return Some(stop);
    }
    runner.ctx.vars.insert("server".into(), server);
    None
}

/// Not-applicable when the peer (`server` or `client`) lacks a capability
/// the scenario needs, or declares one it must not have.
pub fn capability_precondition(runner: &StepRunner<'_>, capabilities: &Value, peer: &str) -> Option<Stop> {
    let requires = &runner.scenario.requires;
    if let Some(missing) = requires
        .capabilities
        .iter()
        .find(|path| dotted(capabilities, path).is_none())
    {
        let note = format!("the {peer} does not declare the `{missing}` capability");
        return Some(Stop::halted(Verdict::NotApplicable, note));
    }
    if let Some(present) = requires
        .absent_capabilities
        .iter()
        .find(|path| dotted(capabilities, path).is_some())
    {
        let note = format!("the {peer} declares the `{present}` capability");
        return Some(Stop::halted(Verdict::NotApplicable, note));
    }
    None
}
