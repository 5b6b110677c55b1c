//! How the reference client answers the server's requests: as a host whose
//! person approves, declines or never answers, as the plan says.

use mcp_conform_core::scenario::model::Reply;
use mcp_conform_core::wire::RequestId;
use serde_json::{Map, Value, json};
use tokio::time::Instant;

use super::{ClientFault, Plan};
use crate::session::{PeerRequest, RequestHandler};

/// The client capabilities the reference client can have, with the method
/// each one serves.
const FEATURES: [(&str, &str); 3] = [
    ("roots", "roots/list"),
    ("sampling", "sampling/createMessage"),
    ("elicitation", "elicitation/create"),
];

/// Answers the server's requests as the plan says.
pub(super) struct Answers {
    pub(super) plan: Plan,
    pub(super) fault: Option<ClientFault>,
    /// Requests the person never answered, with when the host gives up
    /// waiting and what it then answers on its own (`host_timeout_ms`).
    overdue: Vec<(RequestId, Instant, Reply)>,
    /// The host's roots changed (`roots_change_after_ms`): a second root.
    pub(super) roots_changed: bool,
    /// A faulty host busy showing the progress of its call answers nothing.
    pub(super) stalled: bool,
    /// The stateless era: an input request is answered within its round or
    /// never (no JSON-RPC response goes to the server, RPC-017).
    pub(super) stateless: bool,
}

impl Answers {
    pub(super) fn new(plan: Plan, fault: Option<ClientFault>) -> Answers {
        Answers {
            plan,
            fault,
            overdue: Vec::new(),
            roots_changed: false,
            stalled: false,
            stateless: false,
        }
    }

    /// What the client declares: every feature the plan does not withhold.
    pub(super) fn capabilities(&self) -> Value {
        let all = json!({"roots": {"listChanged": true}, "sampling": {}, "elicitation": {"form": {}}});
        let declared = FEATURES
            .iter()
            .filter(|(capability, _)| !self.plan.withholds(capability))
            .map(|(capability, _)| (capability.to_string(), all[capability].clone()));
        Value::Object(declared.collect())
    }

    /// The server cancelled one of its requests: the person's dialog closes
    /// and the host answers nothing more for it.
    pub(super) fn cancelled(&mut self, id: Option<&Value>) {
        if self.fault == Some(ClientFault::AnswersAfterCancel) {
            return;
        }
        let Some(id) = id.and_then(RequestId::from_value) else {
            return;
        };
        self.overdue.retain(|(pending, ..)| *pending != id);
    }

    /// The answers the host now gives on its own, its timeout having ended.
    pub(super) fn due(&mut self, now: Instant) -> Vec<(RequestId, Reply)> {
        let (due, waiting) = std::mem::take(&mut self.overdue)
            .into_iter()
            .partition(|(_, at, _)| *at <= now);
        self.overdue = waiting;
        due.into_iter().map(|(id, _, reply)| (id, reply)).collect()
    }

    /// The person never answers; with `host_timeout_ms` the host answers
    /// `on_timeout` itself when that time is up. In the stateless era the
    /// round is the answer's only chance: the host's own answer goes into
    /// it at once (or, without one, the call is given up).
    fn never_answered(&mut self, request: &PeerRequest, on_timeout: Reply) -> Reply {
        let Some(timeout) = self.plan.optional_millis("host_timeout_ms") else {
            return Reply::NoReply;
        };
        if self.stateless {
            return on_timeout;
        }
        self.overdue
            .push((request.id.clone(), Instant::now() + timeout, on_timeout));
        Reply::NoReply
    }

    /// A request for a feature the plan withholds: refused as unknown,
    /// unless a fault serves it anyway or refuses it wrongly.
    fn withheld(&self, capability: &str) -> Option<Reply> {
        let served_anyway = match capability {
            "roots" => ClientFault::WithheldRootsServed,
            "sampling" => ClientFault::WithheldSamplingServed,
            _ => ClientFault::WithheldElicitationServed,
        };
        if self.fault == Some(served_anyway) {
            return None;
        }
        let code = if self.fault == Some(ClientFault::WithheldWrongCode) {
            -32600
        } else {
            -32601
        };
        Some(refusal(
            code,
            &format!("this client has no {capability} capability"),
        ))
    }

    fn roots(&self) -> Reply {
        let mut roots = vec![json!({"uri": "file:///tmp/mcp-conform-project", "name": "project"})];
        if self.fault == Some(ClientFault::RootsNotFile) {
            roots[0]["uri"] = json!("https://example.com/project");
        }
        if self.roots_changed {
            roots.push(json!({"uri": "file:///tmp/mcp-conform-added", "name": "added"}));
        }
        Reply::Result(json!({"roots": roots}))
    }

    fn sample(&mut self, request: &PeerRequest, params: &Value) -> Reply {
        let uses_tools = params.get("tools").is_some() || params.get("toolChoice").is_some();
        if uses_tools && self.fault != Some(ClientFault::SamplingToolsUndeclared) {
            return refusal(-32602, "tools in sampling need the sampling.tools capability");
        }
        let mut message = json!({
            "role": "assistant",
            "content": {"type": "text", "text": "A reply from the reference client."},
            "model": "mcp-conform-reference",
            "stopReason": "endTurn",
        });
        if self.fault == Some(ClientFault::SamplingWithoutModel) {
            message.as_object_mut().map(|m| m.remove("model"));
        }
        match self.plan.word("sampling", "approve").as_str() {
            "ignore" => {
                let on_timeout = if self.fault == Some(ClientFault::SamplesUnanswered) {
                    Reply::Result(message)
                } else {
                    refusal(-1, "the user did not answer the sampling request in time")
                };
                self.never_answered(request, on_timeout)
            }
            "deny" => refusal(-1, "the user rejected the sampling request"),
            _ => Reply::Result(message),
        }
    }

    fn elicit(&mut self, request: &PeerRequest, params: &Value) -> Reply {
        let url_mode = params.get("mode").and_then(Value::as_str) == Some("url");
        if url_mode && self.fault != Some(ClientFault::UndeclaredUrlMode) {
            return refusal(-32602, "URL-mode elicitation was not declared");
        }
        let accepted = if url_mode {
            json!({"action": "accept"})
        } else {
            let schema = params.get("requestedSchema").unwrap_or(&Value::Null);
            json!({"action": "accept", "content": self.form_content(schema)})
        };
        match self.plan.word("elicitation", "accept").as_str() {
            "ignore" => {
                let on_timeout = if self.fault == Some(ClientFault::AcceptsUnanswered) {
                    accepted
                } else {
                    json!({"action": "cancel"})
                };
                self.never_answered(request, Reply::Result(on_timeout))
            }
            "cancel" => Reply::Result(json!({"action": "cancel"})),
            "decline" if self.fault == Some(ClientFault::DeclineWithContent) => {
                Reply::Result(json!({"action": "decline", "content": {}}))
            }
            "decline" => Reply::Result(json!({"action": "decline"})),
            _ => Reply::Result(accepted),
        }
    }

    /// What a person who accepts every default fills in: the field's
    /// default, or a valid value of its type.
    fn form_content(&self, schema: &Value) -> Value {
        let ignore_schema = self.fault == Some(ClientFault::ContentIgnoresSchema);
        let use_defaults = self.fault != Some(ClientFault::IgnoresDefaults);
        let mut content = Map::new();
        let properties = schema.get("properties").and_then(Value::as_object);
        for (name, field) in properties.into_iter().flatten() {
            let value = match field.get("default") {
                _ if ignore_schema => json!("mcp-conform"),
                Some(default) if use_defaults => default.clone(),
                _ => value_of_type(field),
            };
            content.insert(name.clone(), value);
        }
        Value::Object(content)
    }
}

/// A valid value for a form field, other than its default when it has one.
fn value_of_type(field: &Value) -> Value {
    let default = field.get("default");
    let choices = field
        .get("enum")
        .or_else(|| field.pointer("/items/enum"))
        .and_then(Value::as_array);
    if let Some(choice) = choices.into_iter().flatten().find(|c| Some(*c) != default) {
        return match field.get("type").and_then(Value::as_str) {
            Some("array") => json!([choice]),
            _ => choice.clone(),
        };
    }
    match field.get("type").and_then(Value::as_str) {
        Some("integer" | "number") => {
            let minimum = field.get("minimum").and_then(Value::as_i64).unwrap_or(1);
            let maximum = field.get("maximum").and_then(Value::as_i64).unwrap_or(i64::MAX);
            let value = if default.and_then(Value::as_i64) == Some(minimum) && minimum < maximum {
                minimum + 1
            } else {
                minimum
            };
            json!(value)
        }
        Some("boolean") => json!(default != Some(&json!(true))),
        _ => {
            let text = match field.get("format").and_then(Value::as_str) {
                Some("email") => "mcp-conform@example.com",
                Some("uri") => "https://example.com/mcp-conform",
                Some("date") => "2025-11-25",
                Some("date-time") => "2025-11-25T12:00:00Z",
                _ => "mcp-conform",
            };
            if default == Some(&json!(text)) {
                json!(format!("{text}-2"))
            } else {
                json!(text)
            }
        }
    }
}

impl RequestHandler for Answers {
    /// In the stateless era a refusal is no input response: a host that
    /// refuses an input request gives its call up rather than retry
    /// without the input (MRTR-006).
    fn answer(&mut self, request: &PeerRequest) -> Reply {
        match self.reply(request) {
            Reply::Error { .. } if self.stateless => Reply::NoReply,
            reply => reply,
        }
    }
}

impl Answers {
    fn reply(&mut self, request: &PeerRequest) -> Reply {
        let params = request.params.clone().unwrap_or_else(|| json!({}));
        let feature = FEATURES.iter().find(|(_, method)| *method == request.method);
        if let Some((capability, _)) = feature
            && self.plan.withholds(capability)
            && let Some(refused) = self.withheld(capability)
        {
            return refused;
        }
        match request.method.as_str() {
            "ping" if self.stalled => Reply::NoReply,
            "ping"
                if self.fault == Some(ClientFault::FuzzUnansweredEmptyId)
                    && request.id.to_value() == serde_json::json!("") =>
            {
                Reply::NoReply
            }
            "ping" if self.fault == Some(ClientFault::PingWithContent) => {
                Reply::Result(json!({"pong": true}))
            }
            "ping" => Reply::Result(json!({})),
            "roots/list" => self.roots(),
            "elicitation/create" => self.elicit(request, &params),
            "sampling/createMessage" => self.sample(request, &params),
            other
                if self.fault == Some(ClientFault::FuzzUnknownMethodResult)
                    && (other.starts_with("x-") || other.starts_with("mcp-conform/")) =>
            {
                Reply::Result(json!({}))
            }
            other => refusal(-32601, &format!("the reference client does not serve {other}")),
        }
    }
}

fn refusal(code: i64, message: &str) -> Reply {
    Reply::Error {
        code,
        message: message.to_owned(),
        data: None,
    }
}
