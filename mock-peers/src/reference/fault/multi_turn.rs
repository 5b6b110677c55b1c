//! The faults of the multi-turn tool (`book`): a server that never asks its
//! second question, one that ignores the model's reply, and one that redoes
//! the work it does before its first ask on every input round.

use serde_json::{Value, json};

use super::{Fault, FaultLayer, Inbound};
use crate::reference::tools::multi_turn::BOOK;

/// What replaces the model's reply for `ignores-sampling-reply`.
const MADE_UP: &str = "a summary the server made up";

/// The prefix of the ids of requests the layer sends the server itself.
const OWN_ID: &str = "mcp-conform-fault-";

/// A sampling result a client sent (it names the model that wrote it).
fn is_sampling_result(value: &Value) -> bool {
    value.get("model").is_some() && value.get("role").is_some()
}

fn made_up(result: &mut Value) {
    result["content"] = json!({ "type": "text", "text": MADE_UP });
}

impl FaultLayer {
    /// Rewrites a response of the client (to a request of the server's).
    pub(super) fn multi_turn_response_in(&self, message: &mut Value) -> bool {
        match message.get_mut("result") {
            Some(result) if self.fault == Fault::IgnoresSamplingReply && is_sampling_result(result) => {
                made_up(result);
                true
            }
            _ => false,
        }
    }

    /// What a multi-turn fault does to a `tools/call` of the client, if anything.
    pub(super) fn multi_turn_incoming(&self, message: &mut Value, method: &str) -> Option<Inbound> {
        if method != "tools/call" || message.pointer("/params/name") != Some(&json!(BOOK)) {
            return None;
        }
        let params = message.get_mut("params")?;
        match self.fault {
            // 2026-07-28: the model's reply travels in the retry.
            Fault::IgnoresSamplingReply => {
                let responses = params.get_mut("inputResponses")?.as_object_mut()?;
                let sampled = responses.values_mut().filter(|r| is_sampling_result(r));
                let mut changed = false;
                for result in sampled {
                    made_up(result);
                    changed = true;
                }
                changed.then(|| Inbound::pass(message.to_string()))
            }
            // Each retry is served as a first call too, whose answer is swallowed.
            Fault::ModernRepeatsSideEffect if params.get("requestState").is_some() => {
                let mut first = message.clone();
                let members = first["params"].as_object_mut()?;
                members.remove("requestState");
                members.remove("inputResponses");
                let id = format!("{OWN_ID}{}", self.state().asked.len());
                first["id"] = json!(id);
                self.state().swallowed.insert(id);
                Some(Inbound {
                    first: vec![first.to_string()],
                    ..Inbound::pass(message.to_string())
                })
            }
            _ => None,
        }
    }

    /// Rewrites a request of the server's (before 2026-07-28): the sampling
    /// request goes out as a `ping`, whose empty result the tool then gets.
    pub(super) fn multi_turn_request_out(&self, frame: &mut Value) {
        if self.fault == Fault::MultiTurnSkipsSampling
            && frame.get("method") == Some(&json!("sampling/createMessage"))
            && let Some(members) = frame.as_object_mut()
        {
            members.insert("method".into(), json!("ping"));
            members.remove("params");
        }
    }

    /// Rewrites the server's answer to a `tools/call` (2026-07-28): the
    /// round that asks for sampling asks for an empty form instead.
    pub(super) fn multi_turn_result_out(&self, method: &str, params: &Value, frame: &mut Value) {
        if self.fault != Fault::ModernMultiTurnSkipsSampling
            || method != "tools/call"
            || params["name"] != json!(BOOK)
        {
            return;
        }
        let requests = frame
            .pointer_mut("/result/inputRequests")
            .and_then(Value::as_object_mut);
        for request in requests.into_iter().flat_map(|r| r.values_mut()) {
            if request["method"] == json!("sampling/createMessage") {
                *request = json!({
                    "method": "elicitation/create",
                    "params": {
                        "mode": "form",
                        "message": "Anything else?",
                        "requestedSchema": { "type": "object", "properties": {} },
                    },
                });
            }
        }
    }

    /// Whether `frame` answers a request the layer sent itself.
    pub(super) fn is_swallowed(&self, frame: &Value) -> bool {
        let id = frame.get("id").and_then(Value::as_str);
        frame.get("method").is_none() && id.is_some_and(|id| self.state().swallowed.contains(id))
    }
}
