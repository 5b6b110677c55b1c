//! The SSE streams of one HTTP session and the rule that picks a stream for
//! each frame the server sends.
//!
//! Every POST that carries a request gets a stream; stream 0 is the
//! standalone stream a GET opens. A stream keeps a bounded log of its events
//! so that a GET with `Last-Event-ID` can replay what came after that event.
//!
//! Where a frame goes:
//! - a response: to the stream of the POST that carried its request;
//! - `notifications/*/list_changed` and `notifications/resources/updated`
//!   (about the session, not about any request): to the standalone stream
//!   when a GET has it open, else to the request stream it was sent from
//!   while that is connected, else buffered on the standalone stream;
//! - any other notification or server request: to the stream of the request
//!   whose handling sent it (tracked exactly, through the sink's origin, not
//!   guessed), while that stream is unfinished; else to the standalone stream
//!   (buffered until a GET opens it).
//!
//! A request stream ends once the responses to all its requests are sent.
//!
//! The mock server's stateless era (2026-07-28) has no standalone stream
//! and no resumption: it picks each stream itself ([`Router::awaiting`],
//! [`Router::route_on`]) and its events carry no ids.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Mutex;
use std::task::{Context, Poll};

use bytes::Bytes;
use serde_json::Value;
use tokio::sync::mpsc;

use mcp_conform_core::wire::jsonrpc::id_key;

use crate::transport::http::sse;

/// Names a stream of a session (one per POST that carries a request); the
/// server tags each frame it sends with the origin of the message that led
/// to it.
pub(crate) type Origin = u64;

/// The standalone (GET) stream.
pub(crate) const STANDALONE: Origin = 0;

/// Events each stream keeps for replay.
const LOG_LIMIT: usize = 512;

/// Finished request streams kept for replay before the oldest are forgotten.
const FINISHED_KEPT: usize = 64;

/// One SSE event of a stream: a message, or the priming event (no data).
#[derive(Debug, Clone)]
struct Event {
    seq: u64,
    data: Option<String>,
}

#[derive(Debug)]
struct Stream {
    log: VecDeque<Event>,
    next_seq: u64,
    /// The highest sequence number handed to a connection.
    delivered: u64,
    live: Option<mpsc::UnboundedSender<Bytes>>,
    /// Request ids (as [`id_key`]s) still unanswered.
    pending: HashSet<String>,
    finished: bool,
    /// Ended by an error answering no request id (the POST as a whole).
    refused: bool,
}

impl Stream {
    fn new(pending: HashSet<String>) -> Stream {
        Stream {
            log: VecDeque::new(),
            next_seq: 1,
            delivered: 0,
            live: None,
            pending,
            finished: false,
            refused: false,
        }
    }

    fn is_live(&self) -> bool {
        self.live.as_ref().is_some_and(|live| !live.is_closed())
    }

    fn push(&mut self, data: Option<String>) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.log.push_back(Event { seq, data });
        if self.log.len() > LOG_LIMIT {
            self.log.pop_front();
        }
        seq
    }
}

/// How a frame is routed.
enum Kind {
    /// Answers these request ids; `whole` when it ends its stream regardless
    /// (a batch answer, or an error with a null id: `refusal`).
    Response {
        ids: Vec<String>,
        whole: bool,
        refusal: bool,
    },
    /// About the session rather than a request.
    SessionNotice,
    /// A notification or server request about the request being handled.
    Message,
}

fn classify(frame: &Value) -> Kind {
    match frame {
        Value::Array(items) => Kind::Response {
            ids: items
                .iter()
                .filter_map(|item| item.get("id"))
                .map(id_key)
                .collect(),
            whole: true,
            refusal: false,
        },
        Value::Object(members) => match members.get("method").and_then(Value::as_str) {
            Some(method)
                if method.ends_with("/list_changed") || method == "notifications/resources/updated" =>
            {
                Kind::SessionNotice
            }
            Some(_) => Kind::Message,
            None => {
                let id = members.get("id").unwrap_or(&Value::Null);
                Kind::Response {
                    ids: vec![id_key(id)],
                    whole: id.is_null(),
                    refusal: id.is_null(),
                }
            }
        },
        _ => Kind::Message,
    }
}

/// Why a `Last-Event-ID` cannot be resumed.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ResumeError {
    Malformed,
    UnknownStream,
}

/// The streams of one session; the session's sink delivers into it.
#[derive(Debug)]
pub(crate) struct Router {
    /// HTTP+SSE (2024-11-05): one stream for everything, events without ids.
    legacy: bool,
    /// Events carry ids that `Last-Event-ID` can resume from.
    resumable: bool,
    state: Mutex<Streams>,
}

#[derive(Debug)]
struct Streams {
    next_origin: Origin,
    streams: HashMap<Origin, Stream>,
    ended: bool,
}

impl Router {
    pub fn new(legacy: bool) -> Router {
        Router::with(legacy, !legacy)
    }

    /// The streams of the stateless era: request streams only, not resumable.
    pub fn stateless() -> Router {
        Router::with(false, false)
    }

    fn with(legacy: bool, resumable: bool) -> Router {
        let mut streams = HashMap::new();
        streams.insert(STANDALONE, Stream::new(HashSet::new()));
        Router {
            legacy,
            resumable,
            state: Mutex::new(Streams {
                next_origin: STANDALONE + 1,
                streams,
                ended: false,
            }),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, Streams> {
        self.state.lock().expect("router lock")
    }

    /// A new stream for one POST, awaiting responses to `pending` request ids.
    pub fn open(&self, pending: HashSet<String>) -> Origin {
        let mut state = self.state();
        let origin = state.next_origin;
        state.next_origin += 1;
        state.streams.insert(origin, Stream::new(pending));
        let finished: Vec<Origin> = {
            let mut finished: Vec<Origin> = state
                .streams
                .iter()
                .filter(|(o, s)| **o != STANDALONE && s.finished && !s.is_live())
                .map(|(o, _)| *o)
                .collect();
            finished.sort_unstable();
            finished
        };
        if finished.len() > FINISHED_KEPT {
            for old in &finished[..finished.len() - FINISHED_KEPT] {
                state.streams.remove(old);
            }
        }
        origin
    }

    /// Forgets a POST's stream and returns the frames routed to it (for a
    /// POST answered with a plain body rather than a stream).
    pub fn take(&self, origin: Origin) -> Vec<String> {
        let stream = self.state().streams.remove(&origin);
        stream
            .into_iter()
            .flat_map(|s| s.log)
            .filter_map(|event| event.data)
            .collect()
    }

    /// Whether the stream got every response it awaited.
    #[cfg(test)]
    pub fn is_finished(&self, origin: Origin) -> bool {
        self.state().streams.get(&origin).is_none_or(|s| s.finished)
    }

    /// Whether the stream ended with an error about the POST as a whole.
    pub fn is_refused(&self, origin: Origin) -> bool {
        self.state().streams.get(&origin).is_some_and(|s| s.refused)
    }

    /// Whether a connection is reading the standalone stream.
    pub fn standalone_open(&self) -> bool {
        self.state().streams.get(&STANDALONE).is_some_and(Stream::is_live)
    }

    /// Connects a fresh SSE response to `origin`: a priming event first when
    /// `prime`, then whatever was routed there and not yet sent, then live
    /// events. `first` goes out before everything (the legacy endpoint event).
    pub fn connect(&self, origin: Origin, prime: bool, first: Option<Bytes>) -> Option<EventBody> {
        let mut state = self.state();
        let ended = state.ended;
        let stream = state.streams.get_mut(&origin)?;
        let (tx, rx) = mpsc::unbounded_channel();
        if let Some(first) = first {
            let _ = tx.send(first);
        }
        if prime && !self.legacy {
            // Events never sent are renumbered after the priming event, so
            // that resuming from it replays them.
            let unsent: Vec<Event> = stream
                .log
                .iter()
                .filter(|e| e.seq > stream.delivered)
                .cloned()
                .collect();
            stream.log.retain(|e| e.seq <= stream.delivered);
            stream.next_seq = stream.delivered + 1;
            stream.push(None);
            for event in unsent {
                stream.push(event.data);
            }
        }
        for event in stream.log.iter().filter(|e| e.seq > stream.delivered) {
            let _ = tx.send(self.encode(origin, event));
        }
        stream.delivered = stream.next_seq - 1;
        if !stream.finished && !ended {
            stream.live = Some(tx);
        }
        Some(EventBody::new(rx))
    }

    /// Resumes the stream `last_event_id` belongs to: replays the events
    /// after it, then carries on live unless the stream is finished.
    pub fn resume(&self, last_event_id: &str) -> Result<EventBody, ResumeError> {
        let (origin, seq) = parse_event_id(last_event_id).ok_or(ResumeError::Malformed)?;
        let mut state = self.state();
        let ended = state.ended;
        let stream = state.streams.get_mut(&origin).ok_or(ResumeError::UnknownStream)?;
        if seq >= stream.next_seq {
            return Err(ResumeError::Malformed);
        }
        let (tx, rx) = mpsc::unbounded_channel();
        for event in stream.log.iter().filter(|e| e.seq > seq) {
            let _ = tx.send(self.encode(origin, event));
        }
        stream.delivered = stream.next_seq - 1;
        stream.live = (!stream.finished && !ended).then_some(tx);
        Ok(EventBody::new(rx))
    }

    /// The client cancelled request `id`: no response will come, so its
    /// stream ends once nothing else is awaited on it.
    pub fn cancel(&self, id: &str) {
        let mut state = self.state();
        let awaiting = state
            .streams
            .values_mut()
            .find(|s| !s.finished && s.pending.contains(id));
        if let Some(stream) = awaiting {
            stream.pending.remove(id);
            if stream.pending.is_empty() {
                stream.finished = true;
                stream.live = None;
            }
        }
    }

    /// The client stopped reading stream `origin`: the requests it still
    /// awaited are given up (2026-07-28: the client cancelled them), and
    /// their ids returned. None once the session is over (its end closed
    /// the stream).
    pub fn abandon(&self, origin: Origin) -> Vec<String> {
        let mut state = self.state();
        if state.ended {
            return Vec::new();
        }
        match state.streams.get_mut(&origin) {
            Some(stream) if !stream.finished => {
                stream.finished = true;
                stream.live = None;
                let mut ids: Vec<String> = stream.pending.drain().collect();
                ids.sort_unstable();
                ids
            }
            _ => Vec::new(),
        }
    }

    /// The unfinished request stream awaiting the response to request `id`.
    pub fn awaiting(&self, id: &str) -> Option<Origin> {
        self.state()
            .streams
            .iter()
            .find(|(o, s)| **o != STANDALONE && !s.finished && s.pending.contains(id))
            .map(|(o, _)| *o)
    }

    /// The session is over: every stream ends.
    pub fn end(&self) {
        let mut state = self.state();
        state.ended = true;
        for stream in state.streams.values_mut() {
            stream.live = None;
        }
    }

    fn encode(&self, origin: Origin, event: &Event) -> Bytes {
        let id = self.event_id(origin, event.seq);
        Bytes::from(sse::encode(id.as_deref(), event.data.as_deref()))
    }

    fn target(&self, state: &Streams, kind: &Kind, origin: Option<Origin>) -> Origin {
        if self.legacy {
            return STANDALONE;
        }
        let request_stream = origin
            .filter(|o| *o != STANDALONE)
            .filter(|o| state.streams.get(o).is_some_and(|s| !s.finished));
        match kind {
            Kind::Response { ids, .. } => state
                .streams
                .iter()
                .find(|(o, s)| {
                    **o != STANDALONE && !s.finished && ids.iter().any(|id| s.pending.contains(id))
                })
                .map(|(o, _)| *o)
                .or(request_stream)
                .unwrap_or(STANDALONE),
            Kind::SessionNotice => {
                let standalone_open = state.streams.get(&STANDALONE).is_some_and(Stream::is_live);
                match request_stream {
                    Some(o) if !standalone_open && state.streams[&o].is_live() => o,
                    _ => STANDALONE,
                }
            }
            Kind::Message => request_stream.unwrap_or(STANDALONE),
        }
    }

    /// Puts one frame (`message`: the frame as JSON, when it is JSON) sent
    /// from `origin` on its stream; returns the stream and the event's
    /// sequence number there, unless the stream is gone.
    pub fn route(
        &self,
        data: String,
        message: Option<&Value>,
        origin: Option<Origin>,
    ) -> Option<(Origin, u64)> {
        let kind = message.map_or(Kind::Message, classify);
        let mut state = self.state.lock().expect("router lock");
        let target = self.target(&state, &kind, origin);
        let stream = state.streams.get_mut(&target)?;
        let seq = self.put(stream, target, data);
        if let (Kind::Response { ids, whole, refusal }, true) = (&kind, target != STANDALONE) {
            ids.iter().for_each(|id| {
                stream.pending.remove(id);
            });
            if *whole || stream.pending.is_empty() {
                stream.refused |= *refusal && !stream.finished;
                stream.finished = true;
                stream.live = None;
            }
        }
        Some((target, seq))
    }

    /// Puts a notification on request stream `origin` itself, whatever it
    /// is about; returns its sequence number there, unless that stream has
    /// finished.
    pub fn route_on(&self, origin: Origin, data: String) -> Option<u64> {
        let mut state = self.state();
        let stream = state.streams.get_mut(&origin).filter(|s| !s.finished)?;
        Some(self.put(stream, origin, data))
    }

    /// Logs one event on `stream` and sends it to its reader, if any.
    fn put(&self, stream: &mut Stream, origin: Origin, data: String) -> u64 {
        let seq = stream.push(Some(data));
        if let Some(live) = &stream.live {
            let event = stream.log.back().expect("just pushed").clone();
            if live.send(self.encode(origin, &event)).is_ok() {
                stream.delivered = seq;
            } else {
                stream.live = None;
            }
        }
        seq
    }

    /// The SSE event id of event `seq` on stream `origin` (none on HTTP+SSE
    /// nor in the stateless era).
    pub fn event_id(&self, origin: Origin, seq: u64) -> Option<String> {
        self.resumable.then(|| format!("{origin}-{seq}"))
    }

    /// The newest request stream a connection is still reading, awaiting
    /// responses.
    pub fn live_request_stream(&self) -> Option<Origin> {
        self.state()
            .streams
            .iter()
            .filter(|(o, s)| **o != STANDALONE && !s.finished && s.is_live())
            .map(|(o, _)| *o)
            .max()
    }
}

fn parse_event_id(id: &str) -> Option<(Origin, u64)> {
    let (origin, seq) = id.trim().split_once('-')?;
    Some((origin.parse().ok()?, seq.parse().ok()?))
}

/// An SSE response body fed by a stream's connection.
pub(crate) struct EventBody {
    rx: mpsc::UnboundedReceiver<Bytes>,
    on_drop: Option<Box<dyn FnOnce() + Send>>,
}

impl std::fmt::Debug for EventBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventBody").finish_non_exhaustive()
    }
}

impl EventBody {
    fn new(rx: mpsc::UnboundedReceiver<Bytes>) -> EventBody {
        EventBody { rx, on_drop: None }
    }

    /// A body fed by `rx` (for rewritten or relayed streams).
    pub(crate) fn from_channel(rx: mpsc::UnboundedReceiver<Bytes>) -> EventBody {
        EventBody::new(rx)
    }

    /// The next chunk of the stream; `None` once it ended.
    pub(super) fn poll_chunk(&mut self, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
        self.rx.poll_recv(cx)
    }

    /// Runs `cleanup` once the client stops reading (or the stream ends).
    pub fn on_drop(mut self, cleanup: impl FnOnce() + Send + 'static) -> EventBody {
        self.on_drop = Some(Box::new(cleanup));
        self
    }
}

impl Drop for EventBody {
    fn drop(&mut self) {
        if let Some(cleanup) = self.on_drop.take() {
            cleanup();
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn send(router: &Router, frame: Value, origin: Origin) {
        router.route(frame.to_string(), Some(&frame), Some(origin));
    }

    fn drain(body: &mut EventBody) -> String {
        let mut text = String::new();
        while let Ok(chunk) = body.rx.try_recv() {
            text.push_str(std::str::from_utf8(&chunk).unwrap());
        }
        text
    }

    #[test]
    fn responses_end_their_stream_and_strays_go_to_the_standalone_stream() {
        let router = Router::new(false);
        let post = router.open(HashSet::from([id_key(&json!(1))]));
        send(
            &router,
            json!({"jsonrpc": "2.0", "method": "notifications/progress"}),
            post,
        );
        let mut body = router.connect(post, true, None).unwrap();
        send(&router, json!({"jsonrpc": "2.0", "id": 1, "result": {}}), post);
        assert!(router.is_finished(post));
        let text = drain(&mut body);
        // The unsent notification is renumbered after the priming event.
        assert!(text.starts_with(&format!("id: {post}-1\ndata:\n\n")), "{text}");
        assert!(text.contains("notifications/progress"));
        assert!(text.contains(&format!("id: {post}-3\nevent: message\ndata: {{\"jsonrpc\"")));
        send(
            &router,
            json!({"jsonrpc": "2.0", "method": "notifications/message"}),
            post,
        );
        let mut get = router.connect(STANDALONE, false, None).unwrap();
        assert!(drain(&mut get).contains("notifications/message"));
    }

    #[test]
    fn stateless_streams_are_picked_by_request_and_abandoning_one_gives_up_its_requests() {
        let router = Router::stateless();
        let listen = router.open(HashSet::from([id_key(&json!("L"))]));
        let call = router.open(HashSet::from([id_key(&json!(7))]));
        let mut body = router.connect(listen, false, None).unwrap();
        assert_eq!(router.awaiting(&id_key(&json!("L"))), Some(listen));
        let seq = router.route_on(listen, r#"{"method":"notifications/tools/list_changed"}"#.into());
        assert_eq!(router.event_id(listen, seq.unwrap()), None);
        assert!(drain(&mut body).starts_with("event: message\ndata: {"));
        assert_eq!(router.abandon(call), [id_key(&json!(7))]);
        assert_eq!(router.awaiting(&id_key(&json!(7))), None);
        assert_eq!(router.route_on(call, "{}".into()), None);
        assert!(router.abandon(call).is_empty(), "given up once");
        router.end();
        assert!(
            router.abandon(listen).is_empty(),
            "the end of the session cancels nothing"
        );
    }

    #[test]
    fn resumption_replays_only_later_events_of_that_stream() {
        let router = Router::new(false);
        let post = router.open(HashSet::from([id_key(&json!("a"))]));
        let _first = router.connect(post, true, None).unwrap();
        for n in 0..3 {
            send(
                &router,
                json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"n": n}}),
                post,
            );
        }
        let mut resumed = router.resume(&format!("{post}-2")).unwrap();
        let text = drain(&mut resumed);
        assert!(
            !text.contains("\"n\":0") && text.contains("\"n\":1") && text.contains("\"n\":2"),
            "{text}"
        );
        assert_eq!(router.resume("99-1").err(), Some(ResumeError::UnknownStream));
        assert_eq!(router.resume("nonsense").err(), Some(ResumeError::Malformed));
    }
}
