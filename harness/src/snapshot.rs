//! Normalized wire transcripts for snapshots: stable across runs, so a
//! snapshot diff shows only real behaviour changes.
//!
//! Request ids become `<id-N>` in order of first appearance (keeping which
//! response answers which request), task ids `<task-N>` likewise (a
//! receiver's are random, as the spec asks), and timestamps, ports and
//! session ids are redacted.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use mcp_conform_core::wire::{Direction, Frame};
use regex::Regex;
use serde_json::Value;

static TIMESTAMP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?").expect("valid regex")
});
static PORT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(127\.0\.0\.1|localhost|\[::1\]):\d+").expect("valid regex"));
static SESSION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)(mcp-session-id[^:]*:\s*)[^\s,]+").expect("valid regex"));

/// The transcript as text: one line per frame, `→` for what we sent and `←`
/// for what the peer sent.
pub fn normalize(transcript: &[Frame]) -> String {
    let mut ids = BTreeMap::new();
    let mut tasks = BTreeMap::new();
    let mut out = String::new();
    for frame in transcript {
        let arrow = match frame.direction {
            Direction::Sent => "→",
            Direction::Received => "←",
        };
        let body = match serde_json::from_slice::<Value>(&frame.raw) {
            Ok(mut message) => {
                redact_ids(&mut message, &mut ids);
                redact_task_ids(&mut message, &mut tasks);
                message.to_string()
            }
            Err(_) => format!("(not JSON) {}", String::from_utf8_lossy(&frame.raw).trim_end()),
        };
        let body = TIMESTAMP.replace_all(&body, "[timestamp]");
        let body = PORT.replace_all(&body, "$1:[port]");
        let body = SESSION.replace_all(&body, "$1[session]");
        out.push_str(arrow);
        out.push(' ');
        out.push_str(&body);
        out.push('\n');
    }
    out
}

fn redact_ids(message: &mut Value, ids: &mut BTreeMap<String, usize>) {
    match message {
        Value::Array(batch) => batch.iter_mut().for_each(|m| redact_ids(m, ids)),
        Value::Object(object) => {
            if let Some(id) = object.get_mut("id").filter(|id| !id.is_null()) {
                let next = ids.len() + 1;
                let n = *ids.entry(id.to_string()).or_insert(next);
                *id = Value::String(format!("<id-{n}>"));
            }
        }
        _ => {}
    }
}

/// Every string `taskId` member, wherever it is (a task, its polls, the
/// related-task key of `_meta`).
fn redact_task_ids(value: &mut Value, tasks: &mut BTreeMap<String, usize>) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(|v| redact_task_ids(v, tasks)),
        Value::Object(object) => {
            for (key, member) in object.iter_mut() {
                match member {
                    Value::String(id) if key == "taskId" => {
                        let next = tasks.len() + 1;
                        let n = *tasks.entry(id.clone()).or_insert(next);
                        *member = Value::String(format!("<task-{n}>"));
                    }
                    other => redact_task_ids(other, tasks),
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn frame(direction: Direction, text: &str) -> Frame {
        Frame::new(direction, text.as_bytes().to_vec(), Duration::ZERO)
    }

    #[test]
    fn ids_are_numbered_by_first_appearance_and_volatile_values_redacted() {
        let transcript = [
            frame(Direction::Sent, r#"{"jsonrpc":"2.0","id":41,"method":"ping"}"#),
            frame(
                Direction::Received,
                r#"{"jsonrpc":"2.0","id":"x","method":"roots/list"}"#,
            ),
            frame(
                Direction::Received,
                r#"{"jsonrpc":"2.0","id":41,"result":{"at":"2026-11-22T10:00:00.123Z","url":"http://127.0.0.1:5555/mcp"}}"#,
            ),
            frame(Direction::Received, "banner text"),
        ];
        let text = normalize(&transcript);
        assert_eq!(
            text,
            concat!(
                "→ {\"jsonrpc\":\"2.0\",\"id\":\"<id-1>\",\"method\":\"ping\"}\n",
                "← {\"jsonrpc\":\"2.0\",\"id\":\"<id-2>\",\"method\":\"roots/list\"}\n",
                "← {\"jsonrpc\":\"2.0\",\"id\":\"<id-1>\",\"result\":{\"at\":\"[timestamp]\",\"url\":\"http://127.0.0.1:[port]/mcp\"}}\n",
                "← (not JSON) banner text\n",
            )
        );
    }

    #[test]
    fn task_ids_are_numbered_wherever_they_appear() {
        let transcript = [
            frame(
                Direction::Received,
                r#"{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"9f1c"}}}"#,
            ),
            frame(
                Direction::Received,
                r#"{"jsonrpc":"2.0","id":2,"result":{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"9f1c"}},"tasks":[{"taskId":"77"}]}}"#,
            ),
        ];
        let text = normalize(&transcript);
        assert_eq!(text.matches("<task-1>").count(), 2, "{text}");
        assert_eq!(text.matches("<task-2>").count(), 1, "{text}");
        assert!(!text.contains("9f1c"), "{text}");
    }
}
