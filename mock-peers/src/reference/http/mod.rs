//! The reference server over HTTP: Streamable HTTP (2025-03-26 and later) at
//! `/mcp`, and the older HTTP+SSE transport (2024-11-05) at `/sse` and
//! `/messages`. A POST that speaks 2026-07-28 (by its `MCP-Protocol-Version`
//! or its body's `_meta`) is served statelessly (`stateless.rs`); everything
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
//! The routes, the connection loop, the SSE streams and the request
//! helpers are the transport's server core
//! ([`crate::transport::http_server`]), which the mock server that plays
//! `role: client` scenarios over HTTP shares; this module is the reference
//! server's [`Handler`] on it.

mod default_endpoints;
mod fault;
mod mirror;
mod protect;
mod stateless;

use protect::Gate;
pub use protect::{AuthorizationEndpoints, NEEDED_SCOPES, Protection, TokenValidation};

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use hyper::body::Incoming;
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Request, Response, StatusCode};
use mcp_conform_core::version::ProtocolVersion;
use mcp_conform_core::wire::headers::{PROTOCOL_VERSION, SESSION_ID};
use serde_json::Value;
use tokio::net::TcpListener;

use super::dispatch::Server;
use super::fault::{self as rpc_fault, Emit, Fault, FaultLayer};
use super::session::SUPPORTED;
use super::sink::{self, Route, Sink};
use super::stateless::StatelessServer;
use crate::transport::http_server::request::{
    BodyShape, accepts, header_str, legacy_session_id, media_types, new_session_id, read_body,
};
use crate::transport::http_server::respond::{
    Answer, Body, Refusal, accepted, event_stream, json_response, status_only,
};
use crate::transport::http_server::serve::{
    self, GetStream, Handler, Inbound, MCP_PATH, get_stream, legacy_stream, route, stream_failed,
};
use crate::transport::http_server::streams::{Origin, Router, STANDALONE};

/// Serves MCP over HTTP on `listener` until accepting fails; every session
/// breaks the rule `fault` names, if any.
pub async fn serve_http(listener: TcpListener, fault: Option<Fault>) -> std::io::Result<()> {
    serve_http_protected(listener, fault, None).await
}

/// [`serve_http`], behind `protection` when given (the protected mode).
pub async fn serve_http_protected(
    listener: TcpListener,
    fault: Option<Fault>,
    protection: Option<Protection>,
) -> std::io::Result<()> {
    let shared = Arc::new(Shared {
        fault,
        protection,
        sessions: Mutex::new(HashMap::new()),
        stateless: StatelessServer::new(),
        fault_memory: Arc::default(),
    });
    serve::serve(listener, "reference server", shared).await
}

/// State shared by every connection.
#[derive(Debug)]
struct Shared {
    fault: Option<Fault>,
    /// The token check in front of everything (`--auth`).
    protection: Option<Protection>,
    sessions: Mutex<HashMap<String, Arc<HttpSession>>>,
    /// What every stateless (2026-07-28) request shares.
    stateless: Arc<StatelessServer>,
    /// What the fault layers of stateless requests share.
    fault_memory: Arc<Mutex<rpc_fault::Memory>>,
}

/// The server's frames, after the fault layer, go on the session's streams.
impl Route for Router {
    fn deliver(&self, emit: Emit, origin: Option<Origin>) {
        match emit {
            Emit::Frame(frame) => self.route(frame.to_string(), Some(&frame), origin),
            Emit::Raw(text) => self.route(text, None, origin),
        };
    }
}

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
    fn new(id: String, legacy: bool, fault: Option<Fault>) -> HttpSession {
        let fault = fault.map(|fault| Arc::new(FaultLayer::new(fault)));
        let router = Arc::new(Router::new(legacy));
        let sink = Sink::spawn_routed(router.clone(), fault.clone());
        HttpSession {
            id,
            legacy,
            server: Server::new(sink.clone()),
            sink,
            router,
            fault,
        }
    }

    /// Hands one POSTed body to the server, with frames it causes attributed
    /// to `origin`, and waits until those sent at once are routed.
    async fn feed(&self, origin: Origin, text: &str) {
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

/// `MCP-Protocol-Version`: absent is fine (the negotiated version holds),
/// present must be a version this server speaks.
fn version_header_ok(headers: &HeaderMap) -> Result<(), String> {
    match headers.get(PROTOCOL_VERSION) {
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

/// A POST must accept both JSON and SSE answers (406) and carry JSON (415).
fn media_ok(headers: &HeaderMap) -> Result<(), Refusal> {
    if !accepts(headers, &["application/json", "text/event-stream"]) {
        return Err(Refusal::new(
            StatusCode::NOT_ACCEPTABLE,
            "Not Acceptable: Accept must list application/json and text/event-stream",
        ));
    }
    let content_type = media_types(header_str(headers, header::CONTENT_TYPE.as_str()));
    if content_type.first().map(String::as_str) != Some("application/json") {
        return Err(Refusal::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported Media Type: Content-Type must be application/json",
        ));
    }
    Ok(())
}

impl Shared {
    /// Serves one admitted request, through the HTTP fault layer if there
    /// is a fault.
    async fn serve(self: Arc<Self>, request: Inbound) -> Response<Body> {
        let Some(fault) = self.fault else {
            return answer(route(self, request, &mut ()).await);
        };
        let speaks_stateless = stateless::speaks_stateless(&request.parts.headers, &request.body);
        match fault::before(fault, request) {
            Ok(request) => {
                fault::after(
                    fault,
                    speaks_stateless,
                    answer(route(self, request, &mut ()).await),
                )
                .await
            }
            Err(answered) => *answered,
        }
    }

    /// A new session's id: unguessable, unless a protected server's fault
    /// counts them.
    fn new_session(&self, legacy: bool) -> Arc<HttpSession> {
        let id = match (&self.protection, self.fault) {
            (Some(_), Some(Fault::AuthPredictableSessionIds)) => protect::predictable_session_id(),
            _ => new_session_id(),
        };
        Arc::new(HttpSession::new(id, legacy, self.fault))
    }

    fn session(&self, id: &str) -> Option<Arc<HttpSession>> {
        self.sessions.lock().expect("sessions lock").get(id).cloned()
    }

    /// The Streamable HTTP session a request names: 400 without an id, 404
    /// for an id that is unknown or has ended, 400 for a bad version header.
    fn existing(&self, headers: &HeaderMap) -> Result<Arc<HttpSession>, Refusal> {
        let Some(id) = header_str(headers, SESSION_ID) else {
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
}

impl Handler for Shared {
    type Seen = ();

    /// Serves one request: through the protected mode's gate if there is
    /// one, then through the HTTP fault layer if there is a fault.
    async fn handle(self: Arc<Self>, request: Request<Incoming>) -> Response<Body> {
        let (parts, body) = request.into_parts();
        let mut request = match read_body(body).await {
            Ok(body) => Inbound { parts, body },
            Err(refused) => return refused.response(),
        };
        let gate = match &self.protection {
            Some(protection) => Some(protection.gate(self.fault, &request).await),
            None => None,
        };
        match gate {
            None => self.serve(request).await,
            Some(Gate::Admit(user)) => {
                if let Some(principal) = user
                    .as_deref()
                    .and_then(|user| protect::principal(self.fault, user, &request.body))
                {
                    request.parts.extensions.insert(principal);
                }
                let response = Arc::clone(&self).serve(request).await;
                if let (Some(user), Some(protection)) = (user, &self.protection)
                    && let Some(id) = header_str(response.headers(), SESSION_ID)
                {
                    protection.bind_session(id, &user);
                }
                response
            }
            Some(Gate::Answer(refusal)) => refusal,
            Some(Gate::ServeThenAnswer(refusal)) => {
                drop(self.serve(request).await);
                refusal
            }
        }
    }

    fn stateless(&self, request: &Inbound) -> bool {
        stateless::speaks_stateless(&request.parts.headers, &request.body)
    }

    async fn stateless_post(self: Arc<Self>, request: Inbound, _: &mut ()) -> Answer {
        media_ok(&request.parts.headers)?;
        let fault = self
            .fault
            .map(|fault| FaultLayer::sharing(fault, Arc::clone(&self.fault_memory)));
        let principal = request.parts.extensions.get::<protect::Principal>();
        let principal = principal.map(|p| p.0.clone());
        Ok(stateless::post(
            &self.stateless,
            fault,
            principal,
            &request.parts.headers,
            &request.body,
        )
        .await)
    }

    async fn post(self: Arc<Self>, Inbound { parts, body: text }: Inbound, _: &mut ()) -> Answer {
        let headers = &parts.headers;
        media_ok(headers)?;
        let known = match headers.contains_key(SESSION_ID) {
            true => Some(self.existing(headers)?),
            false => None,
        };
        let shape = BodyShape::of(&text);
        let (session, created) = match known {
            Some(session) => (session, false),
            None if shape.initialize => (self.new_session(false), true),
            None => {
                return Err(Refusal::new(
                    StatusCode::BAD_REQUEST,
                    "Bad Request: Mcp-Session-Id header is required",
                ));
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
            let body = session.router.connect(origin, session.primes(), None);
            event_stream(body.ok_or_else(stream_failed)?)
        };
        if created {
            if session.server.session.negotiated().is_some() {
                self.sessions
                    .lock()
                    .expect("sessions lock")
                    .insert(session.id.clone(), Arc::clone(&session));
                let id = HeaderValue::from_str(&session.id).expect("session ids are visible ASCII");
                response.headers_mut().insert(SESSION_ID, id);
            } else {
                // initialize failed: no session to keep.
                session.end();
            }
        }
        Ok(response)
    }

    fn get(self: Arc<Self>, request: &Inbound, _: &mut ()) -> Answer {
        let headers = &request.parts.headers;
        if !accepts(headers, &["text/event-stream"]) {
            return Err(Refusal::new(
                StatusCode::NOT_ACCEPTABLE,
                "Not Acceptable: Accept must list text/event-stream",
            ));
        }
        let session = self.existing(headers)?;
        match get_stream(&session.router, headers, session.primes())? {
            GetStream::Resumed(body) | GetStream::Standalone(body) => Ok(event_stream(body)),
        }
    }

    fn delete(self: Arc<Self>, request: &Inbound) -> Answer {
        let session = self.existing(&request.parts.headers)?;
        self.sessions.lock().expect("sessions lock").remove(&session.id);
        session.end();
        Ok(status_only(StatusCode::OK))
    }

    /// GET /sse: a new HTTP+SSE session; its first event names the POST URL.
    fn legacy_open(self: Arc<Self>, _: &Inbound, _: &mut ()) -> Answer {
        let session = self.new_session(true);
        let (shared, ending) = (Arc::clone(&self), Arc::clone(&session));
        let body = legacy_stream(&session.router, &session.id, move || {
            // The client hung up: that ends an HTTP+SSE session.
            shared.sessions.lock().expect("sessions lock").remove(&ending.id);
            ending.end();
        })?;
        self.sessions
            .lock()
            .expect("sessions lock")
            .insert(session.id.clone(), session);
        Ok(event_stream(body))
    }

    /// POST /messages?session_id=…: one message for an HTTP+SSE session;
    /// whatever it leads to arrives on that session's SSE stream.
    async fn legacy_post(self: Arc<Self>, request: Inbound, _: &mut ()) -> Answer {
        let Some(id) = legacy_session_id(&request.parts.uri) else {
            return Err(Refusal::new(
                StatusCode::BAD_REQUEST,
                "Bad Request: session_id is required",
            ));
        };
        let Some(session) = self.session(&id).filter(|s| s.legacy) else {
            return Err(Refusal::new(StatusCode::NOT_FOUND, "Session not found"));
        };
        session.feed(STANDALONE, &request.body).await;
        Ok(accepted())
    }

    fn not_found(&self) -> Refusal {
        Refusal::new(
            StatusCode::NOT_FOUND,
            format!("no such endpoint; MCP is served at {MCP_PATH}"),
        )
    }
}

fn answer(answer: Answer) -> Response<Body> {
    answer.unwrap_or_else(|refused| refused.response())
}
