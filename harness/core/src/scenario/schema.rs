//! The JSON Schema of scenario files, generated from [`super::file`], so
//! editors autocomplete and validate (`scenarios/scenario.schema.json`).

use serde_json::Value;

use super::file::ScenarioFile;

/// The schema as JSON.
pub fn scenario_json_schema() -> Value {
    let schema = schemars::schema_for!(ScenarioFile);
    serde_json::to_value(schema).unwrap_or(Value::Null)
}
