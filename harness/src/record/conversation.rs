//! A recorded transcript read as a conversation: the client's requests with
//! the server's answers, the server's requests with the client's answers,
//! and the client's notifications, in order. What the engine does by itself
//! when the file is run (the `initialize` handshake, `server/discover`, the
//! 2026-07-28 `_meta` envelope, request ids) is taken out here and kept as
//! the client's identity.

use std::collections::HashMap;

use mcp_conform_core::protocol::meta_key::{CLIENT_CAPABILITIES, CLIENT_INFO, PROTOCOL_VERSION};
use mcp_conform_core::version::ProtocolVersion;
use mcp_conform_core::wire::{Direction, Frame};
use serde_json::Value;

/// The recorded conversation, ready to be written as a scenario.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Conversation {
    /// The version the two sides spoke (the `initialize` answer's, or the
    /// one the 2026-07-28 envelope carried).
    pub version: Option<ProtocolVersion>,
    /// What the client declared: `capabilities` and `info`.
    pub capabilities: Option<Value>,
    pub info: Option<Value>,
    /// What the server said of itself: its `initialize` result (or its
    /// `server/discover` result in 2026-07-28).
    pub server: Option<Value>,
    pub steps: Vec<Step>,
    /// Notifications the server sent (not asserted: their timing is not
    /// the client's to script).
    pub server_notifications: usize,
}

/// One thing the client did.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Request(Request),
    Notify { method: String, params: Option<Value> },
}

/// A request of the client and what came of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub method: String,
    /// Without the envelope and the progress token.
    pub params: Option<Value>,
    /// The request asked for progress (`_meta.progressToken`).
    pub progress: bool,
    /// The final answer (after 2026-07-28 input rounds); `None` when none came.
    pub answer: Option<Answer>,
    /// The server's requests while this one was pending (and the input
    /// requests of 2026-07-28 rounds), with how the client answered.
    pub asked: Vec<Asked>,
}

/// A JSON-RPC answer: `result` or `error`.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    Result(Value),
    Error(Value),
}

/// A request the server made of the client, and the client's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Asked {
    pub method: String,
    pub params: Option<Value>,
    pub reply: Option<Answer>,
}

/// Methods the engine sends itself when the file runs.
const ENGINE_OWN: [&str; 3] = ["initialize", "notifications/initialized", "server/discover"];

/// Reads a transcript whose `Sent` frames are the client's.
pub fn read(transcript: &[Frame]) -> Conversation {
    let mut reader = Reader::default();
    for frame in transcript {
        let Ok(message) = serde_json::from_slice::<Value>(&frame.raw) else {
            continue;
        };
        let messages = match message {
            Value::Array(batch) => batch,
            single => vec![single],
        };
        for message in messages {
            match frame.direction {
                Direction::Sent => reader.client_sent(message),
                Direction::Received => reader.server_sent(message),
            }
        }
    }
    reader.conversation
}

#[derive(Default)]
struct Reader {
    conversation: Conversation,
    /// The client's request ids: the step they belong to (`None`: one the
    /// engine sends itself, by method).
    ours: HashMap<String, Pending>,
    /// The server's request ids: step and index in its `asked`.
    theirs: HashMap<String, (usize, usize)>,
}

enum Pending {
    Step(usize),
    Engine(String),
}

impl Reader {
    fn client_sent(&mut self, message: Value) {
        let id = message.get("id").map(Value::to_string);
        let Some(method) = message.get("method").and_then(Value::as_str).map(str::to_owned) else {
            if let Some((step, index)) = id.and_then(|id| self.theirs.remove(&id)) {
                self.answer_asked(step, index, answer_of(&message));
            }
            return;
        };
        let params = message.get("params").cloned();
        self.learn_client(params.as_ref());
        if ENGINE_OWN.contains(&method.as_str()) {
            if let Some(id) = id {
                self.ours.insert(id, Pending::Engine(method));
            }
            return;
        }
        let (params, progress) = strip_envelope(params, self.conversation.capabilities.as_ref());
        let Some(id) = id else {
            self.conversation.steps.push(Step::Notify { method, params });
            return;
        };
        if let Some(step) = self.retried(&method, params.as_ref()) {
            self.ours.insert(id, Pending::Step(step));
            return;
        }
        self.ours.insert(id, Pending::Step(self.conversation.steps.len()));
        self.conversation.steps.push(Step::Request(Request {
            method,
            params,
            progress,
            answer: None,
            asked: Vec::new(),
        }));
    }

    fn server_sent(&mut self, message: Value) {
        let id = message.get("id").map(Value::to_string);
        if let Some(method) = message.get("method").and_then(Value::as_str) {
            match id {
                Some(id) => self.server_request(id, method, message.get("params")),
                None => self.conversation.server_notifications += 1,
            }
            return;
        }
        match id.and_then(|id| self.ours.remove(&id)) {
            Some(Pending::Step(step)) => self.answer_step(step, answer_of(&message)),
            Some(Pending::Engine(method)) => self.learn_server(&method, &message),
            None => {}
        }
    }

    /// The client's identity, from `initialize` or the 2026-07-28 envelope.
    fn learn_client(&mut self, params: Option<&Value>) {
        let Some(params) = params else { return };
        let meta = params.get("_meta");
        let capabilities = params
            .get("capabilities")
            .or_else(|| meta.and_then(|m| m.get(CLIENT_CAPABILITIES)));
        let info = params
            .get("clientInfo")
            .or_else(|| meta.and_then(|m| m.get(CLIENT_INFO)));
        let conversation = &mut self.conversation;
        if conversation.capabilities.is_none() {
            conversation.capabilities = capabilities.cloned();
        }
        if conversation.info.is_none() {
            conversation.info = info.cloned();
        }
        let enveloped = meta
            .and_then(|m| m.get(PROTOCOL_VERSION))
            .and_then(Value::as_str)
            .and_then(|v| v.parse().ok());
        if conversation.version.is_none() {
            conversation.version = enveloped;
        }
    }

    /// What the server said of itself, and the version the `initialize`
    /// answer settled on.
    fn learn_server(&mut self, method: &str, message: &Value) {
        let Some(result) = message.get("result") else {
            return;
        };
        self.conversation.server = Some(result.clone());
        let answered = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .and_then(|v| v.parse().ok());
        if method == "initialize" && answered.is_some() {
            self.conversation.version = answered;
        }
    }

    /// A server request goes with the latest client request still waiting.
    fn server_request(&mut self, id: String, method: &str, params: Option<&Value>) {
        let Some((step, request)) = self.latest_pending() else {
            return;
        };
        request.asked.push(Asked {
            method: method.to_owned(),
            params: params.cloned(),
            reply: None,
        });
        let index = request.asked.len() - 1;
        self.theirs.insert(id, (step, index));
    }

    fn latest_pending(&mut self) -> Option<(usize, &mut Request)> {
        let pending: Vec<usize> = self
            .ours
            .values()
            .filter_map(|p| match p {
                Pending::Step(step) => Some(*step),
                Pending::Engine(_) => None,
            })
            .collect();
        let step = pending.into_iter().max()?;
        match &mut self.conversation.steps[step] {
            Step::Request(request) => Some((step, request)),
            Step::Notify { .. } => None,
        }
    }

    fn answer_step(&mut self, step: usize, answer: Answer) {
        if let Step::Request(request) = &mut self.conversation.steps[step] {
            request.answer = Some(answer);
        }
    }

    fn answer_asked(&mut self, step: usize, index: usize, answer: Answer) {
        if let Step::Request(request) = &mut self.conversation.steps[step] {
            request.asked[index].reply = Some(answer);
        }
    }

    /// A 2026-07-28 retry (`inputResponses` for the input requests of the
    /// previous answer) belongs to the step it retries: its input requests
    /// become scripted answers, and its answer the step's final one.
    fn retried(&mut self, method: &str, params: Option<&Value>) -> Option<usize> {
        let responses = params?.get("inputResponses")?.as_object()?;
        let (step, request) =
            self.conversation
                .steps
                .iter_mut()
                .enumerate()
                .rev()
                .find_map(|(i, s)| match s {
                    Step::Request(r) if r.method == method => Some((i, r)),
                    _ => None,
                })?;
        let Some(Answer::Result(result)) = &request.answer else {
            return None;
        };
        let requests = result.get("inputRequests").and_then(Value::as_object)?;
        for (key, response) in responses {
            let Some(asked) = requests.get(key) else { continue };
            let Some(method) = asked.get("method").and_then(Value::as_str) else {
                continue;
            };
            request.asked.push(Asked {
                method: method.to_owned(),
                params: asked.get("params").cloned(),
                reply: Some(Answer::Result(response.clone())),
            });
        }
        Some(step)
    }
}

fn answer_of(message: &Value) -> Answer {
    match message.get("error") {
        Some(error) => Answer::Error(error.clone()),
        None => Answer::Result(message.get("result").cloned().unwrap_or(Value::Null)),
    }
}

/// The params without what the engine adds itself: the 2026-07-28
/// envelope and the progress token (`progress: true` asks for a fresh one).
/// Capabilities other than the client's usual ones (`learned`) stay: a
/// request that opts in to an extension on its own must replay opted in.
fn strip_envelope(params: Option<Value>, learned: Option<&Value>) -> (Option<Value>, bool) {
    let Some(Value::Object(mut object)) = params else {
        return (params, false);
    };
    let mut progress = false;
    if let Some(Value::Object(meta)) = object.get_mut("_meta") {
        for key in [PROTOCOL_VERSION, CLIENT_INFO] {
            meta.remove(key);
        }
        if meta.get(CLIENT_CAPABILITIES) == learned {
            meta.remove(CLIENT_CAPABILITIES);
        }
        progress = meta.remove("progressToken").is_some();
        if meta.is_empty() {
            object.remove("_meta");
        }
    }
    (Some(Value::Object(object)), progress)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use super::*;

    fn frames(messages: &[(Direction, Value)]) -> Vec<Frame> {
        messages
            .iter()
            .map(|(d, m)| Frame::new(*d, m.to_string().into_bytes(), Duration::ZERO))
            .collect()
    }

    const C: Direction = Direction::Sent;
    const S: Direction = Direction::Received;

    #[test]
    fn the_handshake_is_the_engines_and_the_client_keeps_its_identity() {
        let conversation = read(&frames(&[
            (
                C,
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {"roots": {}}, "clientInfo": {"name": "c"}}}),
            ),
            (
                S,
                json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-06-18"}}),
            ),
            (
                C,
                json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            ),
            (
                C,
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {"progressToken": 7}}}),
            ),
            (
                S,
                json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {}}),
            ),
            (S, json!({"jsonrpc": "2.0", "id": "s1", "method": "roots/list"})),
            (C, json!({"jsonrpc": "2.0", "id": "s1", "result": {"roots": []}})),
            (S, json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": []}})),
            (
                C,
                json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}}),
            ),
        ]));
        assert_eq!(conversation.version, Some(ProtocolVersion::V2025_06_18));
        assert_eq!(conversation.capabilities, Some(json!({"roots": {}})));
        assert_eq!(conversation.info, Some(json!({"name": "c"})));
        assert_eq!(conversation.server_notifications, 1);
        assert_eq!(
            conversation.server,
            Some(json!({"protocolVersion": "2025-06-18"}))
        );
        assert_eq!(
            conversation.steps,
            vec![
                Step::Request(Request {
                    method: "tools/list".into(),
                    params: Some(json!({})),
                    progress: true,
                    answer: Some(Answer::Result(json!({"tools": []}))),
                    asked: vec![Asked {
                        method: "roots/list".into(),
                        params: None,
                        reply: Some(Answer::Result(json!({"roots": []}))),
                    }],
                }),
                Step::Notify {
                    method: "notifications/cancelled".into(),
                    params: Some(json!({"requestId": 9})),
                },
            ]
        );
    }

    #[test]
    fn a_request_opting_in_on_its_own_keeps_its_capabilities() {
        let usual =
            json!({PROTOCOL_VERSION: "2026-07-28", CLIENT_CAPABILITIES: {}, CLIENT_INFO: {"name": "c"}});
        let opted = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
        let own =
            json!({PROTOCOL_VERSION: "2026-07-28", CLIENT_CAPABILITIES: opted, CLIENT_INFO: {"name": "c"}});
        let conversation = read(&frames(&[
            (
                C,
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": usual}}),
            ),
            (S, json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": []}})),
            (
                C,
                json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "slow", "_meta": own}}),
            ),
            (S, json!({"jsonrpc": "2.0", "id": 2, "result": {"content": []}})),
        ]));
        let [Step::Request(list), Step::Request(call)] = conversation.steps.as_slice() else {
            panic!("two steps expected: {:?}", conversation.steps);
        };
        assert_eq!(list.params, Some(json!({})));
        assert_eq!(
            call.params,
            Some(json!({"name": "slow", "_meta": {CLIENT_CAPABILITIES: opted}}))
        );
    }

    #[test]
    fn a_modern_retry_folds_into_the_request_it_retries() {
        let meta = json!({PROTOCOL_VERSION: "2026-07-28", CLIENT_CAPABILITIES: {"elicitation": {}}, CLIENT_INFO: {"name": "c"}});
        let conversation = read(&frames(&[
            (
                C,
                json!({"jsonrpc": "2.0", "id": "discover", "method": "server/discover", "params": {"_meta": meta}}),
            ),
            (S, json!({"jsonrpc": "2.0", "id": "discover", "result": {}})),
            (
                C,
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ask", "_meta": meta}}),
            ),
            (
                S,
                json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required",
                "inputRequests": {"q": {"method": "elicitation/create", "params": {}}}, "requestState": "abc"}}),
            ),
            (
                C,
                json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ask", "_meta": meta,
                "inputResponses": {"q": {"action": "decline"}}, "requestState": "abc"}}),
            ),
            (S, json!({"jsonrpc": "2.0", "id": 2, "result": {"content": []}})),
        ]));
        assert_eq!(conversation.version, Some(ProtocolVersion::V2026_07_28));
        assert_eq!(conversation.capabilities, Some(json!({"elicitation": {}})));
        let [Step::Request(call)] = conversation.steps.as_slice() else {
            panic!("one step expected: {:?}", conversation.steps);
        };
        assert_eq!(call.params, Some(json!({"name": "ask"})));
        assert_eq!(call.answer, Some(Answer::Result(json!({"content": []}))));
        assert_eq!(
            call.asked,
            vec![Asked {
                method: "elicitation/create".into(),
                params: Some(json!({})),
                reply: Some(Answer::Result(json!({"action": "decline"}))),
            }]
        );
    }
}
