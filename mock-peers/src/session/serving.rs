//! The stateless era (2026-07-28+) from the server's side: the session of
//! the mock server that tests a client.
//!
//! A server of that era sends no requests of its own. What a scenario asks
//! the client (elicitation, sampling, roots) waits for the client's next
//! `tools/call`, `prompts/get` or `resources/read`, goes out as an input
//! request in that request's `InputRequiredResult`, and comes back in the
//! retry's `inputResponses`, where it becomes the response to our request.
//! A request that could carry one is held while the scenario still has
//! something to ask, so a client quicker than the script is not answered
//! past it. Change notifications go only to the `subscriptions/listen`
//! streams that asked for them, tagged with the stream's id (SUBS-003,
//! LIST-003). Every result is stamped as a server of the era stamps it
//! (RPC-015, MODN-003, CACHE-001).

use std::collections::HashMap;

use mcp_conform_core::protocol::errors::{METHOD_NOT_FOUND, UNSUPPORTED_PROTOCOL_VERSION};
use mcp_conform_core::protocol::meta_key::{PROTOCOL_VERSION, SUBSCRIPTION_ID};
use mcp_conform_core::protocol::{MethodKind, REMOVED_METHODS, method_in, subscriptions};
use mcp_conform_core::scenario::model::Reply;
use mcp_conform_core::version::ProtocolVersion;
use mcp_conform_core::wire::RequestId;
use serde_json::{Map, Value, json};

use super::PeerRequest;
use crate::stateless_result;

const DISCOVER: &str = "server/discover";
const LISTEN: &str = "subscriptions/listen";
const ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
const CANCELLED: &str = "notifications/cancelled";

/// How often one input request is asked again of a client whose retries
/// leave it out, before the server stops asking.
const MAX_ASKS: u32 = 3;

/// Nothing in a scripted list is meant to be reused: every listing is fresh.
const CACHE_TTL_MS: u64 = 0;
const CACHE_SCOPE: &str = "private";

/// Who the mock server is in the stateless era.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerFacts {
    pub version: ProtocolVersion,
    pub capabilities: Value,
    /// Its `serverInfo`.
    pub info: Value,
    pub instructions: Option<String>,
    /// Input-required results carry a `requestState`.
    pub request_state: bool,
}

/// A request of ours, waiting for a client request to carry it.
#[derive(Debug, Clone)]
struct Ask {
    id: RequestId,
    method: String,
    params: Option<Value>,
    /// How often it went out.
    asked: u32,
}

impl Ask {
    /// Its key in `inputRequests`: what it asks for, and our id.
    fn key(&self) -> String {
        let noun = self.method.split('/').next().unwrap_or("input");
        format!("{noun}-{}", self.id)
    }

    fn as_input_request(&self) -> Value {
        let mut request = json!({"method": self.method});
        if let Some(params) = &self.params {
            request["params"] = params.clone();
        }
        request
    }
}

/// An input-required result we gave, awaiting the client's retry.
#[derive(Debug)]
struct Round {
    /// The `requestState` it gave, if it gave one.
    state: Option<String>,
    asks: Vec<Ask>,
}

/// How an ask of ours fared, when it did not come back answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AskFate {
    /// No request of the client's came to carry it.
    NeverCarried,
    /// It went out; the client's retries left it out this many times.
    LeftOut(u32),
}

/// What the mock server does with one request of the client.
#[derive(Debug)]
pub(super) enum Decision {
    /// Answers it at once, with this.
    Answer(Reply),
    /// The scenario's answers decide (then [`Serving::stamp`]).
    Script,
    /// Held until the scenario asks something, or has nothing more to ask.
    Hold,
    /// Opens a listen stream: acknowledged with this notification; the
    /// request stays open.
    Listen(Value),
}

/// The mock server's side of a stateless session.
#[derive(Debug)]
pub(super) struct Serving {
    facts: ServerFacts,
    queued: Vec<Ask>,
    rounds: Vec<Round>,
    /// Requests that could carry an ask, held while one may still come.
    held: Vec<PeerRequest>,
    /// The scenario still has something to ask.
    expecting: bool,
    /// Open listen streams: the listen request's id and its filter.
    listens: Vec<(RequestId, Value)>,
    /// What became of asks that went out: how often the retries left them out.
    left_out: HashMap<RequestId, u32>,
    /// Asks that went out at least once.
    carried: Vec<RequestId>,
    next_state: u64,
}

impl Serving {
    pub fn new(facts: ServerFacts) -> Serving {
        Serving {
            facts,
            queued: Vec::new(),
            rounds: Vec::new(),
            held: Vec::new(),
            expecting: false,
            listens: Vec::new(),
            left_out: HashMap::new(),
            carried: Vec::new(),
            next_state: 0,
        }
    }

    /// Whether `method` is something we ask inside results in this era.
    pub fn asks_inside_results(&self, method: &str) -> bool {
        method_in(method, self.facts.version).is_some_and(|spec| spec.kind == MethodKind::InputRequest)
    }

    /// Whether a request for `method` may be answered with an input-required result.
    fn carries(&self, method: &str) -> bool {
        method_in(method, self.facts.version)
            .is_some_and(|spec| spec.may_require_input_in(self.facts.version))
    }

    /// Whether the scenario still has something to ask; once it has not,
    /// held requests are answered from the script.
    pub fn expect_asks(&mut self, expecting: bool) {
        self.expecting = expecting;
    }

    /// Queues request `id` of ours. Returns a held request that carries it
    /// now, with the input-required result to answer it with.
    pub fn ask(&mut self, id: RequestId, method: &str, params: Option<Value>) -> Option<(RequestId, Value)> {
        self.queued.push(Ask {
            id,
            method: method.to_owned(),
            params,
            asked: 0,
        });
        if self.held.is_empty() {
            return None;
        }
        let carrier = self.held.remove(0);
        Some((carrier.id, self.input_round()))
    }

    /// The held requests to answer from the script now that nothing more
    /// will be asked.
    pub fn release(&mut self) -> Vec<PeerRequest> {
        if self.expecting {
            return Vec::new();
        }
        std::mem::take(&mut self.held)
    }

    /// The client cancelled request `id` (or its stream): a held request is
    /// never answered.
    pub fn cancelled(&mut self, id: &RequestId) {
        self.held.retain(|held| held.id != *id);
    }

    /// A notification of the client's, as far as serving cares.
    pub fn client_notification(&mut self, method: &str, params: Option<&Value>) {
        let id = params
            .and_then(|p| p.get("requestId"))
            .and_then(RequestId::from_value);
        if let (CANCELLED, Some(id)) = (method, id) {
            self.cancelled(&id);
            self.listens.retain(|(listen, _)| *listen != id);
        }
    }

    /// Answers the asks of ours that `request` retries, as responses to
    /// our requests (id and result). Asks it leaves out are asked again
    /// (MRTR-007), up to [`MAX_ASKS`] times.
    pub fn harvest(&mut self, request: &PeerRequest) -> Vec<(RequestId, Value)> {
        let params = request.params.as_ref();
        let state = params.and_then(|p| p.get("requestState")).and_then(Value::as_str);
        let responses = params
            .and_then(|p| p.get("inputResponses"))
            .and_then(Value::as_object);
        let keys = |round: &Round| {
            round
                .asks
                .iter()
                .any(|ask| responses.is_some_and(|r| r.contains_key(&ask.key())))
        };
        // A retry echoes our state; one that altered it is still known by its answers.
        let Some(position) = self
            .rounds
            .iter()
            .position(|round| round.state.is_some() && round.state.as_deref() == state)
            .or_else(|| self.rounds.iter().position(keys))
        else {
            return Vec::new();
        };
        let round = self.rounds.remove(position);
        let mut answered = Vec::new();
        for ask in round.asks {
            match responses.and_then(|r| r.get(&ask.key())) {
                Some(response) => answered.push((ask.id, response.clone())),
                None => {
                    *self.left_out.entry(ask.id.clone()).or_default() += 1;
                    if ask.asked < MAX_ASKS {
                        self.queued.insert(0, ask);
                    }
                }
            }
        }
        answered
    }

    /// What to do with a request of the client's (after [`Self::harvest`]).
    pub fn decide(&mut self, request: &PeerRequest) -> Decision {
        let method = request.method.as_str();
        let requested = request
            .params
            .as_ref()
            .and_then(|p| p.pointer("/_meta").and_then(|m| m.get(PROTOCOL_VERSION)))
            .and_then(Value::as_str);
        let version = self.facts.version.as_str();
        if method == "initialize" {
            // A legacy client, or a dual-era one that did not probe first:
            // the refusal names the versions we speak (MODN-011).
            let offered = request.params.as_ref().and_then(|p| p.get("protocolVersion"));
            return Decision::Answer(self.unsupported(offered.cloned().unwrap_or(Value::Null)));
        }
        if REMOVED_METHODS.contains(&method) {
            return Decision::Answer(Reply::Error {
                code: METHOD_NOT_FOUND,
                message: format!("{method} does not exist in {version}"),
                data: None,
            });
        }
        if let Some(requested) = requested.filter(|r| *r != version) {
            return Decision::Answer(self.unsupported(json!(requested)));
        }
        if method == DISCOVER {
            return Decision::Answer(Reply::Result(self.stamp(DISCOVER, self.discovered())));
        }
        if method == LISTEN {
            return self.listen(request);
        }
        if self.carries(method) && !self.queued.is_empty() {
            return Decision::Answer(Reply::Result(self.input_round()));
        }
        if self.carries(method) && self.expecting {
            self.held.push(request.clone());
            return Decision::Hold;
        }
        Decision::Script
    }

    /// An input-required result carrying every queued ask.
    fn input_round(&mut self) -> Value {
        let mut requests = Map::new();
        let mut asks = std::mem::take(&mut self.queued);
        for ask in &mut asks {
            ask.asked += 1;
            requests.insert(ask.key(), ask.as_input_request());
            if !self.carried.contains(&ask.id) {
                self.carried.push(ask.id.clone());
            }
        }
        self.next_state += 1;
        let state = self
            .facts
            .request_state
            .then(|| format!("mcp-conform-round-{}", self.next_state));
        let result = stateless_result::input_required(requests, state.clone(), &self.facts.info);
        self.rounds.push(Round { state, asks });
        result
    }

    /// `-32022`, naming the version we speak and the one asked for.
    fn unsupported(&self, requested: Value) -> Reply {
        Reply::Error {
            code: UNSUPPORTED_PROTOCOL_VERSION,
            message: format!("this server speaks {} only", self.facts.version),
            data: Some(json!({"supported": [self.facts.version.as_str()], "requested": requested})),
        }
    }

    fn discovered(&self) -> Value {
        let mut result = json!({
            "supportedVersions": [self.facts.version.as_str()],
            "capabilities": self.facts.capabilities,
        });
        if let Some(instructions) = &self.facts.instructions {
            result["instructions"] = json!(instructions);
        }
        result
    }

    /// A listen stream honours its whole filter: the scenario decides what
    /// changes, and a stream hears of it only if it asked (SUBS-002).
    fn listen(&mut self, request: &PeerRequest) -> Decision {
        let filter = request
            .params
            .as_ref()
            .and_then(|p| p.get("notifications"))
            .cloned()
            .unwrap_or_else(|| json!({}));
        self.listens.push((request.id.clone(), filter.clone()));
        let mut params = json!({"notifications": filter});
        params["_meta"] = json!({ SUBSCRIPTION_ID: request.id.to_value() });
        Decision::Listen(json!({"jsonrpc": "2.0", "method": ACKNOWLEDGED, "params": params}))
    }

    /// A reply of the script as a server of the era sends it: results
    /// stamped (RPC-015, MODN-003) and, where cacheable, with caching
    /// fields (CACHE-001).
    pub fn stamp_reply(&self, method: &str, reply: Reply) -> Reply {
        match reply {
            Reply::Result(result) => Reply::Result(self.stamp(method, result)),
            other => other,
        }
    }

    fn stamp(&self, method: &str, result: Value) -> Value {
        let result = stateless_result::complete(result, &self.facts.info);
        let cacheable =
            method_in(method, self.facts.version).is_some_and(|s| s.is_cacheable_in(self.facts.version));
        match cacheable {
            true => stateless_result::cacheable(result, CACHE_TTL_MS, CACHE_SCOPE),
            false => result,
        }
    }

    /// Our notification as it goes out: a change notification once per
    /// listen stream that asked for it, tagged with its id; anything else
    /// as it is. `Err` says why a change notification has nowhere to go.
    pub fn outgoing(&self, message: Value) -> Result<Vec<Value>, String> {
        let method = message.get("method").and_then(Value::as_str).unwrap_or_default();
        let params = message.get("params");
        if subscriptions::asks_for(&json!({}), method, params).is_none() {
            return Ok(vec![message]);
        }
        let tagged: Vec<Value> = self
            .listens
            .iter()
            .filter(|(_, filter)| subscriptions::asks_for(filter, method, params) == Some(true))
            .map(|(id, _)| {
                let mut tagged = message.clone();
                tagged["params"]["_meta"][SUBSCRIPTION_ID] = id.to_value();
                tagged
            })
            .collect();
        if tagged.is_empty() {
            let why = match self.listens.is_empty() {
                true => "the client opened no subscriptions/listen stream",
                false => "none of the client's subscriptions/listen streams asked for it",
            };
            return Err(format!(
                "{method} goes only to the listen streams that ask for it, and {why}"
            ));
        }
        Ok(tagged)
    }

    /// How ask `id` fared, if it did not come back answered.
    pub fn fate(&self, id: &RequestId) -> Option<AskFate> {
        if !self.carried.contains(id) {
            return Some(AskFate::NeverCarried);
        }
        self.left_out.get(id).map(|times| AskFate::LeftOut(*times))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_conform_core::protocol::meta_key::SERVER_INFO;

    fn serving() -> Serving {
        Serving::new(ServerFacts {
            version: ProtocolVersion::V2026_07_28,
            capabilities: json!({"tools": {"listChanged": true}}),
            info: json!({"name": "mock", "version": "1"}),
            instructions: None,
            request_state: true,
        })
    }

    fn request(id: i64, method: &str, params: Value) -> PeerRequest {
        PeerRequest {
            id: RequestId::Int(id),
            method: method.into(),
            params: Some(params),
            index: 0,
        }
    }

    fn answer(decision: Decision) -> Value {
        match decision {
            Decision::Answer(Reply::Result(result)) => result,
            Decision::Answer(Reply::Error { code, data, .. }) => json!({"code": code, "data": data}),
            other => panic!("not an answer: {other:?}"),
        }
    }

    const ELICIT: &str = "elicitation/create";

    #[test]
    fn an_ask_rides_on_the_next_call_and_comes_back_in_its_retry() {
        let mut serving = serving();
        assert!(serving.asks_inside_results(ELICIT) && !serving.asks_inside_results("ping"));
        assert!(
            serving
                .ask(RequestId::Int(7), ELICIT, Some(json!({"message": "m"})))
                .is_none()
        );
        assert_eq!(serving.fate(&RequestId::Int(7)), Some(AskFate::NeverCarried));
        let listed = request(1, "tools/list", json!({}));
        assert!(
            matches!(serving.decide(&listed), Decision::Script),
            "lists carry nothing"
        );
        let call = request(2, "tools/call", json!({"name": "t"}));
        let round = answer(serving.decide(&call));
        assert_eq!(round["resultType"], "input_required");
        assert_eq!(
            round["inputRequests"]["elicitation-7"],
            json!({"method": ELICIT, "params": {"message": "m"}})
        );
        let state = round["requestState"].clone();
        assert_eq!(
            serving.fate(&RequestId::Int(7)),
            None,
            "carried, awaiting its answer"
        );
        let retry = request(
            3,
            "tools/call",
            json!({"name": "t", "requestState": state,
            "inputResponses": {"elicitation-7": {"action": "decline"}}}),
        );
        assert_eq!(
            serving.harvest(&retry),
            vec![(RequestId::Int(7), json!({"action": "decline"}))]
        );
        assert!(
            matches!(serving.decide(&retry), Decision::Script),
            "nothing more to ask"
        );
        assert!(serving.harvest(&retry).is_empty(), "a round is answered once");
    }

    #[test]
    fn a_round_without_state_is_known_by_its_keys() {
        let mut serving = serving();
        serving.facts.request_state = false;
        serving.ask(RequestId::Int(3), ELICIT, None);
        let round = answer(serving.decide(&request(1, "tools/call", json!({"name": "t"}))));
        assert!(round.get("requestState").is_none());
        let retry = request(
            2,
            "tools/call",
            json!({"name": "t",
            "inputResponses": {"elicitation-3": {"action": "accept", "content": {}}}}),
        );
        assert_eq!(serving.harvest(&retry).len(), 1);
    }

    #[test]
    fn calls_wait_for_what_the_scenario_will_ask_and_are_released_after() {
        let mut serving = serving();
        serving.expect_asks(true);
        let call = request(1, "prompts/get", json!({"name": "p"}));
        assert!(matches!(serving.decide(&call), Decision::Hold));
        let (carrier, round) = serving
            .ask(RequestId::Int(5), "roots/list", None)
            .expect("carried at once");
        assert_eq!(carrier, RequestId::Int(1));
        assert_eq!(round["inputRequests"]["roots-5"], json!({"method": "roots/list"}));
        let later = request(2, "resources/read", json!({"uri": "file:///a"}));
        assert!(matches!(serving.decide(&later), Decision::Hold));
        assert!(serving.release().is_empty(), "held while asks may come");
        serving.expect_asks(false);
        assert_eq!(serving.release(), vec![later]);
        serving.expect_asks(true);
        let cancelled = request(3, "tools/call", json!({"name": "t"}));
        serving.decide(&cancelled);
        serving.client_notification(CANCELLED, Some(&json!({"requestId": 3})));
        serving.expect_asks(false);
        assert!(
            serving.release().is_empty(),
            "a cancelled request is never answered"
        );
    }

    #[test]
    fn an_input_left_out_is_asked_again_a_few_times_and_a_changed_state_is_still_known() {
        let mut serving = serving();
        serving.ask(RequestId::Int(4), ELICIT, None);
        let mut state =
            answer(serving.decide(&request(1, "tools/call", json!({"name": "t"}))))["requestState"].clone();
        for id in 2..=3 {
            let retry = request(
                id,
                "tools/call",
                json!({"name": "t", "requestState": state, "inputResponses": {}}),
            );
            assert!(serving.harvest(&retry).is_empty());
            let again = answer(serving.decide(&retry));
            assert!(
                again["inputRequests"]["elicitation-4"].is_object(),
                "asked again (MRTR-007)"
            );
            state = again["requestState"].clone();
        }
        let last = request(4, "tools/call", json!({"name": "t", "requestState": state}));
        serving.harvest(&last);
        assert!(
            matches!(serving.decide(&last), Decision::Script),
            "asked {MAX_ASKS} times, then no more"
        );
        assert_eq!(serving.fate(&RequestId::Int(4)), Some(AskFate::LeftOut(MAX_ASKS)));
        serving.ask(RequestId::Int(9), ELICIT, None);
        serving.decide(&request(5, "tools/call", json!({"name": "t"})));
        let altered = request(
            6,
            "tools/call",
            json!({"name": "t", "requestState": "forged",
            "inputResponses": {"elicitation-9": {"action": "cancel"}}}),
        );
        assert_eq!(
            serving.harvest(&altered),
            vec![(RequestId::Int(9), json!({"action": "cancel"}))]
        );
    }

    #[test]
    fn the_server_of_the_era_refuses_the_handshake_era_and_stamps_its_results() {
        let mut serving = serving();
        let refused = answer(serving.decide(&request(
            1,
            "initialize",
            json!({"protocolVersion": "2025-11-25"}),
        )));
        assert_eq!(refused["code"], UNSUPPORTED_PROTOCOL_VERSION);
        assert_eq!(
            refused["data"],
            json!({"supported": ["2026-07-28"], "requested": "2025-11-25"})
        );
        assert_eq!(
            answer(serving.decide(&request(2, "ping", json!({}))))["code"],
            METHOD_NOT_FOUND
        );
        let other = json!({"_meta": {PROTOCOL_VERSION: "2027-01-01"}});
        assert_eq!(
            answer(serving.decide(&request(3, "tools/list", other)))["code"],
            UNSUPPORTED_PROTOCOL_VERSION
        );
        let discovered = answer(serving.decide(&request(4, DISCOVER, json!({}))));
        assert_eq!(discovered["supportedVersions"], json!(["2026-07-28"]));
        assert_eq!(
            discovered["capabilities"],
            json!({"tools": {"listChanged": true}})
        );
        assert_eq!(
            (discovered["resultType"].clone(), discovered["ttlMs"].clone()),
            (json!("complete"), json!(0))
        );
        assert_eq!(discovered["_meta"][SERVER_INFO]["name"], "mock");
        let Reply::Result(called) = serving.stamp_reply("tools/call", Reply::Result(json!({"content": []})))
        else {
            panic!("a result stays a result");
        };
        assert!(called.get("ttlMs").is_none() && called["resultType"] == "complete");
    }

    #[test]
    fn change_notifications_go_only_to_the_listen_streams_that_asked() {
        let mut serving = serving();
        let changed = json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"});
        assert!(
            serving
                .outgoing(changed.clone())
                .unwrap_err()
                .contains("opened no")
        );
        let Decision::Listen(ack) = serving.decide(&request(
            8,
            LISTEN,
            json!({"notifications": {"toolsListChanged": true}}),
        )) else {
            panic!("a listen request opens a stream");
        };
        assert_eq!(ack["method"], ACKNOWLEDGED);
        assert_eq!(ack["params"]["_meta"][SUBSCRIPTION_ID], 8);
        serving.decide(&request(
            9,
            LISTEN,
            json!({"notifications": {"promptsListChanged": true}}),
        ));
        let sent = serving.outgoing(changed).unwrap();
        assert_eq!(sent.len(), 1);
        assert_eq!(sent[0]["params"]["_meta"][SUBSCRIPTION_ID], 8);
        let prompts = json!({"jsonrpc": "2.0", "method": "notifications/resources/list_changed"});
        assert!(serving.outgoing(prompts).unwrap_err().contains("none of"));
        let progress =
            json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1}});
        assert_eq!(serving.outgoing(progress.clone()).unwrap(), vec![progress]);
        serving.client_notification(CANCELLED, Some(&json!({"requestId": 8})));
        let changed = json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"});
        assert!(
            serving.outgoing(changed).is_err(),
            "a cancelled stream hears nothing more"
        );
    }
}
