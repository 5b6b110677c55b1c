//! Argument skeletons from a tool's `inputSchema`: every required property
//! with a value the schema itself offers (`default`, `examples`, `enum`,
//! `const`) or a plain one of its type. Never from calling the tool.

use serde_json::{Map, Value, json};

/// How deep nested objects are filled in; below, an empty object.
const MAX_DEPTH: usize = 4;

/// What the skeleton's values are for: some triggers need a call that takes
/// its time, or a given resource.
#[derive(Debug, Clone, Copy, Default)]
pub struct Hints<'a> {
    /// The call must last long enough to be cancelled (about 1.5 s).
    pub slow: bool,
    /// A resource URI for a property that takes one.
    pub uri: Option<&'a str>,
}

/// The arguments object for a tool with `schema` as its `inputSchema`.
pub fn arguments(schema: &Value, hints: Hints<'_>) -> Value {
    object(schema, hints, 0)
}

fn object(schema: &Value, hints: Hints<'_>, depth: usize) -> Value {
    let mut arguments = Map::new();
    if depth >= MAX_DEPTH {
        return Value::Object(arguments);
    }
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema["properties"].as_object() else {
        return Value::Object(arguments);
    };
    for (name, property) in properties {
        let timed = timing(name, property, hints.slow);
        if let Some(value) = timed {
            arguments.insert(name.clone(), value);
        } else if required.contains(&name.as_str()) {
            arguments.insert(name.clone(), value(name, property, hints, depth));
        }
    }
    Value::Object(arguments)
}

/// A value for the property `name`: what the schema offers, else one of
/// its type chosen by the name.
fn value(name: &str, property: &Value, hints: Hints<'_>, depth: usize) -> Value {
    let offered = property
        .get("default")
        .or_else(|| property["examples"].get(0))
        .or_else(|| property["enum"].get(0))
        .or_else(|| property.get("const"));
    if let Some(offered) = offered {
        return offered.clone();
    }
    let lower = name.to_ascii_lowercase();
    match main_type(property) {
        Some("string") if lower.contains("uri") && hints.uri.is_some() => json!(hints.uri),
        Some("string") if lower.contains("url") || property["format"] == "uri" => {
            json!("https://example.com/mcp-conform")
        }
        Some("string") => json!(words(&lower)),
        Some("integer") => json!(integer(&lower, property)),
        Some("number") => json!(number(property)),
        Some("boolean") => json!(false),
        Some("array") => json!([]),
        Some("object") => object(property, hints, depth + 1),
        _ => json!("hello"),
    }
}

/// A string for a property named `name`.
fn words(name: &str) -> &'static str {
    match name {
        n if n.contains("name") => "Ada",
        n if n.contains("city") || n.contains("location") => "Paris",
        n if n.contains("topic") || n.contains("query") => "conformance",
        _ => "hello",
    }
}

/// 3 for counts and steps (a few notifications, quickly), else the
/// smallest the schema allows, at least 1.
fn integer(name: &str, property: &Value) -> i64 {
    let minimum = property["minimum"].as_i64().unwrap_or(1).max(1);
    let maximum = property["maximum"].as_i64().unwrap_or(i64::MAX);
    let counted = ["n", "count", "steps", "times"].contains(&name);
    let wanted = if counted { 3 } else { minimum };
    wanted.clamp(minimum, maximum.max(minimum))
}

fn number(property: &Value) -> f64 {
    property["minimum"].as_f64().unwrap_or(1.0).max(1.0)
}

/// A duration property (`ms`, `delay`, `duration`, `seconds`), required or
/// not, set so the call takes about 1.5 s when `slow`, and next to nothing
/// otherwise (a default duration may be long: seconds per test).
fn timing(name: &str, property: &Value, slow: bool) -> Option<Value> {
    let lower = name.to_ascii_lowercase();
    let in_millis =
        ["ms", "millis", "milliseconds", "delay_ms", "delayms", "sleep_ms"].contains(&lower.as_str());
    let in_seconds = ["duration", "seconds", "secs", "delay", "sleep"].contains(&lower.as_str());
    let whole = main_type(property) == Some("integer");
    match (in_millis, in_seconds, slow) {
        (true, _, true) => Some(json!(1500)),
        (true, _, false) => Some(json!(100)),
        (_, true, true) if whole => Some(json!(2)),
        (_, true, true) => Some(json!(1.5)),
        (_, true, false) => Some(json!(1)),
        _ => None,
    }
}

/// A schema's type, the first non-null one of a list.
pub fn main_type(schema: &Value) -> Option<&str> {
    match &schema["type"] {
        Value::String(one) => Some(one.as_str()),
        Value::Array(types) => types.iter().filter_map(Value::as_str).find(|t| *t != "null"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn required_properties_get_what_the_schema_offers_or_a_value_of_their_type() {
        let schema = json!({
            "type": "object",
            "properties": {
                "message": {"type": "string"},
                "mode": {"type": "string", "enum": ["fast", "slow"]},
                "level": {"type": "integer", "default": 4},
                "n": {"type": "integer", "minimum": 1},
                "flag": {"type": "boolean"},
                "options": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
                "optional": {"type": "string"}
            },
            "required": ["message", "mode", "level", "n", "flag", "options"]
        });
        assert_eq!(
            arguments(&schema, Hints::default()),
            json!({"message": "hello", "mode": "fast", "level": 4, "n": 3, "flag": false, "options": {"name": "Ada"}})
        );
    }

    #[test]
    fn durations_are_short_unless_the_call_must_be_slow_and_uris_come_from_the_hint() {
        let schema = json!({
            "type": "object",
            "properties": {"duration": {"type": "number", "default": 10}, "uri": {"type": "string"}},
            "required": ["uri"]
        });
        let hints = Hints {
            slow: false,
            uri: Some("peer://readme"),
        };
        assert_eq!(
            arguments(&schema, hints),
            json!({"duration": 1, "uri": "peer://readme"})
        );
        let slow = Hints { slow: true, ..hints };
        assert_eq!(arguments(&schema, slow)["duration"], json!(1.5));
        let millis = json!({"properties": {"ms": {"type": "integer"}}, "required": ["ms"]});
        assert_eq!(arguments(&millis, slow), json!({"ms": 1500}));
    }
}
