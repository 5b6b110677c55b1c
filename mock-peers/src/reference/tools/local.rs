//! Tools that run inside the server, without asking the client anything.

use std::time::Duration;

use mcp_conform_core::version::ProtocolVersion;
use serde_json::{Number, Value, json};

use super::args::ArgError;
use super::{Call, error_result, is_builtin, text_result};
use crate::reference::session;
use mcp_conform_core::wire::jsonrpc;

type Outcome = Result<Value, ArgError>;

pub(super) fn echo(call: Call<'_>) -> Outcome {
    Ok(text_result(call.args.string("text")?))
}

pub(super) fn dynamic_echo(call: Call<'_>, name: &str) -> Outcome {
    Ok(text_result(format!("{name}: {}", call.args.string("text")?)))
}

pub(super) fn region_echo(call: Call<'_>) -> Outcome {
    let region = call.args.string("region")?;
    Ok(text_result(format!("{region}: {}", call.args.string("text")?)))
}

/// Integer inputs give an integer sum when it fits; anything else is a float.
fn sum(a: &Number, b: &Number) -> Option<Number> {
    if let (Some(a), Some(b)) = (a.as_i64(), b.as_i64())
        && let Some(total) = a.checked_add(b)
    {
        return Some(total.into());
    }
    Number::from_f64(a.as_f64()? + b.as_f64()?)
}

pub(super) fn add(call: Call<'_>) -> Outcome {
    let (a, b) = (call.args.number("a")?, call.args.number("b")?);
    let Some(total) = sum(a, b) else {
        return Ok(error_result(format!("{a} + {b} is not representable")));
    };
    let structured = json!({ "sum": total });
    // The text block carries the same data serialized, as the spec advises.
    let mut result = text_result(structured.to_string());
    if call.host.version() >= ProtocolVersion::V2025_06_18 {
        result["structuredContent"] = structured;
    }
    Ok(result)
}

pub(super) async fn progress(call: Call<'_>) -> Outcome {
    let steps = call.args.bounded_integer("steps", 1000)?;
    let with_message = call.host.version() >= ProtocolVersion::V2025_03_26;
    for step in 1..=steps {
        tokio::time::sleep(Duration::from_millis(5)).await;
        let Some(token) = call.progress_token else {
            continue;
        };
        let mut params = json!({ "progressToken": token, "progress": step, "total": steps });
        if with_message {
            params["message"] = json!(format!("step {step} of {steps}"));
        }
        call.host
            .sink()
            .send(jsonrpc::notification("notifications/progress", params));
    }
    Ok(text_result(format!("completed {steps} steps")))
}

pub(super) async fn slow(call: Call<'_>) -> Outcome {
    let ms = call.args.bounded_integer("ms", 600_000)?;
    tokio::time::sleep(Duration::from_millis(ms)).await;
    Ok(text_result(format!("slept {ms} ms")))
}

pub(super) fn log(call: Call<'_>) -> Outcome {
    let message = call.args.string("message")?;
    let levels: Vec<&str> = match call.args.optional_string("level")? {
        Some(level) => vec![level],
        None => session::LOG_LEVELS.to_vec(),
    };
    let mut sent = Vec::new();
    for level in levels {
        let rank =
            session::log_rank(level).ok_or_else(|| ArgError(format!("unknown log level {level:?}")))?;
        if call.host.log_enabled(rank) {
            let params = json!({ "level": level, "logger": "reference", "data": message });
            call.host
                .sink()
                .send(jsonrpc::notification("notifications/message", params));
            sent.push(level);
        }
    }
    Ok(text_result(if sent.is_empty() {
        format!("every message was filtered out by {}", call.host.log_filter())
    } else {
        format!("sent at {}", sent.join(", "))
    }))
}

/// Tool names: 1 to 128 characters from `[A-Za-z0-9_.-]`.
fn valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

pub(super) fn add_tool(call: Call<'_>) -> Outcome {
    let name = call.args.string("name")?;
    if !valid_tool_name(name) {
        return Err(ArgError(format!(
            "{name:?} is not a valid tool name (1-128 of A-Z a-z 0-9 _ . -)"
        )));
    }
    if is_builtin(name, call.host.version().era()) || !call.host.add_dynamic_tool(name) {
        return Ok(error_result(format!("a tool named {name} already exists")));
    }
    call.host.tools_changed();
    Ok(text_result(format!("added tool {name}")))
}

pub(super) fn touch(call: Call<'_>) -> Outcome {
    let uri = call.args.string("uri")?;
    if !call.host.resource_updated(uri) {
        return Ok(text_result(format!("{uri} has no subscription; nothing sent")));
    }
    Ok(text_result(format!("notified subscribers of {uri}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_stay_integral_when_they_can() {
        assert_eq!(sum(&Number::from(2), &Number::from(3)), Some(Number::from(5)));
        assert_eq!(
            sum(&Number::from(i64::MAX), &Number::from(1)),
            Number::from_f64(9.223372036854776e18)
        );
        assert_eq!(
            sum(&Number::from_f64(0.5).unwrap(), &Number::from(1)),
            Number::from_f64(1.5)
        );
    }

    #[test]
    fn tool_names_follow_the_character_rules() {
        assert!(valid_tool_name("my_tool.v2-beta"));
        assert!(!valid_tool_name(""));
        assert!(!valid_tool_name("has space"));
        assert!(!valid_tool_name(&"x".repeat(129)));
    }
}
