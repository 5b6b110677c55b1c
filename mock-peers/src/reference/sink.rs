//! The single writer of the output: frames from any task are queued here and
//! written one at a time, so they never interleave.
//!
//! The output is either a line writer (stdio) or a [`Route`] (HTTP), which
//! gets each frame together with its *origin*: the transport stream whose
//! incoming message led to it. Origins travel as a task-local value, set by
//! the transport around [`Server::on_line`](super::dispatch::Server::on_line)
//! and carried into tasks the server starts through [`spawn`].

use std::future::Future;
use std::sync::Arc;

use serde_json::Value;
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use super::fault::{Emit, FaultLayer};
use crate::transport::http_server::streams::Origin;

tokio::task_local! {
    static ORIGIN: Origin;
}

/// Runs `work` with frames it sends attributed to `origin`.
pub(crate) fn with_origin<R>(origin: Origin, work: impl FnOnce() -> R) -> R {
    ORIGIN.sync_scope(origin, work)
}

/// The origin of the running task, if a transport set one.
fn current_origin() -> Option<Origin> {
    ORIGIN.try_with(|origin| *origin).ok()
}

/// `tokio::spawn` that keeps the spawning task's origin, so that a request
/// served on its own task still answers on the stream it came from.
pub(crate) fn spawn<F>(work: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    match current_origin() {
        Some(origin) => tokio::spawn(ORIGIN.scope(origin, work)),
        None => tokio::spawn(work),
    }
}

/// Where frames go when the output is not a byte stream.
pub(crate) trait Route: Send + Sync + 'static {
    /// Takes one frame (after the fault layer) and the origin it was sent from.
    fn deliver(&self, emit: Emit, origin: Option<Origin>);
}

enum Out {
    Frame(Value, Option<Origin>),
    /// Everything queued before this has been handed on.
    Barrier(oneshot::Sender<()>),
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
            Out::Frame(frame, origin) => write!(f, "Frame({frame}, {origin:?})"),
            Out::Barrier(_) => f.write_str("Barrier"),
            Out::Close(_) => f.write_str("Close"),
        }
    }
}

/// The two kinds of output.
enum Output<W> {
    Lines(W),
    Routed(Arc<dyn Route>),
}

impl Sink {
    /// Starts the writer task on `output`, one frame per line; frames pass
    /// through `fault`, if any.
    pub fn spawn<W>(output: W, fault: Option<Arc<FaultLayer>>) -> Sink
    where
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(write_frames(Output::Lines(output), rx, fault));
        Sink { tx }
    }

    /// Starts the writer task handing frames to `route`, after `fault`.
    pub fn spawn_routed(route: Arc<dyn Route>, fault: Option<Arc<FaultLayer>>) -> Sink {
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(write_frames(Output::<tokio::io::Sink>::Routed(route), rx, fault));
        Sink { tx }
    }

    /// Queues one frame; silently dropped once the output is gone.
    pub fn send(&self, frame: Value) {
        let _ = self.tx.send(Out::Frame(frame, current_origin()));
    }

    /// Waits until every frame queued so far has been handed on.
    pub async fn barrier(&self) {
        let (done, passed) = oneshot::channel();
        if self.tx.send(Out::Barrier(done)).is_ok() {
            let _ = passed.await;
        }
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
    mut output: Output<W>,
    mut rx: mpsc::UnboundedReceiver<Out>,
    fault: Option<Arc<FaultLayer>>,
) {
    let mut pending: Vec<Emit> = fault.as_ref().and_then(|f| f.at_start()).into_iter().collect();
    if let Output::Routed(route) = &output {
        pending.drain(..).for_each(|emit| route.deliver(emit, None));
    }
    while let Some(out) = rx.recv().await {
        match out {
            Out::Frame(frame, origin) => {
                match &fault {
                    Some(fault) => pending.extend(fault.outgoing(frame)),
                    None => pending.push(Emit::Frame(frame)),
                }
                for emit in pending.drain(..) {
                    let lines = match &mut output {
                        Output::Routed(route) => {
                            route.deliver(emit, origin);
                            continue;
                        }
                        Output::Lines(lines) => lines,
                    };
                    let mut line = match emit {
                        Emit::Frame(frame) => frame.to_string(),
                        Emit::Raw(text) => text,
                    };
                    line.push('\n');
                    let written = lines.write_all(line.as_bytes()).await;
                    if written.and(lines.flush().await).is_err() {
                        eprintln!("reference server: output closed; dropping further frames");
                        return;
                    }
                }
            }
            Out::Barrier(done) => {
                let _ = done.send(());
            }
            Out::Close(done) => {
                let _ = done.send(());
                return;
            }
        }
    }
}
