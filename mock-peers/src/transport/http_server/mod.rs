//! The server side of HTTP: the one Streamable HTTP server core (`serve.rs`:
//! connections, the loopback guard, routes; `streams.rs`: SSE streams with
//! event ids, priming and replay; `request.rs`, `respond.rs`), which the
//! reference server and the mock server each serve through a
//! `serve::Handler` of their own, and the mock server's transport.
//!
//! Under a `role: client` scenario the engine plays a server, and
//! [`HttpServerTransport`] serves it to the client under test over
//! Streamable HTTP (2025-03-26 on, at `/mcp`) and the HTTP+SSE transport of
//! 2024-11-05 (at `/sse`). The client's messages come out as
//! [`TransportEvent::Frame`]s carrying the HTTP facts of the request that
//! brought them ([`FrameMeta`]: our status, the request's headers,
//! `post#N`); ours go out on the session's SSE streams, by the same stream
//! rules as the reference server's (see `endpoint.rs` for where each frame
//! goes). Every HTTP request is recorded ([`HttpClientRecord`]) so that the
//! client's transport rules can be judged once the scenario is over. From
//! [`HttpServerTransport::serve_stateless`] on, it serves the stateless era
//! (2026-07-28) instead: POST only, no session, one stream per request
//! (`endpoint/stateless.rs`).
//!
//! [`FrameMeta`]: mcp_conform_core::wire::FrameMeta

mod endpoint;
pub(crate) mod gate;
pub(crate) mod request;
pub(crate) mod respond;
pub(crate) mod serve;
pub(crate) mod streams;
#[cfg(test)]
mod tests;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use mcp_conform_core::evidence::http::HttpClientRecord;
use mcp_conform_core::wire::Frame;
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use self::endpoint::Endpoint;
pub use self::serve::{MCP_PATH, MESSAGES_PATH, SSE_PATH};
use super::{FRAMES_AHEAD, PeerExit, TransportError, TransportEvent, next_event};

/// How often held frames are looked at.
const HOLD_TICK: Duration = Duration::from_millis(100);

/// The mock server on a loopback port, one session, one client.
#[derive(Debug)]
pub struct HttpServerTransport {
    endpoint: Arc<Endpoint>,
    events: mpsc::Receiver<TransportEvent>,
    url: String,
    /// The server (with its connections) and the expiry of held frames.
    tasks: Vec<JoinHandle<()>>,
    ended: Option<PeerExit>,
}

/// Tells the transport that the client's process ended (for a client
/// mcp-conform started itself, whose exit no HTTP request announces).
#[derive(Debug, Clone)]
pub struct ClientDeparture(Arc<Endpoint>);

impl ClientDeparture {
    pub fn left(&self, exit: PeerExit) {
        self.0.client_left(exit);
    }
}

/// `address` as a socket address on the loopback interface; anything else
/// is refused (the mock server is for clients on this machine).
pub fn loopback_address(address: &str) -> Result<SocketAddr, TransportError> {
    let parsed = match address.strip_prefix("localhost:") {
        Some(port) => port
            .parse::<u16>()
            .ok()
            .map(|port| SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port)),
        None => address.parse::<SocketAddr>().ok(),
    };
    match parsed {
        Some(socket) if socket.ip().is_loopback() => Ok(socket),
        Some(_) => Err(TransportError::Http(format!(
            "{address}: the mock server listens on loopback addresses only (127.0.0.1, [::1], localhost)"
        ))),
        None => Err(TransportError::Http(format!(
            "{address}: not an address and port such as 127.0.0.1:0"
        ))),
    }
}

impl HttpServerTransport {
    /// Listens on `address` (a loopback address; port 0 picks a free one).
    pub async fn bind(address: &str) -> Result<Self, TransportError> {
        let socket = loopback_address(address)?;
        let listener = TcpListener::bind(socket)
            .await
            .map_err(|e| TransportError::Http(format!("cannot listen on {socket}: {e}")))?;
        let bound = listener
            .local_addr()
            .map_err(|e| TransportError::Http(format!("cannot listen on {socket}: {e}")))?;
        let (tx, events) = mpsc::channel(FRAMES_AHEAD);
        let endpoint = Arc::new(Endpoint::new(tx));
        let serving = Arc::clone(&endpoint);
        let server = tokio::spawn(async move {
            if let Err(error) = serve::serve(listener, "mock server", serving).await {
                eprintln!("mock server: accepting connections failed: {error}");
            }
        });
        let expiring = Arc::clone(&endpoint);
        let expiry = tokio::spawn(async move {
            loop {
                tokio::time::sleep(HOLD_TICK).await;
                expiring.expire_held();
            }
        });
        Ok(HttpServerTransport {
            endpoint,
            events,
            url: format!("http://{bound}{MCP_PATH}"),
            tasks: vec![server, expiry],
            ended: None,
        })
    }

    /// Where the client reaches the Streamable HTTP endpoint.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Puts `gate` in front of the endpoint, before the client connects.
    pub(crate) fn protect(&self, gate: Box<dyn gate::Gate>) {
        self.endpoint.protect(gate);
    }

    /// From now on each request records which of its headers held one
    /// of `values` (`InboundRequest::watched`), before any is redacted.
    pub fn watch(&self, values: Vec<String>) {
        self.endpoint.watch(values);
    }

    /// Serves the stateless era (2026-07-28+) from now on.
    pub fn serve_stateless(&mut self) {
        self.endpoint.serve_stateless();
    }

    /// Whether the client has made any HTTP request yet.
    pub fn contacted(&self) -> bool {
        self.endpoint.contacted()
    }

    /// The handle that reports the client's process ending.
    pub fn departure(&self) -> ClientDeparture {
        ClientDeparture(Arc::clone(&self.endpoint))
    }

    /// Everything seen of the client over HTTP so far.
    pub fn record(&self) -> HttpClientRecord {
        self.endpoint.record()
    }

    /// Sends one message to the client; returns the frame as it went out
    /// (its stream is `held` until one can carry it).
    pub async fn send(&mut self, raw: &[u8]) -> Result<Frame, TransportError> {
        Ok(self.endpoint.send(raw))
    }

    /// The next thing the client did; `None` once its end was reported.
    pub async fn recv(&mut self) -> Option<TransportEvent> {
        next_event(&mut self.events, &mut self.ended).await
    }

    /// Ends the session from our side: its streams close and requests
    /// naming it get 404.
    pub fn close(&mut self) {
        self.endpoint.stop();
    }

    /// Waits up to `within` for the client to end the session or leave.
    pub async fn wait_exit(&mut self, within: Duration) -> PeerExit {
        let _ = tokio::time::timeout(within, async { while self.recv().await.is_some() {} }).await;
        self.ended.clone().unwrap_or_else(|| PeerExit {
            code: None,
            signal: None,
            description: format!("the client was still connected after {} ms", within.as_millis()),
        })
    }

    /// Stops serving: the session's streams end and the port closes.
    pub async fn shutdown(&mut self, _grace: Duration) -> PeerExit {
        self.endpoint.stop();
        for task in self.tasks.drain(..) {
            task.abort();
        }
        let exit = PeerExit {
            code: None,
            signal: None,
            description: "the mock server stopped serving".into(),
        };
        self.ended.get_or_insert(exit).clone()
    }
}

impl Drop for HttpServerTransport {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}
