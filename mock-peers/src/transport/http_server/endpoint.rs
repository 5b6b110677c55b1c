//! The mock server's HTTP endpoint: what each HTTP request of the client
//! gets, and where each frame of ours goes.
//!
//! The mock server plays one session. It is strict where the spec tells a
//! server what to do (403 for a foreign `Origin` or `Host`; 404 for a
//! session id it did not issue or that has ended; 400 for an unknown
//! `MCP-Protocol-Version`), and lenient where the spec only binds the
//! client (a missing `Mcp-Session-Id` or version header, an `Accept` that
//! lacks a media type, a JSON array body): those are served, recorded, and
//! judged afterwards, so that one slip of the client is one finding instead
//! of a refused handshake and a cascade of misattributed ones.
//!
//! Once told to serve the stateless era (2026-07-28), it does so as
//! `stateless.rs` says, with the same leniency.

mod stateless;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Duration;

use hyper::body::Incoming;
use hyper::header::{HeaderMap, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use mcp_conform_core::evidence::http::{HttpClientRecord, InboundRequest};
use mcp_conform_core::version::ProtocolVersion;
use mcp_conform_core::wire::headers::{PROTOCOL_VERSION, SESSION_ID};
use mcp_conform_core::wire::jsonrpc::{self, RpcError, code, id_key};
use mcp_conform_core::wire::{Direction, Frame, FrameMeta, RequestId};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::gate::Gate;
use super::request::{BodyShape, header_str, legacy_session_id, new_session_id, read_body};
use super::respond::{
    Answer, Body, Refusal, accepted, event_stream, json_response, status_only, unbuffered_event_stream,
};
use super::serve::{
    GetStream, Handler, Inbound, MCP_PATH, SSE_PATH, get_stream, legacy_stream, route, stream_failed,
};
use super::streams::{EventBody, Origin, Router, STANDALONE};
use crate::transport::http::headers;
use crate::transport::{HttpIncident, PeerExit, TransportEvent, queue_now};

/// How long a request or notification of ours waits for a stream to carry
/// it (the standalone GET stream, or the stream of a client request) before
/// it is given up.
pub(super) const HOLD: Duration = Duration::from_secs(3);

/// A frame of ours that no stream could carry yet.
#[derive(Debug)]
struct Held {
    data: String,
    message: Value,
    since: Instant,
    /// Its id, when it is a request (the engine waits for its response).
    request: Option<RequestId>,
    /// Stateless era: the client request it is about (as an [`id_key`]),
    /// whose stream alone may carry it.
    about: Option<String>,
}

/// A POST's body: its text, parsed, and what it holds.
struct PostBody {
    text: String,
    message: Value,
    shape: BodyShape,
}

/// Where a frame of ours went.
enum Placement {
    /// On a stream (with its sequence number there), or nowhere when no
    /// stream may carry it any more.
    Routed(Option<(Origin, u64)>),
    /// Held until a stream can carry it.
    Held { data: String, about: Option<String> },
}

/// The label and response headers of the HTTP answer carrying a stream.
#[derive(Debug, Clone)]
struct StreamFacts {
    label: String,
    headers: BTreeMap<String, String>,
}

#[derive(Debug)]
struct State {
    /// The streams of the session (Streamable HTTP until a GET on the
    /// HTTP+SSE endpoint makes it a legacy session).
    router: Arc<Router>,
    record: HttpClientRecord,
    session_ended: bool,
    /// The id of the client's `initialize`, as an [`id_key`].
    initialize: Option<String>,
    held: Vec<Held>,
    streams: HashMap<Origin, StreamFacts>,
    /// The end of the session was reported to the engine.
    closed: bool,
    /// The stateless era (2026-07-28+) is served: no sessions, POST only.
    stateless: bool,
    /// Stateless era: the request (as an [`id_key`]) that asked for
    /// progress under each token (as an [`id_key`]).
    progress: HashMap<String, String>,
}

/// The state behind the mock server, shared by its connections and the
/// engine's side of the transport.
#[derive(Debug)]
pub(super) struct Endpoint {
    started: Instant,
    /// Bounded: a client's POSTs wait for the session to take their
    /// messages, so a flooding client waits on its own requests.
    tx: mpsc::Sender<TransportEvent>,
    /// How many HTTP requests have arrived.
    arrived: AtomicU64,
    state: Mutex<State>,
    /// What screens each request first, when the mock server is protected.
    gate: OnceLock<Box<dyn Gate>>,
    /// Values no request should carry in a header (behind a gateway: the
    /// client's token at its front); each request records where they were.
    watched: OnceLock<Vec<String>>,
}

impl Endpoint {
    pub fn new(tx: mpsc::Sender<TransportEvent>) -> Endpoint {
        Endpoint {
            started: Instant::now(),
            tx,
            arrived: AtomicU64::new(0),
            state: Mutex::new(State {
                router: Arc::new(Router::new(false)),
                record: HttpClientRecord::default(),
                session_ended: false,
                initialize: None,
                held: Vec::new(),
                streams: HashMap::new(),
                closed: false,
                stateless: false,
                progress: HashMap::new(),
            }),
            gate: OnceLock::new(),
            watched: OnceLock::new(),
        }
    }

    /// Puts `gate` in front of every request; the first gate stays (one
    /// scenario, one protection).
    pub fn protect(&self, gate: Box<dyn Gate>) {
        let _ = self.gate.set(gate);
    }

    /// From now on each request records which headers held one of
    /// `values`; the first list stays.
    pub fn watch(&self, values: Vec<String>) {
        let _ = self.watched.set(values);
    }

    /// The names of the headers holding a watched value, read before
    /// they are redacted.
    fn watched_in(&self, headers: &HeaderMap) -> Vec<String> {
        let Some(values) = self.watched.get() else {
            return Vec::new();
        };
        let holds = |value: &[u8]| {
            let value = String::from_utf8_lossy(value);
            values.iter().any(|watched| value.contains(watched.as_str()))
        };
        let mut names: Vec<String> = headers
            .iter()
            .filter(|(_, value)| holds(value.as_bytes()))
            .map(|(name, _)| name.as_str().to_owned())
            .collect();
        names.dedup();
        names
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Serves the stateless era (2026-07-28+) from now on, before the client
    /// connects; a second call changes nothing.
    pub fn serve_stateless(&self) {
        let mut state = self.state();
        // Once only: a second switch must not drop the streams already open.
        if std::mem::replace(&mut state.stateless, true) {
            return;
        }
        state.record.stateless = true;
        state.router = Arc::new(Router::stateless());
    }

    /// Everything seen of the client so far.
    pub fn record(&self) -> HttpClientRecord {
        let mut record = self.state().record.clone();
        record.auth = self.gate.get().map(|gate| gate.record());
        record
    }

    /// Whether the client has made any HTTP request yet.
    pub fn contacted(&self) -> bool {
        self.arrived.load(Ordering::Relaxed) > 0
    }

    /// `post#N`, `get#N`, … numbered over all requests in arrival order.
    fn label(&self, method: &Method) -> String {
        let n = self.arrived.fetch_add(1, Ordering::Relaxed) + 1;
        format!("{}#{n}", method.as_str().to_ascii_lowercase())
    }

    /// Tells the engine what happened on `stream` besides messages; the
    /// engine stops waiting for the responses to our requests `unanswered`.
    fn incident(
        &self,
        stream: &str,
        status: Option<StatusCode>,
        unanswered: Vec<RequestId>,
        description: String,
    ) {
        let incident = HttpIncident {
            at: self.elapsed(),
            stream: stream.to_owned(),
            status: status.map(|s| s.as_u16()),
            unanswered,
            post_failed: false,
            description,
        };
        queue_now(&self.tx, TransportEvent::Http(incident));
    }

    /// The session a Streamable HTTP request may speak in: a session id we
    /// did not issue, or one that has ended, gets 404; an unknown
    /// `MCP-Protocol-Version` gets 400. A missing id is served (and judged).
    fn admit(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        let state = self.state();
        if let Some(id) = header_str(headers, SESSION_ID) {
            let ours = !state.record.legacy && state.record.session_id.as_deref() == Some(id);
            if !ours || state.session_ended {
                return Err(Refusal::new(StatusCode::NOT_FOUND, "Session not found"));
            }
        }
        match header_str(headers, PROTOCOL_VERSION) {
            Some(version) if version.parse::<ProtocolVersion>().is_err() => Err(Refusal::new(
                StatusCode::BAD_REQUEST,
                format!("Unsupported MCP-Protocol-Version {version:?}"),
            )),
            _ => Ok(()),
        }
    }

    /// Whether new streams open with a priming event (from 2025-11-25).
    fn primes(state: &State) -> bool {
        state
            .record
            .version
            .as_deref()
            .and_then(|v| v.parse::<ProtocolVersion>().ok())
            .is_some_and(|v| v >= ProtocolVersion::V2025_11_25)
    }

    /// POST on the Streamable HTTP endpoint: each message goes to the
    /// engine; a body with requests is answered with an SSE stream that
    /// carries their responses (and whatever we send meanwhile), anything
    /// else with 202.
    async fn serve_post(&self, Inbound { parts, body }: Inbound, seen: &mut InboundRequest) -> Answer {
        let headers = parts.headers;
        self.admit(&headers)?;
        let PostBody { text, message, shape } = match self.parse_post(body, seen).await {
            Ok(body) => body,
            Err(answer) => return Ok(*answer),
        };
        // The state's lock is released before the message waits for room.
        let (response, router) = {
            let mut state = self.state();
            let minted = shape.initialize && state.record.session_id.is_none() && !state.record.legacy;
            if shape.initialize && !minted && !headers.contains_key(SESSION_ID) {
                return Err(Refusal::new(
                    StatusCode::BAD_REQUEST,
                    "the mock server plays one session per scenario, and it has begun",
                ));
            }
            if minted {
                state.record.session_id = Some(new_session_id());
                state.initialize = message.get("id").map(id_key);
            }
            let response = if shape.requests.is_empty() {
                status_only(StatusCode::ACCEPTED)
            } else {
                let router = Arc::clone(&state.router);
                let origin = router.open(shape.requests.clone());
                Self::flush_held(&mut state, origin);
                let body = router.connect(origin, Self::primes(&state), None);
                let issued = state.record.session_id.clone().filter(|_| minted);
                Self::stream_answer(&mut state, origin, body, &seen.label, issued)?
            };
            (response, Arc::clone(&state.router))
        };
        self.deliver_each(text, Some(message), seen, response.status())
            .await;
        if let Some(cancelled) = &shape.cancels {
            // Its response will not come: its stream may end without it.
            router.cancel(cancelled);
        }
        Ok(response)
    }

    /// GET on the Streamable HTTP endpoint: the standalone SSE stream, or a
    /// resumption of any stream with `Last-Event-ID`.
    fn serve_get(&self, headers: &HeaderMap, label: &str) -> Answer {
        self.admit(headers)?;
        let mut state = self.state();
        if state.record.session_id.is_none() || state.record.legacy {
            return Err(Refusal::new(
                StatusCode::BAD_REQUEST,
                "no Streamable HTTP session yet: initialize first",
            ));
        }
        match get_stream(&state.router, headers, Self::primes(&state))? {
            GetStream::Resumed(body) => Ok(event_stream(body)),
            GetStream::Standalone(body) => {
                Self::flush_held(&mut state, STANDALONE);
                Self::stream_answer(&mut state, STANDALONE, Some(body), label, None)
            }
        }
    }

    /// The SSE answer carrying stream `origin` (with the session id, when
    /// it is issued now; unbuffered in the stateless era); its label and
    /// headers go on our frames there.
    fn stream_answer(
        state: &mut State,
        origin: Origin,
        body: Option<EventBody>,
        label: &str,
        issued: Option<String>,
    ) -> Result<Response<Body>, Refusal> {
        let body = body.ok_or_else(stream_failed)?;
        let mut response = match state.stateless {
            true => unbuffered_event_stream(body),
            false => event_stream(body),
        };
        if let Some(id) = issued {
            let id = HeaderValue::from_str(&id).expect("session ids are visible ASCII");
            response.headers_mut().insert(SESSION_ID, id);
        }
        let facts = StreamFacts {
            label: label.to_owned(),
            headers: record_headers(response.headers()),
        };
        state.streams.insert(origin, facts);
        Ok(response)
    }

    /// DELETE: the client ends the session.
    fn serve_delete(&self, headers: &HeaderMap) -> Answer {
        self.admit(headers)?;
        if self.state().record.session_id.is_none() {
            return Err(Refusal::new(StatusCode::NOT_FOUND, "no session to end"));
        }
        self.end_session("the client ended the session (DELETE)");
        Ok(status_only(StatusCode::OK))
    }

    /// GET on the HTTP+SSE endpoint (2024-11-05): the session's one stream,
    /// opening with the `endpoint` event that names where to POST.
    fn serve_legacy_open(self: Arc<Self>, label: &str) -> Answer {
        let mut state = self.state();
        if state.record.session_id.is_some() {
            return Err(Refusal::new(
                StatusCode::CONFLICT,
                "the mock server plays one session per scenario, and it has begun",
            ));
        }
        let id = new_session_id();
        state.router = Arc::new(Router::new(true));
        state.record.legacy = true;
        let ending = Arc::clone(&self);
        let body = legacy_stream(&state.router, &id, move || {
            ending.end_session("the client closed its HTTP+SSE stream");
        })?;
        state.record.session_id = Some(id);
        Self::flush_held(&mut state, STANDALONE);
        Self::stream_answer(&mut state, STANDALONE, Some(body), label, None)
    }

    /// POST on the HTTP+SSE message endpoint: 202, and whatever it leads to
    /// goes on the session's stream.
    async fn serve_legacy_post(&self, request: Inbound, seen: &mut InboundRequest) -> Answer {
        let named = legacy_session_id(&request.parts.uri);
        {
            let state = self.state();
            let ours = state.record.legacy && named.is_some() && state.record.session_id == named;
            if !ours || state.session_ended {
                return Err(Refusal::new(StatusCode::NOT_FOUND, "Session not found"));
            }
        }
        let message = serde_json::from_str::<Value>(&request.body).ok();
        seen.array = message.as_ref().is_some_and(Value::is_array);
        self.deliver_each(request.body, message, seen, StatusCode::ACCEPTED)
            .await;
        Ok(accepted())
    }

    /// The body of a POST on the endpoint, parsed (whether it is an array
    /// goes on the record). One that is not JSON is answered here with
    /// JSON-RPC's parse error (`Err`), and goes to the engine as it is for
    /// the frame checker to judge.
    async fn parse_post(
        &self,
        text: String,
        seen: &mut InboundRequest,
    ) -> Result<PostBody, Box<Response<Body>>> {
        let Ok(message) = serde_json::from_str::<Value>(&text) else {
            self.deliver(text.into_bytes(), seen, StatusCode::BAD_REQUEST)
                .await;
            let error = jsonrpc::response(&Value::Null, Err(RpcError::new(code::PARSE_ERROR, "Parse error")));
            return Err(Box::new(json_response(
                StatusCode::BAD_REQUEST,
                error.to_string(),
            )));
        };
        seen.array = message.is_array();
        let shape = BodyShape::of(&text);
        Ok(PostBody { text, message, shape })
    }

    /// Hands the messages of a body (`text`, parsed as `message` when it is
    /// JSON) to the engine: each item of an array, else the body as it is.
    async fn deliver_each(
        &self,
        text: String,
        message: Option<Value>,
        seen: &InboundRequest,
        status: StatusCode,
    ) {
        match message {
            Some(Value::Array(items)) => {
                for item in items {
                    self.deliver(item.to_string().into_bytes(), seen, status).await;
                }
            }
            _ => self.deliver(text.into_bytes(), seen, status).await,
        }
    }

    /// Hands one message of the client to the engine, with the HTTP facts
    /// of the request that carried it.
    async fn deliver(&self, raw: Vec<u8>, seen: &InboundRequest, status: StatusCode) {
        let mut frame = Frame::new(Direction::Received, raw, self.elapsed());
        frame.meta = FrameMeta {
            http_status: Some(status.as_u16()),
            headers: seen.headers.clone(),
            stream: Some(seen.label.clone()),
            ..FrameMeta::default()
        };
        let _ = self.tx.send(TransportEvent::Frame(frame)).await;
    }

    /// Sends one frame of ours (see [`Endpoint::place`], and in the
    /// stateless era [`Endpoint::place_stateless`]).
    pub fn send(&self, raw: &[u8]) -> Frame {
        let mut frame = Frame::new(Direction::Sent, raw.to_vec(), self.elapsed());
        let data = String::from_utf8_lossy(raw).into_owned();
        let message: Value = serde_json::from_slice(raw).unwrap_or(Value::Null);
        let mut state = self.state();
        let placed = match state.stateless {
            true => Self::place_stateless(&state, data, &message),
            false => Self::place(&mut state, data, &message, frame.at),
        };
        match placed {
            Placement::Held { data, about } => {
                let request = message.get("id").and_then(RequestId::from_value);
                state.held.push(Held {
                    data,
                    message,
                    since: Instant::now(),
                    request,
                    about,
                });
                frame.meta.stream = Some("held".into());
            }
            Placement::Routed(Some((origin, seq))) => {
                if let Some(facts) = state.streams.get(&origin) {
                    frame.meta = FrameMeta {
                        http_status: Some(200),
                        headers: facts.headers.clone(),
                        sse_event_id: state.router.event_id(origin, seq),
                        sse_event: Some("message".into()),
                        stream: Some(facts.label.clone()),
                    };
                }
            }
            Placement::Routed(None) => {}
        }
        frame
    }

    /// Where a frame of ours goes in the eras with sessions: a response on
    /// the stream of the POST that carried its request; a request or
    /// notification on the standalone stream when the client has it open,
    /// else on the stream of a client request still being read, else held
    /// until one of those opens.
    fn place(state: &mut State, data: String, message: &Value, at: Duration) -> Placement {
        let router = Arc::clone(&state.router);
        if is_response(message) {
            let id = message.get("id").map(id_key);
            if id.is_some() && id == state.initialize {
                state.record.answered_at = Some(at);
                state.record.version = message
                    .pointer("/result/protocolVersion")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
            }
            return Placement::Routed(router.route(data, Some(message), None));
        }
        let outlet = if state.record.legacy || router.standalone_open() {
            Some(STANDALONE)
        } else {
            router.live_request_stream()
        };
        match outlet {
            Some(origin) => Placement::Routed(router.route(data, Some(message), Some(origin))),
            None => Placement::Held { data, about: None },
        }
    }

    /// Routes what was held to `origin`, a stream about to be connected
    /// (in the stateless era, what is about no request in particular).
    fn flush_held(state: &mut State, origin: Origin) {
        let (flushed, kept) = std::mem::take(&mut state.held)
            .into_iter()
            .partition::<Vec<_>, _>(|held| held.about.is_none());
        state.held = kept;
        for held in flushed {
            match state.stateless {
                true => state.router.route_on(origin, held.data),
                false => state
                    .router
                    .route(held.data, Some(&held.message), Some(origin))
                    .map(|(_, seq)| seq),
            };
        }
    }

    /// Gives up frames held longer than [`HOLD`]: the client keeps no stream
    /// open for them. A request's wait then ends with the reason.
    pub fn expire_held(&self) {
        let mut state = self.state();
        let now = Instant::now();
        let (expired, kept) = std::mem::take(&mut state.held)
            .into_iter()
            .partition::<Vec<_>, _>(|held| now.duration_since(held.since) >= HOLD);
        state.held = kept;
        let stateless = state.stateless;
        drop(state);
        for held in expired {
            let method = held
                .message
                .get("method")
                .and_then(Value::as_str)
                .unwrap_or("a message");
            let why = match (&held.about, stateless) {
                (Some(id), _) => format!("the stream of the client's request {id}, which it is about, is closed"),
                (None, true) => "no request of the client's was in flight to carry it (2026-07-28 has no standalone stream)".into(),
                (None, false) => "the client kept no stream open for the server's messages (no standalone GET stream, no request of its own in flight)".into(),
            };
            let description = format!("{method} could not be sent within {} ms: {why}", HOLD.as_millis());
            let unanswered = held.request.into_iter().collect();
            self.incident("held", None, unanswered, description);
        }
    }

    /// Ends the session: its streams close, later requests naming it get
    /// 404, and the engine hears that the client is gone (once).
    pub fn end_session(&self, why: &str) {
        let mut state = self.state();
        state.session_ended = true;
        state.router.end();
        if !std::mem::replace(&mut state.closed, true) {
            let closed = PeerExit {
                code: None,
                signal: None,
                description: why.to_owned(),
            };
            queue_now(&self.tx, TransportEvent::Closed(closed));
        }
    }

    /// The client's process ended: recorded, and the end of the session
    /// unless the client ended it first.
    pub fn client_left(&self, exit: PeerExit) {
        let mut state = self.state();
        state.record.left = Some(exit.description.clone());
        if !std::mem::replace(&mut state.closed, true) {
            queue_now(&self.tx, TransportEvent::Closed(exit));
        }
    }

    /// Our side stops serving the session (without telling the engine).
    pub fn stop(&self) {
        let mut state = self.state();
        state.session_ended = true;
        state.closed = true;
        state.router.end();
    }
}

/// Whether `message` is a response (an id and no method).
fn is_response(message: &Value) -> bool {
    message.get("method").is_none() && message.get("id").is_some()
}

fn record_headers(map: &HeaderMap) -> BTreeMap<String, String> {
    headers::record(map.iter().map(|(k, v)| (k.as_str(), v.as_bytes())))
}

/// The mock server on the core: lenient where the spec binds the client,
/// and every request recorded for the judge.
impl Handler for Endpoint {
    type Seen = InboundRequest;

    /// Answers one HTTP request of the client and records it (one for an
    /// authorization server at this origin, its gate hands to that server).
    async fn handle(self: Arc<Self>, request: Request<Incoming>) -> Response<Body> {
        if let Some(gate) = self.gate.get()
            && gate.at_authorization_server(request.uri().path())
        {
            return gate.authorization_server(request).await;
        }
        let method = request.method().clone();
        let mut seen = InboundRequest {
            at: self.elapsed(),
            label: self.label(&method),
            method: method.to_string(),
            target: request
                .uri()
                .path_and_query()
                .map_or_else(|| "/".to_owned(), |p| p.as_str().to_owned()),
            headers: record_headers(request.headers()),
            status: 0,
            array: false,
            refusal: None,
            cancelled: false,
            watched: self.watched_in(request.headers()),
        };
        let (parts, body) = request.into_parts();
        let answer = match read_body(body).await {
            Ok(body) => {
                let inbound = Inbound { parts, body };
                match self
                    .gate
                    .get()
                    .and_then(|gate| gate.screen(&seen.label, &inbound))
                {
                    Some(screened) => Ok(screened),
                    None => route(Arc::clone(&self), inbound, &mut seen).await,
                }
            }
            Err(refused) => Err(refused),
        };
        let response = answer.unwrap_or_else(|refused| {
            seen.refusal = Some(refused.message.clone());
            let description = format!(
                "{} {} was refused with {}: {}",
                seen.label, seen.target, refused.status, refused.message
            );
            self.incident(&seen.label, Some(refused.status), Vec::new(), description);
            refused.response()
        });
        seen.status = response.status().as_u16();
        self.state().record.requests.push(seen);
        response
    }

    fn stateless(&self, _: &Inbound) -> bool {
        self.state().stateless
    }

    async fn post(self: Arc<Self>, request: Inbound, seen: &mut InboundRequest) -> Answer {
        self.serve_post(request, seen).await
    }

    async fn stateless_post(self: Arc<Self>, request: Inbound, seen: &mut InboundRequest) -> Answer {
        self.serve_stateless_post(request, seen).await
    }

    fn get(self: Arc<Self>, request: &Inbound, seen: &mut InboundRequest) -> Answer {
        self.serve_get(&request.parts.headers, &seen.label)
    }

    fn delete(self: Arc<Self>, request: &Inbound) -> Answer {
        self.serve_delete(&request.parts.headers)
    }

    fn legacy_open(self: Arc<Self>, _: &Inbound, seen: &mut InboundRequest) -> Answer {
        if self.state().stateless {
            return Err(self.not_found());
        }
        self.serve_legacy_open(&seen.label)
    }

    async fn legacy_post(self: Arc<Self>, request: Inbound, seen: &mut InboundRequest) -> Answer {
        if self.state().stateless {
            return Err(self.not_found());
        }
        self.serve_legacy_post(request, seen).await
    }

    /// The mock server has no HTTP+SSE endpoint that other methods could
    /// reach: 404.
    fn legacy_not_allowed(&self) -> Answer {
        Err(self.not_found())
    }

    fn not_found(&self) -> Refusal {
        let serves = match self.state().stateless {
            true => format!("{MCP_PATH} (2026-07-28: POST only)"),
            false => format!("{MCP_PATH} (and {SSE_PATH})"),
        };
        Refusal::new(
            StatusCode::NOT_FOUND,
            format!("no such endpoint; the mock server serves {serves}"),
        )
    }
}
