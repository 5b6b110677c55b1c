//! What the interactive tools ask the client for, and how they read its
//! answers: the same in both eras, whether the question travels as a
//! server request (legacy) or inside an `InputRequiredResult` (2026-07-28).

use serde_json::{Value, json};

use super::{error_result, text_result};

/// What the `elicit` tool asks unless the call says otherwise.
pub(crate) const ELICIT_MESSAGE: &str = "Please tell us your name and age.";

/// What the `connect` tool asks the user to do at its URL.
pub(crate) const CONNECT_MESSAGE: &str = "Connect your example.com account in the browser.";

/// Where the `connect` tool sends the user; `session` tells visits apart.
pub(crate) fn connect_url(session: &str) -> String {
    format!("https://example.com/mcp-conform/connect?session={session}")
}

/// The flat form the `elicit` tool requests.
pub(crate) fn requested_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": { "type": "string", "description": "Your name" },
            "age": { "type": "integer", "description": "Your age in years", "minimum": 0 },
        },
        "required": ["name"],
    })
}

/// The `sampling/createMessage` params of the `sample` tool.
pub(crate) fn sampling_params(prompt: &str) -> Value {
    json!({
        "messages": [{ "role": "user", "content": { "type": "text", "text": prompt } }],
        "modelPreferences": {
            "hints": [{ "name": "reference-model" }],
            "intelligencePriority": 0.8,
            "speedPriority": 0.2,
            "costPriority": 0.1,
        },
        "systemPrompt": "You are the test assistant of the mcp-conform reference server. Answer briefly.",
        "includeContext": "none",
        "maxTokens": 64,
    })
}

/// Checks accepted content against [`requested_schema`].
fn content_fits(content: &Value) -> bool {
    let Some(fields) = content.as_object() else {
        return false;
    };
    let known = fields.keys().all(|key| key == "name" || key == "age");
    let name_ok = fields.get("name").is_some_and(Value::is_string);
    let age_ok = fields.get("age").is_none_or(|age| age.is_u64());
    known && name_ok && age_ok
}

/// The `elicit` tool's result for the client's elicitation answer: the
/// content when accepted and valid, the action when declined or cancelled.
pub(crate) fn elicitation_outcome(answer: &Value) -> Value {
    match answer.get("action").and_then(Value::as_str) {
        Some("accept") => {
            let content = answer.get("content").cloned().unwrap_or_else(|| json!({}));
            if content_fits(&content) {
                text_result(format!("action=accept content={content}"))
            } else {
                error_result(format!(
                    "action=accept but content={content} does not match the requested schema"
                ))
            }
        }
        Some(action @ ("decline" | "cancel")) => text_result(format!("action={action}")),
        _ => invalid_action(answer),
    }
}

/// The `connect` tool's result for the client's URL elicitation answer.
pub(crate) fn connection_outcome(answer: &Value) -> Value {
    match answer.get("action").and_then(Value::as_str) {
        Some("accept") => text_result("connected"),
        Some(action @ ("decline" | "cancel")) => text_result(format!("action={action}")),
        _ => invalid_action(answer),
    }
}

fn invalid_action(answer: &Value) -> Value {
    error_result(format!(
        "the client's elicitation result has no valid action: {answer}"
    ))
}

/// The text of a sampling result's content (a block, or from 2025-11-25 an array of blocks).
fn sampled_text(content: &Value) -> Option<&str> {
    match content {
        Value::Array(blocks) => blocks
            .iter()
            .find_map(|block| block.get("text").and_then(Value::as_str)),
        block => block.get("text").and_then(Value::as_str),
    }
}

/// The `sample` tool's result for the client's sampling answer.
pub(crate) fn sampling_outcome(answer: &Value) -> Value {
    let text = answer.get("content").and_then(sampled_text);
    let model = answer.get("model").and_then(Value::as_str);
    match (text, model) {
        (Some(text), Some(model)) => {
            let stop_reason = answer
                .get("stopReason")
                .and_then(Value::as_str)
                .unwrap_or("unspecified");
            text_result(format!("{text} (model={model}, stopReason={stop_reason})"))
        }
        _ => error_result(format!(
            "the client's sampling result lacks text content or a model: {answer}"
        )),
    }
}

/// The `roots` tool's result for the client's `roots/list` answer.
pub(crate) fn roots_outcome(answer: &Value) -> Value {
    let uris: Option<Vec<&str>> = answer
        .get("roots")
        .and_then(Value::as_array)
        .map(|roots| {
            roots
                .iter()
                .map(|root| root.get("uri").and_then(Value::as_str))
                .collect()
        })
        .and_then(|uris: Vec<Option<&str>>| uris.into_iter().collect());
    match uris {
        Some(uris) if uris.is_empty() => text_result("the client has no roots"),
        Some(uris) => text_result(uris.join("\n")),
        None => error_result(format!("the client's roots/list result is malformed: {answer}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepted_content_must_fit_the_form() {
        assert!(content_fits(&json!({"name": "Ada", "age": 36})));
        assert!(content_fits(&json!({"name": "Ada"})));
        assert!(!content_fits(&json!({"age": 36})));
        assert!(!content_fits(&json!({"name": "Ada", "age": "old"})));
        assert!(!content_fits(&json!({"name": "Ada", "extra": 1})));
    }

    #[test]
    fn sampled_text_reads_single_blocks_and_arrays() {
        assert_eq!(sampled_text(&json!({"type": "text", "text": "hi"})), Some("hi"));
        assert_eq!(
            sampled_text(&json!([{"type": "image"}, {"type": "text", "text": "yo"}])),
            Some("yo")
        );
        assert_eq!(sampled_text(&json!({"type": "image", "data": ""})), None);
    }

    #[test]
    fn declined_and_cancelled_elicitations_are_results_not_failures() {
        for action in ["decline", "cancel"] {
            let outcome = elicitation_outcome(&json!({ "action": action }));
            assert_eq!(outcome["isError"], json!(false));
            assert_eq!(
                connection_outcome(&json!({ "action": action }))["isError"],
                json!(false)
            );
        }
        assert_eq!(elicitation_outcome(&json!({}))["isError"], json!(true));
    }
}
