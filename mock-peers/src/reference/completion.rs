//! `completion/complete` for the `greet` prompt's `name` argument and the
//! item template's `id`.

use serde_json::{Map, Value, json};

use super::prompts::PROMPTS;
use mcp_conform_core::wire::jsonrpc::RpcError;

/// The spec caps one completion answer at 100 values.
const MAX_VALUES: usize = 100;

/// Name suggestions: a few names, then enough generated ones to overflow one answer.
fn names() -> impl Iterator<Item = String> {
    ["Alice", "Bob", "Carol", "Dave", "Eve", "Mallory", "Trent"]
        .into_iter()
        .map(str::to_owned)
        .chain((0..150).map(|n| format!("user-{n:03}")))
}

fn item_ids() -> impl Iterator<Item = String> {
    (1..=20).map(|n| n.to_string())
}

fn string_field<'a>(object: &'a Value, key: &str, what: &str) -> Result<&'a str, RpcError> {
    object
        .get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::invalid_params(format!("{what} needs a string `{key}`")))
}

/// `completion/complete`.
pub(crate) fn complete(params: &Map<String, Value>) -> Result<Value, RpcError> {
    let reference = params
        .get("ref")
        .ok_or_else(|| RpcError::invalid_params("`ref` is required"))?;
    let argument = params
        .get("argument")
        .ok_or_else(|| RpcError::invalid_params("`argument` is required"))?;
    let argument_name = string_field(argument, "name", "argument")?;
    let prefix = string_field(argument, "value", "argument")?.to_lowercase();
    let candidates: Vec<String> = match string_field(reference, "type", "ref")? {
        "ref/prompt" => {
            let prompt = string_field(reference, "name", "ref/prompt")?;
            if !PROMPTS.contains(&prompt) {
                return Err(RpcError::invalid_params(format!("unknown prompt: {prompt}")));
            }
            if (prompt, argument_name) == ("greet", "name") {
                names().collect()
            } else {
                Vec::new()
            }
        }
        "ref/resource" => {
            let uri = string_field(reference, "uri", "ref/resource")?;
            if uri != "ref://items/{id}" {
                return Err(RpcError::invalid_params(format!(
                    "unknown resource template: {uri}"
                )));
            }
            if argument_name == "id" {
                item_ids().collect()
            } else {
                Vec::new()
            }
        }
        other => {
            return Err(RpcError::invalid_params(format!(
                "unknown reference type: {other}"
            )));
        }
    };
    let matches: Vec<String> = candidates
        .into_iter()
        .filter(|value| value.to_lowercase().starts_with(&prefix))
        .collect();
    let total = matches.len();
    let values: Vec<String> = matches.into_iter().take(MAX_VALUES).collect();
    Ok(json!({ "completion": { "values": values, "total": total, "hasMore": total > MAX_VALUES } }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(v: Value) -> Result<Value, RpcError> {
        complete(v.as_object().unwrap())
    }

    #[test]
    fn caps_values_and_reports_the_total() {
        let all = run(json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": ""}}))
            .unwrap();
        assert_eq!(all["completion"]["values"].as_array().unwrap().len(), 100);
        assert_eq!(
            (
                all["completion"]["total"].clone(),
                all["completion"]["hasMore"].clone()
            ),
            (json!(157), json!(true))
        );
        let few = run(json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "a"}}))
            .unwrap();
        assert_eq!(
            few["completion"],
            json!({"values": ["Alice"], "total": 1, "hasMore": false})
        );
    }

    #[test]
    fn unknown_references_are_invalid_params() {
        let err =
            run(json!({"ref": {"type": "ref/prompt", "name": "x"}, "argument": {"name": "n", "value": ""}}));
        assert_eq!(err.unwrap_err().code, -32602);
        let err = run(json!({"ref": {"type": "ref/other"}, "argument": {"name": "n", "value": ""}}));
        assert_eq!(err.unwrap_err().code, -32602);
    }
}
