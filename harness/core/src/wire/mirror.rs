//! The request headers of 2026-07-28: a POST mirrors fields of its body
//! into headers so intermediaries can route without parsing it
//! (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`), and tool arguments
//! whose schema property carries `x-mcp-header` into `Mcp-Param-{Name}`.
//! Values that are not safe as a plain header value are sent as
//! `=?base64?…?=`.
//!
//! The rules live here once, for every side that needs them: the mock
//! client mirrors with them, the reference server checks what it is sent
//! against them, and `protocol/client_http` judges a client under test by
//! them.

use std::collections::HashMap;

use serde_json::Value;

use super::base64;
use super::headers::{self, is_token_byte};
use crate::protocol::meta_key::PROTOCOL_VERSION;

const SENTINEL_START: &str = "=?base64?";
const SENTINEL_END: &str = "?=";

/// Where a property's `x-mcp-header` is declared.
const ANNOTATION: &str = "x-mcp-header";

/// Schema keywords whose values are data, not schemas: an `x-mcp-header`
/// key inside them declares nothing.
const DATA_KEYWORDS: [&str; 4] = ["const", "default", "enum", "examples"];

/// The property types a header may mirror (`number` may not: HTTP-024).
const PRIMITIVE_TYPES: [&str; 3] = ["string", "integer", "boolean"];

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

impl ParamHeader {
    /// The header's name as recorded (lower case).
    pub fn header(&self) -> String {
        format!("{}{}", headers::PARAM_PREFIX, self.name.to_ascii_lowercase())
    }

    /// The argument this header mirrors, unless it is absent or null.
    pub fn argument<'a>(&self, arguments: Option<&'a Value>) -> Option<&'a Value> {
        self.path
            .iter()
            .try_fold(arguments?, |at, key| at.get(key))
            .filter(|value| !value.is_null())
    }
}

/// Learns the `x-mcp-header` properties of every tool in a `tools/list`
/// result. A tool whose declarations are invalid mirrors nothing (a client
/// over HTTP drops it from its list).
pub fn learn_tools(result: &Value, into: &mut ToolHeaders) {
    let tools = result.get("tools").and_then(Value::as_array);
    for tool in tools.into_iter().flatten() {
        let Some(name) = tool.get("name").and_then(Value::as_str) else {
            continue;
        };
        into.insert(name.to_owned(), header_params(tool).unwrap_or_default());
    }
}

/// The `x-mcp-header` declarations of a tool definition, or why they make
/// the tool invalid: a name that is empty or not an HTTP token, names that
/// differ only in case, a property whose type is not a primitive other
/// than `number`, or one not reached through `properties` alone.
pub fn header_params(tool: &Value) -> Result<Vec<ParamHeader>, String> {
    let mut declared = Vec::new();
    if let Some(schema) = tool.get("inputSchema") {
        annotations(schema, Some(&mut Vec::new()), &mut declared);
    }
    let mut params: Vec<ParamHeader> = Vec::new();
    for Declared { path, name, schema } in declared {
        let name = match name.as_str() {
            Some(name) if !name.is_empty() && name.bytes().all(is_token_byte) => name.to_owned(),
            _ => return Err(format!("{ANNOTATION} {name} is not an HTTP token")),
        };
        let Some(path) = path.filter(|path| !path.is_empty()) else {
            return Err(format!(
                "{ANNOTATION} {name:?} is not on a property reached through `properties` alone"
            ));
        };
        if !is_primitive(schema.get("type")) {
            return Err(format!(
                "{ANNOTATION} {name:?} is on a property whose type is not string, integer or boolean"
            ));
        }
        if params.iter().any(|p| p.name.eq_ignore_ascii_case(&name)) {
            return Err(format!(
                "{ANNOTATION} {name:?} is declared twice (names differ in case only)"
            ));
        }
        params.push(ParamHeader { name, path });
    }
    Ok(params)
}

/// One `x-mcp-header` found in a schema: the `properties` chain to it
/// (`None` when anything else leads there), its value and its schema.
struct Declared<'a> {
    path: Option<Vec<String>>,
    name: &'a Value,
    schema: &'a Value,
}

/// Every `x-mcp-header` in `schema`; `path` is the `properties` chain to
/// it while there is one.
fn annotations<'a>(schema: &'a Value, path: Option<&mut Vec<String>>, found: &mut Vec<Declared<'a>>) {
    match schema {
        Value::Object(members) => {
            if let Some(name) = members.get(ANNOTATION) {
                found.push(Declared {
                    path: path.as_deref().cloned(),
                    name,
                    schema,
                });
            }
            let mut path = path;
            for (key, value) in members {
                match (key.as_str(), value) {
                    (ANNOTATION, _) => {}
                    (keyword, _) if DATA_KEYWORDS.contains(&keyword) => {}
                    ("properties", Value::Object(properties)) => {
                        for (property, schema) in properties {
                            match path.as_deref_mut() {
                                Some(chain) => {
                                    chain.push(property.clone());
                                    annotations(schema, Some(chain), found);
                                    chain.pop();
                                }
                                None => annotations(schema, None, found),
                            }
                        }
                    }
                    _ => annotations(value, None, found),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| annotations(item, None, found)),
        _ => {}
    }
}

/// A `type` of string, integer or boolean (alone, or with `null`).
fn is_primitive(kind: Option<&Value>) -> bool {
    let primitive = |kind: &str| PRIMITIVE_TYPES.contains(&kind);
    match kind {
        Some(Value::String(kind)) => primitive(kind),
        Some(Value::Array(kinds)) => {
            let named: Vec<&str> = kinds.iter().filter_map(Value::as_str).collect();
            named.len() == kinds.len()
                && named.iter().any(|kind| primitive(kind))
                && named.iter().all(|kind| primitive(kind) || *kind == "null")
        }
        _ => false,
    }
}

/// The headers a stateless POST carries for `message` (a request or a
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
        headers.push((headers::PROTOCOL_VERSION.to_owned(), version.to_owned()));
    }
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        return headers;
    };
    headers.push((headers::METHOD.to_owned(), encode(method)));
    let named = named(method, params);
    if let Some(name) = named {
        headers.push((headers::NAME.to_owned(), encode(name)));
    }
    let tool = (method == "tools/call")
        .then_some(named)
        .flatten()
        .and_then(|name| tools.get(name));
    let arguments = params.and_then(|p| p.get("arguments"));
    for param in tool.into_iter().flatten() {
        if let Some(text) = param.argument(arguments).and_then(header_text) {
            headers.push((param.header(), encode(&text)));
        }
    }
    headers
}

/// The params member `Mcp-Name` mirrors for `method`: the name of a
/// `tools/call` or `prompts/get`, the URI of a `resources/read`, the task
/// of the tasks extension's requests (TASKX-030); `None` for methods that
/// carry no `Mcp-Name`.
pub fn named_member(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    }
}

/// What `Mcp-Name` mirrors for `method` (see [`named_member`]); `None` for
/// other methods or when the body lacks it.
pub fn named<'a>(method: &str, params: Option<&'a Value>) -> Option<&'a str> {
    params?.get(named_member(method)?)?.as_str()
}

/// A primitive argument as header text; `None` for null, absent, or a
/// value no header may carry (objects, arrays).
pub fn header_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn is_sentinel(text: &str) -> bool {
    text.starts_with(SENTINEL_START) && text.ends_with(SENTINEL_END)
}

/// The value as sent: itself when it is a safe plain header value, else the
/// Base64 sentinel form of its UTF-8 bytes (also for text that would read
/// as the sentinel itself).
pub fn encode(text: &str) -> String {
    let safe = text.bytes().all(|b| b == b'\t' || (0x20..=0x7e).contains(&b))
        && text.trim() == text
        && !is_sentinel(text);
    if safe {
        text.to_owned()
    } else {
        format!(
            "{SENTINEL_START}{}{SENTINEL_END}",
            base64::encode(text.as_bytes())
        )
    }
}

/// The text a header value stands for: itself, or the UTF-8 its
/// `=?base64?…?=` form encodes; `None` when that form is broken.
pub fn decode(value: &str) -> Option<String> {
    if !is_sentinel(value) {
        return Some(value.to_owned());
    }
    let encoded = &value[SENTINEL_START.len()..value.len() - SENTINEL_END.len()];
    base64::decode(encoded).and_then(|bytes| String::from_utf8(bytes).ok())
}

/// Whether a (decoded) header value stands for an argument value: strings
/// as they are, numbers numerically (`42.0` is 42), booleans as
/// `true`/`false`.
pub fn same_value(header: &str, argument: &Value) -> bool {
    match argument {
        Value::String(text) => header == text,
        Value::Bool(flag) => header == flag.to_string(),
        Value::Number(number) => header
            .trim()
            .parse::<f64>()
            .is_ok_and(|parsed| number.as_f64() == Some(parsed)),
        _ => false,
    }
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
    }

    #[test]
    fn header_values_decode_and_compare_by_type() {
        assert_eq!(
            decode("=?base64?SGVsbG8sIOS4lueVjA==?=").as_deref(),
            Some("Hello, 世界")
        );
        assert_eq!(decode("plain").as_deref(), Some("plain"));
        assert_eq!(decode("=?base64?!!?="), None);
        assert!(same_value("42.0", &json!(42)));
        assert!(same_value("true", &json!(true)));
        assert!(!same_value("True", &json!(true)));
        assert!(!same_value("42", &json!("x")));
    }

    #[test]
    fn a_tool_call_mirrors_version_method_name_and_marked_arguments() {
        let mut tools = ToolHeaders::new();
        let listed = json!({"tools": [{"name": "execute_sql", "inputSchema": {"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "options": {"type": "object", "properties": {"dry": {"type": "boolean", "x-mcp-header": "Dry"}}},
            "query": {"type": "string"}}}}]});
        learn_tools(&listed, &mut tools);
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "execute_sql",
            "arguments": {"region": "us-west1", "options": {"dry": true}, "query": "SELECT 1"},
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

    fn tool(properties: Value) -> Value {
        json!({"name": "t", "inputSchema": {"type": "object", "properties": properties}})
    }

    #[test]
    fn each_misuse_of_x_mcp_header_makes_the_tool_invalid() {
        let valid = tool(json!({
            "region": {"type": "string", "x-mcp-header": "Region"},
            "limit": {"type": ["integer", "null"], "x-mcp-header": "Limit"},
            "x-mcp-header": {"type": "string", "default": {"x-mcp-header": "Data"}}}));
        let names: Vec<String> = header_params(&valid)
            .unwrap()
            .into_iter()
            .map(|p| p.name)
            .collect();
        assert_eq!(names, ["Region", "Limit"]);
        for (broken, why) in [
            (
                json!({"a": {"type": "string", "x-mcp-header": ""}}),
                "not an HTTP token",
            ),
            (
                json!({"a": {"type": "string", "x-mcp-header": "Bad Name"}}),
                "not an HTTP token",
            ),
            (
                json!({"a": {"type": "string", "x-mcp-header": 7}}),
                "not an HTTP token",
            ),
            (
                json!({"a": {"type": "string", "x-mcp-header": "Id"}, "b": {"type": "string", "x-mcp-header": "ID"}}),
                "twice",
            ),
            (json!({"a": {"type": "number", "x-mcp-header": "A"}}), "type"),
            (json!({"a": {"type": "object", "x-mcp-header": "A"}}), "type"),
            (json!({"a": {"x-mcp-header": "A"}}), "type"),
            (
                json!({"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}),
                "`properties` alone",
            ),
            (
                json!({"a": {"anyOf": [{"type": "string", "x-mcp-header": "A"}]}}),
                "`properties` alone",
            ),
        ] {
            let error = header_params(&tool(broken.clone())).unwrap_err();
            assert!(error.contains(why), "{broken}: {error}");
        }
        let on_root = json!({"name": "t", "inputSchema": {"type": "object", "x-mcp-header": "Root"}});
        assert!(header_params(&on_root).is_err());
        let mut learned = ToolHeaders::new();
        learn_tools(
            &json!({"tools": [tool(json!({"a": {"type": "number", "x-mcp-header": "A"}}))]}),
            &mut learned,
        );
        assert_eq!(learned["t"], []);
    }
}
