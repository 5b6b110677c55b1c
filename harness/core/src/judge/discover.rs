//! The stateless era's stand-in for the handshake, `server/discover`: how
//! the answer to the probe reads, and whether the server lists the version
//! it answered (MODN-007).

use serde_json::Value;

use super::Check;
use super::describe::summarize;
use crate::Level;
use crate::protocol::cite;
use crate::protocol::errors::{
    HEADER_MISMATCH, MISSING_REQUIRED_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION,
};
use crate::scenario::model::CheckTag;
use crate::span::Span;

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

/// The expectation discovery is judged under: a modern server answers a
/// correct probe and lists the version it answered (MODN-007), at `span`.
pub fn tag(span: Span) -> CheckTag {
    CheckTag {
        level: Level::Must,
        requirement: cite::MODN_007.into(),
        span,
    }
}

/// Whether a modern server's discover `result` lists `version`, the version
/// it answered a request of (MODN-007, judged under `tag`).
pub fn version_listed(result: &Value, version: &str, tag: &CheckTag) -> Check {
    let listed = result
        .get("supportedVersions")
        .and_then(Value::as_array)
        .is_some_and(|versions| versions.iter().any(|v| v == version));
    let name = "server/discover lists the version it answered";
    if listed {
        Check::pass_for(name, tag)
    } else {
        let message = format!(
            "it answered a {version} request, but its supportedVersions are {}",
            result.get("supportedVersions").unwrap_or(&Value::Null)
        );
        Check::broken_for(name, tag, message)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

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
