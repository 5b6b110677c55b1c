//! JSON-RPC 2.0 for the peers that answer messages (the mock peers, the
//! reference peers): the error codes, errors as data, the frames a peer
//! builds, and a served message read into what a peer acts on.
//!
//! Reading goes through [`classify`](super::classify), the judge's own
//! reading, so a peer and the judge never disagree on what a message is.

use serde_json::{Map, Value, json};

use super::classify::{Classified, ErrorObject, Invalid, classify_value};

/// Error codes of JSON-RPC and those MCP defines.
pub mod code {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INTERNAL_ERROR: i64 = -32603;
    /// Resource not found, up to 2025-11-25; `-32602` after.
    pub const LEGACY_RESOURCE_NOT_FOUND: i64 = -32002;
    /// URL elicitation required, 2025-11-25 only.
    pub const URL_ELICITATION_REQUIRED: i64 = -32042;
    /// An HTTP header disagrees with the body (2026-07-28+).
    pub const HEADER_MISMATCH: i64 = -32020;
    /// The request needs a client capability it did not declare (2026-07-28+).
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
    /// The request's protocol version is not one the server speaks (2026-07-28+).
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
}

/// A JSON-RPC error object a peer sends or got, as data.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
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

    /// The `error` member of a response.
    pub fn to_json(&self) -> Value {
        let mut error = json!({ "code": self.code, "message": self.message });
        if let Some(data) = &self.data {
            error["data"] = data.clone();
        }
        error
    }

    /// An error as read from a response; what it lacks reads as an
    /// internal error without a message.
    fn read(error: ErrorObject) -> Self {
        RpcError {
            code: error.code.unwrap_or(code::INTERNAL_ERROR),
            message: error.message.unwrap_or_default(),
            data: error.data,
        }
    }
}

/// One served message, as the peer answering it reads it.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
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
    /// Not a valid JSON-RPC message; `id` is the request id if one could be
    /// read, `error` the answer it gets.
    Invalid { id: Value, error: RpcError },
}

impl Incoming {
    /// Reads one JSON value (an element of a batch or a whole frame). MCP
    /// params are objects: positional ones are invalid params.
    pub fn read(message: &Value) -> Incoming {
        let readable_id = message
            .get("id")
            .filter(|id| super::RequestId::from_value(id).is_some())
            .cloned()
            .unwrap_or(Value::Null);
        let invalid = |error| Incoming::Invalid {
            id: readable_id.clone(),
            error,
        };
        let params = |params: Option<Value>| match params {
            None => Ok(Map::new()),
            Some(Value::Object(params)) => Ok(params),
            Some(_) => Err(RpcError::invalid_params("`params` must be an object")),
        };
        match classify_value(message) {
            Classified::Request {
                id,
                method,
                params: p,
            } => match params(p) {
                Ok(params) => Incoming::Request {
                    id: id.to_value(),
                    method,
                    params,
                },
                Err(error) => invalid(error),
            },
            Classified::Notification { method, params: p } => match params(p) {
                Ok(params) => Incoming::Notification { method, params },
                Err(error) => invalid(error),
            },
            Classified::Result { id, result } => Incoming::Response {
                id: id.to_value(),
                outcome: Ok(result),
            },
            Classified::Error { id: Some(id), error } => Incoming::Response {
                id: id.to_value(),
                outcome: Err(RpcError::read(error)),
            },
            Classified::Error { id: None, .. } => invalid(RpcError::invalid_request(
                "a response needs a string or integer `id`",
            )),
            Classified::Batch(_) => invalid(RpcError::invalid_request(
                Invalid::NotAnObject { found: "an array" }.to_string(),
            )),
            Classified::Invalid(why) => invalid(RpcError::invalid_request(why.to_string())),
        }
    }
}

/// A success or error response frame for request `id`.
pub fn response(id: &Value, outcome: Result<Value, RpcError>) -> Value {
    match outcome {
        Ok(result) => json!({ "jsonrpc": "2.0", "id": id, "result": result }),
        Err(error) => json!({ "jsonrpc": "2.0", "id": id, "error": error.to_json() }),
    }
}

/// A request frame.
pub fn request(id: impl Into<Value>, method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id.into(), "method": method, "params": params })
}

/// A notification frame.
pub fn notification(method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "method": method, "params": params })
}

/// A stable map key for a request id (`1` and `"1"` stay distinct).
pub fn id_key(id: &Value) -> String {
    id.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_requests_notifications_and_responses() {
        let request = Incoming::read(&json!({"jsonrpc": "2.0", "id": 7, "method": "ping"}));
        assert_eq!(
            request,
            Incoming::Request {
                id: json!(7),
                method: "ping".into(),
                params: Map::new()
            }
        );
        let note = Incoming::read(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        assert!(matches!(note, Incoming::Notification { .. }));
        let reply =
            Incoming::read(&json!({"jsonrpc": "2.0", "id": "a", "error": {"code": -1, "message": "x"}}));
        assert_eq!(
            reply,
            Incoming::Response {
                id: json!("a"),
                outcome: Err(RpcError::new(-1, "x"))
            }
        );
    }

    #[test]
    fn invalid_messages_keep_a_readable_id() {
        let old_version = Incoming::read(&json!({"jsonrpc": "1.0", "id": 3, "method": "ping"}));
        assert!(
            matches!(old_version, Incoming::Invalid { id, error } if id == json!(3) && error.code == code::INVALID_REQUEST)
        );
        let null_id = Incoming::read(&json!({"jsonrpc": "2.0", "id": null, "method": "ping"}));
        assert!(matches!(null_id, Incoming::Invalid { id: Value::Null, .. }));
        let both = Incoming::read(&json!({"jsonrpc": "2.0", "id": 1, "result": {}, "error": {}}));
        assert!(matches!(both, Incoming::Invalid { .. }));
        let array_params = Incoming::read(&json!({"jsonrpc": "2.0", "id": 1, "method": "x", "params": []}));
        assert!(
            matches!(array_params, Incoming::Invalid { error, .. } if error.code == code::INVALID_PARAMS)
        );
        let batch = Incoming::read(&json!([]));
        assert!(matches!(batch, Incoming::Invalid { error, .. } if error.message.contains("array")));
    }

    #[test]
    fn frames_are_built_as_json_rpc_2_0() {
        let error = RpcError::invalid_params("no").with_data(json!({"x": 1}));
        assert_eq!(
            response(&json!(1), Err(error)),
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "no", "data": {"x": 1}}})
        );
        assert_eq!(request(2, "ping", json!({}))["id"], json!(2));
        assert_eq!(id_key(&json!("1")), "\"1\"");
    }
}
