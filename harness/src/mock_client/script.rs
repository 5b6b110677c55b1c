//! The mock client's one-step scenario: the call, and the queued answers
//! as a scenario writes them (each must be asked for).

use std::time::Duration;

use serde_json::{Value, json};

/// The model name of sampling replies given with [`Script::sample`].
const MODEL: &str = "mcp-conform-mock-client";

/// What the client declares and answers, in order.
#[derive(Debug, Clone)]
pub(super) struct Script {
    pub capabilities: Value,
    pub timeout: Duration,
    answers: Vec<Value>,
}

impl Default for Script {
    fn default() -> Script {
        Script {
            capabilities: json!({}),
            timeout: Duration::from_secs(15),
            answers: Vec::new(),
        }
    }
}

impl Script {
    /// Queues an elicitation reply (`accept: {content}`, `decline`, `cancel`).
    pub fn elicit(&mut self, reply: Value) {
        self.answers
            .push(json!({ "elicitation": { "expect": { "required": true }, "reply": reply } }));
    }

    /// Queues a sampling reply whose content is `text`.
    pub fn sample(&mut self, text: &str) {
        let message = json!({
            "role": "assistant",
            "content": { "type": "text", "text": text },
            "model": MODEL,
            "stopReason": "endTurn",
        });
        self.answers
            .push(json!({ "sampling": { "expect": { "required": true }, "reply": { "message": message } } }));
    }

    /// The scenario calling `tool` with `arguments` (JSON is YAML too).
    pub fn scenario(&self, tool: &str, arguments: Value) -> Value {
        let timeout_ms = u64::try_from(self.timeout.as_millis()).unwrap_or(u64::MAX);
        json!({
            "id": "mock-client.call",
            "title": format!("the mock client calls {tool}"),
            "versions": "all",
            "client": { "capabilities": self.capabilities },
            "steps": [{
                "request": {
                    "method": "tools/call",
                    "params": { "name": tool, "arguments": arguments },
                    "timeout_ms": timeout_ms,
                    "answers": self.answers,
                    "expect": { "result": { "content": { "$type": "array" } } },
                },
            }],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_queued_in_order_and_required() {
        let mut script = Script::default();
        script.elicit(json!("decline"));
        script.sample("hi");
        let scenario = script.scenario("t", json!({ "a": 1 }));
        let answers = &scenario["steps"][0]["request"]["answers"];
        assert_eq!(answers[0]["elicitation"]["reply"], json!("decline"));
        assert_eq!(
            answers[1]["sampling"]["reply"]["message"]["content"]["text"],
            json!("hi")
        );
        assert_eq!(answers[1]["sampling"]["expect"]["required"], json!(true));
        assert_eq!(scenario["steps"][0]["request"]["timeout_ms"], json!(15000));
    }
}
