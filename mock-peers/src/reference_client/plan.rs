//! What a `role: client` scenario asks the client to do: the JSON in
//! `MCP_CONFORM_PLAN`.

use std::time::Duration;

use serde_json::{Value, json};

/// What the scenario asks the client to do.
#[derive(Debug, Clone, Default)]
pub struct Plan(Value);

impl Plan {
    /// The plan as JSON.
    pub fn new(plan: Value) -> Plan {
        Plan(plan)
    }

    /// Reads `MCP_CONFORM_PLAN` (an empty plan when unset or not JSON).
    pub fn from_env() -> Plan {
        let text = std::env::var("MCP_CONFORM_PLAN").unwrap_or_default();
        Plan::new(serde_json::from_str(&text).unwrap_or_else(|_| json!({})))
    }

    pub(super) fn word(&self, key: &str, default: &'static str) -> String {
        self.0
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or(default)
            .to_owned()
    }

    pub(super) fn millis(&self, key: &str, default: u64) -> Duration {
        self.optional_millis(key)
            .unwrap_or(Duration::from_millis(default))
    }

    pub(super) fn optional_millis(&self, key: &str) -> Option<Duration> {
        self.0.get(key).and_then(Value::as_u64).map(Duration::from_millis)
    }

    pub(super) fn flag(&self, key: &str) -> bool {
        self.0.get(key).and_then(Value::as_bool).unwrap_or(false)
    }

    pub(super) fn list(&self, key: &str) -> Vec<Value> {
        self.0
            .get(key)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    }

    /// Whether `capability` is one the plan says the host does not have.
    pub(super) fn withholds(&self, capability: &str) -> bool {
        self.list("withhold").iter().any(|c| c == capability)
    }
}
