//! The single writer of the output stream: frames from any task are queued
//! here and written one per line, so lines never interleave.

use std::sync::Arc;

use serde_json::Value;
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};

use super::fault::{Emit, FaultLayer};

enum Out {
    Frame(Value),
    /// Everything queued before this is written; then the writer stops.
    Close(oneshot::Sender<()>),
}

/// A cloneable handle for sending frames to the client.
#[derive(Debug, Clone)]
pub(crate) struct Sink {
    tx: mpsc::UnboundedSender<Out>,
}

impl std::fmt::Debug for Out {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Out::Frame(frame) => write!(f, "Frame({frame})"),
            Out::Close(_) => f.write_str("Close"),
        }
    }
}

impl Sink {
    /// Starts the writer task on `output`; frames pass through `fault`, if any.
    pub fn spawn<W>(output: W, fault: Option<Arc<FaultLayer>>) -> Sink
    where
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(write_frames(output, rx, fault));
        Sink { tx }
    }

    /// Queues one frame; silently dropped once the output is gone.
    pub fn send(&self, frame: Value) {
        let _ = self.tx.send(Out::Frame(frame));
    }

    /// Waits until every frame queued so far is written (or the output failed).
    pub async fn close(&self) {
        let (done, written) = oneshot::channel();
        if self.tx.send(Out::Close(done)).is_ok() {
            let _ = written.await;
        }
    }
}

async fn write_frames<W: AsyncWrite + Unpin>(
    mut output: W,
    mut rx: mpsc::UnboundedReceiver<Out>,
    fault: Option<Arc<FaultLayer>>,
) {
    let mut pending: Vec<Emit> = fault.as_ref().and_then(|f| f.at_start()).into_iter().collect();
    while let Some(out) = rx.recv().await {
        match out {
            Out::Frame(frame) => {
                match &fault {
                    Some(fault) => pending.extend(fault.outgoing(frame)),
                    None => pending.push(Emit::Frame(frame)),
                }
                for emit in pending.drain(..) {
                    let mut line = match emit {
                        Emit::Frame(frame) => frame.to_string(),
                        Emit::Raw(text) => text,
                    };
                    line.push('\n');
                    let written = output.write_all(line.as_bytes()).await;
                    if written.and(output.flush().await).is_err() {
                        eprintln!("reference server: output closed; dropping further frames");
                        return;
                    }
                }
            }
            Out::Close(done) => {
                let _ = done.send(());
                return;
            }
        }
    }
}
