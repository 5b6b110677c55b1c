//! The HTTP side of the fault layer: faults that break a rule of the HTTP
//! transports rewrite the request before the correct server sees it, or its
//! answer after, so the server itself stays free of fault switches.

use std::time::Duration;

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::Value;
use tokio::sync::mpsc;

use super::streams::{Body, EventBody};
use super::{MCP_PATH, json_response, status_only};
use crate::reference::Fault;
use crate::transport::http::sse::SseDecoder;

/// How long `http-stream-left-open` holds a finished stream.
const HOLD: Duration = Duration::from_secs(30);
/// What `http-plain-json-rpc` counts as answered at once.
const AT_ONCE: Duration = Duration::from_millis(50);

/// Rewrites the request, or answers it in the server's stead.
pub(super) fn before(
    fault: Fault,
    mut request: Request<Incoming>,
) -> Result<Request<Incoming>, Box<Response<Body>>> {
    let on_endpoint = request.uri().path() == MCP_PATH;
    let method = request.method().clone();
    let headers = request.headers_mut();
    match fault {
        Fault::HttpOriginIgnored => {
            headers.remove(header::ORIGIN);
            headers.insert(header::HOST, HeaderValue::from_static("127.0.0.1"));
        }
        Fault::HttpVersionHeaderIgnored => {
            headers.remove("mcp-protocol-version");
        }
        Fault::HttpDeleteKeepsSession if method == Method::DELETE && on_endpoint => {
            return Err(Box::new(status_only(StatusCode::OK)));
        }
        Fault::HttpGetJson
            if method == Method::GET && on_endpoint && !headers.contains_key("last-event-id") =>
        {
            return Err(Box::new(json_response(StatusCode::OK, "{}".into())));
        }
        _ => {}
    }
    Ok(request)
}

/// Rewrites the server's answer.
pub(super) async fn after(fault: Fault, response: Response<Body>) -> Response<Body> {
    let status = response.status();
    match fault {
        Fault::HttpUnknownSession400 if status == StatusCode::NOT_FOUND => {
            let (mut parts, body) = response.into_parts();
            parts.status = StatusCode::BAD_REQUEST;
            Response::from_parts(parts, body)
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
