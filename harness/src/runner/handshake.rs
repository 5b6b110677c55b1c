//! The `initialize` handshake the engine performs unless a scenario takes
//! over the lifecycle itself.

use mcp_conform_core::Verdict;
use mcp_conform_core::judge::handshake::{self, InitializeAnswer};
use mcp_conform_core::scenario::model::Preconditions;
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
        Err(WaitError::Malformed { answer, invalid }) => {
            let check = handshake::not_json_rpc(scenario.span, &answer.message, &invalid);
            runner.checks.push(check);
            return Handshaken::Stopped(Stop::Done);
        }
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
    unmet_capabilities(&runner.scenario.requires, capabilities)
        .map(|why| Stop::halted(Verdict::NotApplicable, format!("the {peer} {why}")))
}

/// Why `capabilities` fail the scenario's capability preconditions, if they do.
fn unmet_capabilities(requires: &Preconditions, capabilities: &Value) -> Option<String> {
    let declared = |path: &&String| dotted(capabilities, path).is_some();
    if let Some(missing) = requires.capabilities.iter().find(|path| !declared(path)) {
        return Some(format!("does not declare the `{missing}` capability"));
    }
    if let Some(present) = requires.absent_capabilities.iter().find(declared) {
        return Some(format!("declares the `{present}` capability"));
    }
    if !requires.any_capabilities.is_empty() && !requires.any_capabilities.iter().any(|path| declared(&path))
    {
        let names = requires
            .any_capabilities
            .iter()
            .map(|p| format!("`{p}`"))
            .collect::<Vec<_>>();
        return Some(format!("declares none of the {} capabilities", names.join(", ")));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn requiring_any(paths: &[&str]) -> Preconditions {
        Preconditions {
            any_capabilities: paths.iter().map(|p| (*p).to_owned()).collect(),
            ..Preconditions::default()
        }
    }

    #[test]
    fn one_of_the_listed_capabilities_is_enough() {
        let requires = requiring_any(&["tools.listChanged", "resources.subscribe"]);
        let caps = json!({ "resources": { "subscribe": true } });
        assert_eq!(unmet_capabilities(&requires, &caps), None);
    }

    #[test]
    fn a_bare_resources_capability_promises_none_of_them() {
        let requires = requiring_any(&["tools.listChanged", "resources.subscribe"]);
        let caps = json!({ "resources": {} });
        assert_eq!(
            unmet_capabilities(&requires, &caps).as_deref(),
            Some("declares none of the `tools.listChanged`, `resources.subscribe` capabilities")
        );
    }

    #[test]
    fn an_extension_identifier_is_one_key() {
        let requires = requiring_any(&["extensions.io.modelcontextprotocol/tasks"]);
        let caps = json!({ "extensions": { "io.modelcontextprotocol/tasks": {} } });
        assert_eq!(unmet_capabilities(&requires, &caps), None);
        let other = json!({ "extensions": { "io.modelcontextprotocol/other": {} } });
        assert!(unmet_capabilities(&requires, &other).is_some());
    }
}
