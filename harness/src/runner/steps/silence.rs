//! How long an `expect_silence` step waits. A window that only guards
//! against a late *response* to what the peer has already read (a
//! notification, a stale response) ends early on an ordered transport: a
//! `ping` sent after the frames in question is answered only once the peer
//! has read them, and on one pipe its answer cannot overtake a response
//! written before it. That holds only while no request of ours is still
//! open: the answer to a request (cancelled or not) comes from work that may
//! still be running, after any ping. Frames a peer may send whenever it
//! likes (change notifications, log messages, its own requests) only the
//! full window samples, so it is kept for them.

use std::time::Duration;

use std::collections::HashSet;

use mcp_conform_core::wire::{Classified, Direction, Frame, RequestId, classify};
use mcp_mock_peers::session::WaitError;
use tokio::time::Instant;

use super::{StepRunner, Wait};
use crate::runner::frames::STRAY_RESPONSE;

/// Waited after the barrier's answer: a server that handles messages
/// concurrently may finish the earlier one just after answering the ping.
const BARRIER_GRACE: Duration = Duration::from_millis(50);

/// Whether a ping round trip proves the silence `forbid` asks for: only
/// responses are forbidden, no request of ours in `transcript` is open, and
/// the transport keeps the peer's frames in the order it wrote them (stdio;
/// over HTTP the ping's answer travels on its own response, which nothing
/// orders against another stream).
pub fn barrier_proves(forbid: &[String], ordered: bool, transcript: &[Frame]) -> bool {
    ordered
        && !forbid.is_empty()
        && forbid.iter().all(|kind| kind == STRAY_RESPONSE)
        && open_requests(transcript).is_empty()
}

/// The ids of our requests in `transcript` the peer has not answered.
fn open_requests(transcript: &[Frame]) -> HashSet<RequestId> {
    let mut open = HashSet::new();
    for frame in transcript {
        note(&classify(&frame.raw), frame.direction, &mut open);
    }
    open
}

fn note(message: &Classified, direction: Direction, open: &mut HashSet<RequestId>) {
    match (message, direction) {
        (Classified::Request { id, .. }, Direction::Sent) => {
            open.insert(id.clone());
        }
        (Classified::Result { id, .. }, Direction::Received) => {
            open.remove(id);
        }
        (Classified::Error { id: Some(id), .. }, Direction::Received) => {
            open.remove(id);
        }
        (Classified::Batch(items), _) => items.iter().for_each(|item| note(item, direction, open)),
        _ => {}
    }
}

impl<'s> StepRunner<'s> {
    /// Serves the peer for the silence window `within`, or until a barrier
    /// proves it (`barrier_proves`); returns how the peer went away, if it did.
    pub(super) async fn wait_out_silence(
        &mut self,
        within: Duration,
        forbid: &[String],
    ) -> Option<WaitError> {
        if !barrier_proves(forbid, self.ordered, self.session.transcript()) {
            return self.idle(within, &[]).await;
        }
        let deadline = Instant::now() + within;
        let Ok(id) = self.session.request(self.liveness_method(), None, None).await else {
            // A peer we cannot write to: the window tells how it went away.
            return self.idle(within, &[]).await;
        };
        match self.wait(Wait::Response(&id), deadline, &[]).await {
            Ok(_) => {
                let left = deadline.saturating_duration_since(Instant::now());
                self.idle(BARRIER_GRACE.min(left), &[]).await
            }
            // A forbidden response came first: the check will name it.
            Err(WaitError::TimedOut | WaitError::Stray(_) | WaitError::Malformed { .. }) => None,
            Err(error) => Some(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use mcp_conform_core::wire::{Direction, Frame};

    use super::barrier_proves;

    fn kinds(kinds: &[&str]) -> Vec<String> {
        kinds.iter().map(|k| (*k).to_owned()).collect()
    }

    fn frame(direction: Direction, text: &str) -> Frame {
        Frame::new(direction, text.as_bytes().to_vec(), Duration::ZERO)
    }

    #[test]
    fn only_a_forbidden_response_on_an_ordered_transport_ends_early() {
        let none = [];
        assert!(barrier_proves(&kinds(&["response"]), true, &none));
        assert!(!barrier_proves(&kinds(&["response"]), false, &none));
        assert!(!barrier_proves(
            &kinds(&["response", "notifications/message"]),
            true,
            &none
        ));
        assert!(!barrier_proves(
            &kinds(&["notifications/tools/list_changed"]),
            true,
            &none
        ));
        assert!(!barrier_proves(&[], true, &none));
    }

    #[test]
    fn an_open_request_of_ours_keeps_the_window() {
        let forbid = kinds(&["response"]);
        let asked = frame(
            Direction::Sent,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call"}"#,
        );
        let answered = frame(Direction::Received, r#"{"jsonrpc":"2.0","id":7,"result":{}}"#);
        let refused = frame(
            Direction::Received,
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"no"}}"#,
        );
        // Their request, not ours: nothing of ours is open.
        let theirs = frame(
            Direction::Received,
            r#"{"jsonrpc":"2.0","id":7,"method":"roots/list"}"#,
        );
        assert!(!barrier_proves(&forbid, true, std::slice::from_ref(&asked)));
        assert!(barrier_proves(&forbid, true, &[asked.clone(), answered]));
        assert!(barrier_proves(&forbid, true, &[asked, refused]));
        assert!(barrier_proves(&forbid, true, &[theirs]));
    }
}
