//! The request headers of 2026-07-28: a POST mirrors fields of its body
//! into headers so intermediaries can route without parsing it
//! (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`), and tool arguments
//! whose schema property carries `x-mcp-header` into `Mcp-Param-{Name}`.
//! Values that are not safe as a plain header value are sent as
//! `=?base64?…?=`.

use std::collections::HashMap;

use mcp_conform_core::protocol::meta_key::PROTOCOL_VERSION;
use serde_json::Value;

use super::headers::is_token_byte;

const SENTINEL_START: &str = "=?base64?";
const SENTINEL_END: &str = "?=";

/// For each tool (by name), the headers its arguments are mirrored into.
pub type ToolHeaders = HashMap<String, Vec<ParamHeader>>;

/// One `x-mcp-header` property of a tool's `inputSchema`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamHeader {
    /// The `{Name}` of `Mcp-Param-{Name}`.
    pub name: String,
    /// The chain of `properties` keys leading to the property.
    pub path: Vec<String>,
}

/// Learns the `x-mcp-header` properties of every tool in a `tools/list`
/// result. Only properties reachable through `properties` alone count, and
/// only header names that are HTTP tokens (anything else makes the tool
/// definition invalid, and a client does not mirror it).
pub fn learn_tools(result: &Value, into: &mut ToolHeaders) {
    let tools = result.get("tools").and_then(Value::as_array);
    for tool in tools.into_iter().flatten() {
        let Some(name) = tool.get("name").and_then(Value::as_str) else {
            continue;
        };
        let mut found = Vec::new();
        if let Some(schema) = tool.get("inputSchema") {
            collect(schema, &mut Vec::new(), &mut found);
        }
        into.insert(name.to_owned(), found);
    }
}

fn collect(schema: &Value, path: &mut Vec<String>, found: &mut Vec<ParamHeader>) {
    let properties = schema.get("properties").and_then(Value::as_object);
    for (key, property) in properties.into_iter().flatten() {
        path.push(key.clone());
        if let Some(name) = property.get("x-mcp-header").and_then(Value::as_str)
            && !name.is_empty()
            && name.bytes().all(is_token_byte)
        {
            found.push(ParamHeader {
                name: name.to_owned(),
                path: path.clone(),
            });
        }
        collect(property, path, found);
        path.pop();
    }
}

/// The headers a modern POST carries for `message` (a request or a
/// notification): the protocol version of its `_meta` (none when it has
/// none), its method, the name or URI of `tools/call`, `prompts/get` and
/// `resources/read`, and the mirrored arguments of a tool call.
pub fn mirrored(message: &Value, tools: &ToolHeaders) -> Vec<(String, String)> {
    let mut headers = Vec::new();
    let params = message.get("params");
    if let Some(version) = params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(PROTOCOL_VERSION))
        .and_then(Value::as_str)
    {
        headers.push(("mcp-protocol-version".to_owned(), version.to_owned()));
    }
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        return headers;
    };
    headers.push(("mcp-method".to_owned(), encode(method)));
    let named = match method {
        "tools/call" | "prompts/get" => params.and_then(|p| p.get("name")),
        "resources/read" => params.and_then(|p| p.get("uri")),
        _ => None,
    };
    if let Some(name) = named.and_then(Value::as_str) {
        headers.push(("mcp-name".to_owned(), encode(name)));
    }
    let tool = (method == "tools/call")
        .then(|| named.and_then(Value::as_str))
        .flatten()
        .and_then(|name| tools.get(name));
    let arguments = params.and_then(|p| p.get("arguments"));
    for param in tool.into_iter().flatten() {
        let value =
            arguments.and_then(|arguments| param.path.iter().try_fold(arguments, |at, key| at.get(key)));
        if let Some(text) = value.and_then(header_text) {
            headers.push((
                format!("mcp-param-{}", param.name.to_ascii_lowercase()),
                encode(&text),
            ));
        }
    }
    headers
}

/// A primitive argument as header text; `None` for null, absent, or a
/// value no header may carry (objects, arrays).
fn header_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The value as sent: itself when it is a safe plain header value, else the
/// Base64 sentinel form of its UTF-8 bytes (also for text that would read
/// as the sentinel itself).
pub fn encode(text: &str) -> String {
    let safe = text.bytes().all(|b| b == b'\t' || (0x20..=0x7e).contains(&b))
        && text.trim() == text
        && !(text.starts_with(SENTINEL_START) && text.ends_with(SENTINEL_END));
    if safe {
        text.to_owned()
    } else {
        format!("{SENTINEL_START}{}{SENTINEL_END}", base64(text.as_bytes()))
    }
}

/// Standard Base64 with padding (RFC 4648 §4).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, b)| acc | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 0x3f) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn values_that_are_not_header_safe_are_base64_encoded() {
        assert_eq!(encode("us-west1"), "us-west1");
        assert_eq!(encode("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
        assert_eq!(encode(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(encode("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert_eq!(
            encode("=?base64?literal?="),
            "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
        );
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
    }

    #[test]
    fn a_tool_call_mirrors_version_method_name_and_marked_arguments() {
        let mut tools = ToolHeaders::new();
        let listed = json!({"tools": [{"name": "execute_sql", "inputSchema": {"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "options": {"type": "object", "properties": {"dry": {"type": "boolean", "x-mcp-header": "Dry"}}},
            "query": {"type": "string"},
            "bad": {"type": "string", "x-mcp-header": "not a token"}}}}]});
        learn_tools(&listed, &mut tools);
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "execute_sql",
            "arguments": {"region": "us-west1", "options": {"dry": true}, "query": "SELECT 1", "bad": "x"},
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}});
        let headers = mirrored(&call, &tools);
        let expected: Vec<(String, String)> = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "execute_sql"),
            ("mcp-param-region", "us-west1"),
            ("mcp-param-dry", "true"),
        ]
        .iter()
        .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
        .collect();
        assert_eq!(headers, expected);
        let read = json!({"method": "resources/read", "params": {"uri": "file:///é"}});
        assert_eq!(
            mirrored(&read, &tools),
            [
                ("mcp-method".to_owned(), "resources/read".to_owned()),
                ("mcp-name".to_owned(), "=?base64?ZmlsZTovLy/DqQ==?=".to_owned())
            ]
        );
        let absent =
            json!({"method": "tools/call", "params": {"name": "execute_sql", "arguments": {"region": null}}});
        assert_eq!(mirrored(&absent, &tools).len(), 2);
    }
}
