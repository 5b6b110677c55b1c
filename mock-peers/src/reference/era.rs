//! Which era a client speaks. This server is dual-era: an `initialize`
//! request opens a legacy session, and a request carrying the per-request
//! `_meta` of 2026-07-28 (or a method only that revision has) is served
//! statelessly. On stdio the first such request settles the mode of the
//! whole process; over HTTP every POST decides for itself.

use serde_json::Value;

pub(crate) use mcp_conform_core::protocol::meta_key::{
    CLIENT_CAPABILITIES, LOG_LEVEL, PROTOCOL_VERSION, SERVER_INFO, SUBSCRIPTION_ID,
};

/// Methods that exist only in the stateless revision.
const MODERN_ONLY: [&str; 2] = ["server/discover", "subscriptions/listen"];

/// Whether `message` is a request of a stateless client: it carries a
/// per-request protocol field, or names a method only 2026-07-28 has.
pub(crate) fn is_stateless_request(message: &Value) -> bool {
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        return false;
    };
    let meta = message.pointer("/params/_meta");
    let tagged =
        meta.is_some_and(|m| m.get(PROTOCOL_VERSION).is_some() || m.get(CLIENT_CAPABILITIES).is_some());
    message.get("id").is_some() && (tagged || MODERN_ONLY.contains(&method))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn per_request_meta_or_a_modern_method_marks_a_modern_request() {
        let meta = json!({ PROTOCOL_VERSION: "2026-07-28", CLIENT_CAPABILITIES: {} });
        assert!(is_stateless_request(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}})
        ));
        assert!(is_stateless_request(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover"})
        ));
        assert!(!is_stateless_request(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {"progressToken": 1}}})
        ));
        assert!(!is_stateless_request(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}})
        ));
        assert!(!is_stateless_request(
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"_meta": meta}})
        ));
    }
}
