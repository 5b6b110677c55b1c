//! How evidence reads in a check's message.

use serde_json::Value;

/// One line describing a response, for messages.
pub fn summarize(response: &Value) -> String {
    if let Some(error) = response.get("error") {
        let code = error
            .get("code")
            .map(Value::to_string)
            .unwrap_or_else(|| "?".into());
        let message = error.get("message").and_then(Value::as_str).unwrap_or("");
        format!("error {code} \"{message}\"")
    } else if let Some(result) = response.get("result") {
        let text = result.to_string();
        let short: String = text.chars().take(120).collect();
        if short.len() < text.len() {
            format!("result {short}…")
        } else {
            format!("result {short}")
        }
    } else {
        format!("{response}")
    }
}
