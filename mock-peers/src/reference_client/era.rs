//! Which era the server speaks, found as a dual-era client finds it: a
//! `server/discover` probe carrying the envelope of 2026-07-28, before
//! anything else. A discover result naming that version is a modern
//! server. A recognised modern error is a modern server too: it refused the
//! probe, or speaks other modern versions only, and there is no falling
//! back. Anything else (any other error whatever its code, MODN-010; an HTTP
//! refusal without a modern error; silence) is a legacy server (MODN-009).

use std::time::Duration;

use mcp_conform_core::protocol::errors::{DEFINED, METHOD_NOT_FOUND, UNSUPPORTED_PROTOCOL_VERSION};
use mcp_conform_core::version::{Era, ProtocolVersion};
use serde_json::{Value, json};
use tokio::time::Instant;

use crate::session::{DefaultHandler, Envelope, MockSession, WaitError};

/// The modern version the client speaks.
pub(super) const MODERN: ProtocolVersion = ProtocolVersion::V2026_07_28;

/// How long a legacy server may stay silent before the client gives up on
/// the probe and initializes.
const PROBE_TIMEOUT: Duration = Duration::from_secs(3);

/// The probe's id: one the session never hands out, so that a legacy
/// conversation after it numbers its requests as it always did.
const PROBE_ID: &str = "discover";

/// What the probe found.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum ServerEra {
    /// A modern server, with the capabilities its discover result declares.
    Modern {
        capabilities: Value,
    },
    Legacy,
}

/// Who the client says it is on every modern request.
pub(super) fn envelope(capabilities: Value) -> Envelope {
    Envelope {
        protocol_version: MODERN.as_str().to_owned(),
        capabilities,
        info: json!({"name": "mcp-conform-reference-client", "version": env!("CARGO_PKG_VERSION")}),
    }
}

/// Sends the probe and reads its answer; an error when the server is
/// modern but no version or request of ours will do. `any_code`: any error
/// that is not a modern one means a legacy server (a broken client takes
/// only `-32601` for one, MODN-010).
pub(super) async fn probe(
    session: &mut MockSession,
    envelope: &Envelope,
    any_code: bool,
) -> Result<ServerEra, String> {
    let id = session
        .request(
            "server/discover",
            Some(envelope.apply(None)),
            Some(json!(PROBE_ID)),
        )
        .await
        .map_err(|e| e.to_string())?;
    let deadline = Instant::now() + PROBE_TIMEOUT;
    match session.wait_response(&id, deadline, &mut DefaultHandler).await {
        Ok(answer) => classify(&answer.message, any_code),
        Err(
            WaitError::TimedOut | WaitError::Transport(_) | WaitError::Stray(_) | WaitError::Malformed { .. },
        ) => Ok(ServerEra::Legacy),
        Err(WaitError::Closed(exit)) => Err(format!(
            "the server exited before answering server/discover ({})",
            exit.description
        )),
    }
}

/// Reads the answer to the probe.
fn classify(response: &Value, any_code: bool) -> Result<ServerEra, String> {
    if let Some(result) = response.get("result") {
        let versions = result.get("supportedVersions");
        if known_versions(versions).contains(&MODERN) {
            let capabilities = result.get("capabilities").cloned().unwrap_or_else(|| json!({}));
            return Ok(ServerEra::Modern { capabilities });
        }
        return fall_back(versions);
    }
    let error = response.get("error").unwrap_or(&Value::Null);
    match error.get("code").and_then(Value::as_i64) {
        Some(UNSUPPORTED_PROTOCOL_VERSION) => fall_back(error.pointer("/data/supported")),
        Some(code) if DEFINED.contains(&code) => Err(format!("the server refused server/discover: {error}")),
        Some(code) if !any_code && code != METHOD_NOT_FOUND => Err(format!(
            "server/discover was refused with {code}, which this client does not read as a legacy server"
        )),
        _ => Ok(ServerEra::Legacy),
    }
}

/// A modern server that does not speak our modern version, listing the
/// versions it does: legacy when one of them is, else no version will do
/// (MODN-006).
fn fall_back(versions: Option<&Value>) -> Result<ServerEra, String> {
    if known_versions(versions).iter().any(|v| v.era() == Era::Stateful) {
        return Ok(ServerEra::Legacy);
    }
    let listed = versions.map_or_else(|| "none".to_owned(), Value::to_string);
    Err(format!(
        "no compatible protocol version: the server speaks {listed}, this client {MODERN} and the legacy versions"
    ))
}

/// The versions of a list that this client knows.
fn known_versions(list: Option<&Value>) -> Vec<ProtocolVersion> {
    list.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str()?.parse().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(code: i64, data: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": PROBE_ID, "error": {"code": code, "message": "no", "data": data}})
    }

    #[test]
    fn a_discover_result_naming_our_version_is_a_modern_server() {
        let result = json!({"result": {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}}});
        let modern = ServerEra::Modern {
            capabilities: json!({"tools": {}}),
        };
        assert_eq!(classify(&result, true), Ok(modern));
        let other = json!({"result": {"supportedVersions": ["2031-01-01"], "capabilities": {}}});
        assert!(classify(&other, true).is_err());
        let dual = json!({"result": {"supportedVersions": ["2025-11-25"], "capabilities": {}}});
        assert_eq!(classify(&dual, true), Ok(ServerEra::Legacy));
    }

    #[test]
    fn any_error_but_a_modern_one_is_a_legacy_server() {
        for code in [-32601, -32600, -32602, -32603, -32000, 1] {
            assert_eq!(
                classify(&error(code, Value::Null), true),
                Ok(ServerEra::Legacy),
                "{code}"
            );
        }
        assert_eq!(classify(&json!({"id": 1}), true), Ok(ServerEra::Legacy));
        let legacy_listed = error(
            -32022,
            json!({"supported": ["2025-06-18"], "requested": "2026-07-28"}),
        );
        assert_eq!(classify(&legacy_listed, true), Ok(ServerEra::Legacy));
        let modern_only = error(
            -32022,
            json!({"supported": ["2031-01-01"], "requested": "2026-07-28"}),
        );
        assert!(classify(&modern_only, true).is_err());
        assert!(classify(&error(-32020, Value::Null), true).is_err());
        assert!(classify(&error(-32021, json!({"requiredCapabilities": {}})), true).is_err());
        // A broken client reads -32601 only as a legacy server.
        assert_eq!(
            classify(&error(-32601, Value::Null), false),
            Ok(ServerEra::Legacy)
        );
        assert!(classify(&error(-32603, Value::Null), false).is_err());
    }
}
