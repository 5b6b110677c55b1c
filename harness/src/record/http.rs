//! The HTTP relay: a loopback proxy in front of the server's URL (the
//! transport's own, shared with the reference client's fault proxy). Each
//! request passes on unchanged and each answer comes back as it arrives,
//! SSE streams streamed through; the JSON-RPC messages in request bodies,
//! JSON answers and SSE `message` events go through the tap as they pass.
//! The client is a command we start with `{url}` standing for the proxy's
//! URL, recorded until it exits; or, started elsewhere, is given the URL
//! (printed on stdout) and recorded until we are interrupted.

use std::io::Stderr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use mcp_conform_core::wire::{Direction, Frame};
use mcp_mock_peers::transport::http::sse::SseDecoder;
use mcp_mock_peers::transport::http_proxy::{BodySink, HeaderMap, Hop, HttpProxy, Method, StatusCode};
use mcp_mock_peers::transport::{StdioTransport, TransportEvent};

use super::client::{Client, expand};
use super::tap::Tap;
use crate::interrupt;

/// How often a recording without a client of ours looks for an interrupt.
const POLL: Duration = Duration::from_millis(100);
/// How long answers still streaming get once the client has gone.
const LAST_WORDS: Duration = Duration::from_millis(300);

/// The tap, shared by the proxy's connections.
pub type SharedTap = Arc<Mutex<Tap<Stderr>>>;

/// Relays to the server at `url` until the client leaves.
pub async fn relay(url: &str, client: &Client, tap: SharedTap) -> Result<(), String> {
    let watch = Watch {
        tap,
        started: Instant::now(),
    };
    let proxy = HttpProxy::start(url, "mcp-conform record", watch).await?;
    match client {
        Client::Elsewhere => {
            println!("{}", proxy.url());
            let interrupted = interrupt::flag();
            while !interrupted.load(std::sync::atomic::Ordering::SeqCst) {
                tokio::time::sleep(POLL).await;
            }
        }
        Client::Command(words) => {
            let command = expand(words, "{url}", &[proxy.url().to_owned()], proxy.url())?;
            let mut process = StdioTransport::spawn(&command).map_err(|e| e.to_string())?;
            while let Some(TransportEvent::Frame(_)) = process.recv().await {}
        }
    }
    tokio::time::sleep(LAST_WORDS).await;
    Ok(())
}

/// What the proxy shows the tap.
struct Watch {
    tap: SharedTap,
    started: Instant,
}

impl Watch {
    fn frame(tap: &SharedTap, started: Instant, direction: Direction, raw: &[u8]) {
        let frame = Frame::new(direction, raw.to_vec(), started.elapsed());
        let mut tap = tap.lock().unwrap_or_else(PoisonError::into_inner);
        match direction {
            Direction::Sent => tap.client_sent(&frame),
            Direction::Received => tap.server_sent(&frame),
        }
    }
}

impl Hop for Watch {
    fn outbound(
        &self,
        method: &Method,
        _headers: &mut HeaderMap,
        body: String,
    ) -> Result<String, StatusCode> {
        if method == Method::POST && !body.trim().is_empty() {
            Watch::frame(&self.tap, self.started, Direction::Sent, body.trim().as_bytes());
        }
        Ok(body)
    }

    fn inbound(&self, _status: StatusCode, headers: &HeaderMap) -> Option<BodySink> {
        let content_type = headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_ascii_lowercase();
        let tap = Arc::clone(&self.tap);
        let started = self.started;
        if content_type.starts_with("text/event-stream") {
            let mut decoder = SseDecoder::new();
            return Some(Box::new(move |chunk: Option<&[u8]>| {
                for event in decoder.feed(chunk.unwrap_or_default()) {
                    // The HTTP+SSE `endpoint` event and priming events carry no message.
                    let message = matches!(event.event.as_deref(), None | Some("message"));
                    if message && !event.data.trim().is_empty() {
                        Watch::frame(&tap, started, Direction::Received, event.data.as_bytes());
                    }
                }
            }));
        }
        if !content_type.starts_with("application/json") {
            return None;
        }
        let mut body = Vec::new();
        Some(Box::new(move |chunk: Option<&[u8]>| match chunk {
            Some(chunk) => body.extend_from_slice(chunk),
            None if !body.trim_ascii().is_empty() => {
                Watch::frame(&tap, started, Direction::Received, body.trim_ascii());
            }
            None => {}
        }))
    }
}
