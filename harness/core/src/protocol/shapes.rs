//! The shapes of params and results, per method and version, written from
//! the specification. A rule names a member by a pointer pattern (`*` walks
//! an array or every member of an object), what it must be, since which
//! version the rule exists, and the requirement it comes from. Objects stay
//! open: no MCP schema forbids extra members.

use serde_json::Value;

use super::violation::Violation;
use crate::version::ProtocolVersion::{self, V2024_11_05, V2025_03_26, V2025_06_18, V2025_11_25};

/// What a member must be.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Str,
    Int,
    Num,
    Bool,
    Obj,
    Arr,
    /// A string or an integer (progress tokens, request ids).
    Token,
    /// A string from a list.
    OneOf(&'static [&'static str]),
    /// A number from 0 to 1.
    Unit,
    /// An array of at most this many elements.
    ArrMax(usize),
    Any,
}

/// One rule.
#[derive(Debug)]
struct Rule {
    pattern: &'static str,
    kind: Kind,
    required: bool,
    since: ProtocolVersion,
    requirement: &'static str,
}

const fn req(pattern: &'static str, kind: Kind, requirement: &'static str) -> Rule {
    Rule {
        pattern,
        kind,
        required: true,
        since: V2024_11_05,
        requirement,
    }
}

const fn opt(pattern: &'static str, kind: Kind, requirement: &'static str) -> Rule {
    Rule {
        pattern,
        kind,
        required: false,
        since: V2024_11_05,
        requirement,
    }
}

const fn since(rule: Rule, version: ProtocolVersion) -> Rule {
    Rule {
        since: version,
        ..rule
    }
}

/// Which part of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Params,
    Result,
}

const SCHEMA: &str = "SCHEMA-001";
const LEVELS: &[&str] = &[
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];
const ROLES: &[&str] = &["user", "assistant"];
const CONTENT_2024: &[&str] = &["text", "image", "resource"];
const CONTENT_2025_03: &[&str] = &["text", "image", "audio", "resource"];
const CONTENT_2025_06: &[&str] = &["text", "image", "audio", "resource", "resource_link"];
const PRIMITIVE_2025_06: &[&str] = &["string", "number", "integer", "boolean"];
const PRIMITIVE_2025_11: &[&str] = &["string", "number", "integer", "boolean", "array"];

static INITIALIZE_RESULT: &[Rule] = &[
    req("/protocolVersion", Kind::Str, "LIFE-003"),
    req("/capabilities", Kind::Obj, "LIFE-003"),
    req("/serverInfo", Kind::Obj, "LIFE-003"),
    req("/serverInfo/name", Kind::Str, "LIFE-003"),
    req("/serverInfo/version", Kind::Str, "LIFE-003"),
    opt("/instructions", Kind::Str, "LIFE-003"),
];
static TOOLS_LIST_RESULT: &[Rule] = &[
    req("/tools", Kind::Arr, SCHEMA),
    req("/tools/*/name", Kind::Str, "TOOL-002"),
    req("/tools/*/inputSchema", Kind::Obj, "TOOL-002"),
    req("/tools/*/inputSchema/type", Kind::OneOf(&["object"]), "TOOL-002"),
    opt("/tools/*/description", Kind::Str, SCHEMA),
    since(opt("/tools/*/annotations", Kind::Obj, SCHEMA), V2025_03_26),
    since(opt("/tools/*/outputSchema", Kind::Obj, SCHEMA), V2025_06_18),
    since(
        opt("/tools/*/outputSchema/type", Kind::OneOf(&["object"]), SCHEMA),
        V2025_06_18,
    ),
    opt("/nextCursor", Kind::Str, SCHEMA),
];
static RESOURCES_LIST_RESULT: &[Rule] = &[
    req("/resources", Kind::Arr, SCHEMA),
    req("/resources/*/uri", Kind::Str, SCHEMA),
    req("/resources/*/name", Kind::Str, SCHEMA),
    opt("/resources/*/mimeType", Kind::Str, SCHEMA),
    opt("/nextCursor", Kind::Str, SCHEMA),
];
static TEMPLATES_LIST_RESULT: &[Rule] = &[
    req("/resourceTemplates", Kind::Arr, SCHEMA),
    req("/resourceTemplates/*/uriTemplate", Kind::Str, SCHEMA),
    req("/resourceTemplates/*/name", Kind::Str, SCHEMA),
    opt("/nextCursor", Kind::Str, SCHEMA),
];
static RESOURCES_READ_RESULT: &[Rule] = &[
    req("/contents", Kind::Arr, SCHEMA),
    req("/contents/*/uri", Kind::Str, SCHEMA),
];
static PROMPTS_LIST_RESULT: &[Rule] = &[
    req("/prompts", Kind::Arr, SCHEMA),
    req("/prompts/*/name", Kind::Str, SCHEMA),
    opt("/prompts/*/arguments", Kind::Arr, SCHEMA),
    req("/prompts/*/arguments/*/name", Kind::Str, SCHEMA),
    opt("/prompts/*/arguments/*/required", Kind::Bool, SCHEMA),
    opt("/nextCursor", Kind::Str, SCHEMA),
];
static PROMPTS_GET_RESULT: &[Rule] = &[
    req("/messages", Kind::Arr, SCHEMA),
    req("/messages/*/role", Kind::OneOf(ROLES), SCHEMA),
    req("/messages/*/content", Kind::Obj, SCHEMA),
];
static COMPLETE_RESULT: &[Rule] = &[
    req("/completion", Kind::Obj, SCHEMA),
    req("/completion/values", Kind::ArrMax(100), SCHEMA),
    req("/completion/values/*", Kind::Str, SCHEMA),
    opt("/completion/total", Kind::Int, SCHEMA),
    opt("/completion/hasMore", Kind::Bool, SCHEMA),
];
static PING_RESULT: &[Rule] = &[];
static CALL_RESULT: &[Rule] = &[
    req("/content", Kind::Arr, SCHEMA),
    req("/content/*/type", Kind::OneOf(CONTENT_2024), SCHEMA),
    since(
        req("/content/*/type", Kind::OneOf(CONTENT_2025_03), SCHEMA),
        V2025_03_26,
    ),
    since(
        req("/content/*/type", Kind::OneOf(CONTENT_2025_06), SCHEMA),
        V2025_06_18,
    ),
    opt("/isError", Kind::Bool, SCHEMA),
    since(opt("/structuredContent", Kind::Obj, SCHEMA), V2025_06_18),
];
static SAMPLING_PARAMS: &[Rule] = &[
    req("/messages", Kind::Arr, "SAMP-002"),
    req("/messages/*/role", Kind::OneOf(ROLES), "SAMP-002"),
    req("/messages/*/content", Kind::Any, "SAMP-002"),
    req("/maxTokens", Kind::Int, "SAMP-002"),
    opt("/modelPreferences", Kind::Obj, "SAMP-003"),
    opt("/modelPreferences/costPriority", Kind::Unit, "SAMP-003"),
    opt("/modelPreferences/speedPriority", Kind::Unit, "SAMP-003"),
    opt("/modelPreferences/intelligencePriority", Kind::Unit, "SAMP-003"),
    opt("/modelPreferences/hints", Kind::Arr, "SAMP-003"),
    opt("/modelPreferences/hints/*", Kind::Obj, "SAMP-003"),
    opt("/modelPreferences/hints/*/name", Kind::Str, "SAMP-003"),
    opt(
        "/includeContext",
        Kind::OneOf(&["none", "thisServer", "allServers"]),
        SCHEMA,
    ),
    opt("/systemPrompt", Kind::Str, SCHEMA),
    opt("/temperature", Kind::Num, SCHEMA),
];
static ELICITATION_PARAMS: &[Rule] = &[
    since(req("/message", Kind::Str, "ELIC-005"), V2025_06_18),
    since(opt("/requestedSchema", Kind::Obj, "ELIC-005"), V2025_06_18),
    since(
        req("/requestedSchema/type", Kind::OneOf(&["object"]), "ELIC-005"),
        V2025_06_18,
    ),
    since(
        req("/requestedSchema/properties", Kind::Obj, "ELIC-005"),
        V2025_06_18,
    ),
    since(
        req("/requestedSchema/properties/*", Kind::Obj, "ELIC-005"),
        V2025_06_18,
    ),
    since(
        req(
            "/requestedSchema/properties/*/type",
            Kind::OneOf(PRIMITIVE_2025_06),
            "ELIC-005",
        ),
        V2025_06_18,
    ),
    since(
        req(
            "/requestedSchema/properties/*/type",
            Kind::OneOf(PRIMITIVE_2025_11),
            "ELIC-005",
        ),
        V2025_11_25,
    ),
    since(
        opt("/mode", Kind::OneOf(&["form", "url"]), "ELIC-005"),
        V2025_11_25,
    ),
];
static PROGRESS_PARAMS: &[Rule] = &[
    req("/progressToken", Kind::Token, SCHEMA),
    req("/progress", Kind::Num, SCHEMA),
    opt("/total", Kind::Num, SCHEMA),
    since(opt("/message", Kind::Str, SCHEMA), V2025_03_26),
];
static MESSAGE_PARAMS: &[Rule] = &[
    req("/level", Kind::OneOf(LEVELS), SCHEMA),
    req("/data", Kind::Any, SCHEMA),
    opt("/logger", Kind::Str, SCHEMA),
];
static UPDATED_PARAMS: &[Rule] = &[req("/uri", Kind::Str, SCHEMA)];
static CANCELLED_PARAMS: &[Rule] = &[
    req("/requestId", Kind::Token, SCHEMA),
    opt("/reason", Kind::Str, SCHEMA),
];

/// The rules for a method's params or result, if we model it.
fn rules(method: &str, part: Part) -> Option<Vec<&'static Rule>> {
    let table: &'static [Rule] = match (method, part) {
        ("initialize", Part::Result) => INITIALIZE_RESULT,
        ("ping", Part::Result) => PING_RESULT,
        ("tools/list", Part::Result) => TOOLS_LIST_RESULT,
        ("tools/call", Part::Result) => CALL_RESULT,
        ("resources/list", Part::Result) => RESOURCES_LIST_RESULT,
        ("resources/templates/list", Part::Result) => TEMPLATES_LIST_RESULT,
        ("resources/read", Part::Result) => RESOURCES_READ_RESULT,
        ("prompts/list", Part::Result) => PROMPTS_LIST_RESULT,
        ("prompts/get", Part::Result) => PROMPTS_GET_RESULT,
        ("completion/complete", Part::Result) => COMPLETE_RESULT,
        ("sampling/createMessage", Part::Params) => SAMPLING_PARAMS,
        ("elicitation/create", Part::Params) => ELICITATION_PARAMS,
        ("notifications/progress", Part::Params) => PROGRESS_PARAMS,
        ("notifications/message", Part::Params) => MESSAGE_PARAMS,
        ("notifications/resources/updated", Part::Params) => UPDATED_PARAMS,
        ("notifications/cancelled", Part::Params) => CANCELLED_PARAMS,
        _ => return None,
    };
    Some(table.iter().collect())
}

/// Checks a method's params or result against the rules of `version`. A
/// rule that grew over versions applies in its newest form up to `version`.
pub fn check(method: &str, part: Part, value: Option<&Value>, version: ProtocolVersion) -> Vec<Violation> {
    let Some(rules) = rules(method, part) else {
        return Vec::new();
    };
    let base = match part {
        Part::Params => "/params",
        Part::Result => "/result",
    };
    let empty = Value::Object(Default::default());
    let value = value.unwrap_or(&empty);
    if !value.is_object() {
        return vec![
            Violation::must(
                SCHEMA,
                format!("{method} {} is not an object", base.trim_start_matches('/')),
            )
            .at(base),
        ];
    }
    let mut out = Vec::new();
    for rule in &rules {
        let newest = rules
            .iter()
            .filter(|r| r.pattern == rule.pattern && r.since <= version)
            .max_by_key(|r| r.since);
        if rule.since > version || !newest.is_some_and(|n| std::ptr::eq(*n, *rule)) {
            continue;
        }
        let parts: Vec<&str> = rule.pattern.trim_start_matches('/').split('/').collect();
        walk(value, &parts, base, rule, method, &mut out);
    }
    out
}

fn walk(value: &Value, parts: &[&str], at: &str, rule: &Rule, method: &str, out: &mut Vec<Violation>) {
    let Some((head, rest)) = parts.split_first() else {
        if let Some(problem) = kind_problem(value, rule.kind) {
            out.push(Violation::must(rule.requirement, format!("{method}: {at} {problem}")).at(at));
        }
        return;
    };
    if *head == "*" {
        let children: Vec<(String, &Value)> = match value {
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, v)| (i.to_string(), v))
                .collect(),
            Value::Object(map) => map.iter().map(|(k, v)| (k.clone(), v)).collect(),
            _ => Vec::new(),
        };
        for (key, child) in children {
            walk(child, rest, &format!("{at}/{key}"), rule, method, out);
        }
        return;
    }
    match value.get(head) {
        Some(child) => walk(child, rest, &format!("{at}/{head}"), rule, method, out),
        // A missing parent is reported by its own rule; only the last member is required here.
        None if rule.required && rest.is_empty() && value.is_object() => {
            out.push(
                Violation::must(rule.requirement, format!("{method}: {at}/{head} is missing"))
                    .at(format!("{at}/{head}")),
            );
        }
        None => {}
    }
}

fn kind_problem(value: &Value, kind: Kind) -> Option<String> {
    let ok = match kind {
        Kind::Str => value.is_string(),
        Kind::Int => value.is_i64() || value.is_u64(),
        Kind::Num => value.is_number(),
        Kind::Bool => value.is_boolean(),
        Kind::Obj => value.is_object(),
        Kind::Arr => value.is_array(),
        Kind::Token => value.is_string() || value.is_i64() || value.is_u64(),
        Kind::Any => true,
        Kind::OneOf(allowed) => {
            return match value.as_str() {
                Some(s) if allowed.contains(&s) => None,
                _ => Some(format!("is {value}, not one of {}", allowed.join(", "))),
            };
        }
        Kind::Unit => {
            return match value.as_f64() {
                Some(n) if (0.0..=1.0).contains(&n) => None,
                _ => Some(format!("is {value}, not a number from 0 to 1")),
            };
        }
        Kind::ArrMax(max) => {
            return match value.as_array() {
                Some(items) if items.len() <= max => None,
                Some(items) => Some(format!("has {} elements, more than {max}", items.len())),
                None => Some(format!("is {value}, not an array")),
            };
        }
    };
    (!ok).then(|| format!("is {}, not {}", short(value), kind_name(kind)))
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Str => "a string",
        Kind::Int => "an integer",
        Kind::Num | Kind::Unit => "a number",
        Kind::Bool => "a boolean",
        Kind::Obj => "an object",
        Kind::Arr | Kind::ArrMax(_) => "an array",
        Kind::Token => "a string or an integer",
        Kind::OneOf(_) | Kind::Any => "allowed",
    }
}

fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 60 {
        format!("{}…", text.chars().take(60).collect::<String>())
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn tool_list_shapes_are_checked_with_pointers() {
        let result = json!({"tools": [{"name": "a", "inputSchema": {"type": "object"}}, {"inputSchema": {"type": "string"}}]});
        let found = check("tools/list", Part::Result, Some(&result), V2025_11_25);
        let pointers: Vec<_> = found.iter().filter_map(|v| v.pointer.clone()).collect();
        assert_eq!(
            pointers,
            ["/result/tools/1/name", "/result/tools/1/inputSchema/type"]
        );
        assert!(found.iter().all(|v| v.requirement == "TOOL-002"));
    }

    #[test]
    fn priorities_are_numbers_from_0_to_1() {
        let params = json!({"messages": [], "maxTokens": 10, "modelPreferences": {"speedPriority": 1.5}});
        let found = check("sampling/createMessage", Part::Params, Some(&params), V2025_06_18);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].requirement, "SAMP-003");
    }

    #[test]
    fn content_types_grow_with_versions() {
        let result = json!({"content": [{"type": "resource_link", "uri": "x", "name": "x"}]});
        assert_eq!(
            check("tools/call", Part::Result, Some(&result), V2025_03_26).len(),
            1
        );
        assert!(check("tools/call", Part::Result, Some(&result), V2025_06_18).is_empty());
        let multi = json!({"message": "m", "requestedSchema": {"type": "object", "properties": {"x": {"type": "array"}}}});
        assert_eq!(
            check("elicitation/create", Part::Params, Some(&multi), V2025_06_18).len(),
            1
        );
        assert!(check("elicitation/create", Part::Params, Some(&multi), V2025_11_25).is_empty());
    }
}
