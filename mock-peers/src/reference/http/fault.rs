//! The HTTP side of the fault layer: faults that break a rule of the HTTP
//! transports rewrite the request before the correct server sees it, or its
//! answer after, so the server itself stays free of fault switches. Every
//! other fault passes through untouched.

use std::time::Duration;

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::header::{self, HeaderMap, HeaderName, HeaderValue};
use hyper::{Method, Response, StatusCode};
use serde_json::Value;
use tokio::sync::mpsc;

use mcp_conform_core::wire;
use mcp_conform_core::wire::headers::{LAST_EVENT_ID, METHOD, NAME, PARAM_PREFIX, SESSION_ID};

use super::stateless;
use crate::reference::Fault;
use crate::reference::era::PROTOCOL_VERSION;
use crate::reference::tools;
use crate::transport::http::sse::SseDecoder;
use crate::transport::http_server::respond::{Body, event_stream, json_response, status_only};
use crate::transport::http_server::serve::{Inbound, MCP_PATH};
use crate::transport::http_server::streams::EventBody;
use mcp_conform_core::wire::mirror::encode;

/// How long `http-stream-left-open` holds a finished stream.
const HOLD: Duration = Duration::from_secs(30);
/// What `http-plain-json-rpc` counts as answered at once.
const AT_ONCE: Duration = Duration::from_millis(50);

/// Rewrites the request, or answers it in the server's stead.
pub(super) fn before(
    fault: Fault,
    Inbound { mut parts, body }: Inbound,
) -> Result<Inbound, Box<Response<Body>>> {
    let on_endpoint = parts.uri.path() == MCP_PATH;
    let method = parts.method.clone();
    let speaks_stateless = stateless::speaks_stateless(&parts.headers, &body);
    let headers = &mut parts.headers;
    match fault {
        Fault::HttpOriginIgnored => ignore_origin(headers),
        Fault::ModernHttpOriginIgnored if speaks_stateless => ignore_origin(headers),
        Fault::HttpVersionHeaderIgnored => {
            headers.remove(wire::headers::PROTOCOL_VERSION);
        }
        Fault::HttpDeleteKeepsSession if method == Method::DELETE && on_endpoint => {
            return Err(Box::new(status_only(StatusCode::OK)));
        }
        Fault::HttpGetJson
            if method == Method::GET && on_endpoint && !headers.contains_key(LAST_EVENT_ID) =>
        {
            return Err(Box::new(json_response(StatusCode::OK, "{}".into())));
        }
        Fault::ModernHttpGetAllowed if method != Method::POST && on_endpoint && speaks_stateless => {
            let (_, nothing) = mpsc::unbounded_channel();
            return Err(Box::new(match method {
                Method::GET => event_stream(EventBody::from_channel(nothing)),
                _ => status_only(StatusCode::OK),
            }));
        }
        Fault::ModernHttpHeaderMismatchIgnored if speaks_stateless => mirror_body(headers, &body),
        _ => {}
    }
    Ok(Inbound { parts, body })
}

/// Makes every request look as if it came from the server's own page.
fn ignore_origin(headers: &mut HeaderMap) {
    headers.remove(header::ORIGIN);
    headers.insert(header::HOST, HeaderValue::from_static("127.0.0.1"));
}

/// Sets the mirrored headers to what the body says, whatever was sent.
fn mirror_body(headers: &mut HeaderMap, body: &str) {
    let Ok(message) = serde_json::from_str::<Value>(body) else {
        return;
    };
    let params = message.get("params").unwrap_or(&Value::Null);
    let mut set = |name: &str, value: &str| {
        if let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(&encode(value)),
        ) {
            headers.insert(name, value);
        }
    };
    if let Some(version) = params.get("_meta").and_then(|m| m.get(PROTOCOL_VERSION)) {
        set(
            wire::headers::PROTOCOL_VERSION,
            version.as_str().unwrap_or_default(),
        );
    }
    let method = message.get("method").and_then(Value::as_str).unwrap_or_default();
    set(METHOD, method);
    if let Some(name) = params
        .get("name")
        .or_else(|| params.get("uri"))
        .and_then(Value::as_str)
    {
        set(NAME, name);
    }
    let tool = params.get("name").and_then(Value::as_str).unwrap_or_default();
    for (header, parameter) in tools::header_parameters(tool) {
        let value = params.get("arguments").and_then(|a| a.get(&parameter));
        let text = match value {
            Some(Value::String(text)) => text.clone(),
            Some(other) => other.to_string(),
            None => continue,
        };
        set(&format!("{PARAM_PREFIX}{header}"), &text);
    }
}

/// Rewrites the server's answer; `speaks_stateless` when the request spoke 2026-07-28.
pub(super) async fn after(
    fault: Fault,
    speaks_stateless: bool,
    mut response: Response<Body>,
) -> Response<Body> {
    let status = response.status();
    match fault {
        Fault::ModernHttpSessionMinted if speaks_stateless => {
            response.headers_mut().insert(
                SESSION_ID,
                HeaderValue::from_static("0123456789abcdef0123456789abcdef"),
            );
            response
        }
        Fault::ModernHttpUnknownMethod200 if speaks_stateless && status == StatusCode::NOT_FOUND => {
            *response.status_mut() = StatusCode::OK;
            response
        }
        Fault::HttpUnknownSession400 if status == StatusCode::NOT_FOUND => {
            let (mut parts, body) = response.into_parts();
            parts.status = StatusCode::BAD_REQUEST;
            Response::from_parts(parts, body)
        }
        Fault::ModernHttpNotification204 if speaks_stateless && status == StatusCode::ACCEPTED => {
            status_only(StatusCode::NO_CONTENT)
        }
        Fault::HttpPlainJsonRpc if status == StatusCode::ACCEPTED => status_only(StatusCode::NO_CONTENT),
        Fault::HttpPlainJsonRpc => as_plain_json(response).await,
        Fault::HttpNoPriming => rewrite_events(response, Duration::ZERO, |index, chunk| {
            let priming =
                index == 0 && chunk.ends_with(b"data:\n\n") && !chunk.windows(5).any(|w| w == b"event");
            (!priming).then_some(chunk)
        }),
        Fault::HttpEndpointEventLate => rewrite_events(response, Duration::ZERO, |index, chunk| {
            if index > 0 {
                return Some(chunk);
            }
            let early = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"hello\"}}\n\n";
            Some(Bytes::from([early.as_bytes(), &chunk].concat()))
        }),
        // The stream ends: hold it open anyway.
        Fault::HttpStreamLeftOpen => rewrite_events(response, HOLD, |_, chunk| Some(chunk)),
        Fault::ModernHttpStreamLeftOpen if speaks_stateless => {
            rewrite_events(response, HOLD, |_, chunk| Some(chunk))
        }
        _ => response,
    }
}

/// Passes an SSE answer's chunks through `map` (by index; `None` drops
/// one), and keeps the stream open for `hold` once the server ended it.
fn rewrite_events(
    response: Response<Body>,
    hold: Duration,
    map: impl FnMut(usize, Bytes) -> Option<Bytes> + Send + 'static,
) -> Response<Body> {
    let (parts, body) = response.into_parts();
    let Body::Events(_) = body else {
        return Response::from_parts(parts, body);
    };
    Response::from_parts(parts, relay(Vec::new(), body, hold, map))
}

/// A new SSE body: `read` (chunks already taken from `rest`), then the rest
/// of `rest`, each chunk through `map`, held open for `hold` at the end.
fn relay(
    read: Vec<Bytes>,
    mut rest: Body,
    hold: Duration,
    mut map: impl FnMut(usize, Bytes) -> Option<Bytes> + Send + 'static,
) -> Body {
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut index = 0;
        let mut forward = |chunk: Bytes| {
            let sent = map(index, chunk).is_none_or(|chunk| tx.send(chunk).is_ok());
            index += 1;
            sent
        };
        for chunk in read {
            if !forward(chunk) {
                return;
            }
        }
        while let Some(Ok(frame)) = rest.frame().await {
            if let Ok(chunk) = frame.into_data()
                && !forward(chunk)
            {
                return;
            }
        }
        tokio::time::sleep(hold).await;
        drop(tx);
    });
    Body::Events(EventBody::from_channel(rx))
}

/// What a server that answers plain JSON-RPC over POST sends: a request
/// answered at once (its response already on the stream when the server
/// returns, nothing else before it) becomes one `application/json` body,
/// session id and all. An answer that streams (a slow call, one with
/// progress or requests of its own) stays SSE, as JSON cannot carry it.
async fn as_plain_json(response: Response<Body>) -> Response<Body> {
    let (mut parts, mut body) = response.into_parts();
    if !matches!(body, Body::Events(_)) {
        return Response::from_parts(parts, body);
    }
    let mut read = Vec::new();
    let mut decoder = SseDecoder::new();
    let mut only = None;
    while let Ok(Some(Ok(frame))) = tokio::time::timeout(AT_ONCE, body.frame()).await {
        let Ok(chunk) = frame.into_data() else { continue };
        let messages: Vec<Value> = decoder
            .feed(&chunk)
            .iter()
            .filter_map(|event| serde_json::from_str(&event.data).ok())
            .collect();
        read.push(chunk);
        if let Some(first) = messages.into_iter().next() {
            let is_response = first.get("id").is_some() && first.get("method").is_none();
            only = is_response.then_some(first);
            break;
        }
    }
    match only {
        Some(message) => {
            parts
                .headers
                .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
            Response::from_parts(parts, Body::Full(Some(Bytes::from(message.to_string()))))
        }
        None => Response::from_parts(parts, relay(read, body, Duration::ZERO, |_, chunk| Some(chunk))),
    }
}
