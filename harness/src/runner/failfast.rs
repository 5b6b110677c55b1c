//! Fail-fast: a peer that is unusable from the start (never answers, exits
//! at once, answers nothing under an id we sent) would cost the startup
//! timeout in every scenario. Once the first cases that reached it all
//! heard nothing usable, the cases not yet started are not run: they get
//! `error` with one shared reason. A case that heard the peer disarms it.
//! A peer that did answer, but with messages that are not JSON-RPC (its
//! cases failed at once, under RPC-001), is not broken infrastructure: the
//! cases not started are then not-observed, and the run's failures stand.
//! A server that accepted the run's first request (the authorization
//! probe) and answered nothing within the startup timeout trips it before
//! any case starts: each would wait that timeout again for its `initialize`.

use std::collections::HashSet;
use std::sync::Mutex;

use mcp_conform_core::Verdict;
use mcp_conform_core::wire::{Classified, Direction, Frame, RequestId, classify, malformed_answer};

use super::outcome::ScenarioOutcome;

/// How many cases must have found the peer unusable, with none hearing it,
/// before the rest are not started.
const UNUSABLE_CASES: usize = 2;

/// Whether the peer said anything usable in `transcript`: a request or a
/// notification of its own, or a response under an id we sent.
pub fn heard(transcript: &[Frame]) -> bool {
    let sent = sent(transcript);
    received(transcript).any(|frame| usable(&classify(&frame.raw), &sent))
}

/// Whether the peer answered a request we sent in `transcript` with a
/// message that is not a JSON-RPC response (see [`malformed_answer`]).
fn answered_malformed(transcript: &[Frame]) -> bool {
    let sent = sent(transcript);
    received(transcript).any(|frame| malformed_answer(&frame.raw).is_some_and(|(id, _)| sent.contains(&id)))
}

fn sent(transcript: &[Frame]) -> HashSet<RequestId> {
    let mut sent = HashSet::new();
    for frame in transcript.iter().filter(|f| f.direction == Direction::Sent) {
        sent_ids(&classify(&frame.raw), &mut sent);
    }
    sent
}

fn received(transcript: &[Frame]) -> impl Iterator<Item = &Frame> {
    transcript.iter().filter(|f| f.direction == Direction::Received)
}

fn sent_ids(message: &Classified, ids: &mut HashSet<RequestId>) {
    match message {
        Classified::Request { id, .. } => {
            ids.insert(id.clone());
        }
        Classified::Batch(items) => items.iter().for_each(|item| sent_ids(item, ids)),
        _ => {}
    }
}

fn usable(message: &Classified, sent: &HashSet<RequestId>) -> bool {
    match message {
        Classified::Request { .. } | Classified::Notification { .. } => true,
        Classified::Result { id, .. } => sent.contains(id),
        Classified::Error { id, .. } => id.as_ref().is_some_and(|id| sent.contains(id)),
        Classified::Batch(items) => items.iter().any(|item| usable(item, sent)),
        Classified::Invalid(_) => false,
    }
}

/// The run's tripwire, shared by the workers.
#[derive(Debug, Default)]
pub struct Tripwire {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// A case heard the peer: the peer is usable, never trip.
    disarmed: bool,
    unusable: usize,
    /// How many of those heard nothing at all (the others heard answers
    /// that are not JSON-RPC).
    silent: usize,
    /// The verdict of the cases not yet started, and why they are not run,
    /// once tripped.
    reason: Option<(Verdict, String)>,
}

impl Tripwire {
    /// Counts a finished case.
    pub fn observe(&self, outcome: &ScenarioOutcome) {
        let Some(heard) = outcome.heard else {
            return;
        };
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if heard {
            state.disarmed = true;
            return;
        }
        // Silence a scenario accepts (a correct peer's) is no sign of trouble.
        if !matches!(outcome.verdict, Verdict::Fail | Verdict::Error) || state.disarmed {
            return;
        }
        state.unusable += 1;
        if !answered_malformed(&outcome.transcript) {
            state.silent += 1;
        }
        if state.unusable >= UNUSABLE_CASES && state.reason.is_none() {
            let why = outcome
                .note
                .clone()
                .or_else(|| outcome.checks.iter().find_map(|c| c.message.clone()))
                .unwrap_or_default();
            let (verdict, what) = match state.silent {
                0 => (
                    Verdict::NotObserved,
                    "answered only with messages that are not JSON-RPC 2.0",
                ),
                _ => (Verdict::Error, "answered nothing usable"),
            };
            state.reason = Some((
                verdict,
                format!(
                    "not run: the peer {what} in the first {UNUSABLE_CASES} scenarios ({}: {why}); --keep-going runs every scenario anyway",
                    outcome.id
                ),
            ));
        }
    }

    /// Whether a case heard the peer: it is usable.
    pub fn disarmed(&self) -> bool {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).disarmed
    }

    /// Trips before any case ran: the peer already proved unusable (`why`).
    pub fn trip(&self, why: &str) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.reason = Some((
            Verdict::Error,
            format!("not run: {why}; --keep-going runs every scenario anyway"),
        ));
    }

    /// The verdict of a case about to start, and why it is not run, once tripped.
    pub fn tripped(&self) -> Option<(Verdict, String)> {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.reason.clone()
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::time::Duration;

    use mcp_conform_core::scenario::load::load_str;

    use super::*;

    fn frame(direction: Direction, raw: &str) -> Frame {
        Frame::new(direction, raw.as_bytes().to_vec(), Duration::ZERO)
    }

    const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#;

    #[test]
    fn only_an_answer_under_an_id_we_sent_or_the_peers_own_message_is_heard() {
        let sent = frame(Direction::Sent, INITIALIZE);
        let answer = |raw| vec![sent.clone(), frame(Direction::Received, raw)];
        assert!(heard(&answer(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#)));
        assert!(heard(&answer(
            r#"{"jsonrpc":"2.0","method":"notifications/message"}"#
        )));
        assert!(!heard(&answer(r#"{"jsonrpc":"2.0","id":"1","result":{}}"#)));
        assert!(!heard(&answer("not json")));
        assert!(!heard(std::slice::from_ref(&sent)));
    }

    fn outcome(id: &str, verdict: Verdict, heard: Option<bool>) -> ScenarioOutcome {
        let text =
            format!("id: {id}\ntitle: t\nrequirements: [RPC-011]\nversions: all\nsteps:\n  - alive: {{}}\n");
        let scenario = load_str(Path::new("s.yaml"), &text).expect("a valid scenario");
        ScenarioOutcome {
            heard,
            ..ScenarioOutcome::unrun(&scenario, verdict, "no answer to initialize".into())
        }
    }

    #[test]
    fn trips_after_two_unusable_cases_and_never_once_the_peer_was_heard() {
        let wire = Tripwire::default();
        wire.observe(&outcome("a", Verdict::Fail, Some(false)));
        // Not reached, or silent where silence is right: no sign either way.
        wire.observe(&outcome("b", Verdict::NotApplicable, None));
        wire.observe(&outcome("c", Verdict::Pass, Some(false)));
        assert_eq!(wire.tripped(), None);
        wire.observe(&outcome("d", Verdict::Error, Some(false)));
        let (verdict, reason) = wire.tripped().expect("tripped");
        assert_eq!(verdict, Verdict::Error);
        assert!(reason.contains("(d: no answer to initialize)"), "{reason}");

        let heard_once = Tripwire::default();
        heard_once.observe(&outcome("a", Verdict::Fail, Some(true)));
        heard_once.observe(&outcome("b", Verdict::Fail, Some(false)));
        heard_once.observe(&outcome("c", Verdict::Fail, Some(false)));
        assert_eq!(heard_once.tripped(), None);
        assert!(heard_once.disarmed() && !wire.disarmed());

        let silent = Tripwire::default();
        silent.trip("it answered nothing");
        let (verdict, reason) = silent.tripped().expect("tripped");
        assert_eq!(verdict, Verdict::Error);
        assert!(reason.starts_with("not run: it answered nothing;"), "{reason}");
    }

    /// A case that failed on an answer to `initialize` without `jsonrpc`.
    fn malformed(id: &str) -> ScenarioOutcome {
        ScenarioOutcome {
            transcript: vec![
                frame(Direction::Sent, INITIALIZE),
                frame(Direction::Received, r#"{"id":1,"result":{}}"#),
            ],
            ..outcome(id, Verdict::Fail, Some(false))
        }
    }

    #[test]
    fn a_peer_answering_only_with_messages_that_are_not_json_rpc_leaves_the_rest_not_observed() {
        let wire = Tripwire::default();
        wire.observe(&malformed("a"));
        assert_eq!(wire.tripped(), None);
        wire.observe(&malformed("b"));
        let (verdict, reason) = wire.tripped().expect("tripped");
        assert_eq!(verdict, Verdict::NotObserved);
        assert!(
            reason.contains("not JSON-RPC 2.0 in the first 2 scenarios (b:"),
            "{reason}"
        );

        // One case that heard nothing at all: the infrastructure may be at fault.
        let mixed = Tripwire::default();
        mixed.observe(&malformed("a"));
        mixed.observe(&outcome("b", Verdict::Error, Some(false)));
        assert_eq!(mixed.tripped().map(|(verdict, _)| verdict), Some(Verdict::Error));
    }
}
