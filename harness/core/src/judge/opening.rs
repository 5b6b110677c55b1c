//! How a client, or a gateway as the client of its backends, opens a
//! connection: `initialize` first (LIFE-001) with its required params
//! (LIFE-002), `initialized` before other requests (LIFE-007), and a
//! dual-era client's `server/discover` probe (MODN-009).

use serde_json::Value;

use super::Check;
use crate::Level;
use crate::protocol::cite;
use crate::span::Span;
use crate::wire::{Direction, Frame};

/// No `initialize` came (`message` says what happened instead).
pub fn never_initialized(span: Span, message: String) -> Check {
    Check::broken(
        "the client initializes",
        cite::LIFE_001,
        Level::Must,
        span,
        message,
    )
}

/// No `notifications/initialized` came after our answer to `initialize`.
pub fn never_sent_initialized(span: Span, message: String) -> Check {
    Check::broken(
        "the client sends initialized",
        cite::LIFE_007,
        Level::Must,
        span,
        message,
    )
}

/// LIFE-001: before `initialize`, the client sent nothing but pings and,
/// as a dual-era client does on a server of unknown era, the
/// `server/discover` probe of 2026-07-28 (MODN-009).
pub fn opens_with_initialize(transcript: &[Frame], span: Span) -> Check {
    let name = "the connection opens with initialize";
    let first = transcript
        .iter()
        .filter(|f| f.direction == Direction::Received)
        .filter_map(|f| serde_json::from_slice::<Value>(&f.raw).ok())
        .map(|m| {
            m.get("method")
                .and_then(Value::as_str)
                .unwrap_or("a response")
                .to_owned()
        })
        .find(|method| method != "ping" && method != "server/discover");
    match first.as_deref() {
        Some("initialize") => Check::pass(name, cite::LIFE_001, Level::Must, span),
        other => Check::broken(
            name,
            cite::LIFE_001,
            Level::Must,
            span,
            format!("the client sent {} before initialize", other.unwrap_or("nothing")),
        ),
    }
}

/// LIFE-002: `initialize` gives protocolVersion, capabilities and clientInfo.
pub fn initialize_params(params: &Value, span: Span) -> Check {
    let mut problems = Vec::new();
    if !params.get("protocolVersion").is_some_and(Value::is_string) {
        problems.push("protocolVersion is not a string");
    }
    if !params.get("capabilities").is_some_and(Value::is_object) {
        problems.push("capabilities is not an object");
    }
    let info = params.get("clientInfo");
    if !info.and_then(|i| i.get("name")).is_some_and(Value::is_string) {
        problems.push("clientInfo.name is not a string");
    }
    if !info.and_then(|i| i.get("version")).is_some_and(Value::is_string) {
        problems.push("clientInfo.version is not a string");
    }
    let name = "the initialize request";
    if problems.is_empty() {
        Check::pass(name, cite::LIFE_002, Level::Must, span)
    } else {
        Check::broken(name, cite::LIFE_002, Level::Must, span, problems.join("; "))
            .with_values(None, Some(params.clone()))
    }
}

/// LIFE-007, once the gateway made a request past the handshake.
pub fn initialized_first(received: &[(usize, Value)], span: Span) -> Option<Check> {
    let method = |m: &Value| m.get("method").and_then(Value::as_str).map(str::to_owned);
    let later =
        |m: &Value| m.get("id").is_some() && !matches!(method(m).as_deref(), Some("initialize" | "ping"));
    let first_request = received.iter().find(|(_, m)| method(m).is_some() && later(m))?;
    let initialized = received
        .iter()
        .position(|(_, m)| method(m).as_deref() == Some("notifications/initialized"));
    let request_at = received.iter().position(|(i, _)| *i == first_request.0);
    let name = "the gateway sends initialized before its requests";
    Some(match (initialized, request_at) {
        (Some(notified), Some(requested)) if notified < requested => {
            Check::pass(name, cite::LIFE_007, Level::Must, span)
        }
        _ => Check::broken(
            name,
            cite::LIFE_007,
            Level::Must,
            span,
            format!(
                "the gateway sent {} before notifications/initialized",
                method(&first_request.1).unwrap_or_default()
            ),
        )
        .at_frame(Some(first_request.0)),
    })
}

/// MODN-009: a dual-era client opens with `server/discover`, not with
/// `initialize` (after which it sent `then`).
pub fn probes_first(opened_with_initialize: bool, then: &str, span: Span) -> Check {
    let name = "a dual-era client probes with server/discover first";
    if opened_with_initialize {
        let message = format!("it opened with initialize, then sent {then}");
        Check::broken(name, cite::MODN_009, Level::Should, span, message)
    } else {
        Check::pass(name, cite::MODN_009, Level::Should, span)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use super::*;
    use crate::Verdict;

    fn opening(methods: &[&str]) -> Verdict {
        let transcript: Vec<Frame> = methods
            .iter()
            .enumerate()
            .map(|(id, method)| {
                let message = json!({"jsonrpc": "2.0", "id": id, "method": method});
                Frame::new(
                    Direction::Received,
                    message.to_string().into_bytes(),
                    Duration::ZERO,
                )
            })
            .collect();
        opens_with_initialize(&transcript, Span::default()).verdict
    }

    #[test]
    fn only_pings_and_a_dual_era_probe_may_come_before_initialize() {
        assert_eq!(opening(&["initialize"]), Verdict::Pass);
        assert_eq!(opening(&["ping", "server/discover", "initialize"]), Verdict::Pass);
        assert_eq!(
            opening(&["server/discover", "tools/list", "initialize"]),
            Verdict::Fail
        );
        assert_eq!(opening(&["server/discover"]), Verdict::Fail);
    }
}
