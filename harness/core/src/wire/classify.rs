use std::fmt;

use serde_json::{Map, Value};

use crate::json::kind as json_kind;

/// A JSON-RPC request id as it appeared: MCP allows strings and integers only.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RequestId {
    Int(i64),
    Str(String),
}

impl RequestId {
    /// Reads an id member; `None` for anything MCP does not allow (null,
    /// fractions, booleans, objects).
    pub fn from_value(value: &Value) -> Option<RequestId> {
        match value {
            Value::String(s) => Some(RequestId::Str(s.clone())),
            Value::Number(n) => n.as_i64().map(RequestId::Int),
            _ => None,
        }
    }

    pub fn to_value(&self) -> Value {
        match self {
            RequestId::Int(i) => Value::from(*i),
            RequestId::Str(s) => Value::from(s.as_str()),
        }
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Int(i) => write!(f, "{i}"),
            RequestId::Str(s) => write!(f, "{s:?}"),
        }
    }
}

/// The `error` member of an error response, as far as it could be read.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorObject {
    pub code: Option<i64>,
    pub message: Option<String>,
    pub data: Option<Value>,
}

/// Why a frame is not a valid JSON-RPC 2.0 message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Invalid {
    /// The bytes are not UTF-8; `valid_up_to` is the offset of the first bad byte.
    NotUtf8 { valid_up_to: usize },
    /// The text is not JSON.
    NotJson { error: String },
    /// JSON, but not an object (nor, where batches are allowed, an array).
    NotAnObject { found: &'static str },
    /// An object that breaks the envelope rules; `reason` says which.
    Envelope { reason: String },
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Invalid::NotUtf8 { valid_up_to } => {
                write!(f, "not UTF-8 (first invalid byte at offset {valid_up_to})")
            }
            Invalid::NotJson { error } => write!(f, "not JSON: {error}"),
            Invalid::NotAnObject { found } => write!(f, "JSON {found}, not a JSON-RPC object"),
            Invalid::Envelope { reason } => f.write_str(reason),
        }
    }
}

/// A frame read as JSON-RPC. Payloads stay raw `Value`s.
#[derive(Debug, Clone, PartialEq)]
pub enum Classified {
    Request {
        id: RequestId,
        method: String,
        params: Option<Value>,
    },
    Notification {
        method: String,
        params: Option<Value>,
    },
    Result {
        id: RequestId,
        result: Value,
    },
    /// `id` is `None` when the member was absent or null (allowed for
    /// responses to unreadable requests).
    Error {
        id: Option<RequestId>,
        error: ErrorObject,
    },
    /// A JSON array (a batch); its elements classified one by one.
    Batch(Vec<Classified>),
    Invalid(Invalid),
}

impl Classified {
    /// The method of a request or notification.
    pub fn method(&self) -> Option<&str> {
        match self {
            Classified::Request { method, .. } | Classified::Notification { method, .. } => Some(method),
            _ => None,
        }
    }

    /// The id of a request or response.
    pub fn id(&self) -> Option<&RequestId> {
        match self {
            Classified::Request { id, .. } | Classified::Result { id, .. } => Some(id),
            Classified::Error { id, .. } => id.as_ref(),
            _ => None,
        }
    }

    pub fn is_response(&self) -> bool {
        matches!(self, Classified::Result { .. } | Classified::Error { .. })
    }
}

/// Reads raw bytes as one JSON-RPC message (or a batch), without judging
/// whether the method or payload is valid MCP: that is [`crate::protocol`]'s job.
pub fn classify(raw: &[u8]) -> Classified {
    let text = match std::str::from_utf8(raw) {
        Ok(text) => text,
        Err(e) => {
            return Classified::Invalid(Invalid::NotUtf8 {
                valid_up_to: e.valid_up_to(),
            });
        }
    };
    match serde_json::from_str::<Value>(text) {
        Ok(value) => classify_value(&value),
        Err(e) => Classified::Invalid(Invalid::NotJson { error: e.to_string() }),
    }
}

/// The id a frame answers when it is no valid response but reads as an
/// answer all the same: an object with no `method` and an `id` MCP allows
/// (`{"id": 1, "result": {}}` without `jsonrpc`, a response with both
/// `result` and `error`). With why it is invalid. A waiting peer takes it
/// as the answer that came, to judge it, rather than wait out its deadline.
pub fn malformed_answer(raw: &[u8]) -> Option<(RequestId, Invalid)> {
    let Classified::Invalid(invalid @ Invalid::Envelope { .. }) = classify(raw) else {
        return None;
    };
    let value: Value = serde_json::from_slice(raw).ok()?;
    let object = value.as_object().filter(|o| !o.contains_key("method"))?;
    let id = RequestId::from_value(object.get("id")?)?;
    Some((id, invalid))
}

/// Reads one JSON value as a message (or a batch).
pub(super) fn classify_value(value: &Value) -> Classified {
    match value {
        Value::Object(obj) => classify_object(obj),
        Value::Array(items) => Classified::Batch(items.iter().map(classify_value).collect()),
        other => Classified::Invalid(Invalid::NotAnObject {
            found: json_kind(other),
        }),
    }
}

fn envelope(reason: impl Into<String>) -> Classified {
    Classified::Invalid(Invalid::Envelope {
        reason: reason.into(),
    })
}

fn classify_object(obj: &Map<String, Value>) -> Classified {
    match obj.get("jsonrpc") {
        Some(Value::String(v)) if v == "2.0" => {}
        Some(other) => return envelope(format!("`jsonrpc` is {other}, not \"2.0\"")),
        None => return envelope("`jsonrpc` member is missing"),
    }
    let id = obj.get("id");
    let method = obj.get("method");
    let (result, error) = (obj.get("result"), obj.get("error"));
    if let Some(method) = method {
        let Some(method) = method.as_str() else {
            return envelope(format!("`method` is {}, not a string", json_kind(method)));
        };
        if result.is_some() || error.is_some() {
            return envelope("a message with `method` also has `result` or `error`");
        }
        let params = obj.get("params").cloned();
        if let Some(p) = &params
            && !p.is_object()
            && !p.is_array()
        {
            return envelope(format!("`params` is {}, not an object", json_kind(p)));
        }
        let method = method.to_owned();
        return match id {
            None => Classified::Notification { method, params },
            Some(raw) => match RequestId::from_value(raw) {
                Some(id) => Classified::Request { id, method, params },
                None => envelope(format!("request `id` is {raw}, not a string or an integer")),
            },
        };
    }
    match (result, error) {
        (Some(_), Some(_)) => envelope("a response has both `result` and `error`"),
        (None, None) => {
            envelope("neither `method`, `result` nor `error`: not a request, notification or response")
        }
        (Some(result), None) => match id.and_then(RequestId::from_value) {
            Some(id) => Classified::Result {
                id,
                result: result.clone(),
            },
            None => envelope(match id {
                None => "a result response has no `id`".to_owned(),
                Some(raw) => format!("response `id` is {raw}, not a string or an integer"),
            }),
        },
        (None, Some(error)) => {
            let id = match id {
                None | Some(Value::Null) => None,
                Some(raw) => match RequestId::from_value(raw) {
                    Some(id) => Some(id),
                    None => return envelope(format!("response `id` is {raw}, not a string or an integer")),
                },
            };
            let Some(err) = error.as_object() else {
                return envelope(format!("`error` is {}, not an object", json_kind(error)));
            };
            Classified::Error {
                id,
                error: ErrorObject {
                    code: err.get("code").and_then(Value::as_i64),
                    message: err.get("message").and_then(Value::as_str).map(str::to_owned),
                    data: err.get("data").cloned(),
                },
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(raw: &str) -> String {
        match classify(raw.as_bytes()) {
            Classified::Request { .. } => "request".into(),
            Classified::Notification { .. } => "notification".into(),
            Classified::Result { .. } => "result".into(),
            Classified::Error { .. } => "error".into(),
            Classified::Batch(_) => "batch".into(),
            Classified::Invalid(why) => format!("invalid: {why}"),
        }
    }

    #[test]
    fn classifies_the_four_kinds() {
        assert_eq!(kind(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#), "request");
        assert_eq!(
            kind(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            "notification"
        );
        assert_eq!(kind(r#"{"jsonrpc":"2.0","id":"a","result":{}}"#), "result");
        assert_eq!(
            kind(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#),
            "error"
        );
        assert_eq!(kind(r#"[{"jsonrpc":"2.0","method":"a"}]"#), "batch");
    }

    #[test]
    fn says_why_a_frame_is_invalid() {
        assert_eq!(
            kind(r#"{"id":1,"method":"ping"}"#),
            "invalid: `jsonrpc` member is missing"
        );
        assert_eq!(
            kind(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#),
            "invalid: request `id` is 1.5, not a string or an integer"
        );
        assert_eq!(
            kind(r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{}}"#),
            "invalid: a response has both `result` and `error`"
        );
        assert!(kind("{not json").starts_with("invalid: not JSON"));
        assert_eq!(kind("42"), "invalid: JSON an integer, not a JSON-RPC object");
        assert!(matches!(
            classify(b"\xff\xfe"),
            Classified::Invalid(Invalid::NotUtf8 { valid_up_to: 0 })
        ));
    }

    #[test]
    fn an_invalid_object_with_an_id_and_no_method_is_a_malformed_answer() {
        let answered = |raw: &str| malformed_answer(raw.as_bytes()).map(|(id, why)| (id, why.to_string()));
        assert_eq!(
            answered(r#"{"id":1,"result":{}}"#),
            Some((RequestId::Int(1), "`jsonrpc` member is missing".into()))
        );
        assert_eq!(
            answered(r#"{"jsonrpc":"2.0","id":"a","result":{},"error":{}}"#),
            Some((
                RequestId::Str("a".into()),
                "a response has both `result` and `error`".into()
            ))
        );
        // Valid answers, requests, and frames naming no usable id are not.
        for raw in [
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            r#"{"id":1,"method":"ping"}"#,
            r#"{"result":{}}"#,
            r#"{"id":1.5,"result":{}}"#,
            "{not json",
        ] {
            assert_eq!(answered(raw), None, "{raw}");
        }
    }
}
