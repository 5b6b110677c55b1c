//! Streamable HTTP under 2026-07-28: POST only (GET and DELETE get 405,
//! HTTP-026), no sessions (`Mcp-Session-Id` is ignored and never minted),
//! no resumption (`Last-Event-ID` is ignored).
//!
//! Each POST is one [`Connection`] of the shared [`StatelessServer`], with its
//! own fault layer. What it sends goes back on this POST only: a request
//! refused before it is served gets a JSON body with its status (400, or
//! 404 for an unknown method; HTTP-021, HTTP-022, MODN-002, MODN-005,
//! MODN-008); `tools/call` and `subscriptions/listen` get an SSE stream
//! carrying notifications about that request and then its response
//! (HTTP-025); every other request a JSON body, or a stream when something
//! came before its response. Closing the stream cancels the request
//! (HTTP-011).

use std::sync::Arc;

use bytes::Bytes;
use hyper::header::HeaderMap;
use hyper::{Response, StatusCode};
use mcp_conform_core::version::{Era, ProtocolVersion};
use serde_json::Value;
use tokio::sync::mpsc;

use mcp_conform_core::wire::headers::PROTOCOL_VERSION;
use mcp_conform_core::wire::jsonrpc::{self, Incoming, RpcError, code};

use super::mirror;
use crate::reference::era;
use crate::reference::fault::{Emit, FaultLayer};
use crate::reference::sink::{Route, Sink};
use crate::reference::stateless::{self, Connection, StatelessServer};
use crate::transport::http::sse;
use crate::transport::http_server::request::header_str;
use crate::transport::http_server::respond::{Body, json_response, status_only, unbuffered_event_stream};
use crate::transport::http_server::streams::{EventBody, Origin};

/// Whether a request speaks 2026-07-28: its `MCP-Protocol-Version` is a
/// stateless version, or its body is a stateless request.
pub(super) fn speaks_stateless(headers: &HeaderMap, body: &str) -> bool {
    let header = header_str(headers, PROTOCOL_VERSION)
        .and_then(|v| v.parse::<ProtocolVersion>().ok())
        .is_some_and(|v| v.era() == Era::Stateless);
    header || serde_json::from_str::<Value>(body).is_ok_and(|message| era::is_stateless_request(&message))
}

/// Frames of one POST, after its fault layer.
#[derive(Debug)]
struct Collect(mpsc::UnboundedSender<Emit>);

impl Route for Collect {
    fn deliver(&self, emit: Emit, _origin: Option<Origin>) {
        let _ = self.0.send(emit);
    }
}

/// Serves one POSTed message (already past the Accept and Content-Type
/// checks) for `principal`, the user of its token on a protected server.
pub(super) async fn post(
    server: &Arc<StatelessServer>,
    fault: Option<FaultLayer>,
    principal: Option<String>,
    headers: &HeaderMap,
    body: &str,
) -> Response<Body> {
    let fault = fault.map(Arc::new);
    let (line, answered) = match &fault {
        Some(fault) => {
            let inbound = fault.incoming(body);
            (inbound.line, inbound.answer)
        }
        None => (Some(body.to_owned()), None),
    };
    let (tx, rx) = mpsc::unbounded_channel();
    let sink = Sink::spawn_routed(Arc::new(Collect(tx)), fault);
    let refuse = |id: &Value, error: RpcError, status: StatusCode| {
        sink.send(jsonrpc::response(id, Err(error)));
        Pending::Refused(status)
    };
    let pending = match line.as_deref().map(serde_json::from_str::<Value>) {
        None => Pending::Accepted,
        Some(Err(error)) => {
            let error = RpcError::new(code::PARSE_ERROR, format!("parse error: {error}"));
            refuse(&Value::Null, error, StatusCode::BAD_REQUEST)
        }
        Some(Ok(Value::Array(_))) => {
            let error = RpcError::invalid_request("JSON-RPC batches do not exist in 2026-07-28");
            refuse(&Value::Null, error, StatusCode::BAD_REQUEST)
        }
        Some(Ok(message)) => match Incoming::read(&message) {
            Incoming::Invalid { id, error } => refuse(&id, error, StatusCode::BAD_REQUEST),
            Incoming::Response { id, .. } => {
                let error = RpcError::invalid_request("clients send no JSON-RPC responses in 2026-07-28");
                refuse(&id, error, StatusCode::BAD_REQUEST)
            }
            Incoming::Notification { .. } => Pending::Accepted,
            Incoming::Request { id, method, params } => {
                match mirror::check(headers, &method, &params)
                    .and_then(|()| stateless::admit(&method, &params))
                {
                    Err(error) => {
                        let status = match error.code {
                            code::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
                            _ => StatusCode::BAD_REQUEST,
                        };
                        refuse(&id, error, status)
                    }
                    Ok(meta) => {
                        let connection = Connection::new(Arc::clone(server), sink.clone(), principal);
                        let streams = matches!(method.as_str(), "tools/call" | "subscriptions/listen");
                        connection.serve(id.clone(), &method, params, meta);
                        if streams {
                            Pending::Streaming(connection, id)
                        } else {
                            Pending::Answered
                        }
                    }
                }
            }
        },
    };
    drop(sink);
    match pending {
        Pending::Accepted => match answered {
            Some(answer) => json_response(StatusCode::OK, answer.to_string()),
            None => status_only(StatusCode::ACCEPTED),
        },
        Pending::Refused(status) => answer_whole(rx, status).await,
        Pending::Answered => answer_whole(rx, StatusCode::OK).await,
        Pending::Streaming(connection, id) => stream(rx, connection, id),
    }
}

/// What became of a POST once handed on.
enum Pending {
    /// A notification, or a message the fault layer swallowed: 202.
    Accepted,
    /// Refused before being served, with this status.
    Refused(StatusCode),
    /// Served at once; its frames are all queued.
    Answered,
    /// Served on a stream that lasts until the request is answered.
    Streaming(Arc<Connection>, Value),
}

/// Every frame of a POST served at once: one response as a JSON body with
/// `status` (200 if a fault turned an error into a result), several as a
/// finished SSE stream.
async fn answer_whole(mut rx: mpsc::UnboundedReceiver<Emit>, status: StatusCode) -> Response<Body> {
    let mut frames = Vec::new();
    while let Some(emit) = rx.recv().await {
        frames.push(emit);
    }
    match frames.as_slice() {
        [] => status_only(StatusCode::ACCEPTED),
        [Emit::Frame(frame)] => {
            let status = if frame.get("error").is_some() {
                status
            } else {
                StatusCode::OK
            };
            json_response(status, frame.to_string())
        }
        _ => {
            let (events, rx) = mpsc::unbounded_channel();
            for emit in &frames {
                let _ = events.send(event(emit));
            }
            drop(events);
            unbuffered_event_stream(EventBody::from_channel(rx))
        }
    }
}

/// An SSE stream of the request's frames, ended by its response; closing
/// it cancels the request.
fn stream(mut rx: mpsc::UnboundedReceiver<Emit>, connection: Arc<Connection>, id: Value) -> Response<Body> {
    let (events, body) = mpsc::unbounded_channel();
    let answered = id.clone();
    tokio::spawn(async move {
        while let Some(emit) = rx.recv().await {
            let last = matches!(&emit, Emit::Frame(frame) if answers(frame, &answered));
            if events.send(event(&emit)).is_err() || last {
                break;
            }
        }
    });
    let body = EventBody::from_channel(body).on_drop(move || {
        connection.cancel(&id);
    });
    unbuffered_event_stream(body)
}

/// Whether `frame` is the response to request `id`.
fn answers(frame: &Value, id: &Value) -> bool {
    frame.get("method").is_none() && frame.get("id") == Some(id)
}

/// One SSE event: no id, as 2026-07-28 streams are not resumable.
fn event(emit: &Emit) -> Bytes {
    let data = match emit {
        Emit::Frame(frame) => frame.to_string(),
        Emit::Raw(text) => text.clone(),
    };
    Bytes::from(sse::encode(None, Some(&data)))
}
