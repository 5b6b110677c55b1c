//! A connection over any byte stream (our own stdin/stdout, a Unix socket):
//! newline-delimited frames, the same framing as stdio, without a child
//! process. The mock server speaks to a client under test this way.

use std::time::{Duration, Instant};

use mcp_conform_core::wire::Frame;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;

use super::stdio::{read_frames, write_line};
use super::{FRAMES_AHEAD, PeerExit, TransportError, TransportEvent};

/// One end of a byte-stream connection to the peer.
pub struct StreamTransport {
    writer: Option<Box<dyn AsyncWrite + Send + Unpin>>,
    events: mpsc::Receiver<TransportEvent>,
    started: Instant,
    ended: Option<PeerExit>,
}

impl std::fmt::Debug for StreamTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamTransport")
            .field("open", &self.writer.is_some())
            .finish_non_exhaustive()
    }
}

impl StreamTransport {
    /// Reads frames from `reader` on a task of its own; writes to `writer`.
    pub fn new(
        reader: impl AsyncRead + Send + Unpin + 'static,
        writer: impl AsyncWrite + Send + Unpin + 'static,
    ) -> Self {
        let started = Instant::now();
        let (tx, events) = mpsc::channel(FRAMES_AHEAD);
        tokio::spawn(read_frames(reader, tx, started));
        StreamTransport {
            writer: Some(Box::new(writer)),
            events,
            started,
            ended: None,
        }
    }

    /// Writes one message followed by a newline.
    pub async fn send(&mut self, raw: &[u8]) -> Result<Frame, TransportError> {
        write_line(
            self.writer.as_deref_mut(),
            raw,
            self.started,
            "the connection is closed",
        )
        .await
    }

    /// The next frame, or the end of the peer's side of the stream.
    pub async fn recv(&mut self) -> Option<TransportEvent> {
        if self.ended.is_some() {
            return None;
        }
        match self.events.recv().await {
            Some(event) => Some(event),
            None => {
                let exit = disconnected();
                self.ended = Some(exit.clone());
                Some(TransportEvent::Closed(exit))
            }
        }
    }

    /// Closes our side: the peer reads end-of-file.
    pub fn close(&mut self) {
        self.writer = None;
    }

    /// Waits up to `within` for the peer to close its side.
    pub async fn wait_exit(&mut self, within: Duration) -> PeerExit {
        let deadline = tokio::time::Instant::now() + within;
        while self.ended.is_none() {
            match tokio::time::timeout_at(deadline, self.recv()).await {
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => break,
            }
        }
        self.ended.clone().unwrap_or_else(|| PeerExit {
            code: None,
            signal: None,
            description: format!("still connected after {} ms", within.as_millis()),
        })
    }

    /// Closes our side and gives the peer `grace` to close its own.
    pub async fn shutdown(&mut self, grace: Duration) -> PeerExit {
        self.close();
        self.wait_exit(grace).await
    }
}

fn disconnected() -> PeerExit {
    PeerExit {
        code: None,
        signal: None,
        description: "the client closed the connection".into(),
    }
}
