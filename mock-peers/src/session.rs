//! The mock session: the engine's end of one connection, as mock client
//! or (see [`serving`]) as mock server.
//!
//! It numbers our requests, records every frame in both directions in the
//! transcript, keeps what the peer sent until the runner asks for it, and
//! answers the peer's own requests through a [`RequestHandler`] (the scripted
//! answers of a scenario). It judges nothing: the runner and the protocol
//! checker read the transcript.
//!
//! In the stateless era ([`MockSession::speak_stateless`]) the same
//! answers travel differently: the input requests of an input-required
//! result are offered to the handler like the peer's own requests, and the
//! session retries the request with the answers (see [`stateless`]). As the
//! mock server of that era ([`MockSession::serve_stateless`]) our requests
//! travel inside results instead (see [`serving`]).

mod budget;
mod serving;
mod stateless;

use std::collections::HashSet;
use std::time::Duration;

use mcp_conform_core::protocol::{input_requests, is_input_required};
use mcp_conform_core::scenario::model::Reply;
use mcp_conform_core::wire::jsonrpc::{self, RpcError};
use mcp_conform_core::wire::{Classified, Frame, Invalid, RequestId, classify, malformed_answer};
use serde_json::{Map, Value, json};
use tokio::time::Instant;

pub use self::serving::{AskFate, ServerFacts};
pub use self::stateless::{Envelope, RetryFault};
use mcp_conform_core::evidence::http::HttpClientRecord;

use crate::transport::{HttpIncident, PeerExit, SessionFacts, Transport, TransportError, TransportEvent};

/// A request the peer sent us: on stateful versions a JSON-RPC request; on
/// stateless ones an input request of an input-required result, whose `id`
/// is its key in `inputRequests`.
#[derive(Debug, Clone, PartialEq)]
pub struct PeerRequest {
    pub id: RequestId,
    pub method: String,
    pub params: Option<Value>,
    /// Index of its frame in the transcript.
    pub index: usize,
}

/// A parsed message the peer sent (a response or a notification).
#[derive(Debug, Clone, PartialEq)]
pub struct Received {
    /// Index of its frame in the transcript.
    pub index: usize,
    pub message: Value,
}

impl Received {
    /// The method of a notification.
    pub fn method(&self) -> Option<&str> {
        self.message.get("method").and_then(Value::as_str)
    }
}

/// Decides how to answer each request the peer sends.
pub trait RequestHandler {
    fn answer(&mut self, request: &PeerRequest) -> Reply;
}

/// Answers pings and refuses everything else: for moments when no scenario
/// script is active.
#[derive(Debug, Default)]
pub struct DefaultHandler;

impl RequestHandler for DefaultHandler {
    fn answer(&mut self, request: &PeerRequest) -> Reply {
        default_reply(&request.method)
    }
}

/// The reply a well-behaved client gives when nothing is scripted: an empty
/// result to `ping`, "method not found" otherwise.
pub fn default_reply(method: &str) -> Reply {
    if method == "ping" {
        Reply::Result(json!({}))
    } else {
        Reply::Error {
            code: -32601,
            message: format!("mcp-conform has no scripted answer for {method}"),
            data: None,
        }
    }
}

/// Why a wait ended without what it waited for.
#[derive(Debug, Clone, PartialEq)]
pub enum WaitError {
    /// The deadline passed.
    TimedOut,
    /// The peer went away.
    Closed(PeerExit),
    /// The transport could not carry the exchange: we could not write to
    /// the peer, or (HTTP) the server rejected the request or cut its stream
    /// before the response.
    Transport(String),
    /// A response came with an id we never sent (`"1"` for `1`, say): the
    /// response waited for will not come under the id asked for.
    Stray(Received),
    /// The answer under the id waited for is no valid JSON-RPC response
    /// (`invalid` says why): it came, and will not come again.
    Malformed { answer: Received, invalid: Invalid },
}

/// How long a flooding peer gets to stop once we close its input.
const FLOOD_GRACE: Duration = Duration::from_millis(200);
/// Frames already arrived that a shutdown still files, at most (a peer
/// still writing is not waited for).
const ARRIVED_AT_SHUTDOWN: usize = 64;

/// One connection to the peer under test, from the client side.
#[derive(Debug)]
pub struct MockSession {
    transport: Transport,
    transcript: Vec<Frame>,
    next_id: i64,
    /// Every request id we used, to tell a stray response from a late one.
    sent_ids: HashSet<RequestId>,
    responses: Vec<(Option<RequestId>, Received)>,
    /// Answers under ids we sent that are no valid JSON-RPC responses.
    malformed: Vec<(RequestId, Received, Invalid)>,
    notifications: Vec<Received>,
    peer_requests: Vec<PeerRequest>,
    closed: Option<PeerExit>,
    /// Every HTTP incident, in order.
    incidents: Vec<HttpIncident>,
    /// Incidents no wait has taken yet.
    unclaimed: Vec<HttpIncident>,
    /// Stateless era: the envelope every request carries.
    envelope: Option<Envelope>,
    /// Stateless era: our requests in flight and their retries.
    rounds: stateless::Rounds,
    /// As the mock server of the stateless era: what it asks and serves.
    serving: Option<serving::Serving>,
    /// What the peer may still send before we call it a flood.
    received: budget::Budget,
}

impl MockSession {
    pub fn new(transport: impl Into<Transport>) -> Self {
        MockSession {
            transport: transport.into(),
            transcript: Vec::new(),
            next_id: 1,
            sent_ids: HashSet::new(),
            responses: Vec::new(),
            malformed: Vec::new(),
            notifications: Vec::new(),
            peer_requests: Vec::new(),
            closed: None,
            incidents: Vec::new(),
            unclaimed: Vec::new(),
            envelope: None,
            rounds: stateless::Rounds::default(),
            serving: None,
            received: budget::Budget::default(),
        }
    }

    /// As the mock server, serves the stateless era from now on: our
    /// requests go out inside results, notifications to listen streams.
    pub fn serve_stateless(&mut self, facts: ServerFacts) {
        self.transport.serve_stateless();
        self.serving = Some(serving::Serving::new(facts));
    }

    /// As the mock server of the stateless era: whether the scenario still
    /// has something to ask (requests that could carry it are held till then).
    pub fn expect_asks(&mut self, expecting: bool) {
        if let Some(serving) = &mut self.serving {
            serving.expect_asks(expecting);
        }
    }

    /// As the mock server of the stateless era: how our request `id` fared
    /// when it did not come back answered.
    pub fn ask_fate(&self, id: &Value) -> Option<AskFate> {
        let id = RequestId::from_value(id)?;
        self.serving.as_ref()?.fate(&id)
    }

    /// Speaks the stateless era from now on: every request carries
    /// `envelope` in its `_meta`, and input-required results are retried.
    pub fn speak_stateless(&mut self, envelope: Envelope) {
        self.envelope = Some(envelope);
    }

    /// The envelope of a stateless session.
    pub fn envelope(&self) -> Option<&Envelope> {
        self.envelope.as_ref()
    }

    /// The id that now carries the request first sent as `id` (its last
    /// retry, in the stateless era).
    pub fn current_id(&self, id: &Value) -> Value {
        RequestId::from_value(id).map_or_else(|| id.clone(), |id| self.rounds.latest(&id).to_value())
    }

    /// Every frame so far, both directions, in order.
    pub fn transcript(&self) -> &[Frame] {
        &self.transcript
    }

    /// Every notification the peer sent so far, in order.
    pub fn notifications(&self) -> &[Received] {
        &self.notifications
    }

    /// Every request the peer sent so far, in order.
    pub fn peer_requests(&self) -> &[PeerRequest] {
        &self.peer_requests
    }

    /// How the peer went away, once it has.
    pub fn closed(&self) -> Option<&PeerExit> {
        self.closed.as_ref()
    }

    /// Whether we ended the peer for flooding the session (it did not leave).
    pub fn flooded(&self) -> bool {
        self.received.exceeded()
    }

    /// Whether the peer has sent more than half of what one session takes.
    pub fn budget_half_spent(&self) -> bool {
        self.received.half_spent()
    }

    /// What the HTTP transport saw besides messages (rejections, cut
    /// streams), in order.
    pub fn incidents(&self) -> &[HttpIncident] {
        &self.incidents
    }

    /// HTTP only: what a raw exchange within the session needs.
    pub fn http_facts(&self) -> Option<SessionFacts> {
        self.transport.http_facts()
    }

    /// As the HTTP server of a client under test: what the client did.
    pub fn http_client_record(&self) -> Option<HttpClientRecord> {
        self.transport.http_client_record()
    }

    /// HTTP only: the bearer token of every later request.
    pub fn set_bearer(&self, token: &str) -> Result<(), TransportError> {
        self.transport.set_bearer(token)
    }

    /// The tail of the peer's stderr.
    pub fn stderr_tail(&self) -> String {
        self.transport.stderr_tail()
    }

    /// A fresh request id.
    pub fn next_id(&mut self) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        Value::from(id)
    }

    /// Sends a JSON message; returns its transcript index.
    pub async fn send(&mut self, message: &Value) -> Result<usize, TransportError> {
        let raw = serde_json::to_vec(message).unwrap_or_default();
        self.send_raw(&raw).await
    }

    /// Sends bytes exactly as given; returns their transcript index.
    pub async fn send_raw(&mut self, raw: &[u8]) -> Result<usize, TransportError> {
        self.note_sent_ids(&classify(raw));
        let frame = self.transport.send(raw).await?;
        self.transcript.push(frame);
        Ok(self.transcript.len() - 1)
    }

    /// Files a message a raw HTTP exchange sent within this session (on
    /// HTTP+SSE its answer arrives on the session's stream), so that the
    /// answer is known for what it answers, not taken for a stray.
    pub fn note_raw_post(&mut self, raw: &[u8]) {
        if let Some(frame) = self.transport.raw_post_frame(raw) {
            self.note_sent_ids(&classify(raw));
            self.transcript.push(frame);
        }
    }

    /// Sends a request with `id` (or the next id); returns the id used.
    pub async fn request(
        &mut self,
        method: &str,
        params: Option<Value>,
        id: Option<Value>,
    ) -> Result<Value, TransportError> {
        let id = id.unwrap_or_else(|| self.next_id());
        self.sent_ids.extend(RequestId::from_value(&id));
        if let Some(serving) = self.serving.as_mut().filter(|s| s.asks_inside_results(method)) {
            let carried = RequestId::from_value(&id).and_then(|rid| serving.ask(rid, method, params));
            if let Some((carrier, result)) = carried {
                self.send(&jsonrpc::response(&carrier.to_value(), Ok(result)))
                    .await?;
            }
            return Ok(id);
        }
        // `initialize` opens a legacy session: sent as a legacy client would
        // (a dual-era client falling back), without the envelope.
        let params = match self.envelope.as_ref().filter(|_| method != "initialize") {
            Some(envelope) => {
                let params = envelope.apply(params);
                self.rounds.sent(&id, method, &params);
                Some(params)
            }
            None => params,
        };
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if let Some(params) = params {
            message["params"] = params;
        }
        self.send(&message).await?;
        Ok(id)
    }

    /// Stateless era: the next retry of request `id` echoes an altered
    /// `requestState`, and its answer is the last (MRTR-005).
    pub fn tamper_next_retry(&mut self, id: &Value) {
        if let Some(id) = RequestId::from_value(id) {
            self.rounds.tamper(&id);
        }
    }

    /// Stateless era: the first retry of every request sent from now on
    /// breaks MRTR-006 as `fault` says (a broken client, on purpose).
    pub fn break_retries(&mut self, fault: RetryFault) {
        self.rounds.break_retries(fault);
    }

    /// Whether request `id` was to have its `requestState` altered.
    pub fn tamper_requested(&self, id: &Value) -> bool {
        RequestId::from_value(id).is_some_and(|id| self.rounds.tamper_requested(&id))
    }

    /// Whether a retry of request `id` echoed an altered `requestState`.
    pub fn was_tampered(&self, id: &Value) -> bool {
        RequestId::from_value(id).is_some_and(|id| self.rounds.was_tampered(&id))
    }

    /// Cancels a request of ours: `notifications/cancelled` for its current
    /// id, or in the stateless era over HTTP, closing its response stream.
    pub async fn cancel(&mut self, id: &Value, reason: Option<&str>) -> Result<(), TransportError> {
        let current = self.current_id(id);
        let closed = self.envelope.is_some()
            && RequestId::from_value(&current).is_some_and(|id| self.transport.cancel_request(&id));
        if closed {
            return Ok(());
        }
        let mut params = json!({"requestId": current});
        if let Some(reason) = reason {
            params["reason"] = json!(reason);
        }
        self.notify("notifications/cancelled", Some(params))
            .await
            .map(|_| ())
    }

    /// Sends a notification; as the mock server of the stateless era, a
    /// change notification goes to each listen stream that asked for it
    /// (returns the last one's index).
    pub async fn notify(&mut self, method: &str, params: Option<Value>) -> Result<usize, TransportError> {
        let mut message = json!({"jsonrpc": "2.0", "method": method});
        if let Some(params) = params {
            message["params"] = params;
        }
        let Some(serving) = &self.serving else {
            return self.send(&message).await;
        };
        let mut sent = None;
        for copy in serving.outgoing(message).map_err(TransportError::Undeliverable)? {
            sent = Some(self.send(&copy).await?);
        }
        sent.ok_or_else(|| TransportError::Undeliverable(format!("{method} had nowhere to go")))
    }

    /// Waits for the response to the request with this id.
    pub async fn wait_response(
        &mut self,
        id: &Value,
        deadline: Instant,
        handler: &mut dyn RequestHandler,
    ) -> Result<Received, WaitError> {
        let first = RequestId::from_value(id);
        self.wait_for(deadline, handler, |s| {
            // A retry carries the request on under a new id.
            let wanted = first.as_ref().map(|id| s.rounds.latest(id));
            if let Some(pos) = s
                .responses
                .iter()
                .position(|(rid, _)| rid.is_some() && *rid == wanted)
            {
                return Some(Ok(s.responses.remove(pos).1));
            }
            if let Some(stray) = s.take_stray() {
                return Some(Err(WaitError::Stray(stray)));
            }
            let wanted = wanted.as_ref()?;
            if let Some(pos) = s.malformed.iter().position(|(id, ..)| id == wanted) {
                let (_, answer, invalid) = s.malformed.remove(pos);
                return Some(Err(WaitError::Malformed { answer, invalid }));
            }
            s.claim(|i| i.unanswered.contains(wanted)).map(Err)
        })
        .await?
    }

    /// The response to our request `id` (or to its latest retry), if it
    /// has arrived and no wait has taken it yet.
    pub fn response_to(&self, id: &Value) -> Option<&Received> {
        let wanted = RequestId::from_value(&self.current_id(id));
        self.responses
            .iter()
            .find(|(rid, _)| rid.is_some() && *rid == wanted)
            .map(|(_, received)| received)
    }

    /// Remembers the ids of the requests in an outgoing message.
    fn note_sent_ids(&mut self, sent: &Classified) {
        match sent {
            Classified::Request { id, .. } => {
                self.sent_ids.insert(id.clone());
            }
            Classified::Batch(items) => items.iter().for_each(|item| self.note_sent_ids(item)),
            _ => {}
        }
    }

    /// Takes the first response whose id we never sent.
    fn take_stray(&mut self) -> Option<Received> {
        let pos = self
            .responses
            .iter()
            .position(|(rid, _)| rid.as_ref().is_some_and(|rid| !self.sent_ids.contains(rid)))?;
        Some(self.responses.remove(pos).1)
    }

    /// Takes the first unclaimed incident that `ends` a wait, as its error.
    fn claim(&mut self, ends: impl Fn(&HttpIncident) -> bool) -> Option<WaitError> {
        let pos = self.unclaimed.iter().position(ends)?;
        Some(WaitError::Transport(self.unclaimed.remove(pos).description))
    }

    /// Waits for the next response with any id (or none), for raw input.
    pub async fn wait_any_response(
        &mut self,
        deadline: Instant,
        handler: &mut dyn RequestHandler,
    ) -> Result<Received, WaitError> {
        self.wait_for(deadline, handler, |s| {
            if !s.responses.is_empty() {
                return Some(Ok(s.responses.remove(0).1));
            }
            s.claim(|i| i.post_failed || !i.unanswered.is_empty()).map(Err)
        })
        .await?
    }

    /// Waits until the notification log has more than `seen` entries.
    pub async fn wait_notification(
        &mut self,
        seen: usize,
        deadline: Instant,
        handler: &mut dyn RequestHandler,
    ) -> Result<Received, WaitError> {
        self.wait_for(deadline, handler, |s| s.notifications.get(seen).cloned())
            .await
    }

    /// Waits until the peer-request log has more than `seen` entries.
    pub async fn wait_peer_request(
        &mut self,
        seen: usize,
        deadline: Instant,
        handler: &mut dyn RequestHandler,
    ) -> Result<PeerRequest, WaitError> {
        self.wait_for(deadline, handler, |s| s.peer_requests.get(seen).cloned())
            .await
    }

    /// Waits until `done` holds of the session (checked before each frame
    /// is read), serving the peer meanwhile.
    pub async fn wait_until(
        &mut self,
        deadline: Instant,
        handler: &mut dyn RequestHandler,
        done: impl Fn(&Self) -> bool,
    ) -> Result<(), WaitError> {
        self.wait_for(deadline, handler, |s| done(s).then_some(())).await
    }

    /// Keeps serving the peer until the deadline, collecting what it sends.
    /// Ends early (with the exit) if the peer goes away.
    pub async fn idle_until(
        &mut self,
        deadline: Instant,
        handler: &mut dyn RequestHandler,
    ) -> Option<PeerExit> {
        match self.wait_for(deadline, handler, |_| None::<()>).await {
            Err(WaitError::Closed(exit)) => Some(exit),
            _ => None,
        }
    }

    /// Ends the session the transport's way (stdio: closes the peer's
    /// stdin) and waits up to `within` for the peer to go.
    pub async fn close_and_wait(&mut self, within: Duration) -> PeerExit {
        self.transport.close();
        let deadline = Instant::now() + within;
        match self.idle_until(deadline, &mut DefaultHandler).await {
            Some(exit) => exit,
            None => self.transport.wait_exit(Duration::ZERO).await,
        }
    }

    /// Ends the connection for good (close, grace period, kill the group).
    /// What already arrived is filed first: a frame the peer sent right
    /// after the last one a step awaited (a duplicated response, say) is
    /// judged like the others.
    pub async fn shutdown(&mut self, grace: Duration) -> PeerExit {
        let mut left = ARRIVED_AT_SHUTDOWN;
        // The reader task gets its turn to hand over what it has read; then
        // a deadline already past takes only what is ready (the wait polls
        // the transport before its timer), never waiting for more.
        tokio::task::yield_now().await;
        let _ = self
            .wait_for(Instant::now(), &mut DefaultHandler, |_| {
                left -= 1;
                (left == 0).then_some(())
            })
            .await;
        let exit = self.transport.shutdown(grace).await;
        self.closed.get_or_insert(exit).clone()
    }

    async fn wait_for<T>(
        &mut self,
        deadline: Instant,
        handler: &mut dyn RequestHandler,
        mut found: impl FnMut(&mut Self) -> Option<T>,
    ) -> Result<T, WaitError> {
        loop {
            self.release_held(handler).await?;
            if let Some(item) = found(self) {
                return Ok(item);
            }
            if let Some(exit) = &self.closed {
                return Err(WaitError::Closed(exit.clone()));
            }
            let event = match tokio::time::timeout_at(deadline, self.transport.recv()).await {
                Err(_) => return Err(WaitError::TimedOut),
                Ok(None) => {
                    let exit = self.closed.clone().unwrap_or_else(|| PeerExit {
                        code: None,
                        signal: None,
                        description: "connection closed".into(),
                    });
                    self.closed = Some(exit.clone());
                    return Err(WaitError::Closed(exit));
                }
                Ok(Some(event)) => event,
            };
            match event {
                TransportEvent::Closed(exit) => self.closed = Some(exit),
                TransportEvent::Frame(frame) => match self.received.take(&frame) {
                    // Answering the peer can block when it reads none of
                    // our answers (a request flood); the wait's deadline holds.
                    None => tokio::time::timeout_at(deadline, self.accept(frame, handler))
                        .await
                        .map_err(|_| WaitError::TimedOut)??,
                    Some(flood) => {
                        self.transport.shutdown(FLOOD_GRACE).await;
                        self.closed = Some(flood.clone());
                        return Err(WaitError::Closed(flood));
                    }
                },
                TransportEvent::Http(incident) => {
                    self.incidents.push(incident.clone());
                    self.unclaimed.push(incident);
                }
            }
        }
    }

    /// Files a received frame and answers it if it is a request.
    async fn accept(&mut self, frame: Frame, handler: &mut dyn RequestHandler) -> Result<(), WaitError> {
        let classified = classify(&frame.raw);
        let message: Option<Value> = serde_json::from_slice(&frame.raw).ok();
        self.transcript.push(frame);
        let index = self.transcript.len() - 1;
        let received = |message: Option<Value>| Received {
            index,
            message: message.unwrap_or(Value::Null),
        };
        match classified {
            Classified::Result { ref id, ref result }
                if self.envelope.is_some() && is_input_required(result) && self.rounds.is_ours(id) =>
            {
                if !self.answer_input(id, result, index, handler).await? {
                    self.responses.push((Some(id.clone()), received(message)));
                }
            }
            Classified::Result { ref id, .. } => self.responses.push((Some(id.clone()), received(message))),
            Classified::Error { ref id, .. } => self.responses.push((id.clone(), received(message))),
            Classified::Notification {
                ref method,
                ref params,
            } => {
                if let Some(serving) = &mut self.serving {
                    serving.client_notification(method, params.as_ref());
                }
                self.notifications.push(received(message));
            }
            Classified::Request { id, method, params } => {
                let request = PeerRequest {
                    id,
                    method,
                    params,
                    index,
                };
                self.peer_requests.push(request.clone());
                if self.serving.is_some() {
                    return self.serve(&request, handler).await;
                }
                let reply = handler.answer(&request);
                self.answer(&request.id, reply).await?;
            }
            // Batches and invalid frames stay in the transcript for the
            // checker; an invalid answer to our request also ends its wait.
            Classified::Invalid(_) => {
                if let Some((id, invalid)) = malformed_answer(&self.transcript[index].raw)
                    && self.sent_ids.contains(&id)
                {
                    self.malformed.push((id, received(message), invalid));
                }
            }
            Classified::Batch(_) => {}
        }
        Ok(())
    }

    /// As the mock server of the stateless era: takes the input responses a
    /// request of the client brings, then answers it (or holds it).
    async fn serve(
        &mut self,
        request: &PeerRequest,
        handler: &mut dyn RequestHandler,
    ) -> Result<(), WaitError> {
        let Some(serving) = &mut self.serving else {
            return Ok(());
        };
        for (id, result) in serving.harvest(request) {
            let message = jsonrpc::response(&id.to_value(), Ok(result));
            let received = Received {
                index: request.index,
                message,
            };
            self.responses.push((Some(id), received));
        }
        match serving.decide(request) {
            serving::Decision::Answer(reply) => self.answer(&request.id, reply).await,
            serving::Decision::Hold => Ok(()),
            serving::Decision::Listen(acknowledgement) => self
                .send(&acknowledgement)
                .await
                .map(|_| ())
                .map_err(|e| WaitError::Transport(e.to_string())),
            serving::Decision::Script => self.script(request, handler).await,
        }
    }

    /// Answers a request of the client's from the scenario's script, as a
    /// server of the stateless era stamps its results.
    async fn script(
        &mut self,
        request: &PeerRequest,
        handler: &mut dyn RequestHandler,
    ) -> Result<(), WaitError> {
        let reply = handler.answer(request);
        let reply = match &self.serving {
            Some(serving) => serving.stamp_reply(&request.method, reply),
            None => reply,
        };
        self.answer(&request.id, reply).await
    }

    /// Answers from the script the requests held for an ask that will not
    /// come (the scenario has nothing more to ask).
    async fn release_held(&mut self, handler: &mut dyn RequestHandler) -> Result<(), WaitError> {
        let held = self
            .serving
            .as_mut()
            .map(serving::Serving::release)
            .unwrap_or_default();
        for request in held {
            self.script(&request, handler).await?;
        }
        Ok(())
    }

    /// Answers the input requests of an input-required result (the frame
    /// at `index`) through `handler`, and retries request `id` with them.
    /// Returns `false` when the client gives up instead: an answer says not
    /// to reply, or the rounds are used up; the result is then the answer.
    /// An answer that is an error leaves its input out of the retry (an
    /// input response cannot be an error).
    async fn answer_input(
        &mut self,
        id: &RequestId,
        result: &Value,
        index: usize,
        handler: &mut dyn RequestHandler,
    ) -> Result<bool, WaitError> {
        let (responses, give_up) = self.answer_input_requests(result, index, handler);
        let responses = result.get("inputRequests").is_some().then_some(responses);
        let Some(retry) = self.rounds.retry(id, result, responses).filter(|_| !give_up) else {
            return Ok(false);
        };
        let retry_id = if retry.same_id {
            id.to_value()
        } else {
            self.next_id()
        };
        let mut message = json!({"jsonrpc": "2.0", "id": retry_id, "method": retry.method});
        message["params"] = retry.params.clone();
        self.send(&message)
            .await
            .map_err(|e| WaitError::Transport(e.to_string()))?;
        self.rounds.retried(id, &retry_id, retry);
        Ok(true)
    }

    /// Answers the `inputRequests` of `result` (the frame at `index`, an
    /// input-required result or a task of the extension) through `handler`,
    /// each kept as a request of the peer's. Returns the responses by key,
    /// and whether the client gives up: an answer says not to reply. An
    /// answer that is an error leaves its input out (an input response
    /// cannot be an error).
    pub fn answer_input_requests(
        &mut self,
        result: &Value,
        index: usize,
        handler: &mut dyn RequestHandler,
    ) -> (Map<String, Value>, bool) {
        let asked: Vec<PeerRequest> = input_requests(result)
            .map(|(key, method, request)| PeerRequest {
                id: RequestId::Str(key.to_owned()),
                method: method.unwrap_or_default().to_owned(),
                params: request.get("params").cloned(),
                index,
            })
            .collect();
        let mut responses = Map::new();
        let mut give_up = false;
        for request in asked {
            self.peer_requests.push(request.clone());
            match handler.answer(&request) {
                Reply::Result(answer) => {
                    responses.insert(
                        request.id.to_value().as_str().unwrap_or_default().to_owned(),
                        answer,
                    );
                }
                Reply::Error { .. } => {}
                // An input round cannot be answered later: held is given up.
                Reply::NoReply | Reply::Hold => give_up = true,
            }
        }
        (responses, give_up)
    }

    /// Answers a request of the peer (a held one later, say); `NoReply` and
    /// `Hold` send nothing.
    pub async fn answer(&mut self, id: &RequestId, reply: Reply) -> Result<(), WaitError> {
        let message = match reply {
            Reply::NoReply | Reply::Hold => return Ok(()),
            Reply::Result(result) => jsonrpc::response(&id.to_value(), Ok(result)),
            Reply::Error { code, message, data } => {
                jsonrpc::response(&id.to_value(), Err(RpcError { code, message, data }))
            }
        };
        self.send(&message)
            .await
            .map(|_| ())
            .map_err(|e| WaitError::Transport(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::{StdioCommand, StdioTransport};
    use mcp_conform_core::protocol::meta_key::PROTOCOL_VERSION;

    /// A peer that sends one request of its own, then echoes our request back as a result.
    const SCRIPT: &str = r#"sh -c 'read line; echo "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}"; echo "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}"; read answer; echo "$answer" >&2; echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"; sleep 5'"#;

    /// A session with the peer `script`, and how the wait for the answer
    /// to our first request (`method`) ended.
    async fn first_answer(script: &str, method: &str) -> (MockSession, Result<Received, WaitError>) {
        let transport = StdioTransport::spawn(&StdioCommand::parse(script).unwrap()).unwrap();
        let mut session = MockSession::new(transport);
        let id = session.request(method, None, None).await.unwrap();
        let deadline = Instant::now() + Duration::from_secs(5);
        let waited = session.wait_response(&id, deadline, &mut DefaultHandler).await;
        (session, waited)
    }

    #[tokio::test]
    async fn requests_answers_and_notifications_are_kept_apart() {
        let (mut session, waited) = first_answer(SCRIPT, "tools/list").await;
        let response = waited.unwrap();
        assert_eq!(response.message["result"], json!({}));
        assert_eq!(session.notifications().len(), 1);
        assert_eq!(session.peer_requests()[0].method, "ping");
        // Our answer to the peer's ping is in the transcript: sent, received x3, sent.
        let texts: Vec<String> = session
            .transcript()
            .iter()
            .map(|f| f.text().into_owned())
            .collect();
        assert_eq!(texts.len(), 5);
        assert_eq!(texts[3], r#"{"jsonrpc":"2.0","id":7,"result":{}}"#);
        let soon = Instant::now() + Duration::from_millis(100);
        let timeout = session.wait_any_response(soon, &mut DefaultHandler).await;
        assert_eq!(timeout.unwrap_err(), WaitError::TimedOut);
        let exit = session.shutdown(Duration::from_millis(50)).await;
        assert!(exit.signal.is_some());
    }

    /// A peer that answers its first request without `jsonrpc`, then a
    /// request we never sent the same way.
    const NO_JSONRPC: &str =
        r#"sh -c 'read line; echo "{\"id\":9,\"result\":{}}"; echo "{\"id\":1,\"result\":{}}"; sleep 5'"#;

    #[tokio::test]
    async fn an_answer_that_is_not_json_rpc_ends_the_wait_for_it() {
        let (mut session, waited) = first_answer(NO_JSONRPC, "initialize").await;
        let Err(WaitError::Malformed { answer, invalid }) = waited else {
            panic!("not a malformed answer: {waited:?}");
        };
        // The frame under id 9 (never sent) is no answer: the wait went on past it.
        assert_eq!((answer.index, answer.message["id"].clone()), (2, json!(1)));
        assert_eq!(invalid.to_string(), "`jsonrpc` member is missing");
        session.shutdown(Duration::from_millis(50)).await;
    }

    /// A stateless peer that asks for input once, then answers the retry.
    const MRTR: &str = r#"sh -c 'read line; echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"input_required\",\"inputRequests\":{\"ask\":{\"method\":\"elicitation/create\",\"params\":{\"message\":\"m\"}}},\"requestState\":\"s=1\"}}"; read retry; echo "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"resultType\":\"complete\",\"content\":[]}}"; sleep 5'"#;

    /// Answers every request alike.
    struct Always(Reply);

    impl RequestHandler for Always {
        fn answer(&mut self, _: &PeerRequest) -> Reply {
            self.0.clone()
        }
    }

    async fn stateless_call(reply: Reply) -> (MockSession, Received) {
        let transport = StdioTransport::spawn(&StdioCommand::parse(MRTR).unwrap()).unwrap();
        let mut session = MockSession::new(transport);
        session.speak_stateless(Envelope {
            protocol_version: "2026-07-28".into(),
            capabilities: json!({"elicitation": {}}),
            info: json!({"name": "t", "version": "0"}),
        });
        let id = session
            .request("tools/call", Some(json!({"name": "t"})), None)
            .await
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(5);
        let answer = session
            .wait_response(&id, deadline, &mut Always(reply))
            .await
            .unwrap();
        (session, answer)
    }

    #[tokio::test]
    async fn input_requests_are_answered_by_retrying_with_a_new_id() {
        let (mut session, answer) = stateless_call(Reply::Result(json!({"action": "decline"}))).await;
        assert_eq!(answer.message["id"], 2);
        assert_eq!(answer.message["result"]["resultType"], "complete");
        let asked = &session.peer_requests()[0];
        assert_eq!(asked.method, "elicitation/create");
        assert_eq!(asked.id, RequestId::Str("ask".into()));
        assert_eq!(asked.index, 1);
        let retry: Value = serde_json::from_slice(&session.transcript()[2].raw).unwrap();
        assert_eq!(retry["id"], 2);
        assert_eq!(retry["params"]["name"], "t");
        assert_eq!(
            retry["params"]["inputResponses"],
            json!({"ask": {"action": "decline"}})
        );
        assert_eq!(retry["params"]["requestState"], "s=1");
        assert_eq!(retry["params"]["_meta"][PROTOCOL_VERSION], "2026-07-28");
        assert_eq!(session.current_id(&json!(1)), json!(2));
        session.shutdown(Duration::from_millis(50)).await;
    }

    #[tokio::test]
    async fn initialize_goes_out_as_a_legacy_client_sends_it() {
        let transport = StdioTransport::spawn(&StdioCommand::parse("sleep 5").unwrap()).unwrap();
        let mut session = MockSession::new(transport);
        session.speak_stateless(Envelope {
            protocol_version: "2026-07-28".into(),
            capabilities: json!({}),
            info: json!({"name": "t", "version": "0"}),
        });
        let params = json!({"protocolVersion": "2025-11-25", "capabilities": {}});
        session
            .request("initialize", Some(params.clone()), None)
            .await
            .unwrap();
        session.request("tools/list", None, None).await.unwrap();
        let sent: Vec<Value> = session
            .transcript()
            .iter()
            .map(|f| serde_json::from_slice(&f.raw).unwrap())
            .collect();
        assert_eq!(sent[0]["params"], params, "no envelope on initialize");
        assert_eq!(sent[1]["params"]["_meta"][PROTOCOL_VERSION], "2026-07-28");
        session.shutdown(Duration::from_millis(50)).await;
    }

    #[tokio::test]
    async fn a_client_that_does_not_reply_keeps_the_input_required_result() {
        let (mut session, answer) = stateless_call(Reply::NoReply).await;
        assert_eq!(answer.message["id"], 1);
        assert_eq!(answer.message["result"]["resultType"], "input_required");
        assert_eq!(session.transcript().len(), 2, "no retry was sent");
        session.shutdown(Duration::from_millis(50)).await;
    }
}
