//! `test-client --fuzz N`: generated `role: client` scenarios, each a mock
//! server that answers the client's listings with unusual but well-formed
//! results, sends it notifications it did not ask for, then requests with
//! odd ids: a method it cannot know, and `ping`. The client must answer
//! both, under the ids they came with, whatever came before. Each file is
//! its own reproducer: `test-client` replays it.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::arguments::sample;
use super::reproducer::{literal, yaml_safe};

/// How long a client is asked (in its plan) to stay after its own work, so
/// the requests after the notifications find it there, and a request it
/// leaves unanswered times out (after [`ANSWER_MS`]) before it leaves:
/// otherwise the silence would only be not-observed.
const LINGER_MS: u64 = 3000;
/// How long the client has to answer each request.
const ANSWER_MS: u64 = 1000;

/// `count` scenario files from `seed`: (file name, text).
pub fn scenarios(seed: u64, count: usize) -> Vec<(String, String)> {
    sample(&case(), seed, count)
        .into_iter()
        .enumerate()
        .map(|(index, (tools, notifications, unknown, ids))| {
            let id = format!("fuzz-client.seed-{seed}.case-{}", index + 1);
            // Generated text is sent as generated: no interpolation, and
            // YAML escapes for what YAML forbids even in quoted strings.
            let file = literal(&scenario(&id, tools, notifications, &unknown, &ids));
            let text = serde_json::to_string_pretty(&file).expect("a JSON value always serializes");
            let header = "# Written by `mcp-conform test-client --fuzz`; replay it with `test-client`.";
            (format!("{id}.yaml"), format!("{header}\n{}\n", yaml_safe(&text)))
        })
        .collect()
}

/// What one case is made of: the tools listed, the notifications sent, the
/// unknown method, and the two request ids (distinct).
type Case = (Vec<Value>, Vec<Value>, String, (Value, Value));

fn case() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec(tool(), 0..4),
        prop::collection::vec(notification(), 1..4),
        "(mcp-conform|x-[a-z]{1,8})/[a-zA-Z]{1,12}",
        (odd_id(), odd_id()).prop_filter("distinct ids", |(a, b)| a != b),
    )
}

fn scenario(
    id: &str,
    tools: Vec<Value>,
    notifications: Vec<Value>,
    unknown: &str,
    ids: &(Value, Value),
) -> Value {
    let mut steps: Vec<Value> = notifications.into_iter().map(|n| json!({"notify": n})).collect();
    steps.push(json!({"request": {
        "method": unknown,
        "id": ids.0,
        "timeout_ms": ANSWER_MS,
        "expect": {"level": "SHOULD", "requirement": "RPC-019", "error": {"code": -32601}},
    }}));
    steps.push(json!({"request": {
        "method": "ping",
        "id": ids.1,
        "timeout_ms": ANSWER_MS,
        "expect": {"requirement": "PING-001", "result": {"$exact": {}}},
    }}));
    json!({
        "id": id,
        "title": "fuzz: unusual listings, unasked-for notifications, requests with odd ids",
        "role": "client",
        "requirements": ["PING-001", "RPC-019"],
        "versions": "legacy",
        "server": {"capabilities": {"tools": {}}},
        "answers": [{"other": {"method": "tools/list", "reply": {"result": {"tools": tools}}}}],
        "plan": {"list": ["tools"], "linger_ms": LINGER_MS},
        "steps": steps,
    })
}

/// Request ids a server may use that clients tend not to: zero, negative,
/// the largest exact integer, the empty string, digits as a string, any
/// printable text.
fn odd_id() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(json!(0)),
        Just(json!(-1)),
        Just(json!(9_007_199_254_740_991_i64)),
        Just(json!("")),
        "[0-9]{1,4}".prop_map(Value::String),
        "\\PC{1,30}".prop_map(Value::String),
    ]
    .boxed()
}

/// Text of every kind: empty, long, and any printable characters.
fn text() -> BoxedStrategy<String> {
    prop_oneof![Just(String::new()), Just("x".repeat(20_000)), "\\PC{1,40}"].boxed()
}

/// A well-formed tool with unusual names, descriptions and members.
fn tool() -> BoxedStrategy<Value> {
    ("[a-zA-Z0-9_.-]{1,64}", text(), any::<bool>())
        .prop_map(|(name, description, extra)| {
            let mut tool = json!({
                "name": name,
                "description": description,
                "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "description": description}}},
            });
            if extra {
                tool["x-mcp-conform-fuzz"] = json!({"nested": [[[[{"deep": true}]]]]});
            }
            tool
        })
        .boxed()
}

/// Notifications the client did not ask for: an unknown method, progress
/// and cancellation naming nothing it sent, a log message, a resource
/// update it never subscribed to.
fn notification() -> BoxedStrategy<Value> {
    prop_oneof![
        ("[a-z]{1,10}", text()).prop_map(|(name, note)| json!({
            "method": format!("notifications/mcp-conform/{name}"),
            "params": {"note": note},
        })),
        odd_id().prop_map(|token| json!({
            "method": "notifications/progress",
            "params": {"progressToken": token, "progress": 1},
        })),
        odd_id().prop_map(|id| json!({
            "method": "notifications/cancelled",
            "params": {"requestId": id, "reason": "fuzz"},
        })),
        text().prop_map(|data| json!({
            "method": "notifications/message",
            "params": {"level": "info", "data": data},
        })),
        Just(json!({
            "method": "notifications/resources/updated",
            "params": {"uri": "file:///mcp-conform/fuzz"},
        })),
    ]
    .boxed()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use mcp_conform_core::scenario::load::load_str;
    use mcp_conform_core::scenario::model::Role;

    use super::*;

    #[test]
    fn every_generated_scenario_loads_as_a_client_scenario() {
        let files = scenarios(5, 40);
        assert_eq!(files.len(), 40);
        for (name, text) in &files {
            let loaded =
                load_str(Path::new(name), text).unwrap_or_else(|errors| panic!("{errors:?}\n{text}"));
            assert_eq!(loaded.role, Role::Client);
            assert!(loaded.steps.len() >= 3, "{text}");
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_files() {
        assert_eq!(scenarios(9, 5), scenarios(9, 5));
        assert_ne!(scenarios(9, 5), scenarios(10, 5));
    }
}
