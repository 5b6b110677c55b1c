//! The HTTP transports: Streamable HTTP (2025-03-26 on) and the legacy
//! HTTP+SSE transport (2024-11-05), chosen by [`HttpMode`].
//!
//! Every POST runs in a task of its own, so a server request arriving on the
//! SSE answer of one POST can be answered by our next POST while that stream
//! is still open. Whatever the server sends is delivered exactly as it came
//! (no redirects followed, no decompression) as [`TransportEvent::Frame`]s
//! with the HTTP facts in [`FrameMeta`]; what is not a message (an HTTP error
//! without a JSON body, a stream cut before its response) is delivered as a
//! [`TransportEvent::Http`] incident so a waiting request ends at once
//! instead of timing out in silence.

pub mod exchange;
pub mod headers;
pub mod origin;
pub mod sse;

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use mcp_conform_core::evidence::origin::RefusedUrl;
use mcp_conform_core::wire::headers::{LAST_EVENT_ID, PROTOCOL_VERSION, SESSION_ID};
use mcp_conform_core::wire::mirror::{self, ToolHeaders};
use mcp_conform_core::wire::{Direction, Frame, FrameMeta, RequestId};
use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderName, HeaderValue};
use reqwest::{Method, StatusCode, Url};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio::task::{AbortHandle, JoinHandle};

use self::sse::{SseDecoder, SseEvent};
use super::{FRAMES_AHEAD, PeerExit, TransportError, TransportEvent, next_event, queue_now};

/// How long a POST waits for the previous POST's answer to start before it
/// is sent anyway: keeps messages in order without deadlocking on a server
/// that holds an answer back until we answer its own request.
const ORDERING_WAIT: Duration = Duration::from_secs(1);
/// How often a cut stream is resumed with `Last-Event-ID` before giving up.
const MAX_RESUMES: u32 = 3;
/// The pause before resuming when the server gave no `retry:`.
const DEFAULT_RETRY: Duration = Duration::from_millis(500);
/// The longest pause we honour from `retry:`.
const MAX_RETRY: Duration = Duration::from_secs(10);
/// The largest body we read for a plain (non-SSE) answer.
pub(crate) const MAX_BODY: usize = 16 * 1024 * 1024;
/// How much of a non-JSON error body is shown in an incident.
const EXCERPT_CHARS: usize = 200;
/// The first version whose requests carry `MCP-Protocol-Version`.
const VERSION_HEADER_SINCE: &str = "2025-06-18";

/// Which HTTP transport to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HttpMode {
    /// Streamable HTTP; falls back to HTTP+SSE when the first POST gets 400,
    /// 404 or 405 (the spec's backwards-compatibility procedure).
    #[default]
    Auto,
    /// Streamable HTTP only.
    Streamable,
    /// The legacy HTTP+SSE transport only.
    Sse,
}

impl FromStr for HttpMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "auto" => Ok(HttpMode::Auto),
            "streamable" | "streamable-http" => Ok(HttpMode::Streamable),
            "sse" | "http+sse" => Ok(HttpMode::Sse),
            other => Err(format!("unknown transport `{other}` (streamable, sse or auto)")),
        }
    }
}

impl fmt::Display for HttpMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            HttpMode::Auto => "auto",
            HttpMode::Streamable => "streamable",
            HttpMode::Sse => "sse",
        })
    }
}

/// How to reach a server over HTTP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpOptions {
    pub url: String,
    /// Sent on every request (`--header`).
    pub headers: Vec<(String, String)>,
    pub mode: HttpMode,
    /// How long `initialize` (and the legacy `endpoint` event) may take
    /// before `send` returns without its answer.
    pub answer_timeout: Duration,
    /// Speak the stateless era (2026-07-28+): every POST mirrors its body
    /// into headers, no session, no GET stream, no resumption, and a request
    /// is cancelled by closing its response stream.
    pub stateless: bool,
}

impl HttpOptions {
    pub fn new(url: impl Into<String>) -> Self {
        HttpOptions {
            url: url.into(),
            headers: Vec::new(),
            mode: HttpMode::Auto,
            answer_timeout: Duration::from_secs(10),
            stateless: false,
        }
    }
}

/// Something the HTTP transport saw that is not a message.
///
/// Why an event of its own and not a frame: a frame is judged as a JSON-RPC
/// message by the protocol checker, and an HTTP error with a plain-text body
/// (allowed by the spec) would then be reported as invalid JSON. Errors with
/// a JSON body *are* delivered as frames (with `meta.http_status`); this
/// event only carries what no frame can, and names the requests whose
/// response can no longer come, so the session ends their waits at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpIncident {
    /// Time since the transport was opened.
    pub at: Duration,
    /// The stream or request it concerns (`post#3`, `get`, `sse`).
    pub stream: String,
    pub status: Option<u16>,
    /// Requests whose response cannot come any more because of this.
    pub unanswered: Vec<RequestId>,
    /// Whether a POST got no usable answer at all (its waits end too,
    /// even when its body held no request id).
    pub post_failed: bool,
    /// In words, with at most an excerpt of the body.
    pub description: String,
}

/// Where and as whom the session speaks, for raw exchanges of a scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionFacts {
    /// The URL as given (the SSE endpoint, on HTTP+SSE).
    pub url: String,
    /// Where messages are POSTed: the URL, or the legacy `endpoint` event's.
    pub post_url: String,
    pub session_id: Option<String>,
    /// The version negotiated in `initialize` (stateless: the one the
    /// connection's first request named).
    pub protocol_version: Option<String>,
    /// Whether the connection speaks the legacy HTTP+SSE transport.
    pub legacy: bool,
    /// Whether the connection speaks the stateless era (2026-07-28+), whose
    /// POSTs mirror their body into headers.
    pub stateless: bool,
    /// The `x-mcp-header` arguments of the tools listed so far.
    pub tools: ToolHeaders,
    /// The `--header`s.
    pub headers: Vec<(String, String)>,
    /// URLs the server named outside the origin of `url`, refused.
    pub refused: Vec<RefusedUrl>,
}

/// The connection state every task reads.
#[derive(Debug, Default)]
struct State {
    session_id: Option<String>,
    /// The version negotiated, read from the initialize result.
    protocol_version: Option<String>,
    initialize_id: Option<RequestId>,
    /// Requests we cancelled: their streams may end without a response.
    cancelled: HashSet<RequestId>,
    closing: bool,
    /// Stateless: our `tools/list` requests, whose answers teach `tools`.
    tool_lists: HashSet<RequestId>,
    tools: ToolHeaders,
    /// URLs the server named outside the origin given, never used.
    refused: Vec<RefusedUrl>,
}

#[derive(Debug)]
struct Shared {
    client: reqwest::Client,
    url: Url,
    /// The `--header`s; a client that steps up its authorization swaps
    /// its `Authorization` mid-session.
    custom: Mutex<Vec<(HeaderName, HeaderValue)>>,
    stateless: bool,
    started: Instant,
    /// Bounded: a reader waits while the session is behind, so a flooding
    /// server fills its socket, not our heap.
    tx: mpsc::Sender<TransportEvent>,
    state: Mutex<State>,
}

impl Shared {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// The headers of every request: ours, the session's, then `--header`s
    /// (which win, so a user can test odd values on purpose).
    fn headers(&self, accept: &'static str, legacy: bool) -> HeaderMap {
        let mut map = HeaderMap::new();
        map.insert(reqwest::header::ACCEPT, HeaderValue::from_static(accept));
        if !legacy && !self.stateless {
            let state = self.state();
            if let Some(id) = state
                .session_id
                .as_deref()
                .and_then(|v| HeaderValue::from_str(v).ok())
            {
                map.insert(SESSION_ID, id);
            }
            if let Some(version) = state
                .protocol_version
                .as_deref()
                .filter(|v| carries_version_header(v))
                .and_then(|v| HeaderValue::from_str(v).ok())
            {
                map.insert(PROTOCOL_VERSION, version);
            }
        }
        for (name, value) in self.custom.lock().unwrap_or_else(PoisonError::into_inner).iter() {
            map.insert(name.clone(), value.clone());
        }
        map
    }

    /// The headers of a POST: [`Shared::headers`] and the JSON content type.
    fn post_headers(&self, legacy: bool) -> HeaderMap {
        let mut headers = self.headers("application/json, text/event-stream", legacy);
        headers.insert(
            reqwest::header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        headers
    }

    /// A POSTed message as it went out, with its headers (secrets redacted).
    fn sent_frame(&self, raw: &[u8], headers: &HeaderMap, label: &str) -> Frame {
        let mut sent = Frame::new(Direction::Sent, raw.to_vec(), self.elapsed());
        sent.meta = FrameMeta {
            headers: headers::record(headers.iter().map(|(k, v)| (k.as_str(), v.as_bytes()))),
            stream: Some(label.to_owned()),
            ..FrameMeta::default()
        };
        sent
    }

    fn incident(
        &self,
        stream: &str,
        status: Option<u16>,
        unanswered: Vec<RequestId>,
        post_failed: bool,
        description: String,
    ) {
        let incident = HttpIncident {
            at: self.elapsed(),
            stream: stream.to_owned(),
            status,
            unanswered,
            post_failed,
            description,
        };
        queue_now(&self.tx, TransportEvent::Http(incident));
    }

    /// Delivers one message the server sent; crosses off the request it
    /// answers and learns the negotiated version from the initialize result.
    async fn deliver(&self, raw: Vec<u8>, meta: FrameMeta, pending: &mut Vec<RequestId>) {
        if let Ok(message) = serde_json::from_slice::<Value>(&raw) {
            let is_response = message.get("method").is_none()
                && (message.get("result").is_some() || message.get("error").is_some());
            if let Some(id) = message
                .get("id")
                .and_then(RequestId::from_value)
                .filter(|_| is_response)
            {
                pending.retain(|p| *p != id);
                let mut state = self.state();
                if state.tool_lists.remove(&id)
                    && let Some(result) = message.get("result")
                {
                    mirror::learn_tools(result, &mut state.tools);
                }
                if state.initialize_id.as_ref() == Some(&id)
                    && let Some(version) = message.pointer("/result/protocolVersion").and_then(Value::as_str)
                {
                    state.protocol_version = Some(version.to_owned());
                }
            }
        }
        let mut frame = Frame::new(Direction::Received, raw, self.elapsed());
        frame.meta = meta;
        let _ = self.tx.send(TransportEvent::Frame(frame)).await;
    }
}

/// Whether a negotiated version is one whose requests carry the
/// `MCP-Protocol-Version` header (a date from 2025-06-18 on).
pub fn carries_version_header(version: &str) -> bool {
    let date_like = version.len() == 10
        && version.bytes().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                b == b'-'
            } else {
                b.is_ascii_digit()
            }
        });
    date_like && version >= VERSION_HEADER_SINCE
}

/// Which transport the connection turned out to speak.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Resolved {
    /// Auto mode before the first POST was answered.
    Undecided,
    Streamable,
    /// HTTP+SSE, with the POST endpoint from the `endpoint` event.
    Legacy(Url),
}

/// A connection to an MCP server over HTTP.
#[derive(Debug)]
pub struct HttpTransport {
    shared: Arc<Shared>,
    events: mpsc::Receiver<TransportEvent>,
    options: HttpOptions,
    resolved: Resolved,
    posts: u32,
    /// Signals when the previous POST's answer started (see [`ORDERING_WAIT`]).
    previous: Option<oneshot::Receiver<()>>,
    get_opened: bool,
    tasks: Vec<JoinHandle<()>>,
    ended: Option<PeerExit>,
    /// Stateless: the task reading each request's answer, so that closing
    /// its stream cancels the request.
    streams: HashMap<RequestId, (String, AbortHandle)>,
}

impl HttpTransport {
    /// Prepares the connection; nothing is sent before the first message.
    pub fn new(options: HttpOptions) -> Result<Self, TransportError> {
        let url =
            Url::parse(&options.url).map_err(|e| TransportError::Url(format!("`{}`: {e}", options.url)))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(TransportError::Url(format!(
                "`{}`: not an http(s) URL",
                options.url
            )));
        }
        let mut custom = Vec::new();
        for (name, value) in &options.headers {
            let name = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| TransportError::Header(format!("`{name}` is not a valid header name")))?;
            let mut value = HeaderValue::from_str(value).map_err(|_| {
                TransportError::Header(format!("the value of `{name}` is not a valid header value"))
            })?;
            value.set_sensitive(headers::is_secret(name.as_str()));
            custom.push((name, value));
        }
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(options.answer_timeout)
            .build()
            .map_err(|e| TransportError::Http(format!("could not set up the HTTP client: {e}")))?;
        let (tx, events) = mpsc::channel(FRAMES_AHEAD);
        // The stateless era has no HTTP+SSE to fall back to.
        let resolved = match options.mode {
            HttpMode::Auto if !options.stateless => Resolved::Undecided,
            _ => Resolved::Streamable,
        };
        Ok(HttpTransport {
            shared: Arc::new(Shared {
                client,
                url,
                custom: Mutex::new(custom),
                stateless: options.stateless,
                started: Instant::now(),
                tx,
                state: Mutex::new(State::default()),
            }),
            events,
            options,
            resolved,
            posts: 0,
            previous: None,
            get_opened: false,
            tasks: Vec::new(),
            ended: None,
            streams: HashMap::new(),
        })
    }

    /// Sends `Authorization: Bearer <token>` on every later request (a
    /// secret: redacted in the transcript).
    pub fn set_bearer(&self, token: &str) -> Result<(), TransportError> {
        let mut value = HeaderValue::from_str(&format!("Bearer {token}"))
            .map_err(|_| TransportError::Header("the token is not a valid header value".into()))?;
        value.set_sensitive(true);
        let mut custom = self.shared.custom.lock().unwrap_or_else(PoisonError::into_inner);
        custom.retain(|(name, _)| name != AUTHORIZATION);
        custom.push((AUTHORIZATION, value));
        Ok(())
    }

    /// The URL as given.
    pub fn url(&self) -> &str {
        &self.options.url
    }

    /// Whether the connection speaks the legacy HTTP+SSE transport.
    pub fn is_legacy(&self) -> bool {
        matches!(self.resolved, Resolved::Legacy(_))
    }

    /// The session id the server issued, if any.
    pub fn session_id(&self) -> Option<String> {
        self.shared.state().session_id.clone()
    }

    /// A message a raw exchange POSTed within this session, as the
    /// transcript shows it: on HTTP+SSE its answer comes on the session's
    /// stream, so the transcript must hold what it answers.
    pub fn raw_post_frame(&self, raw: &[u8]) -> Frame {
        self.shared.sent_frame(raw, &HeaderMap::new(), "raw")
    }

    /// What a raw exchange needs to speak within this session.
    pub fn facts(&self) -> SessionFacts {
        let state = self.shared.state();
        let post_url = match &self.resolved {
            Resolved::Legacy(endpoint) => endpoint.to_string(),
            _ => self.options.url.clone(),
        };
        SessionFacts {
            url: self.options.url.clone(),
            post_url,
            session_id: state.session_id.clone(),
            protocol_version: state.protocol_version.clone(),
            legacy: self.is_legacy() || (self.options.mode == HttpMode::Sse && !self.options.stateless),
            stateless: self.options.stateless,
            tools: state.tools.clone(),
            headers: self.options.headers.clone(),
            refused: state.refused.clone(),
        }
    }

    /// POSTs one message; returns the frame as it went out. Waits for the
    /// answer to start only as long as ordering needs (and, for
    /// `initialize`, up to the answer timeout, so the session id is known
    /// before the next message).
    pub async fn send(&mut self, raw: &[u8]) -> Result<Frame, TransportError> {
        if self.options.stateless {
            return self.send_stateless(raw).await;
        }
        let message: Option<Value> = serde_json::from_slice(raw).ok();
        let method = message
            .as_ref()
            .and_then(|m| m.get("method"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let requests = request_ids(message.as_ref());
        let is_initialize = method.as_deref() == Some("initialize");
        if method.as_deref() == Some("notifications/cancelled")
            && let Some(id) = message
                .as_ref()
                .and_then(|m| m.pointer("/params/requestId"))
                .and_then(RequestId::from_value)
        {
            self.shared.state().cancelled.insert(id);
        }
        if is_initialize && let Some(id) = requests.first() {
            self.shared.state().initialize_id = Some(id.clone());
        }
        if self.options.mode == HttpMode::Sse && !self.is_legacy() {
            let endpoint = self.open_legacy().await.map_err(TransportError::Http)?;
            self.resolved = Resolved::Legacy(endpoint);
        }
        if let Some(previous) = self.previous.take() {
            let _ = tokio::time::timeout(ORDERING_WAIT, previous).await;
        }
        self.posts += 1;
        let label = format!("post#{}", self.posts);
        let (endpoint, legacy) = match &self.resolved {
            Resolved::Legacy(endpoint) => (endpoint.clone(), true),
            _ => (self.shared.url.clone(), false),
        };
        let headers = self.shared.post_headers(legacy);
        let sent = self.shared.sent_frame(raw, &headers, &label);
        let request = self
            .shared
            .client
            .post(endpoint)
            .headers(headers)
            .body(raw.to_vec());
        let (handoff_tx, mut handoff) = oneshot::channel();
        let (started_tx, started) = oneshot::channel();
        let shared = Arc::clone(&self.shared);
        let post_label = label.clone();
        let post_requests = requests.clone();
        self.tasks.push(tokio::spawn(async move {
            let result = request.send().await;
            let _ = started_tx.send(());
            // Whoever still waits in `send` takes over; otherwise we carry on.
            if let Err(result) = handoff_tx.send(result) {
                answer(shared, result, post_label, post_requests, legacy).await;
            }
        }));
        let decide = self.resolved == Resolved::Undecided;
        let wait = if is_initialize || decide {
            self.options.answer_timeout
        } else {
            ORDERING_WAIT
        };
        let taken = match tokio::time::timeout(wait, &mut handoff).await {
            Ok(Ok(result)) => Some(result),
            Ok(Err(_)) => None,
            Err(_) => {
                handoff.close();
                handoff.try_recv().ok()
            }
        };
        let Some(result) = taken else {
            // Still no answer (the task goes on by itself); the next POST
            // waits a moment for it to start.
            self.previous = Some(started);
            self.after_send(method.as_deref());
            return Ok(sent);
        };
        let response = match result {
            Ok(response) => response,
            Err(error) => return Err(TransportError::Http(describe_reqwest(&self.shared.url, &error))),
        };
        if decide {
            self.resolved = Resolved::Streamable;
            if matches!(response.status().as_u16(), 400 | 404 | 405) {
                // Backwards compatibility: try the legacy GET; if that fails
                // too, the POST's own answer stands.
                if let Ok(endpoint) = self.open_legacy().await {
                    self.resolved = Resolved::Legacy(endpoint.clone());
                    drop(response);
                    return Box::pin(self.send(raw)).await;
                }
            }
        }
        let shared = Arc::clone(&self.shared);
        self.tasks.push(tokio::spawn(answer(
            shared,
            Ok(response),
            label,
            requests,
            legacy,
        )));
        self.after_send(method.as_deref());
        Ok(sent)
    }

    /// One POST of the stateless era: the body mirrored into headers, the
    /// answer read by a task of its own, which closing the stream aborts.
    /// The first POST waits for its answer to start, so an unreachable
    /// server is an error of the send.
    async fn send_stateless(&mut self, raw: &[u8]) -> Result<Frame, TransportError> {
        let message: Option<Value> = serde_json::from_slice(raw).ok();
        let requests = request_ids(message.as_ref());
        let method = message
            .as_ref()
            .and_then(|m| m.get("method"))
            .and_then(Value::as_str);
        if method == Some("tools/list") {
            self.shared.state().tool_lists.extend(requests.iter().cloned());
        }
        if let Some(previous) = self.previous.take() {
            let _ = tokio::time::timeout(ORDERING_WAIT, previous).await;
        }
        self.posts += 1;
        let label = format!("post#{}", self.posts);
        let mut headers = self.shared.post_headers(false);
        let mut mirrored = match &message {
            Some(message) => mirror::mirrored(message, &self.shared.state().tools),
            None => Vec::new(),
        };
        // `initialize` opens a legacy session: it goes out as a legacy client
        // sends it (a dual-era client falling back), with no mirrored headers.
        if method == Some("initialize") {
            mirrored.clear();
        } else {
            // Every POST names a version: a body that names none (a notification,
            // malformed input) gets the one the connection's first request named.
            let mut state = self.shared.state();
            match mirrored.iter().find(|(name, _)| name == PROTOCOL_VERSION) {
                Some((_, version)) => {
                    state.protocol_version.get_or_insert_with(|| version.clone());
                }
                None => {
                    if let Some(version) = &state.protocol_version {
                        mirrored.push((PROTOCOL_VERSION.to_owned(), version.clone()));
                    }
                }
            }
        }
        for (name, value) in mirrored {
            let (Ok(name), Ok(value)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(&value),
            ) else {
                continue;
            };
            // `--header`s win, so a user can test odd values on purpose.
            let custom = self.shared.custom.lock().unwrap_or_else(PoisonError::into_inner);
            if !custom.iter().any(|(custom, _)| *custom == name) {
                headers.insert(name, value);
            }
        }
        let sent = self.shared.sent_frame(raw, &headers, &label);
        let request = self
            .shared
            .client
            .post(self.shared.url.clone())
            .headers(headers)
            .body(raw.to_vec());
        let (started_tx, started) = oneshot::channel::<Result<(), String>>();
        let shared = Arc::clone(&self.shared);
        let (task_label, ids) = (label.clone(), requests.clone());
        let task = tokio::spawn(async move {
            let result = request.send().await;
            let _ = started_tx.send(match &result {
                Ok(_) => Ok(()),
                Err(error) => Err(describe_reqwest(&shared.url, error)),
            });
            answer(shared, result, task_label, ids, false).await;
        });
        for id in requests {
            self.streams.insert(id, (label.clone(), task.abort_handle()));
        }
        self.tasks.push(task);
        if self.posts == 1 {
            match tokio::time::timeout(self.options.answer_timeout, started).await {
                Ok(Ok(Err(error))) => return Err(TransportError::Http(error)),
                Ok(_) | Err(_) => return Ok(sent),
            }
        }
        let (ordered_tx, ordered) = oneshot::channel();
        self.tasks.push(tokio::spawn(async move {
            let _ = started.await;
            let _ = ordered_tx.send(());
        }));
        self.previous = Some(ordered);
        Ok(sent)
    }

    /// Stateless era: cancels a request by closing its response stream,
    /// which the server must treat as the cancellation. `false` on a
    /// connection that cancels with `notifications/cancelled` instead, or
    /// for a request we never sent.
    pub fn cancel_request(&mut self, id: &RequestId) -> bool {
        if !self.options.stateless {
            return false;
        }
        let Some((label, stream)) = self.streams.remove(id) else {
            return false;
        };
        self.shared.state().cancelled.insert(id.clone());
        let how = if stream.is_finished() {
            "it had ended already"
        } else {
            "closed it"
        };
        stream.abort();
        let description = format!("{label}: cancelled request {id} by closing its stream ({how})");
        self.shared.incident(&label, None, Vec::new(), false, description);
        true
    }

    /// After `notifications/initialized`, opens the standalone GET stream.
    fn after_send(&mut self, method: Option<&str>) {
        if method == Some("notifications/initialized") && !self.get_opened && !self.is_legacy() {
            self.get_opened = true;
            let shared = Arc::clone(&self.shared);
            self.tasks.push(tokio::spawn(standalone_get(shared)));
        }
    }

    /// Opens the legacy SSE stream and waits for its `endpoint` event.
    async fn open_legacy(&mut self) -> Result<Url, String> {
        let shared = Arc::clone(&self.shared);
        let request = shared
            .client
            .get(shared.url.clone())
            .headers(shared.headers("text/event-stream", true));
        let response = tokio::time::timeout(self.options.answer_timeout, request.send())
            .await
            .map_err(|_| format!("GET {} (HTTP+SSE): no answer", shared.url))?
            .map_err(|e| describe_reqwest(&shared.url, &e))?;
        let status = response.status();
        if status != StatusCode::OK || !is_event_stream(response.headers()) {
            return Err(format!(
                "GET {} (HTTP+SSE) answered {status} with {}",
                shared.url,
                content_type(response.headers()).unwrap_or("no content type")
            ));
        }
        let (endpoint_tx, endpoint_rx) = oneshot::channel();
        self.tasks
            .push(tokio::spawn(legacy_stream(shared, response, endpoint_tx)));
        match tokio::time::timeout(self.options.answer_timeout, endpoint_rx).await {
            Ok(Ok(Ok(url))) => Ok(url),
            Ok(Ok(Err(message))) => Err(message),
            Ok(Err(_)) => Err(format!(
                "the SSE stream of {} ended before an `endpoint` event",
                self.shared.url
            )),
            Err(_) => Err(format!(
                "no `endpoint` event on {} within {} ms",
                self.shared.url,
                self.options.answer_timeout.as_millis()
            )),
        }
    }

    /// The next thing the server did; `None` once the end was reported.
    pub async fn recv(&mut self) -> Option<TransportEvent> {
        next_event(&mut self.events, &mut self.ended).await
    }

    /// Ends the session the HTTP way: DELETE with the session id, in the
    /// background (the answer is not awaited).
    pub fn close(&mut self) {
        let shared = Arc::clone(&self.shared);
        self.tasks.push(tokio::spawn(async move {
            let _ = delete_session(&shared).await;
        }));
    }

    /// There is no process to wait for: reports how the connection stands.
    pub async fn wait_exit(&mut self, within: Duration) -> PeerExit {
        if let Some(exit) = &self.ended {
            return exit.clone();
        }
        tokio::time::sleep(within.min(Duration::from_millis(10))).await;
        PeerExit {
            code: None,
            signal: None,
            description: "an HTTP server has no process of ours to exit".into(),
        }
    }

    /// Ends the connection for good: DELETE the session (within `grace`),
    /// then drop every stream.
    pub async fn shutdown(&mut self, grace: Duration) -> PeerExit {
        let description = match tokio::time::timeout(
            grace.max(Duration::from_millis(200)),
            delete_session(&self.shared),
        )
        .await
        {
            Ok(Some(status)) => format!("session ended (DELETE answered {status})"),
            Ok(None) => "connection dropped (no session to delete)".to_owned(),
            Err(_) => "connection dropped (DELETE unanswered)".to_owned(),
        };
        self.abort_tasks();
        let exit = PeerExit {
            code: None,
            signal: None,
            description,
        };
        self.ended.get_or_insert(exit).clone()
    }

    fn abort_tasks(&mut self) {
        self.shared.state().closing = true;
        for task in self.tasks.drain(..) {
            task.abort();
        }
    }
}

impl Drop for HttpTransport {
    fn drop(&mut self) {
        self.abort_tasks();
    }
}

/// DELETE for the session, if there is one; returns the status.
async fn delete_session(shared: &Shared) -> Option<u16> {
    let has_session = shared.state().session_id.is_some();
    if !has_session {
        return None;
    }
    let headers = shared.headers("application/json, text/event-stream", false);
    let request = shared
        .client
        .request(Method::DELETE, shared.url.clone())
        .headers(headers);
    request.send().await.ok().map(|r| r.status().as_u16())
}

/// The ids of the requests in a POST body (one message or a batch).
fn request_ids(message: Option<&Value>) -> Vec<RequestId> {
    let one = |m: &Value| {
        m.get("method")
            .is_some()
            .then(|| m.get("id").and_then(RequestId::from_value))
            .flatten()
    };
    match message {
        Some(Value::Array(batch)) => batch.iter().filter_map(one).collect(),
        Some(m) => one(m).into_iter().collect(),
        None => Vec::new(),
    }
}

fn content_type(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
}

fn is_event_stream(headers: &HeaderMap) -> bool {
    content_type(headers).is_some_and(|ct| {
        ct.trim_start()
            .to_ascii_lowercase()
            .starts_with("text/event-stream")
    })
}

fn is_json(headers: &HeaderMap) -> bool {
    content_type(headers).is_some_and(|ct| {
        let ct = ct.trim_start().to_ascii_lowercase();
        ct.starts_with("application/json") || ct.contains("+json")
    })
}

fn describe_reqwest(url: &Url, error: &reqwest::Error) -> String {
    use std::error::Error as _;
    let mut text = format!("could not reach {url}: {error}");
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

/// The frame meta of an answer, before any SSE fields.
fn answer_meta(response: &reqwest::Response, stream: &str) -> FrameMeta {
    FrameMeta {
        http_status: Some(response.status().as_u16()),
        headers: headers::record(response.headers().iter().map(|(k, v)| (k.as_str(), v.as_bytes()))),
        stream: Some(stream.to_owned()),
        ..FrameMeta::default()
    }
}

fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.is_empty() {
        return "an empty body".into();
    }
    let mut shown: String = text.chars().take(EXCERPT_CHARS).collect();
    if shown.len() < text.len() {
        shown.push('…');
    }
    format!("`{}`", shown.replace('\n', " "))
}

/// Handles the answer to one POST: a JSON body, an SSE stream (resumed if
/// cut before its responses), an empty acceptance, or an HTTP error.
async fn answer(
    shared: Arc<Shared>,
    result: Result<reqwest::Response, reqwest::Error>,
    label: String,
    mut pending: Vec<RequestId>,
    legacy: bool,
) {
    let response = match result {
        Ok(response) => response,
        Err(error) => {
            let description = describe_reqwest(&shared.url, &error);
            shared.incident(&label, None, pending, true, description);
            return;
        }
    };
    let status = response.status();
    // The stateless era has no sessions: an id a server mints anyway is ignored.
    if !legacy
        && !shared.stateless
        && let Some(id) = response.headers().get(SESSION_ID).and_then(|v| v.to_str().ok())
    {
        let mut state = shared.state();
        if state.session_id.is_none() {
            state.session_id = Some(id.to_owned());
        }
    }
    let meta = answer_meta(&response, &label);
    if status.is_success() && is_event_stream(response.headers()) {
        follow_stream(&shared, response, meta, &label, &mut pending).await;
        return;
    }
    let json = is_json(response.headers());
    let body = read_body(response).await;
    let body = match body {
        Ok(body) => body,
        Err(error) => {
            let description = format!("{label}: the {status} answer was cut: {error}");
            shared.incident(&label, Some(status.as_u16()), pending, true, description);
            return;
        }
    };
    let blank = body.iter().all(u8::is_ascii_whitespace);
    let parses = serde_json::from_slice::<Value>(&body).is_ok();
    let delivered = !blank && ((status.is_success() && json) || parses);
    if delivered {
        shared.deliver(body.clone(), meta, &mut pending).await;
    }
    if !status.is_success() {
        if !pending.is_empty() || !delivered {
            let what = if delivered {
                "without a response to the request"
            } else {
                "with"
            };
            let body_text = if delivered {
                String::new()
            } else {
                format!(" {}", excerpt(&body))
            };
            let description = format!("{label} was answered HTTP {status} {what}{body_text}");
            shared.incident(&label, Some(status.as_u16()), pending, !delivered, description);
        }
    } else if !legacy && !pending.is_empty() {
        let description = format!(
            "{label} carried a request but was answered HTTP {status} with {}; its response cannot come",
            if blank {
                "no body".to_owned()
            } else {
                excerpt(&body)
            }
        );
        shared.incident(&label, Some(status.as_u16()), pending, false, description);
    }
}

async fn read_body(mut response: reqwest::Response) -> Result<Vec<u8>, reqwest::Error> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        let room = MAX_BODY.saturating_sub(body.len());
        body.extend_from_slice(&chunk[..chunk.len().min(room)]);
    }
    Ok(body)
}

/// How an SSE stream ended.
struct StreamEnd {
    error: Option<String>,
    mid_event: bool,
}

/// The events the next chunk of an SSE body completes, or how the stream
/// ended. The caller delivers them before reading on: a server streaming
/// faster than the session reads waits on its socket.
async fn next_events(
    response: &mut reqwest::Response,
    decoder: &mut SseDecoder,
) -> Result<Vec<SseEvent>, StreamEnd> {
    match response.chunk().await {
        Ok(Some(chunk)) => Ok(decoder.feed(&chunk)),
        Ok(None) => Err(StreamEnd {
            error: None,
            mid_event: decoder.mid_event(),
        }),
        Err(error) => Err(StreamEnd {
            error: Some(error.to_string()),
            mid_event: decoder.mid_event(),
        }),
    }
}

/// Delivers an SSE event's data as a frame (events with empty data, such
/// as the priming event, carry no message).
async fn deliver_event(shared: &Shared, event: SseEvent, meta: &FrameMeta, pending: &mut Vec<RequestId>) {
    if event.data.trim().is_empty() {
        return;
    }
    let meta = FrameMeta {
        sse_event_id: event.id,
        sse_event: event.event,
        ..meta.clone()
    };
    shared.deliver(event.data.into_bytes(), meta, pending).await;
}

/// Reads an SSE answer (of a POST, or the standalone GET) and resumes it
/// with `Last-Event-ID` while it owes responses (`pending`) or, for the
/// GET stream, while the server keeps event ids.
async fn follow_stream(
    shared: &Shared,
    mut response: reqwest::Response,
    mut meta: FrameMeta,
    label: &str,
    pending: &mut Vec<RequestId>,
) {
    let standalone = pending.is_empty() && label == "get";
    let mut last_id: Option<String> = None;
    let mut retry: Option<u64> = None;
    let mut resumes = 0;
    loop {
        let mut decoder = SseDecoder::new();
        let end = loop {
            match next_events(&mut response, &mut decoder).await {
                Ok(events) => {
                    for event in events {
                        deliver_event(shared, event, &meta, pending).await;
                    }
                }
                Err(end) => break end,
            }
        };
        if let Some(id) = decoder.last_event_id() {
            last_id = Some(id.to_owned());
        }
        retry = decoder.retry_ms().or(retry);
        {
            // A server may close the stream of a cancelled request unanswered.
            let state = shared.state();
            pending.retain(|id| !state.cancelled.contains(id));
            if state.closing || (pending.is_empty() && !standalone) {
                return;
            }
        }
        let how = match (&end.error, end.mid_event) {
            (Some(error), _) => format!("was cut ({error})"),
            (None, true) => "ended in the middle of an event".to_owned(),
            (None, false) => "ended".to_owned(),
        };
        let stream = meta.stream.clone().unwrap_or_default();
        // The stateless era resumes nothing: a cut stream loses its request.
        let Some(resume_from) = last_id.clone().filter(|_| !shared.stateless) else {
            if !standalone {
                let why = if shared.stateless {
                    "streams are not resumable from 2026-07-28"
                } else {
                    "no event id to resume from"
                };
                let description = format!(
                    "{stream} {how} before the response to {}; {why}",
                    ids_text(pending)
                );
                shared.incident(&stream, None, std::mem::take(pending), false, description);
            }
            return;
        };
        if resumes == MAX_RESUMES {
            if !standalone {
                let description = format!(
                    "{stream} {how} before the response to {}; gave up after {MAX_RESUMES} resumptions",
                    ids_text(pending)
                );
                shared.incident(&stream, None, std::mem::take(pending), false, description);
            }
            return;
        }
        resumes += 1;
        let pause = retry.map_or(DEFAULT_RETRY, Duration::from_millis).min(MAX_RETRY);
        tokio::time::sleep(pause).await;
        let mut headers = shared.headers("text/event-stream", false);
        if let Ok(value) = HeaderValue::from_str(&resume_from) {
            headers.insert(LAST_EVENT_ID, value);
        }
        let resumed = shared
            .client
            .get(shared.url.clone())
            .headers(headers)
            .send()
            .await;
        let resumed_label = format!("{label}/resume#{resumes}");
        match resumed {
            Ok(next) if next.status() == StatusCode::OK && is_event_stream(next.headers()) => {
                meta = answer_meta(&next, &resumed_label);
                response = next;
            }
            Ok(next) => {
                let status = next.status();
                let body = read_body(next).await.unwrap_or_default();
                if !standalone {
                    let description = format!(
                        "{stream} {how} before the response to {}; resuming from event {resume_from} was answered HTTP {status} with {}",
                        ids_text(pending),
                        excerpt(&body)
                    );
                    shared.incident(
                        &resumed_label,
                        Some(status.as_u16()),
                        std::mem::take(pending),
                        false,
                        description,
                    );
                }
                return;
            }
            Err(error) => {
                if !standalone {
                    let description = format!(
                        "{stream} {how} before the response to {}; resuming failed: {}",
                        ids_text(pending),
                        describe_reqwest(&shared.url, &error)
                    );
                    shared.incident(&resumed_label, None, std::mem::take(pending), false, description);
                }
                return;
            }
        }
    }
}

fn ids_text(ids: &[RequestId]) -> String {
    let ids: Vec<String> = ids.iter().map(|id| id.to_value().to_string()).collect();
    format!("request {}", ids.join(", "))
}

/// The standalone GET stream (server requests and notifications outside any
/// request). 405 means the server does not offer one.
async fn standalone_get(shared: Arc<Shared>) {
    let request = shared
        .client
        .get(shared.url.clone())
        .headers(shared.headers("text/event-stream", false));
    let response = match request.send().await {
        Ok(response) => response,
        Err(error) => {
            let description = format!("get: {}", describe_reqwest(&shared.url, &error));
            shared.incident("get", None, Vec::new(), false, description);
            return;
        }
    };
    let status = response.status();
    if status == StatusCode::METHOD_NOT_ALLOWED {
        return;
    }
    if status != StatusCode::OK || !is_event_stream(response.headers()) {
        let ct = content_type(response.headers())
            .unwrap_or("no content type")
            .to_owned();
        let body = read_body(response).await.unwrap_or_default();
        let description = format!(
            "the standalone GET stream was answered HTTP {status} ({ct}) with {}",
            excerpt(&body)
        );
        shared.incident("get", Some(status.as_u16()), Vec::new(), false, description);
        return;
    }
    let meta = answer_meta(&response, "get");
    follow_stream(&shared, response, meta, "get", &mut Vec::new()).await;
}

/// The legacy SSE stream: the `endpoint` event first, then every message.
/// Its end is the end of the session.
async fn legacy_stream(
    shared: Arc<Shared>,
    mut response: reqwest::Response,
    endpoint: oneshot::Sender<Result<Url, String>>,
) {
    let meta = answer_meta(&response, "sse");
    let mut endpoint = Some(endpoint);
    let mut decoder = SseDecoder::new();
    let mut pending = Vec::new();
    let end = loop {
        let events = match next_events(&mut response, &mut decoder).await {
            Ok(events) => events,
            Err(end) => break end,
        };
        for event in events {
            if event.event.as_deref() != Some("endpoint") {
                deliver_event(&shared, event, &meta, &mut pending).await;
                continue;
            }
            let resolved = origin::post_url(&shared.url, &event.data);
            if let Err(origin::Unusable::OffOrigin(refused)) = &resolved {
                shared.state().refused.push(refused.clone());
            }
            if let Some(tx) = endpoint.take() {
                let _ = tx.send(resolved.map_err(|unusable| unusable.describe()));
            }
        }
    };
    if shared.state().closing {
        return;
    }
    let description = match end.error {
        Some(error) => format!("the SSE stream was cut: {error}"),
        None if end.mid_event => "the SSE stream ended in the middle of an event".to_owned(),
        None => "the SSE stream ended".to_owned(),
    };
    let closed = PeerExit {
        code: None,
        signal: None,
        description,
    };
    let _ = shared.tx.send(TransportEvent::Closed(closed)).await;
}

#[cfg(test)]
mod tests;
