//! Transports carry frames between the mock peer and the peer under test.
//!
//! A transport never interprets what it carries: it delivers raw frames (and
//! the end of the connection) as [`TransportEvent`]s, so that malformed output
//! of the peer becomes a finding instead of an error on our side.

pub mod http;
pub mod http_proxy;
pub mod http_server;
mod process_group;
mod stdio;
mod stream;

pub use http::{HttpIncident, HttpMode, HttpOptions, HttpTransport, SessionFacts};
pub use http_server::HttpServerTransport;
pub use process_group::{dismiss_janitor, kill_process_group, watch_process_group};
pub use stdio::{StdioCommand, StdioTransport};
pub use stream::StreamTransport;

use std::time::Duration;

use mcp_conform_core::evidence::http::HttpClientRecord;
use mcp_conform_core::wire::{Frame, RequestId};
use tokio::sync::mpsc;

/// Events queued ahead of the session: a reader waits when this many are
/// queued, so a peer writing faster than we judge fills its pipe or its
/// socket, not our heap.
const FRAMES_AHEAD: usize = 64;

/// The connection to the peer under test, whatever carries it.
#[derive(Debug)]
pub enum Transport {
    /// A child process on stdin/stdout.
    Stdio(StdioTransport),
    /// A server reached over Streamable HTTP or the legacy HTTP+SSE transport.
    Http(HttpTransport),
    /// A byte stream we did not start (the mock server's side of a client).
    Stream(StreamTransport),
    /// The mock server's HTTP endpoint, serving a client under test.
    HttpServer(HttpServerTransport),
}

impl Transport {
    /// Sends one message; returns the frame as it went out.
    pub async fn send(&mut self, raw: &[u8]) -> Result<Frame, TransportError> {
        match self {
            Transport::Stdio(stdio) => stdio.send(raw).await,
            Transport::Http(http) => http.send(raw).await,
            Transport::Stream(stream) => stream.send(raw).await,
            Transport::HttpServer(server) => server.send(raw).await,
        }
    }

    /// The next thing the peer did; `None` once the end was reported.
    pub async fn recv(&mut self) -> Option<TransportEvent> {
        match self {
            Transport::Stdio(stdio) => stdio.recv().await,
            Transport::Http(http) => http.recv().await,
            Transport::Stream(stream) => stream.recv().await,
            Transport::HttpServer(server) => server.recv().await,
        }
    }

    /// Asks the peer to end the session the transport's own way (stdio:
    /// close its stdin; HTTP: DELETE the session; as the HTTP server: end
    /// the session's streams).
    pub fn close(&mut self) {
        match self {
            Transport::Stdio(stdio) => stdio.close_stdin(),
            Transport::Http(http) => http.close(),
            Transport::Stream(stream) => stream.close(),
            Transport::HttpServer(server) => server.close(),
        }
    }

    /// Waits up to `within` for the peer to go away by itself.
    pub async fn wait_exit(&mut self, within: Duration) -> PeerExit {
        match self {
            Transport::Stdio(stdio) => stdio.wait_exit(within).await,
            Transport::Http(http) => http.wait_exit(within).await,
            Transport::Stream(stream) => stream.wait_exit(within).await,
            Transport::HttpServer(server) => server.wait_exit(within).await,
        }
    }

    /// Stateless era over HTTP: cancels request `id` by closing its response
    /// stream. `false` where cancellation is a `notifications/cancelled`
    /// message instead (stdio, and every stateful connection).
    pub fn cancel_request(&mut self, id: &RequestId) -> bool {
        match self {
            Transport::Http(http) => http.cancel_request(id),
            Transport::Stdio(_) | Transport::Stream(_) | Transport::HttpServer(_) => false,
        }
    }

    /// As the mock server: serve the stateless era (2026-07-28+) from now
    /// on. Only HTTP changes (POST only, no sessions, streams per request);
    /// stdio carries the same messages either way.
    pub fn serve_stateless(&mut self) {
        if let Transport::HttpServer(server) = self {
            server.serve_stateless();
        }
    }

    /// HTTP client only: the bearer token of every later request (a
    /// step-up); other transports carry no tokens.
    pub fn set_bearer(&self, token: &str) -> Result<(), TransportError> {
        match self {
            Transport::Http(http) => http.set_bearer(token),
            _ => Err(TransportError::Http("only HTTP carries a bearer token".into())),
        }
    }

    /// HTTP only: a raw exchange's POST, as a frame of the transcript.
    pub fn raw_post_frame(&self, raw: &[u8]) -> Option<Frame> {
        match self {
            Transport::Http(http) => Some(http.raw_post_frame(raw)),
            Transport::Stdio(_) | Transport::Stream(_) | Transport::HttpServer(_) => None,
        }
    }

    /// HTTP only: what a raw exchange within the session needs.
    pub fn http_facts(&self) -> Option<SessionFacts> {
        match self {
            Transport::Stdio(_) | Transport::Stream(_) | Transport::HttpServer(_) => None,
            Transport::Http(http) => Some(http.facts()),
        }
    }

    /// As the HTTP server of a client under test: what the client did.
    pub fn http_client_record(&self) -> Option<HttpClientRecord> {
        match self {
            Transport::HttpServer(server) => Some(server.record()),
            _ => None,
        }
    }

    /// What the peer wrote on the side (stdio: the tail of its stderr; HTTP:
    /// nothing, as the harness did not start the server).
    pub fn stderr_tail(&self) -> String {
        match self {
            Transport::Stdio(stdio) => stdio.stderr_tail(),
            Transport::Http(_) | Transport::Stream(_) | Transport::HttpServer(_) => String::new(),
        }
    }

    /// Ends the connection for good: politely, then after `grace` by force.
    pub async fn shutdown(&mut self, grace: Duration) -> PeerExit {
        match self {
            Transport::Stdio(stdio) => stdio.shutdown(grace).await,
            Transport::Http(http) => http.shutdown(grace).await,
            Transport::Stream(stream) => stream.shutdown(grace).await,
            Transport::HttpServer(server) => server.shutdown(grace).await,
        }
    }
}

impl From<HttpTransport> for Transport {
    fn from(http: HttpTransport) -> Self {
        Transport::Http(http)
    }
}

impl From<StreamTransport> for Transport {
    fn from(stream: StreamTransport) -> Self {
        Transport::Stream(stream)
    }
}

impl From<HttpServerTransport> for Transport {
    fn from(server: HttpServerTransport) -> Self {
        Transport::HttpServer(server)
    }
}

impl From<StdioTransport> for Transport {
    fn from(stdio: StdioTransport) -> Self {
        Transport::Stdio(stdio)
    }
}

/// The next event of a transport fed by `events`, noting its end in
/// `ended`; `None` once the end was reported.
async fn next_event(
    events: &mut mpsc::Receiver<TransportEvent>,
    ended: &mut Option<PeerExit>,
) -> Option<TransportEvent> {
    if ended.is_some() {
        return None;
    }
    let event = events.recv().await?;
    if let TransportEvent::Closed(exit) = &event {
        *ended = Some(exit.clone());
    }
    Some(event)
}

/// Queues an event of the transport's own (an incident, the end) from
/// code that cannot wait: with the queue full, a task delivers it once
/// there is room. Frames of the peer are sent with `send().await` instead,
/// which is what holds a flooding peer back.
fn queue_now(events: &mpsc::Sender<TransportEvent>, event: TransportEvent) {
    if let Err(mpsc::error::TrySendError::Full(event)) = events.try_send(event) {
        let events = events.clone();
        tokio::spawn(async move {
            let _ = events.send(event).await;
        });
    }
}

/// Something the transport observed.
#[derive(Debug, Clone)]
pub enum TransportEvent {
    /// A frame the peer sent.
    Frame(Frame),
    /// The peer went away; no more frames will come.
    Closed(PeerExit),
    /// HTTP only: something that is not a message (see [`HttpIncident`]).
    Http(HttpIncident),
}

/// How the peer went away.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerExit {
    /// Exit code, when the process exited normally.
    pub code: Option<i32>,
    /// Signal number, when the process was killed by a signal.
    pub signal: Option<i32>,
    /// What we know in words ("exited with status 1", "stdout closed").
    pub description: String,
}

/// Our side could not carry on.
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    /// The peer could not be started at all.
    #[error("could not start `{program}`: {source}")]
    Spawn { program: String, source: std::io::Error },
    /// The command line was empty or could not be split.
    #[error("invalid command line: {0}")]
    CommandLine(String),
    /// Writing to the peer failed (it is probably gone).
    #[error("could not write to the peer: {0}")]
    Write(std::io::Error),
    /// The URL of an HTTP server is unusable.
    #[error("invalid URL {0}")]
    Url(String),
    /// A `--header` is unusable (secret values are never repeated).
    #[error("invalid header: {0}")]
    Header(String),
    /// An HTTP exchange failed on our side or the server could not be reached.
    #[error("{0}")]
    Http(String),
    /// As the mock server of the stateless era: the message has no way to
    /// the client (a change notification no listen stream asked for).
    #[error("{0}")]
    Undeliverable(String),
}
