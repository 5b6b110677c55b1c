//! The answers our HTTP servers give: a response body that is fixed bytes
//! or an SSE stream, and the responses built on it.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::Frame;
use hyper::header::{self, HeaderValue};
use hyper::{Response, StatusCode};
use mcp_conform_core::wire::jsonrpc::RpcError;
use serde_json::json;

use super::streams::EventBody;

/// A response body: fixed bytes (possibly none), or an SSE stream.
#[derive(Debug)]
pub(crate) enum Body {
    Full(Option<Bytes>),
    Events(EventBody),
}

impl http_body::Body for Body {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match self.get_mut() {
            Body::Full(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            Body::Events(events) => events
                .poll_chunk(cx)
                .map(|chunk| chunk.map(|b| Ok(Frame::data(b)))),
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self, Body::Full(None))
    }

    fn size_hint(&self) -> http_body::SizeHint {
        match self {
            Body::Full(bytes) => {
                http_body::SizeHint::with_exact(bytes.as_ref().map_or(0, |b| b.len() as u64))
            }
            Body::Events(_) => http_body::SizeHint::default(),
        }
    }
}

/// What a server answers an HTTP request with, or why it turns it away.
pub(crate) type Answer = Result<Response<Body>, Refusal>;

/// A request turned away before the server saw it.
#[derive(Debug)]
pub(crate) struct Refusal {
    pub status: StatusCode,
    pub message: String,
}

impl Refusal {
    pub fn new(status: StatusCode, message: impl Into<String>) -> Refusal {
        Refusal {
            status,
            message: message.into(),
        }
    }

    pub fn response(&self) -> Response<Body> {
        refuse(self.status, &self.message)
    }
}

/// A status with a JSON-RPC error (without `id`) as its body.
pub(crate) fn refuse(status: StatusCode, message: &str) -> Response<Body> {
    let error = json!({ "jsonrpc": "2.0", "error": RpcError::invalid_request(message).to_json() });
    json_response(status, error.to_string())
}

pub(crate) fn status_only(status: StatusCode) -> Response<Body> {
    let mut response = Response::new(Body::Full(None));
    *response.status_mut() = status;
    response
}

/// 202 with the body HTTP+SSE servers send for a message they took.
pub(crate) fn accepted() -> Response<Body> {
    let mut response = Response::new(Body::Full(Some(Bytes::from_static(b"Accepted"))));
    *response.status_mut() = StatusCode::ACCEPTED;
    response
}

pub(crate) fn json_response(status: StatusCode, text: String) -> Response<Body> {
    let mut response = Response::new(Body::Full(Some(Bytes::from(text))));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

pub(crate) fn event_stream(body: EventBody) -> Response<Body> {
    let mut response = Response::new(Body::Events(body));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// An SSE response that proxies must not buffer (2026-07-28 streams).
pub(crate) fn unbuffered_event_stream(body: EventBody) -> Response<Body> {
    let mut response = event_stream(body);
    response
        .headers_mut()
        .insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// 405 for a method the endpoint does not serve, naming those it does.
pub(crate) fn not_allowed(allow: &'static str) -> Response<Body> {
    let mut response = status_only(StatusCode::METHOD_NOT_ALLOWED);
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(allow));
    response
}
