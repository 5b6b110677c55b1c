//! What the stateless era (2026-07-28+) changes for the client side of a
//! session: every request carries the client's envelope in `params._meta`,
//! and an input-required result is answered by retrying the request, with
//! a new id, the input responses and the request state echoed unchanged.

use std::collections::{HashMap, HashSet};

use mcp_conform_core::wire::RequestId;
use serde_json::{Map, Value, json};

use mcp_conform_core::protocol::meta_key::{CLIENT_CAPABILITIES, CLIENT_INFO, PROTOCOL_VERSION};

/// How many input rounds one request may take before the client gives up
/// and keeps the last input-required result as the answer.
const MAX_INPUT_ROUNDS: u32 = 4;

/// The requests a server may answer with an input-required result
/// (MRTR-001); for any other, such a result is the answer.
const RETRIED: [&str; 3] = ["tools/call", "prompts/get", "resources/read"];

/// What a tampered `requestState` has appended (MRTR-005).
const TAMPERED: &str = "-tampered-by-mcp-conform";

/// The `requestState` a retry invents when the result gave none.
const INVENTED: &str = "invented-by-mcp-conform";

/// Who the client says it is on every request.
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope {
    pub protocol_version: String,
    pub capabilities: Value,
    pub info: Value,
}

impl Envelope {
    /// `params` with the envelope in `_meta`. A key the params already hold
    /// wins; one they hold as `null` is left out (to test servers with a
    /// missing key).
    pub fn apply(&self, params: Option<Value>) -> Value {
        let mut params = params.unwrap_or_else(|| json!({}));
        let Some(object) = params.as_object_mut() else {
            // Not an object: sent as written, for tests of malformed params.
            return params;
        };
        let meta = object.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
        let Some(meta) = meta.as_object_mut() else {
            return params;
        };
        for (key, value) in self.meta() {
            match meta.get(key) {
                None => {
                    meta.insert(key.to_owned(), value);
                }
                Some(Value::Null) => {
                    meta.remove(key);
                }
                Some(_) => {}
            }
        }
        params
    }

    /// The envelope as `_meta` members.
    pub fn meta(&self) -> [(&'static str, Value); 3] {
        [
            (PROTOCOL_VERSION, json!(self.protocol_version)),
            (CLIENT_CAPABILITIES, self.capabilities.clone()),
            (CLIENT_INFO, self.info.clone()),
        ]
    }
}

/// How a broken client's retries break MRTR-006, on purpose. Each acts on
/// the first retry of every request; later rounds are retried correctly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryFault {
    /// The retry reuses the id of the request it retries.
    SameId,
    /// The retry echoes an altered `requestState` (the tamper of MRTR-005).
    AlteredState,
    /// A retry of a result that carried no `requestState` sends one anyway.
    InventedState,
    /// The retry leaves out one input response.
    MissingInput,
}

/// A request of ours in flight, kept so that an input-required answer can
/// be retried.
#[derive(Debug, Clone)]
struct Sent {
    method: String,
    params: Value,
    round: u32,
    /// Its next retry alters the `requestState`, and is the last.
    tamper: bool,
}

/// The requests of a stateless session and the retries that carry them on.
#[derive(Debug, Default)]
pub(super) struct Rounds {
    sent: HashMap<RequestId, Sent>,
    /// Each retried request's id, to its retry's.
    retried_as: HashMap<RequestId, RequestId>,
    /// Requests (by first id) whose next retry was to alter the state, and
    /// those whose retry did.
    tamper_requested: HashSet<RequestId>,
    tampered: HashSet<RequestId>,
    /// A broken client's way of retrying.
    fault: Option<RetryFault>,
}

impl Rounds {
    pub fn sent(&mut self, id: &Value, method: &str, params: &Value) {
        if let Some(id) = RequestId::from_value(id).filter(|_| RETRIED.contains(&method)) {
            let sent = Sent {
                method: method.to_owned(),
                params: params.clone(),
                round: 0,
                tamper: self.fault == Some(RetryFault::AlteredState),
            };
            self.sent.insert(id, sent);
        }
    }

    /// Makes the first retry of every request sent from now on break
    /// MRTR-006 as `fault` says.
    pub fn break_retries(&mut self, fault: RetryFault) {
        self.fault = Some(fault);
    }

    /// Makes the next retry of request `id` alter the `requestState` it
    /// echoes, and keeps the answer to that retry as the last.
    pub fn tamper(&mut self, id: &RequestId) {
        self.tamper_requested.insert(self.first(id));
        if let Some(sent) = self.sent.get_mut(&self.latest(id)) {
            sent.tamper = true;
        }
    }

    /// Whether the request first sent as `id` was to have its state altered.
    pub fn tamper_requested(&self, id: &RequestId) -> bool {
        self.tamper_requested.contains(id)
    }

    /// Whether a retry of the request first sent as `id` carried an altered state.
    pub fn was_tampered(&self, id: &RequestId) -> bool {
        self.tampered.contains(id)
    }

    /// The id that now carries the request first sent as `id`.
    pub fn latest(&self, id: &RequestId) -> RequestId {
        let mut current = id;
        while let Some(next) = self.retried_as.get(current) {
            current = next;
        }
        current.clone()
    }

    /// The method and params of a retry of request `id`, answered with
    /// `result`, carrying `responses`; `None` once the rounds are used up
    /// or for a request that is not ours.
    pub fn retry(
        &self,
        id: &RequestId,
        result: &Value,
        responses: Option<Map<String, Value>>,
    ) -> Option<Retry> {
        let sent = self.sent.get(id).filter(|s| s.round < MAX_INPUT_ROUNDS)?;
        let fault = self.fault.filter(|_| sent.round == 0);
        let mut params = sent.params.clone();
        let object = params.as_object_mut()?;
        object.remove("inputResponses");
        object.remove("requestState");
        if let Some(responses) = responses {
            let left_out = usize::from(fault == Some(RetryFault::MissingInput));
            let responses = responses.into_iter().skip(left_out).collect();
            object.insert("inputResponses".into(), Value::Object(responses));
        }
        let state = result.get("requestState");
        if state.is_none() && fault == Some(RetryFault::InventedState) {
            object.insert("requestState".into(), json!(INVENTED));
        }
        let tampered = sent.tamper && state.is_some_and(Value::is_string);
        if let Some(state) = state {
            let echoed = match state.as_str().filter(|_| tampered) {
                Some(text) => json!(format!("{text}{TAMPERED}")),
                None => state.clone(),
            };
            object.insert("requestState".into(), echoed);
        }
        Some(Retry {
            method: sent.method.clone(),
            params,
            // A tampered retry is the last: its answer is the one judged.
            round: if tampered {
                MAX_INPUT_ROUNDS
            } else {
                sent.round + 1
            },
            tampered,
            same_id: fault == Some(RetryFault::SameId),
        })
    }

    /// Records that request `id` goes on as `retry_id` (the same id, for a
    /// broken retry).
    pub fn retried(&mut self, id: &RequestId, retry_id: &Value, retry: Retry) {
        let Some(retry_id) = RequestId::from_value(retry_id) else {
            return;
        };
        self.sent.remove(id);
        if retry_id != *id {
            self.retried_as.insert(id.clone(), retry_id.clone());
        }
        if retry.tampered {
            let first = self.first(&retry_id);
            self.tampered.insert(first);
        }
        let sent = Sent {
            method: retry.method,
            params: retry.params,
            round: retry.round,
            tamper: false,
        };
        self.sent.insert(retry_id, sent);
    }

    /// The first id of the request `id` carries on.
    fn first(&self, id: &RequestId) -> RequestId {
        let mut current = id.clone();
        while let Some((earlier, _)) = self.retried_as.iter().find(|(_, next)| **next == current) {
            current = earlier.clone();
        }
        current
    }

    /// Whether `id` is a request of ours still in flight.
    pub fn is_ours(&self, id: &RequestId) -> bool {
        self.sent.contains_key(id)
    }
}

/// The next round of a request.
#[derive(Debug, Clone)]
pub(super) struct Retry {
    pub method: String,
    pub params: Value,
    round: u32,
    tampered: bool,
    /// It goes out under the id of the request it retries (a broken client).
    pub same_id: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn envelope() -> Envelope {
        Envelope {
            protocol_version: "2026-07-28".into(),
            capabilities: json!({"elicitation": {}}),
            info: json!({"name": "mcp-conform", "version": "0"}),
        }
    }

    #[test]
    fn the_envelope_fills_meta_unless_the_params_say_otherwise() {
        let full = envelope().apply(None);
        assert_eq!(full["_meta"][PROTOCOL_VERSION], "2026-07-28");
        assert_eq!(full["_meta"][CLIENT_CAPABILITIES], json!({"elicitation": {}}));
        let own = json!({"name": "t", "_meta": {CLIENT_CAPABILITIES: {}, PROTOCOL_VERSION: null, "progressToken": 1}});
        let merged = envelope().apply(Some(own));
        assert_eq!(merged["_meta"][CLIENT_CAPABILITIES], json!({}));
        assert!(merged["_meta"].get(PROTOCOL_VERSION).is_none());
        assert_eq!(merged["_meta"]["progressToken"], 1);
        assert_eq!(merged["name"], "t");
        assert_eq!(envelope().apply(Some(json!("text"))), json!("text"));
    }

    #[test]
    fn a_retry_carries_the_responses_and_the_state_and_rounds_are_bounded() {
        let mut rounds = Rounds::default();
        let first = RequestId::Int(1);
        rounds.sent(
            &json!(1),
            "tools/call",
            &json!({"name": "t", "requestState": "stale"}),
        );
        let result = json!({"resultType": "input_required", "requestState": "s1"});
        let mut responses = Map::new();
        responses.insert("ask".into(), json!({"action": "decline"}));
        let retry = rounds.retry(&first, &result, Some(responses)).unwrap();
        assert_eq!(
            retry.params,
            json!({"name": "t", "inputResponses": {"ask": {"action": "decline"}}, "requestState": "s1"})
        );
        rounds.retried(&first, &json!(2), retry);
        assert_eq!(rounds.latest(&first), RequestId::Int(2));
        assert!(!rounds.is_ours(&first));
        let mut id = RequestId::Int(2);
        for next in 3..=5 {
            let retry = rounds.retry(&id, &json!({}), None).unwrap();
            assert!(retry.params.get("requestState").is_none());
            rounds.retried(&id, &json!(next), retry);
            id = RequestId::Int(next);
        }
        assert!(rounds.retry(&id, &json!({}), None).is_none());
        assert_eq!(rounds.latest(&first), RequestId::Int(5));
        rounds.sent(&json!(9), "tools/list", &json!({}));
        assert!(
            !rounds.is_ours(&RequestId::Int(9)),
            "only three methods take input rounds"
        );
    }

    #[test]
    fn a_tampered_retry_alters_the_state_and_is_the_last() {
        let mut rounds = Rounds::default();
        let first = RequestId::Int(1);
        rounds.sent(&json!(1), "prompts/get", &json!({"name": "p"}));
        rounds.tamper(&first);
        let retry = rounds.retry(&first, &json!({"requestState": "s"}), None).unwrap();
        assert_eq!(retry.params["requestState"], format!("s{TAMPERED}"));
        rounds.retried(&first, &json!(2), retry);
        assert!(rounds.tamper_requested(&first) && rounds.was_tampered(&first));
        assert!(
            rounds
                .retry(&RequestId::Int(2), &json!({"requestState": "t"}), None)
                .is_none()
        );
        // Without a state there is nothing to tamper with.
        rounds.sent(&json!(3), "tools/call", &json!({}));
        rounds.tamper(&RequestId::Int(3));
        let retry = rounds.retry(&RequestId::Int(3), &json!({}), None).unwrap();
        rounds.retried(&RequestId::Int(3), &json!(4), retry);
        assert!(!rounds.was_tampered(&RequestId::Int(3)));
    }

    /// The first retry of a request sent with `fault`, answered with `result`
    /// asking for two inputs, and the second retry, if any.
    fn broken_rounds(fault: RetryFault, result: &Value) -> (Retry, Option<Retry>) {
        let mut rounds = Rounds::default();
        rounds.break_retries(fault);
        rounds.sent(&json!(1), "tools/call", &json!({"name": "t"}));
        let answers = || Map::from_iter([("a".into(), json!(1)), ("b".into(), json!(2))]);
        let first = rounds.retry(&RequestId::Int(1), result, Some(answers())).unwrap();
        let first_id = if first.same_id { json!(1) } else { json!(2) };
        rounds.retried(&RequestId::Int(1), &first_id, first.clone());
        let latest = rounds.latest(&RequestId::Int(1));
        (first, rounds.retry(&latest, result, Some(answers())))
    }

    #[test]
    fn a_broken_retry_breaks_the_first_round_only() {
        let stateless = json!({"resultType": "input_required"});
        let stateful = json!({"resultType": "input_required", "requestState": "s"});
        let (first, second) = broken_rounds(RetryFault::SameId, &stateful);
        assert!(first.same_id && !second.unwrap().same_id);
        let (first, second) = broken_rounds(RetryFault::InventedState, &stateless);
        assert_eq!(first.params["requestState"], INVENTED);
        assert!(second.unwrap().params.get("requestState").is_none());
        let (first, second) = broken_rounds(RetryFault::MissingInput, &stateful);
        assert_eq!(first.params["inputResponses"], json!({"b": 2}));
        assert_eq!(second.unwrap().params["inputResponses"], json!({"a": 1, "b": 2}));
        // An altered state is the last round, as a tampered one is.
        let (first, second) = broken_rounds(RetryFault::AlteredState, &stateful);
        assert_eq!(first.params["requestState"], format!("s{TAMPERED}"));
        assert!(second.is_none());
    }

    #[test]
    fn a_retry_under_the_same_id_carries_the_request_on() {
        let mut rounds = Rounds::default();
        rounds.sent(&json!(7), "tools/call", &json!({}));
        let retry = rounds.retry(&RequestId::Int(7), &json!({}), None).unwrap();
        rounds.retried(&RequestId::Int(7), &json!(7), retry);
        assert_eq!(rounds.latest(&RequestId::Int(7)), RequestId::Int(7));
        assert!(rounds.is_ours(&RequestId::Int(7)));
    }
}
