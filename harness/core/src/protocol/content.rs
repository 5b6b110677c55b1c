//! Rules on what messages say, beyond their shapes: published schemas are
//! valid JSON Schema, tool names are well formed, structured content matches
//! the schema its tool declared, blobs are base64, `_meta` keys are well
//! formed. Some of them need what an earlier frame said (the output schema a
//! `tools/list` declared), which [`ToolCatalogue`] keeps.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::trace::check_trace_keys;
use super::violation::Violation;
use crate::Level;
use crate::protocol::cite;
use crate::version::{Era, ProtocolVersion};

/// What the server said about its tools, as far as later calls need it.
#[derive(Debug, Default)]
pub(super) struct ToolCatalogue {
    output_schemas: HashMap<String, Value>,
}

impl ToolCatalogue {
    /// Checks one page of a `tools/list` result and remembers its output schemas.
    pub fn check_list(&mut self, result: &Value, version: ProtocolVersion, out: &mut Vec<Violation>) {
        let Some(tools) = result.get("tools").and_then(Value::as_array) else {
            return;
        };
        let mut seen = HashMap::new();
        for (index, tool) in tools.iter().enumerate() {
            let at = format!("/result/tools/{index}");
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                continue;
            };
            if version >= ProtocolVersion::V2025_11_25 {
                if !TOOL_NAME.is_match(name) {
                    let message =
                        format!("tool name {name:?} is not 1 to 128 of the characters A-Z a-z 0-9 _ - .");
                    out.push(Violation::new(cite::TOOL_003, Level::Should, message).at(format!("{at}/name")));
                }
                if let Some(first) = seen.insert(name, index) {
                    let message = format!("tool name {name:?} is listed twice (also at index {first})");
                    out.push(Violation::new(cite::TOOL_003, Level::Should, message).at(format!("{at}/name")));
                }
            }
            for member in ["inputSchema", "outputSchema"] {
                if let Some(schema) = tool.get(member) {
                    check_published_schema(schema, version, &format!("{at}/{member}"), out);
                }
            }
            match tool.get("outputSchema") {
                Some(schema) if version >= ProtocolVersion::V2025_06_18 => {
                    self.output_schemas.insert(name.to_owned(), schema.clone());
                }
                _ => {
                    self.output_schemas.remove(name);
                }
            }
        }
    }

    /// Checks the result of a successful `tools/call` of `tool` against the
    /// output schema that tool declared, if any.
    pub fn check_call(&self, tool: &str, result: &Value, version: ProtocolVersion, out: &mut Vec<Violation>) {
        if version < ProtocolVersion::V2025_06_18 || result.get("isError") == Some(&Value::Bool(true)) {
            return;
        }
        let structured = result.get("structuredContent");
        if let Some(schema) = self.output_schemas.get(tool) {
            match structured {
                None => {
                    let message =
                        format!("`{tool}` declares an outputSchema but returned no structuredContent");
                    out.push(Violation::must(cite::TOOL_007, message).at("/result"));
                }
                Some(value) => {
                    if let Ok(validator) = jsonschema::validator_for(schema)
                        && let Some(error) = validator.iter_errors(value).next()
                    {
                        let message = format!(
                            "structuredContent of `{tool}` does not match its outputSchema: {error} (at {})",
                            pointer_or_root(&error.instance_path().to_string())
                        );
                        out.push(Violation::must(cite::TOOL_007, message).at("/result/structuredContent"));
                    }
                }
            }
        }
        if let Some(value) = structured
            && !serialized_in_text(result, value)
        {
            let message = "structuredContent is not also given, serialized as JSON, in a text content block";
            out.push(Violation::new(cite::TOOL_009, Level::Should, message).at("/result/content"));
        }
    }
}

/// Whether some text block of `result.content` holds `value` as JSON.
fn serialized_in_text(result: &Value, value: &Value) -> bool {
    let blocks = result.get("content").and_then(Value::as_array);
    blocks.into_iter().flatten().any(|block| {
        block.get("type").and_then(Value::as_str) == Some("text")
            && block
                .get("text")
                .and_then(Value::as_str)
                .and_then(|text| serde_json::from_str::<Value>(text).ok())
                .is_some_and(|parsed| &parsed == value)
    })
}

fn pointer_or_root(pointer: &str) -> &str {
    if pointer.is_empty() { "the root" } else { pointer }
}

/// A schema the server publishes must be valid in its dialect (JSCH-002,
/// from 2025-11-25). A dialect we cannot judge is left alone rather than
/// failed.
pub(super) fn check_published_schema(
    schema: &Value,
    version: ProtocolVersion,
    pointer: &str,
    out: &mut Vec<Violation>,
) {
    if version < ProtocolVersion::V2025_11_25 {
        return;
    }
    if let Some(dialect) = schema.get("$schema").and_then(Value::as_str)
        && !KNOWN_DIALECTS
            .iter()
            .any(|known| dialect.trim_end_matches('#') == *known)
    {
        return;
    }
    if let Err(error) = jsonschema::meta::validate(schema) {
        let message = format!(
            "the published schema is not valid JSON Schema: {error} (at {})",
            pointer_or_root(&error.instance_path().to_string())
        );
        out.push(Violation::must(cite::JSCH_002, message).at(pointer));
    }
}

/// The meta-schema URIs of the drafts the validator knows.
const KNOWN_DIALECTS: [&str; 5] = [
    "http://json-schema.org/draft-04/schema",
    "http://json-schema.org/draft-06/schema",
    "http://json-schema.org/draft-07/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "https://json-schema.org/draft/2020-12/schema",
];

/// Binary contents of `resources/read` are base64 (RES-003).
pub(super) fn check_resource_contents(result: &Value, out: &mut Vec<Violation>) {
    let contents = result.get("contents").and_then(Value::as_array);
    for (index, item) in contents.into_iter().flatten().enumerate() {
        if let Some(blob) = item.get("blob").and_then(Value::as_str)
            && !is_base64(blob)
        {
            let message = "`blob` is not valid base64";
            out.push(Violation::must(cite::RES_003, message).at(format!("/result/contents/{index}/blob")));
        }
    }
}

/// Standard base64 with padding, as the spec's `format: byte` means.
fn is_base64(text: &str) -> bool {
    text.len().is_multiple_of(4) && BASE64.is_match(text)
}

/// Error -32042 (URL elicitation required) lists only URL-mode
/// elicitations, each with an id, a URL and a message (ELIC-015, 2025-11-25).
pub(super) fn check_url_elicitation_required(data: Option<&Value>, out: &mut Vec<Violation>) {
    let Some(items) = data.and_then(|d| d.get("elicitations")).and_then(Value::as_array) else {
        let text = "error -32042 without `data.elicitations`, the URL elicitations it requires";
        out.push(Violation::must(cite::ELIC_015, text).at("/error/data"));
        return;
    };
    for (index, item) in items.iter().enumerate() {
        let at = format!("/error/data/elicitations/{index}");
        if item.get("mode").and_then(Value::as_str) != Some("url") {
            out.push(
                Violation::must(cite::ELIC_015, "an entry that is not a URL-mode elicitation").at(at.clone()),
            );
        }
        for member in ["elicitationId", "url", "message"] {
            if !item.get(member).is_some_and(Value::is_string) {
                let text = format!("a URL elicitation without a string `{member}`");
                out.push(Violation::must(cite::ELIC_015, text).at(at.clone()));
            }
        }
    }
}

/// In sampling history, a user message holding tool results holds nothing
/// else, and every tool use of an assistant message is answered, id for id,
/// by the user message right after it (SAMP-009, from 2025-11-25).
pub(super) fn check_sampling_history(params: &Value, version: ProtocolVersion, out: &mut Vec<Violation>) {
    if version < ProtocolVersion::V2025_11_25 {
        return;
    }
    let Some(messages) = params.get("messages").and_then(Value::as_array) else {
        return;
    };
    let blocks = |message: &Value| -> Vec<Value> {
        match message.get("content") {
            Some(Value::Array(items)) => items.clone(),
            Some(single) => vec![single.clone()],
            None => Vec::new(),
        }
    };
    let kind = |block: &Value| block.get("type").and_then(Value::as_str).map(str::to_owned);
    for (index, message) in messages.iter().enumerate() {
        let at = format!("/params/messages/{index}");
        let content = blocks(message);
        let results = content
            .iter()
            .filter(|b| kind(b).as_deref() == Some("tool_result"))
            .count();
        if results > 0 && results < content.len() {
            let text = "a user message with tool results holds other content too";
            out.push(Violation::must(cite::SAMP_009, text).at(at.clone()));
        }
        let uses: Vec<&str> = content
            .iter()
            .filter(|b| kind(b).as_deref() == Some("tool_use"))
            .filter_map(|b| b.get("id").and_then(Value::as_str))
            .collect();
        if uses.is_empty() {
            continue;
        }
        let answers: Vec<String> = messages
            .get(index + 1)
            .filter(|next| next.get("role").and_then(Value::as_str) == Some("user"))
            .map(|next| {
                blocks(next)
                    .iter()
                    .filter_map(|b| b.get("toolUseId").and_then(Value::as_str).map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        // The last message may be the assistant's pending tool use: the
        // client runs the tools and answers in its next request.
        if index + 1 == messages.len() {
            continue;
        }
        for id in uses.iter().filter(|id| !answers.iter().any(|a| a == *id)) {
            let text = format!("tool use {id:?} is not answered by a tool result in the next user message");
            out.push(Violation::must(cite::SAMP_009, text).at(at.clone()));
        }
    }
}

/// Keys of every `_meta` object in a message keep to the naming rules
/// (META-001, from 2025-06-18), and from 2026-07-28 the reserved trace keys
/// hold W3C values (META-002). User data (tool arguments, structured
/// content, schemas) is not searched: a `_meta` there is someone's data.
pub(super) fn check_meta_keys(value: &Value, at: &str, version: ProtocolVersion, out: &mut Vec<Violation>) {
    if version >= ProtocolVersion::V2025_06_18 {
        let trace = version.era() == Era::Stateless;
        walk_meta(value, &mut at.to_owned(), trace, out);
    }
}

const USER_DATA: [&str; 5] = [
    "arguments",
    "structuredContent",
    "inputSchema",
    "outputSchema",
    "requestedSchema",
];

fn walk_meta(value: &Value, pointer: &mut String, trace: bool, out: &mut Vec<Violation>) {
    let len = pointer.len();
    match value {
        Value::Object(members) => {
            for (key, member) in members {
                pointer.push('/');
                pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
                if key == "_meta"
                    && let Value::Object(meta) = member
                {
                    for meta_key in meta.keys().filter(|k| !META_KEY.is_match(k)) {
                        let message = format!(
                            "`_meta` key {meta_key:?} is not an optional prefix (dotted labels and a slash) and a name"
                        );
                        out.push(Violation::must(cite::META_001, message).at(pointer.clone()));
                    }
                    if trace {
                        check_trace_keys(meta, pointer, out);
                    }
                } else if !USER_DATA.contains(&key.as_str()) {
                    walk_meta(member, pointer, trace, out);
                }
                pointer.truncate(len);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                pointer.push_str(&format!("/{index}"));
                walk_meta(item, pointer, trace, out);
                pointer.truncate(len);
            }
        }
        _ => {}
    }
}

/// Whether `id` names an extension: a `_meta` key with a prefix.
pub(super) fn is_extension_id(id: &str) -> bool {
    id.contains('/') && META_KEY.is_match(id)
}

static TOOL_NAME: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[A-Za-z0-9_.\-]{1,128}$").unwrap());

static BASE64: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[A-Za-z0-9+/]*={0,2}$").unwrap());

/// Prefix: labels that start with a letter, end with a letter or digit and
/// hold hyphens between, joined by dots, then a slash. Name: empty, or
/// alphanumeric at both ends with `-_.` and alphanumerics between.
static META_KEY: LazyLock<Regex> = LazyLock::new(|| {
    let label = r"[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?";
    let name = r"(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?";
    Regex::new(&format!(r"^(?:{label}(?:\.{label})*/)?{name}$")).unwrap()
});

#[cfg(test)]
mod tests {
    use crate::requirements::RequirementId;
    use serde_json::json;

    use super::*;

    const V: ProtocolVersion = ProtocolVersion::V2025_11_25;

    fn ids(out: &[Violation]) -> Vec<RequirementId> {
        out.iter().map(|v| v.requirement).collect()
    }

    #[test]
    fn tool_names_and_published_schemas() {
        let mut tools = ToolCatalogue::default();
        let mut out = Vec::new();
        let result = json!({"tools": [
            {"name": "ok.tool-1_x", "inputSchema": {"type": "object"}},
            {"name": "bad name", "inputSchema": {"type": "object"}},
            {"name": "ok.tool-1_x", "inputSchema": {"type": "objekt"}},
            {"name": "d7", "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}},
            {"name": "other", "inputSchema": {"$schema": "https://example.com/my-dialect", "type": 5}},
        ]});
        tools.check_list(&result, V, &mut out);
        assert_eq!(ids(&out), [cite::TOOL_003, cite::TOOL_003, cite::JSCH_002]);
        assert_eq!(out[2].pointer.as_deref(), Some("/result/tools/2/inputSchema"));
        let mut old = Vec::new();
        tools.check_list(&result, ProtocolVersion::V2025_06_18, &mut old);
        assert!(old.is_empty(), "{old:?}");
    }

    #[test]
    fn structured_content_follows_the_declared_output_schema() {
        let mut tools = ToolCatalogue::default();
        let schema =
            json!({"type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]});
        let list =
            json!({"tools": [{"name": "add", "inputSchema": {"type": "object"}, "outputSchema": schema}]});
        tools.check_list(&list, V, &mut Vec::new());
        let good =
            json!({"content": [{"type": "text", "text": "{\"sum\": 3}"}], "structuredContent": {"sum": 3}});
        let wrong = json!({"content": [{"type": "text", "text": "{\"sum\": \"3\"}"}], "structuredContent": {"sum": "3"}});
        let missing = json!({"content": [{"type": "text", "text": "3"}]});
        let unserialized =
            json!({"content": [{"type": "text", "text": "3"}], "structuredContent": {"sum": 3}});
        let tool_error = json!({"content": [{"type": "text", "text": "no"}], "isError": true});
        let mut out = Vec::new();
        for result in [&good, &wrong, &missing, &unserialized, &tool_error] {
            tools.check_call("add", result, V, &mut out);
        }
        assert_eq!(ids(&out), [cite::TOOL_007, cite::TOOL_007, cite::TOOL_009]);
        let mut old = Vec::new();
        tools.check_call("add", &wrong, ProtocolVersion::V2025_03_26, &mut old);
        assert!(old.is_empty());
    }

    #[test]
    fn blobs_are_base64() {
        let mut out = Vec::new();
        let result = json!({"contents": [
            {"uri": "a", "blob": "aGk="}, {"uri": "b", "blob": "not base64!"}, {"uri": "c", "blob": "abc"},
            {"uri": "d", "text": "plain"}
        ]});
        check_resource_contents(&result, &mut out);
        assert_eq!(ids(&out), [cite::RES_003, cite::RES_003]);
        assert_eq!(out[0].pointer.as_deref(), Some("/result/contents/1/blob"));
    }

    #[test]
    fn sampling_history_balances_tool_uses_and_results() {
        let use_block = json!({"type": "tool_use", "id": "u1", "name": "t", "input": {}});
        let result_block = json!({"type": "tool_result", "toolUseId": "u1", "content": []});
        let text = json!({"type": "text", "text": "hi"});
        let balanced = json!({"messages": [
            {"role": "user", "content": text},
            {"role": "assistant", "content": [use_block]},
            {"role": "user", "content": [result_block]},
        ]});
        let mut out = Vec::new();
        check_sampling_history(&balanced, V, &mut out);
        assert!(out.is_empty(), "{out:?}");
        let unanswered = json!({"messages": [
            {"role": "assistant", "content": use_block},
            {"role": "user", "content": text},
        ]});
        let mixed = json!({"messages": [
            {"role": "assistant", "content": use_block},
            {"role": "user", "content": [result_block, text]},
        ]});
        check_sampling_history(&unanswered, V, &mut out);
        check_sampling_history(&mixed, V, &mut out);
        assert_eq!(ids(&out), [cite::SAMP_009, cite::SAMP_009]);
        let mut old = Vec::new();
        check_sampling_history(&unanswered, ProtocolVersion::V2025_06_18, &mut old);
        assert!(old.is_empty());
    }

    #[test]
    fn url_elicitation_required_lists_url_elicitations() {
        let good = json!({"elicitations": [
            {"mode": "url", "elicitationId": "e1", "url": "https://example.com/x", "message": "Sign in"}
        ]});
        let mut out = Vec::new();
        check_url_elicitation_required(Some(&good), &mut out);
        assert!(out.is_empty(), "{out:?}");
        let form = json!({"elicitations": [{"mode": "form", "message": "m", "requestedSchema": {}}]});
        check_url_elicitation_required(Some(&form), &mut out);
        check_url_elicitation_required(None, &mut out);
        assert_eq!(
            ids(&out),
            [cite::ELIC_015, cite::ELIC_015, cite::ELIC_015, cite::ELIC_015]
        );
    }

    #[test]
    fn meta_keys_follow_the_naming_rules() {
        let good = json!({"_meta": {
            "progressToken": 1, "io.modelcontextprotocol/related-task": {}, "example.com/x_y.z": 1, "a/": 2
        }});
        let mut out = Vec::new();
        check_meta_keys(&good, "/params", V, &mut out);
        assert!(out.is_empty(), "{out:?}");
        let bad = json!({"tools": [{"_meta": {"-bad": 1, "1abc.com/x": 2}}],
            "structuredContent": {"_meta": {"??": 1}}});
        check_meta_keys(&bad, "/result", V, &mut out);
        assert_eq!(ids(&out), [cite::META_001, cite::META_001]);
        assert_eq!(out[0].pointer.as_deref(), Some("/result/tools/0/_meta"));
        let mut old = Vec::new();
        check_meta_keys(&bad, "/result", ProtocolVersion::V2025_03_26, &mut old);
        assert!(old.is_empty());
    }
}
