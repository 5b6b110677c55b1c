//! Runs the reference client against a server and keeps what crossed the
//! wire: over stdio through `tee`s around the server's process, over HTTP
//! through a TCP relay in front of the in-process reference server.

pub mod http;
pub mod stdio;

use serde_json::Value;

pub const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
pub const CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
pub const INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
pub const SUBSCRIPTION_KEY: &str = "io.modelcontextprotocol/subscriptionId";

/// The method of a message, or "" for a response.
pub fn method(message: &Value) -> &str {
    message.get("method").and_then(Value::as_str).unwrap_or_default()
}

/// Whether a message is a request (a method and an id).
pub fn is_request(message: &Value) -> bool {
    message.get("method").is_some() && message.get("id").is_some()
}

/// The `_meta` of a message's params.
pub fn meta(message: &Value) -> &Value {
    &message["params"]["_meta"]
}

/// Whether a request carries the whole envelope of 2026-07-28.
pub fn has_envelope(request: &Value) -> bool {
    let meta = meta(request);
    meta[VERSION_KEY] == "2026-07-28"
        && meta[CAPABILITIES_KEY].is_object()
        && meta[INFO_KEY]["name"].is_string()
}
