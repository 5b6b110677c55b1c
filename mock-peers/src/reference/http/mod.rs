//! The reference server over HTTP: Streamable HTTP (2025-03-26 and later) at
//! `/mcp`, and the older HTTP+SSE transport (2024-11-05) at `/sse` and
//! `/messages`. A POST that speaks 2026-07-28 (by its `MCP-Protocol-Version`
//! or its body's `_meta`) is served statelessly (`modern.rs`); everything
//! else as below.
//!
//! Each MCP session is one [`Server`], exactly as on stdio; its sink hands
//! frames to the session's [`Router`], which puts them on SSE streams (see
//! `streams.rs` for the routing rule). The fault layer sits where it sits on
//! stdio: on each POSTed message before the server sees it, and on each frame
//! the server sends.
//!
//! Rules enforced, each answered with its status before the server sees the
//! message: `Host` and `Origin` must be local (403); a POST must accept both
//! `application/json` and `text/event-stream` (406) and carry
//! `application/json` (415); after `initialize` an `Mcp-Session-Id` is
//! required (400) and must name a live session (404); `MCP-Protocol-Version`,
//! when present, must be a version this server speaks (400).
//!
//! The stream routing (`streams.rs`), the connection loop and the request
//! helpers are shared with the mock server that plays `role: client`
//! scenarios over HTTP ([`crate::transport::http_server`]).

mod fault;
mod mirror;
mod modern;
pub(crate) mod streams;

use std::collections::HashMap;
use std::collections::HashSet;
use std::convert::Infallible;
use std::future::Future;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::http::request::Parts;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use mcp_conform_core::version::ProtocolVersion;
use serde_json::{Value, json};
use tokio::net::TcpListener;

use self::streams::{Body, Router, STANDALONE};
use super::dispatch::Server;
use super::fault::{self as rpc_fault, Fault, FaultLayer};
use super::jsonrpc::{code, id_key};
use super::modern::ModernServer;
use super::session::SUPPORTED;
use super::sink::{self, Sink};

/// The Streamable HTTP endpoint.
pub const MCP_PATH: &str = "/mcp";
/// The HTTP+SSE (2024-11-05) stream and message endpoints.
pub const SSE_PATH: &str = "/sse";
pub const MESSAGES_PATH: &str = "/messages";

pub(crate) const SESSION_HEADER: &str = "mcp-session-id";
pub(crate) const VERSION_HEADER: &str = "mcp-protocol-version";
pub(crate) const LAST_EVENT_ID: &str = "last-event-id";

/// The largest POST body accepted.
const BODY_LIMIT: usize = 4 << 20;

/// Serves MCP over HTTP on `listener` until accepting fails; every session
/// breaks the rule `fault` names, if any.
pub async fn serve_http(listener: TcpListener, fault: Option<Fault>) -> std::io::Result<()> {
    let shared = Arc::new(Shared {
        fault,
        sessions: Mutex::new(HashMap::new()),
        modern: ModernServer::new(),
        fault_memory: Arc::default(),
    });
    serve_connections(listener, "reference server", move |request| {
        Arc::clone(&shared).handle(request)
    })
    .await
}

/// Serves HTTP/1.1 on every connection `listener` accepts, each request
/// answered by `handle`, until accepting fails. The connections are tasks
/// of this future: dropping it ends them too. `who` names the server in
/// messages about failed connections.
pub(crate) async fn serve_connections<H, F>(
    listener: TcpListener,
    who: &'static str,
    handle: H,
) -> std::io::Result<()>
where
    H: Fn(Request<Incoming>) -> F + Clone + Send + Sync + 'static,
    F: Future<Output = Response<Body>> + Send + 'static,
{
    let mut connections = tokio::task::JoinSet::new();
    loop {
        let (tcp, _) = listener.accept().await?;
        while connections.try_join_next().is_some() {}
        let handle = handle.clone();
        connections.spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let answer = handle(request);
                async move { Ok::<_, Infallible>(answer.await) }
            });
            let connection =
                hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(tcp), service);
            if let Err(error) = connection.await
                && !error.is_incomplete_message()
            {
                eprintln!("{who}: HTTP connection failed: {error}");
            }
        });
    }
}

/// State shared by every connection.
#[derive(Debug)]
struct Shared {
    fault: Option<Fault>,
    sessions: Mutex<HashMap<String, Arc<HttpSession>>>,
    /// What every stateless (2026-07-28) request shares.
    modern: Arc<ModernServer>,
    /// What the fault layers of stateless requests share.
    fault_memory: Arc<Mutex<rpc_fault::Memory>>,
}

/// A request with its body read.
type Inbound = (Parts, String);

/// One MCP session: a server, its sink, and the streams its frames go to.
#[derive(Debug)]
struct HttpSession {
    id: String,
    legacy: bool,
    server: Arc<Server>,
    sink: Sink,
    router: Arc<Router>,
    fault: Option<Arc<FaultLayer>>,
}

impl HttpSession {
    fn new(legacy: bool, fault: Option<Fault>) -> HttpSession {
        let fault = fault.map(|fault| Arc::new(FaultLayer::new(fault)));
        let router = Arc::new(Router::new(legacy));
        let sink = Sink::spawn_routed(router.clone(), fault.clone());
        HttpSession {
            id: new_session_id(),
            legacy,
            server: Server::new(sink.clone()),
            sink,
            router,
            fault,
        }
    }

    /// Hands one POSTed body to the server, with frames it causes attributed
    /// to `origin`, and waits until those sent at once are routed.
    async fn feed(&self, origin: sink::Origin, text: &str) {
        sink::with_origin(origin, || {
            super::feed(
                |line| self.server.on_line(line),
                &self.sink,
                self.fault.as_deref(),
                text,
            );
        });
        self.sink.barrier().await;
    }

    /// Whether 2025-11-25 (or later) was negotiated: streams open with a
    /// priming event.
    fn primes(&self) -> bool {
        self.server
            .session
            .negotiated()
            .is_some_and(|n| n.version >= ProtocolVersion::V2025_11_25)
    }

    /// Ends the session: streams close, running calls get their grace period.
    fn end(self: &Arc<Self>) {
        self.router.end();
        let session = Arc::clone(self);
        tokio::spawn(async move {
            session.server.shut_down().await;
            session.sink.close().await;
        });
    }
}

/// A random session id of 32 hex digits (visible ASCII, unguessable:
/// SipHash under the process's random keys).
pub(crate) fn new_session_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    (0..2)
        .map(|half| {
            let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
            hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
            hasher.write_u128(nanos);
            hasher.write_u8(half);
            format!("{:016x}", hasher.finish())
        })
        .collect()
}

/// What a POST body holds, as far as the transport cares.
#[derive(Debug, Default)]
pub(crate) struct BodyShape {
    /// Ids of the requests in it, as [`id_key`]s.
    pub requests: HashSet<String>,
    pub initialize: bool,
    /// The request a `notifications/cancelled` names, as an [`id_key`].
    pub cancels: Option<String>,
}

impl BodyShape {
    pub fn of(text: &str) -> BodyShape {
        let mut shape = BodyShape::default();
        let message: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        let items = match &message {
            Value::Array(items) => items.iter().collect(),
            single => vec![single],
        };
        if message.get("method").and_then(Value::as_str) == Some("notifications/cancelled") {
            shape.cancels = message.pointer("/params/requestId").map(id_key);
        }
        for item in items {
            if let (Some(method), Some(id)) = (item.get("method").and_then(Value::as_str), item.get("id")) {
                shape.requests.insert(id_key(id));
                shape.initialize |= method == "initialize" && message.is_object();
            }
        }
        shape
    }
}

fn error_body(message: &str) -> Bytes {
    Bytes::from(
        json!({ "jsonrpc": "2.0", "error": { "code": code::INVALID_REQUEST, "message": message } })
            .to_string(),
    )
}

/// A status with a JSON-RPC error (without `id`) as its body.
pub(crate) fn refuse(status: StatusCode, message: &str) -> Response<Body> {
    let mut response = Response::new(Body::Full(Some(error_body(message))));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

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

pub(crate) fn status_only(status: StatusCode) -> Response<Body> {
    let mut response = Response::new(Body::Full(None));
    *response.status_mut() = status;
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

pub(crate) fn event_stream(body: streams::EventBody) -> Response<Body> {
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
pub(crate) fn unbuffered_event_stream(body: streams::EventBody) -> Response<Body> {
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

pub(crate) fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|value| value.to_str().ok())
}

/// The media types an `Accept` or `Content-Type` header lists, lowercased,
/// without parameters.
pub(crate) fn media_types(value: Option<&str>) -> Vec<String> {
    value
        .unwrap_or_default()
        .split(',')
        .filter_map(|item| item.split(';').next())
        .map(|media| media.trim().to_ascii_lowercase())
        .filter(|media| !media.is_empty())
        .collect()
}

fn accepts(headers: &HeaderMap, wanted: &[&str]) -> bool {
    let listed = media_types(header_str(headers, header::ACCEPT.as_str()));
    wanted.iter().all(|w| listed.iter().any(|l| l == w))
}

/// A loopback host name, with its port and brackets already removed.
fn is_loopback_name(host: &str) -> bool {
    let host = host.to_ascii_lowercase();
    matches!(host.as_str(), "127.0.0.1" | "localhost" | "[::1]")
}

/// `host[:port]` without the port.
fn strip_port(authority: &str) -> &str {
    if authority.starts_with('[') {
        return authority.find(']').map_or(authority, |end| &authority[..=end]);
    }
    authority.split(':').next().unwrap_or(authority)
}

/// The DNS rebinding guard: `Host` must name the loopback interface and an
/// `Origin`, when sent, must be a loopback origin.
pub(crate) fn local_only(headers: &HeaderMap) -> Result<(), &'static str> {
    let host = header_str(headers, header::HOST.as_str()).map(str::trim);
    if !host.is_some_and(|host| is_loopback_name(strip_port(host))) {
        return Err("Host must be 127.0.0.1 or localhost");
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or_default().trim();
        let authority = origin
            .strip_prefix("http://")
            .or_else(|| origin.strip_prefix("https://"));
        if !authority.is_some_and(|a| !a.contains('/') && is_loopback_name(strip_port(a))) {
            return Err("Origin not allowed: only local origins may use this server");
        }
    }
    Ok(())
}

/// `MCP-Protocol-Version`: absent is fine (the negotiated version holds),
/// present must be a version this server speaks.
fn version_header_ok(headers: &HeaderMap) -> Result<(), String> {
    match headers.get(VERSION_HEADER) {
        None => Ok(()),
        Some(value) => {
            let value = value.to_str().unwrap_or_default();
            if SUPPORTED.iter().any(|v| v.as_str() == value) {
                Ok(())
            } else {
                Err(format!("Unsupported MCP-Protocol-Version {value:?}"))
            }
        }
    }
}

impl Shared {
    /// Serves one request, through the HTTP fault layer if there is a fault.
    async fn handle(self: Arc<Self>, request: Request<Incoming>) -> Response<Body> {
        let (parts, body) = request.into_parts();
        let request = match read_body(body).await {
            Ok(text) => (parts, text),
            Err(refused) => return refused.response(),
        };
        let Some(fault) = self.fault else {
            return self.route(request).await;
        };
        let speaks_modern = modern::speaks_modern(&request.0.headers, &request.1);
        match fault::before(fault, request) {
            Ok(request) => fault::after(fault, speaks_modern, self.route(request).await).await,
            Err(answered) => *answered,
        }
    }

    async fn route(self: Arc<Self>, (parts, body): Inbound) -> Response<Body> {
        if let Err(why) = local_only(&parts.headers) {
            return refuse(StatusCode::FORBIDDEN, why);
        }
        let speaks_modern = modern::speaks_modern(&parts.headers, &body);
        match (parts.method.clone(), parts.uri.path()) {
            (Method::POST, MCP_PATH) => self.post(&parts.headers, body).await,
            // No stream to open and no session to end in 2026-07-28.
            (Method::GET | Method::DELETE, MCP_PATH) if speaks_modern => not_allowed("POST"),
            (Method::GET, MCP_PATH) => self.get(&parts.headers),
            (Method::DELETE, MCP_PATH) => self.delete(&parts.headers),
            (_, MCP_PATH) => not_allowed("GET, POST, DELETE"),
            (Method::GET, SSE_PATH) => self.legacy_open(),
            (Method::POST, MESSAGES_PATH) => self.legacy_post(&parts, &body).await,
            (_, SSE_PATH | MESSAGES_PATH) => status_only(StatusCode::METHOD_NOT_ALLOWED),
            _ => refuse(StatusCode::NOT_FOUND, "no such endpoint; MCP is served at /mcp"),
        }
    }

    fn session(&self, id: &str) -> Option<Arc<HttpSession>> {
        self.sessions.lock().expect("sessions lock").get(id).cloned()
    }

    /// The Streamable HTTP session a request names: 400 without an id, 404
    /// for an id that is unknown or has ended, 400 for a bad version header.
    fn existing(&self, headers: &HeaderMap) -> Result<Arc<HttpSession>, Refusal> {
        let Some(id) = header_str(headers, SESSION_HEADER) else {
            return Err(Refusal::new(
                StatusCode::BAD_REQUEST,
                "Bad Request: Mcp-Session-Id header is required",
            ));
        };
        let session = self
            .session(id)
            .filter(|s| !s.legacy)
            .ok_or_else(|| Refusal::new(StatusCode::NOT_FOUND, "Session not found"))?;
        version_header_ok(headers).map_err(|why| Refusal::new(StatusCode::BAD_REQUEST, why))?;
        Ok(session)
    }

    async fn post(&self, headers: &HeaderMap, text: String) -> Response<Body> {
        if !accepts(headers, &["application/json", "text/event-stream"]) {
            return refuse(
                StatusCode::NOT_ACCEPTABLE,
                "Not Acceptable: Accept must list application/json and text/event-stream",
            );
        }
        let content_type = media_types(header_str(headers, header::CONTENT_TYPE.as_str()));
        if content_type.first().map(String::as_str) != Some("application/json") {
            return refuse(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "Unsupported Media Type: Content-Type must be application/json",
            );
        }
        if modern::speaks_modern(headers, &text) {
            let fault = self
                .fault
                .map(|fault| FaultLayer::sharing(fault, Arc::clone(&self.fault_memory)));
            return modern::post(&self.modern, fault, headers, &text).await;
        }
        let has_session = headers.contains_key(SESSION_HEADER);
        let known = if has_session {
            match self.existing(headers) {
                Ok(session) => Some(session),
                Err(refused) => return refused.response(),
            }
        } else {
            None
        };
        let shape = BodyShape::of(&text);
        let (session, created) = match known {
            Some(session) => (session, false),
            None if shape.initialize => {
                let session = Arc::new(HttpSession::new(false, self.fault));
                (session, true)
            }
            None => {
                return refuse(
                    StatusCode::BAD_REQUEST,
                    "Bad Request: Mcp-Session-Id header is required",
                );
            }
        };
        let origin = session.router.open(shape.requests.clone());
        session.feed(origin, &text).await;
        if let Some(cancelled) = &shape.cancels {
            session.router.cancel(cancelled);
        }
        let mut response = if shape.requests.is_empty() {
            // A notification or response: 202, unless it was refused.
            let frames = session.router.take(origin);
            match frames.into_iter().next() {
                None => status_only(StatusCode::ACCEPTED),
                Some(frame) => {
                    let refused =
                        serde_json::from_str::<Value>(&frame).is_ok_and(|f| f.get("error").is_some());
                    let status = if refused {
                        StatusCode::BAD_REQUEST
                    } else {
                        StatusCode::OK
                    };
                    json_response(status, frame)
                }
            }
        } else if session.router.is_refused(origin) {
            // Refused as a whole (a batch where batches are not allowed).
            let frame = session.router.take(origin).into_iter().next().unwrap_or_default();
            json_response(StatusCode::BAD_REQUEST, frame)
        } else {
            match session.router.connect(origin, session.primes(), None) {
                Some(body) => event_stream(body),
                None => status_only(StatusCode::INTERNAL_SERVER_ERROR),
            }
        };
        if created {
            if session.server.session.negotiated().is_some() {
                self.sessions
                    .lock()
                    .expect("sessions lock")
                    .insert(session.id.clone(), Arc::clone(&session));
                let id = HeaderValue::from_str(&session.id).expect("session ids are visible ASCII");
                response.headers_mut().insert(SESSION_HEADER, id);
            } else {
                // initialize failed: no session to keep.
                session.end();
            }
        }
        response
    }

    fn get(&self, headers: &HeaderMap) -> Response<Body> {
        if !accepts(headers, &["text/event-stream"]) {
            return refuse(
                StatusCode::NOT_ACCEPTABLE,
                "Not Acceptable: Accept must list text/event-stream",
            );
        }
        let session = match self.existing(headers) {
            Ok(session) => session,
            Err(refused) => return refused.response(),
        };
        if let Some(last) = header_str(headers, LAST_EVENT_ID) {
            return match session.router.resume(last) {
                Ok(body) => event_stream(body),
                Err(_) => refuse(
                    StatusCode::BAD_REQUEST,
                    "Last-Event-ID names no event of this session",
                ),
            };
        }
        if session.router.standalone_open() {
            return refuse(
                StatusCode::CONFLICT,
                "Conflict: a standalone SSE stream is already open for this session",
            );
        }
        match session.router.connect(STANDALONE, session.primes(), None) {
            Some(body) => event_stream(body),
            None => status_only(StatusCode::INTERNAL_SERVER_ERROR),
        }
    }

    fn delete(&self, headers: &HeaderMap) -> Response<Body> {
        let session = match self.existing(headers) {
            Ok(session) => session,
            Err(refused) => return refused.response(),
        };
        self.sessions.lock().expect("sessions lock").remove(&session.id);
        session.end();
        status_only(StatusCode::OK)
    }

    /// GET /sse: a new HTTP+SSE session; its first event names the POST URL.
    fn legacy_open(self: Arc<Self>) -> Response<Body> {
        let session = Arc::new(HttpSession::new(true, self.fault));
        let endpoint = format!(
            "event: endpoint\ndata: {MESSAGES_PATH}?session_id={}\n\n",
            session.id
        );
        let Some(body) = session
            .router
            .connect(STANDALONE, false, Some(Bytes::from(endpoint)))
        else {
            return status_only(StatusCode::INTERNAL_SERVER_ERROR);
        };
        self.sessions
            .lock()
            .expect("sessions lock")
            .insert(session.id.clone(), Arc::clone(&session));
        let shared = Arc::clone(&self);
        let body = body.on_drop(move || {
            // The client hung up: that ends an HTTP+SSE session.
            shared.sessions.lock().expect("sessions lock").remove(&session.id);
            session.end();
        });
        event_stream(body)
    }

    /// POST /messages?session_id=…: one message for an HTTP+SSE session;
    /// whatever it leads to arrives on that session's SSE stream.
    async fn legacy_post(&self, parts: &Parts, text: &str) -> Response<Body> {
        let Some(id) = legacy_session_id(&parts.uri) else {
            return refuse(StatusCode::BAD_REQUEST, "Bad Request: session_id is required");
        };
        let Some(session) = self.session(&id).filter(|s| s.legacy) else {
            return refuse(StatusCode::NOT_FOUND, "Session not found");
        };
        session.feed(STANDALONE, text).await;
        let mut response = Response::new(Body::Full(Some(Bytes::from_static(b"Accepted"))));
        *response.status_mut() = StatusCode::ACCEPTED;
        response
    }
}

/// The session an HTTP+SSE message names (`/messages?session_id=…`).
pub(crate) fn legacy_session_id(uri: &hyper::Uri) -> Option<String> {
    uri.query()
        .unwrap_or_default()
        .split('&')
        .find_map(|pair| pair.strip_prefix("session_id="))
        .map(str::to_owned)
}

/// The body as text (at most [`BODY_LIMIT`] bytes; 413 beyond).
pub(crate) async fn read_body(body: Incoming) -> Result<String, Refusal> {
    match Limited::new(body, BODY_LIMIT).collect().await {
        Ok(collected) => Ok(String::from_utf8_lossy(&collected.to_bytes()).into_owned()),
        Err(_) => Err(Refusal::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "request body too large or broken",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn only_local_hosts_and_origins_pass() {
        assert!(local_only(&headers(&[("host", "127.0.0.1:8080")])).is_ok());
        assert!(local_only(&headers(&[("host", "localhost")])).is_ok());
        assert!(local_only(&headers(&[("host", "[::1]:9")])).is_ok());
        assert!(local_only(&headers(&[("host", "evil.example:80")])).is_err());
        assert!(local_only(&headers(&[])).is_err());
        assert!(
            local_only(&headers(&[
                ("host", "127.0.0.1"),
                ("origin", "http://localhost:3000")
            ]))
            .is_ok()
        );
        assert!(
            local_only(&headers(&[
                ("host", "127.0.0.1"),
                ("origin", "https://evil.example")
            ]))
            .is_err()
        );
        assert!(
            local_only(&headers(&[
                ("host", "127.0.0.1"),
                ("origin", "http://127.0.0.1.evil.example")
            ]))
            .is_err()
        );
        assert!(local_only(&headers(&[("host", "127.0.0.1"), ("origin", "null")])).is_err());
    }

    #[test]
    fn accept_lists_are_read_per_media_type() {
        let both = headers(&[("accept", "application/json, text/event-stream;q=0.9")]);
        assert!(accepts(&both, &["application/json", "text/event-stream"]));
        let json_only = headers(&[("accept", "application/json")]);
        assert!(!accepts(&json_only, &["application/json", "text/event-stream"]));
    }

    #[test]
    fn session_ids_are_visible_ascii_and_differ() {
        let (a, b) = (new_session_id(), new_session_id());
        assert_ne!(a, b);
        assert!(a.bytes().all(|c| (0x21..=0x7e).contains(&c)) && a.len() == 32);
    }

    #[test]
    fn body_shapes_find_requests() {
        let init = BodyShape::of(r#"{"jsonrpc":"2.0","id":0,"method":"initialize"}"#);
        assert!(init.initialize && init.requests.len() == 1);
        let note = BodyShape::of(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        assert!(!note.initialize && note.requests.is_empty());
        let batch = BodyShape::of(
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#,
        );
        assert_eq!(batch.requests.len(), 2);
        assert!(BodyShape::of("not json").requests.is_empty());
    }
}
