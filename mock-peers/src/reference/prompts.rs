//! The two prompts: `greet` (one required argument) and `plain`.

use mcp_conform_core::version::ProtocolVersion;
use serde_json::{Map, Value, json};

use super::pagination;
use mcp_conform_core::wire::jsonrpc::RpcError;

/// Names of the prompts, in listing order.
pub(crate) const PROMPTS: [&str; 2] = ["greet", "plain"];

fn describe(name: &str, version: ProtocolVersion) -> Value {
    let titled = version >= ProtocolVersion::V2025_06_18;
    let mut prompt = match name {
        "greet" => {
            let mut argument = json!({ "name": "name", "description": "Who to greet", "required": true });
            if titled {
                argument["title"] = json!("Name");
            }
            json!({ "name": "greet", "description": "Greets someone by name.", "arguments": [argument] })
        }
        _ => json!({ "name": "plain", "description": "A prompt without arguments.", "arguments": [] }),
    };
    if titled {
        prompt["title"] = json!(if name == "greet" { "Greeting" } else { "Plain" });
    }
    prompt
}

/// `prompts/list`.
pub(crate) fn list(version: ProtocolVersion, params: &Map<String, Value>) -> Result<Value, RpcError> {
    let page = pagination::page("prompts", &PROMPTS, params, PROMPTS.len())?;
    let prompts: Vec<Value> = page.items.iter().map(|name| describe(name, version)).collect();
    Ok(page.finish(Map::from_iter([("prompts".to_owned(), Value::Array(prompts))])))
}

fn user_message(text: String) -> Value {
    json!({ "role": "user", "content": { "type": "text", "text": text } })
}

/// `prompts/get`.
pub(crate) fn get(params: &Map<String, Value>) -> Result<Value, RpcError> {
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::invalid_params("prompts/get needs a string `name`"))?;
    let empty = Map::new();
    let arguments = match params.get("arguments") {
        None => &empty,
        Some(Value::Object(arguments)) => arguments,
        Some(_) => {
            return Err(RpcError::invalid_params(
                "`arguments` must be an object of strings",
            ));
        }
    };
    if arguments.values().any(|value| !value.is_string()) {
        return Err(RpcError::invalid_params("prompt argument values must be strings"));
    }
    match name {
        "greet" => {
            let who = arguments
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| RpcError::invalid_params("prompt greet: missing required argument `name`"))?;
            Ok(json!({
                "description": "Greets someone by name.",
                "messages": [user_message(format!("Please greet {who} warmly."))],
            }))
        }
        "plain" => Ok(json!({
            "description": "A prompt without arguments.",
            "messages": [user_message("Say something plain.".to_owned())],
        })),
        unknown => Err(RpcError::invalid_params(format!("unknown prompt: {unknown}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn greet_requires_its_name_argument() {
        assert_eq!(get(&params(json!({"name": "greet"}))).unwrap_err().code, -32602);
        let ok = get(&params(json!({"name": "greet", "arguments": {"name": "Ada"}}))).unwrap();
        assert_eq!(
            ok["messages"][0]["content"]["text"],
            json!("Please greet Ada warmly.")
        );
    }

    #[test]
    fn unknown_prompts_and_any_cursor_are_invalid_params() {
        assert_eq!(get(&params(json!({"name": "nope"}))).unwrap_err().code, -32602);
        let err = list(ProtocolVersion::V2025_11_25, &params(json!({"cursor": "abc"}))).unwrap_err();
        assert_eq!(err.code, -32602);
    }
}
