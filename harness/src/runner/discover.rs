//! The stateless era's stand-in for the handshake: `server/discover`. The
//! server names the versions it speaks and its capabilities, which the
//! scenario's preconditions and `${server}` read. A server that refuses the
//! probe with anything but a modern error speaks only legacy versions
//! (MODN-009), so the scenario does not apply to it; the decision never
//! rests on one particular error code (MODN-010).

use mcp_conform_core::protocol::errors::{
    HEADER_MISMATCH, MISSING_REQUIRED_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION,
};
use mcp_conform_core::requirements::id;
use mcp_conform_core::scenario::model::CheckTag;
use mcp_conform_core::{Level, Verdict};
use mcp_mock_peers::client::WaitError;
use serde_json::{Value, json};
use tokio::time::Instant;

use super::RunConfig;
use super::handshake::{Handshaken, server_known};
use super::outcome::Check;
use super::steps::{StepRunner, Stop, Wait};
use super::verify::summarize;

const DISCOVER: &str = "server/discover";

/// How a `server/discover` probe came out, before any scenario judges it.
#[derive(Debug, Clone, PartialEq)]
pub enum Probe {
    /// A modern server: its result.
    Modern(Value),
    /// A modern server that does not speak the version asked for.
    Unsupported { supported: Vec<String> },
    /// A modern error other than an unsupported version (the request was
    /// refused, which a correct server does not do to a correct probe).
    Refused(Value),
    /// Anything else: a server of the legacy era. Says what it answered.
    Legacy(String),
}

/// Reads the answer to a discover probe (a response, or what the transport
/// said instead of one).
pub fn classify(answer: Result<Value, String>) -> Probe {
    let response = match answer {
        Ok(response) => response,
        Err(transport) => return Probe::Legacy(transport),
    };
    if let Some(result) = response.get("result") {
        return Probe::Modern(result.clone());
    }
    let error = response.get("error").cloned().unwrap_or(Value::Null);
    match error.get("code").and_then(Value::as_i64) {
        Some(UNSUPPORTED_PROTOCOL_VERSION) => {
            let supported = error
                .pointer("/data/supported")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect();
            Probe::Unsupported { supported }
        }
        Some(HEADER_MISMATCH | MISSING_REQUIRED_CLIENT_CAPABILITY) => Probe::Refused(error),
        _ => Probe::Legacy(format!("it answered {}", summarize(&response))),
    }
}

/// Sends `server/discover`, judges the answer, checks the scenario's
/// capability preconditions and defines `${server}`.
pub async fn discover(runner: &mut StepRunner<'_>, config: &RunConfig) -> Handshaken {
    let scenario = runner.scenario;
    let id = match runner.session.request(DISCOVER, None, None).await {
        Ok(id) => id,
        Err(error) => return Handshaken::Stopped(Stop::halted(Verdict::Error, error.to_string())),
    };
    let deadline = Instant::now() + config.startup_timeout;
    let answer = match runner.wait(Wait::Response(&id), deadline, &[]).await {
        Ok(got) => Ok(got.message()),
        Err(WaitError::Transport(refusal)) => Err(refusal),
        Err(WaitError::TimedOut) => {
            let note = format!(
                "no answer to {DISCOVER} within {} ms: neither a modern server's answer nor a legacy server's refusal (a client reads silence as legacy, MODN-009)",
                config.startup_timeout.as_millis()
            );
            return Handshaken::Stopped(Stop::halted(Verdict::NotObserved, note));
        }
        Err(WaitError::Closed(exit)) => {
            let note = format!(
                "the server exited before answering {DISCOVER} ({})",
                exit.description
            );
            return Handshaken::Stopped(Stop::halted(Verdict::Error, note));
        }
    };
    let version = runner.version.as_str();
    let tag = CheckTag {
        level: Level::Must,
        requirement: id::MODN_007.into(),
        span: scenario.span,
    };
    let result = match classify(answer) {
        Probe::Modern(result) => result,
        Probe::Unsupported { supported } => {
            runner.foreign = true;
            let note = format!(
                "the server speaks {} of the stateless era, not {version}",
                supported.join(", ")
            );
            return Handshaken::Stopped(Stop::halted(Verdict::NotApplicable, note));
        }
        Probe::Legacy(answered) => {
            runner.foreign = true;
            let note = format!(
                "a legacy server: {DISCOVER} is not a method it knows ({answered}); it speaks no version of the stateless era"
            );
            return Handshaken::Stopped(Stop::halted(Verdict::NotApplicable, note));
        }
        Probe::Refused(error) => {
            let message = format!("{DISCOVER} was refused with {error}");
            runner
                .checks
                .push(Check::broken_for("answer to server/discover", &tag, message));
            return Handshaken::Stopped(Stop::Done);
        }
    };
    let listed = result
        .get("supportedVersions")
        .and_then(Value::as_array)
        .is_some_and(|versions| versions.iter().any(|v| v == version));
    let name = "server/discover lists the version it answered";
    runner.checks.push(if listed {
        Check::pass_for(name, &tag)
    } else {
        let message = format!(
            "it answered a {version} request, but its supportedVersions are {}",
            result.get("supportedVersions").unwrap_or(&Value::Null)
        );
        Check::broken_for(name, &tag, message)
    });
    let server = json!({
        "capabilities": result.get("capabilities"),
        "info": result.pointer("/_meta/io.modelcontextprotocol~1serverInfo"),
        "protocolVersion": version,
        "supportedVersions": result.get("supportedVersions"),
        "instructions": result.get("instructions"),
    });
    match server_known(runner, server) {
        Some(stop) => Handshaken::Stopped(stop),
        None => Handshaken::Ready,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_modern_errors_keep_a_server_modern() {
        let result = json!({"jsonrpc": "2.0", "id": 1, "result": {"supportedVersions": []}});
        assert!(matches!(classify(Ok(result)), Probe::Modern(_)));
        let unsupported = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32022, "message": "no",
            "data": {"supported": ["2027-01-01"], "requested": "2026-07-28"}}});
        assert_eq!(
            classify(Ok(unsupported)),
            Probe::Unsupported {
                supported: vec!["2027-01-01".into()]
            }
        );
        let refused = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32020, "message": "header"}});
        assert!(matches!(classify(Ok(refused)), Probe::Refused(_)));
        // Any other error, whatever its code, and a refusal without a JSON-RPC body, mean legacy.
        for code in [-32601, -32600, -32602, -32603, 0] {
            let legacy = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": code, "message": "x"}});
            assert!(matches!(classify(Ok(legacy)), Probe::Legacy(_)), "{code}");
        }
        assert!(matches!(
            classify(Err("post#1 was answered HTTP 400".into())),
            Probe::Legacy(_)
        ));
    }
}
