//! Tools that ask the client something (elicitation, sampling, roots) and
//! wait for the answer while the connection keeps being served.

use std::sync::atomic::{AtomicU64, Ordering};

use mcp_conform_core::version::ProtocolVersion;
use serde_json::{Value, json};

use super::args::ArgError;
use super::{Call, error_result, text_result};
use crate::reference::jsonrpc::{self, RpcError};
use crate::reference::outbound::OutboundError;
use crate::reference::session::{Negotiated, Phase};

type Outcome = Result<Value, ArgError>;

/// The error code of a request that needs a URL elicitation completed first.
const URL_ELICITATION_REQUIRED: i64 = -32042;

/// The negotiated session, if requests to the client are allowed yet
/// (only after `notifications/initialized`).
fn operating(call: Call<'_>) -> Result<Negotiated, Value> {
    match call.server.session.phase() {
        Phase::Operating(negotiated) => Ok(negotiated),
        _ => Err(error_result(
            "the client has not sent notifications/initialized yet",
        )),
    }
}

/// Sends `method` and turns a failure into a tool error naming the cause.
async fn ask(call: Call<'_>, method: &str, params: Value) -> Result<Value, Value> {
    call.server
        .outbound
        .request(&call.server.sink, method, params)
        .await
        .map_err(|failure| match failure {
            OutboundError::Rejected(error) => error_result(format!(
                "the client answered {method} with error {}: {}",
                error.code, error.message
            )),
            OutboundError::Disconnected => {
                error_result(format!("the client went away before answering {method}"))
            }
            OutboundError::TimedOut => error_result(format!("the client did not answer {method} in time")),
        })
}

/// The flat form the `elicit` tool requests.
fn requested_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": { "type": "string", "description": "Your name" },
            "age": { "type": "integer", "description": "Your age in years", "minimum": 0 },
        },
        "required": ["name"],
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

pub(super) async fn elicit(call: Call<'_>) -> Outcome {
    let message = call
        .args
        .optional_string("message")?
        .unwrap_or("Please tell us your name and age.");
    let negotiated = match operating(call) {
        Ok(negotiated) => negotiated,
        Err(refusal) => return Ok(refusal),
    };
    if negotiated.version < ProtocolVersion::V2025_06_18 || !negotiated.client.elicitation_form {
        return Ok(error_result(
            "elicitation is not supported: it needs protocol 2025-06-18 or later and a client that declared form elicitation",
        ));
    }
    let mut params = json!({ "message": message, "requestedSchema": requested_schema() });
    if negotiated.version >= ProtocolVersion::V2025_11_25 {
        params["mode"] = json!("form");
    }
    let answer = match ask(call, "elicitation/create", params).await {
        Ok(answer) => answer,
        Err(tool_error) => return Ok(tool_error),
    };
    Ok(match answer.get("action").and_then(Value::as_str) {
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
        _ => error_result(format!(
            "the client's elicitation result has no valid action: {answer}"
        )),
    })
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

pub(super) async fn sample(call: Call<'_>) -> Outcome {
    let prompt = call.args.string("prompt")?;
    let negotiated = match operating(call) {
        Ok(negotiated) => negotiated,
        Err(refusal) => return Ok(refusal),
    };
    if !negotiated.client.sampling {
        return Ok(error_result(
            "sampling is not supported: the client did not declare the sampling capability",
        ));
    }
    let params = json!({
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
    });
    let answer = match ask(call, "sampling/createMessage", params).await {
        Ok(answer) => answer,
        Err(tool_error) => return Ok(tool_error),
    };
    let text = answer.get("content").and_then(sampled_text);
    let model = answer.get("model").and_then(Value::as_str);
    Ok(match (text, model) {
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
    })
}

pub(super) async fn roots(call: Call<'_>) -> Outcome {
    let negotiated = match operating(call) {
        Ok(negotiated) => negotiated,
        Err(refusal) => return Ok(refusal),
    };
    if !negotiated.client.roots {
        return Ok(error_result(
            "roots are not supported: the client did not declare the roots capability",
        ));
    }
    let answer = match ask(call, "roots/list", json!({})).await {
        Ok(answer) => answer,
        Err(tool_error) => return Ok(tool_error),
    };
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
    Ok(match uris {
        Some(uris) if uris.is_empty() => text_result("the client has no roots"),
        Some(uris) => text_result(uris.join("\n")),
        None => error_result(format!("the client's roots/list result is malformed: {answer}")),
    })
}

/// Ids of URL elicitations, unique for the life of the process.
static NEXT_ELICITATION: AtomicU64 = AtomicU64::new(1);

/// A URL elicitation as this server asks for it.
fn url_elicitation() -> Value {
    let id = format!("connect-{}", NEXT_ELICITATION.fetch_add(1, Ordering::Relaxed));
    json!({
        "mode": "url",
        "elicitationId": id,
        "url": format!("https://example.com/mcp-conform/connect?session={id}"),
        "message": "Connect your example.com account in the browser.",
    })
}

/// `connect`: needs the user to visit a URL first. With `required: true`
/// it refuses with error -32042 listing the URL elicitation; otherwise it
/// asks through `elicitation/create` in URL mode and, once accepted,
/// announces `notifications/elicitation/complete`.
pub(super) async fn connect(call: Call<'_>) -> Result<Value, RpcError> {
    let negotiated = match operating(call) {
        Ok(negotiated) => negotiated,
        Err(refusal) => return Ok(refusal),
    };
    if negotiated.version < ProtocolVersion::V2025_11_25 || !negotiated.client.elicitation_url {
        return Ok(error_result(
            "connect needs protocol 2025-11-25 and a client that declared URL elicitation",
        ));
    }
    let elicitation = url_elicitation();
    if call.args.0.get("required") == Some(&Value::Bool(true)) {
        return Err(
            RpcError::new(URL_ELICITATION_REQUIRED, "the account must be connected first")
                .with_data(json!({ "elicitations": [elicitation] })),
        );
    }
    let answer = match ask(call, "elicitation/create", elicitation.clone()).await {
        Ok(answer) => answer,
        Err(tool_error) => return Ok(tool_error),
    };
    Ok(match answer.get("action").and_then(Value::as_str) {
        Some("accept") => {
            let done = json!({ "elicitationId": elicitation["elicitationId"] });
            call.server
                .sink
                .send(jsonrpc::notification("notifications/elicitation/complete", done));
            text_result("connected")
        }
        Some(action @ ("decline" | "cancel")) => text_result(format!("action={action}")),
        _ => error_result(format!(
            "the client's elicitation result has no valid action: {answer}"
        )),
    })
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
}
