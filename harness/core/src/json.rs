//! Small helpers on JSON values shared by the wire, protocol and matcher
//! modules: how a value's kind reads in messages, and JSON Pointer steps.

use serde_json::Value;

/// A short name of a JSON value's kind, for messages ("an integer").
pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The JSON Pointer (RFC 6901) to member `key` under `base`, escaping `~` and `/`.
pub(crate) fn pointer_member(base: &str, key: &str) -> String {
    format!("{base}/{}", key.replace('~', "~0").replace('/', "~1"))
}
