//! Requests the server sends to the client (sampling, elicitation, roots):
//! their own id counter, and waiting for the matching response while the
//! rest of the connection keeps being served.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::oneshot;

use super::sink::Sink;
use mcp_conform_core::wire::jsonrpc::{self, RpcError, id_key};

/// How long the server waits for the client to answer one of its requests.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(60);

/// Why a server→client request produced no result.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum OutboundError {
    /// The client answered with a JSON-RPC error.
    Rejected(RpcError),
    /// The input ended before the client answered.
    Disconnected,
    /// No answer within [`ANSWER_TIMEOUT`]; the request was cancelled.
    TimedOut,
}

type Waiter = oneshot::Sender<Result<Value, RpcError>>;

/// Tracks server→client requests awaiting their response.
#[derive(Debug, Default)]
pub(crate) struct Outbound {
    next_id: AtomicU64,
    pending: Mutex<HashMap<String, Waiter>>,
}

/// Cancels a request on the client's side if its waiter is dropped early
/// (the tool call that sent it was cancelled, or it timed out).
struct PendingGuard<'a> {
    outbound: &'a Outbound,
    sink: &'a Sink,
    id: u64,
    settled: bool,
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        if self.settled {
            return;
        }
        let key = id_key(&json!(self.id));
        if self
            .outbound
            .pending
            .lock()
            .expect("outbound lock")
            .remove(&key)
            .is_some()
        {
            let params = json!({ "requestId": self.id, "reason": "the server no longer needs this answer" });
            self.sink
                .send(jsonrpc::notification("notifications/cancelled", params));
        }
    }
}

impl Outbound {
    /// Sends `method` to the client and waits for its answer.
    pub async fn request(&self, sink: &Sink, method: &str, params: Value) -> Result<Value, OutboundError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed) + 1;
        let (waiter, answer) = oneshot::channel();
        self.pending
            .lock()
            .expect("outbound lock")
            .insert(id_key(&json!(id)), waiter);
        let mut guard = PendingGuard {
            outbound: self,
            sink,
            id,
            settled: false,
        };
        sink.send(jsonrpc::request(id, method, params));
        let outcome = tokio::time::timeout(ANSWER_TIMEOUT, answer).await;
        match outcome {
            Err(_elapsed) => Err(OutboundError::TimedOut),
            Ok(received) => {
                guard.settled = true;
                match received {
                    Ok(Ok(result)) => Ok(result),
                    Ok(Err(error)) => Err(OutboundError::Rejected(error)),
                    Err(_closed) => Err(OutboundError::Disconnected),
                }
            }
        }
    }

    /// Hands a client response to its waiter; false when no request has that id.
    pub fn deliver(&self, id: &Value, outcome: Result<Value, RpcError>) -> bool {
        let waiter = self.pending.lock().expect("outbound lock").remove(&id_key(id));
        match waiter {
            Some(waiter) => {
                let _ = waiter.send(outcome);
                true
            }
            None => false,
        }
    }

    /// Fails every pending request: the client can no longer answer.
    pub fn disconnect(&self) {
        self.pending.lock().expect("outbound lock").clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_response_reaches_the_request_with_its_id() {
        let (out, _keep) = tokio::io::duplex(4096);
        let sink = Sink::spawn(out, None);
        let outbound = Outbound::default();
        let ask = outbound.request(&sink, "roots/list", json!({}));
        let answer = async {
            tokio::task::yield_now().await;
            assert!(
                !outbound.deliver(&json!("1"), Ok(json!({}))),
                "string id must not match integer id"
            );
            assert!(outbound.deliver(&json!(1), Ok(json!({"roots": []}))));
        };
        let (result, ()) = tokio::join!(ask, answer);
        assert_eq!(result, Ok(json!({"roots": []})));
    }

    #[tokio::test]
    async fn disconnect_fails_pending_requests() {
        let (out, _keep) = tokio::io::duplex(4096);
        let sink = Sink::spawn(out, None);
        let outbound = Outbound::default();
        let ask = outbound.request(&sink, "roots/list", json!({}));
        let hang_up = async {
            tokio::task::yield_now().await;
            outbound.disconnect();
        };
        let (result, ()) = tokio::join!(ask, hang_up);
        assert_eq!(result, Err(OutboundError::Disconnected));
    }
}
