//! JSON-RPC 2.0 framing for the reference server: classifying incoming
//! messages and building the frames it sends.

use serde_json::{Map, Value, json};

/// Standard and MCP error codes the reference server emits.
pub(crate) mod code {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INTERNAL_ERROR: i64 = -32603;
    /// Resource not found, up to 2025-11-25 only.
    pub const RESOURCE_NOT_FOUND: i64 = -32002;
    /// An HTTP header disagrees with the body (2026-07-28).
    pub const HEADER_MISMATCH: i64 = -32020;
    /// The request needs a client capability it did not declare (2026-07-28).
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
    /// The request's protocol version is not served statelessly (2026-07-28).
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
}

/// A JSON-RPC error object, as data.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RpcError {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    pub fn invalid_params(message: impl Into<String>) -> Self {
        RpcError::new(code::INVALID_PARAMS, message)
    }

    pub fn invalid_request(message: impl Into<String>) -> Self {
        RpcError::new(code::INVALID_REQUEST, message)
    }

    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    fn to_json(&self) -> Value {
        let mut error = json!({ "code": self.code, "message": self.message });
        if let Some(data) = &self.data {
            error["data"] = data.clone();
        }
        error
    }

    /// Reads the `error` member of a response frame.
    fn from_json(error: &Value) -> Self {
        RpcError {
            code: error
                .get("code")
                .and_then(Value::as_i64)
                .unwrap_or(code::INTERNAL_ERROR),
            message: error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            data: error.get("data").cloned(),
        }
    }
}

/// One incoming message, classified by shape.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Incoming {
    Request {
        id: Value,
        method: String,
        params: Map<String, Value>,
    },
    Notification {
        method: String,
        params: Map<String, Value>,
    },
    Response {
        id: Value,
        outcome: Result<Value, RpcError>,
    },
    /// Not a valid JSON-RPC message; `id` is the request id if one could be read.
    Invalid { id: Value, error: RpcError },
}

/// MCP request ids are strings or integers, never null or fractional.
fn is_valid_id(id: &Value) -> bool {
    id.is_string() || id.is_i64() || id.is_u64()
}

impl Incoming {
    /// Classifies one JSON value (an element of a batch or a whole frame).
    pub fn classify(message: Value) -> Incoming {
        let Value::Object(mut object) = message else {
            return Incoming::Invalid {
                id: Value::Null,
                error: RpcError::invalid_request("a JSON-RPC message must be an object"),
            };
        };
        let id = object.remove("id");
        let readable_id = id.clone().filter(is_valid_id).unwrap_or(Value::Null);
        let invalid = |message: &str| Incoming::Invalid {
            id: readable_id.clone(),
            error: RpcError::invalid_request(message),
        };
        if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return invalid("`jsonrpc` must be \"2.0\"");
        }
        if let Some(method) = object.remove("method") {
            let Value::String(method) = method else {
                return invalid("`method` must be a string");
            };
            let params = match object.remove("params") {
                None => Map::new(),
                Some(Value::Object(params)) => params,
                Some(_) => {
                    return Incoming::Invalid {
                        id: readable_id,
                        error: RpcError::invalid_params("`params` must be an object"),
                    };
                }
            };
            return match id {
                None => Incoming::Notification { method, params },
                Some(id) if is_valid_id(&id) => Incoming::Request { id, method, params },
                Some(_) => invalid("a request id must be a string or an integer"),
            };
        }
        let Some(id) = id.filter(is_valid_id) else {
            return invalid("a response needs a string or integer `id`");
        };
        match (object.remove("result"), object.remove("error")) {
            (Some(result), None) => Incoming::Response {
                id,
                outcome: Ok(result),
            },
            (None, Some(error)) if error.is_object() => Incoming::Response {
                id,
                outcome: Err(RpcError::from_json(&error)),
            },
            _ => invalid("a response carries exactly one of `result` and `error`"),
        }
    }
}

/// A success or error response frame for request `id`.
pub(crate) fn response(id: &Value, outcome: Result<Value, RpcError>) -> Value {
    match outcome {
        Ok(result) => json!({ "jsonrpc": "2.0", "id": id, "result": result }),
        Err(error) => json!({ "jsonrpc": "2.0", "id": id, "error": error.to_json() }),
    }
}

/// A request frame the server sends to the client.
pub(crate) fn request(id: u64, method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
}

/// A notification frame.
pub(crate) fn notification(method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "method": method, "params": params })
}

/// A stable map key for a request id (`1` and `"1"` stay distinct).
pub(crate) fn id_key(id: &Value) -> String {
    id.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_requests_notifications_and_responses() {
        let request = Incoming::classify(json!({"jsonrpc": "2.0", "id": 7, "method": "ping"}));
        assert_eq!(
            request,
            Incoming::Request {
                id: json!(7),
                method: "ping".into(),
                params: Map::new()
            }
        );
        let note = Incoming::classify(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        assert!(matches!(note, Incoming::Notification { .. }));
        let reply =
            Incoming::classify(json!({"jsonrpc": "2.0", "id": "a", "error": {"code": -1, "message": "x"}}));
        assert_eq!(
            reply,
            Incoming::Response {
                id: json!("a"),
                outcome: Err(RpcError::new(-1, "x"))
            }
        );
    }

    #[test]
    fn rejects_malformed_messages_keeping_a_readable_id() {
        let no_version = Incoming::classify(json!({"id": 3, "method": "ping"}));
        assert!(
            matches!(no_version, Incoming::Invalid { id, error } if id == json!(3) && error.code == code::INVALID_REQUEST)
        );
        let null_id = Incoming::classify(json!({"jsonrpc": "2.0", "id": null, "method": "ping"}));
        assert!(matches!(null_id, Incoming::Invalid { id: Value::Null, .. }));
        let both = Incoming::classify(json!({"jsonrpc": "2.0", "id": 1, "result": {}, "error": {}}));
        assert!(matches!(both, Incoming::Invalid { .. }));
        let array_params =
            Incoming::classify(json!({"jsonrpc": "2.0", "id": 1, "method": "x", "params": []}));
        assert!(
            matches!(array_params, Incoming::Invalid { error, .. } if error.code == code::INVALID_PARAMS)
        );
    }
}
