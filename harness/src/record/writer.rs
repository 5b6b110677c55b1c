//! A recorded conversation written as a server scenario: each request of
//! the client a `request` step whose `expect` is the server's answer made
//! general (`generalize`), the client's answers to the server's requests as
//! scripted answers, its notifications as `notify` steps. A header comment
//! says where it came from, what was generalized and how to replay it.

use mcp_conform_core::redact::Secrets;
use serde_json::{Map, Value, json};

use super::conversation::{Answer, Asked, Conversation, Request, Step};
use super::generalize::{self, Notes};

/// Where the recording came from, for the header comment.
#[derive(Debug, Clone)]
pub struct Provenance {
    /// The scenario's id.
    pub id: String,
    /// The command that replays the file, without the file (`mcp-conform run --stdio '…'`).
    pub replay: String,
}

/// The scenario file's text.
pub fn server_scenario(conversation: &Conversation, provenance: &Provenance, secrets: &Secrets) -> String {
    let mut notes = Notes::new();
    let steps = Steps::new(conversation, secrets, &mut notes).written();
    let mut document = Map::new();
    document.insert("id".into(), json!(provenance.id));
    document.insert(
        "title".into(),
        json!(format!("Recorded conversation ({} steps)", steps.len())),
    );
    if let Some(version) = conversation.version {
        document.insert("versions".into(), json!(version.as_str()));
    }
    let mut client = Map::new();
    if let Some(capabilities) = &conversation.capabilities {
        client.insert(
            "capabilities".into(),
            generalize::sent(capabilities, secrets, &mut notes),
        );
    }
    if let Some(info) = &conversation.info {
        client.insert("info".into(), generalize::sent(info, secrets, &mut notes));
    }
    if !client.is_empty() {
        document.insert("client".into(), Value::Object(client));
    }
    document.insert("steps".into(), Value::Array(steps));
    let not_asserted = match conversation.server_notifications {
        0 => None,
        n => Some(format!("the {n} notifications the server sent")),
    };
    file_text(document, provenance, &notes, not_asserted)
}

/// The file: the header comment, then `document`. It cites no requirement:
/// a drift from the recording is a product check failing, while the frame
/// checker still judges every frame under the spec's own requirements.
pub(super) fn file_text(
    document: Map<String, Value>,
    provenance: &Provenance,
    notes: &Notes,
    not_asserted: Option<String>,
) -> String {
    let body = serde_saphyr::to_string(&Value::Object(document)).unwrap_or_default();
    let mut text = String::from("# Recorded by `mcp-conform record`: review it, then commit it.\n");
    let generalized = match notes.is_empty() {
        true => "nothing".to_owned(),
        false => notes.iter().copied().collect::<Vec<_>>().join(", "),
    };
    text.push_str(&format!(
        "# Generalized (matched by type or pattern, or captured and sent back): {generalized}.\n"
    ));
    text.push_str("# Left to the engine: the handshake or server/discover, request ids, the 2026-07-28 _meta envelope, progress tokens.\n");
    if let Some(what) = not_asserted {
        text.push_str(&format!("# Not asserted: {what}.\n"));
    }
    text.push_str(&format!("# Replay: {} THIS_FILE\n", provenance.replay));
    text.push_str(&body);
    text
}

/// The steps, with the values later steps send back captured.
struct Steps<'c> {
    conversation: &'c Conversation,
    secrets: &'c Secrets,
    notes: &'c mut Notes,
    /// Recorded values to send back as variables: value, variable.
    captured: Vec<(String, String)>,
}

impl<'c> Steps<'c> {
    fn new(conversation: &'c Conversation, secrets: &'c Secrets, notes: &'c mut Notes) -> Self {
        Steps {
            conversation,
            secrets,
            notes,
            captured: Vec::new(),
        }
    }

    fn written(mut self) -> Vec<Value> {
        let steps = &self.conversation.steps;
        (0..steps.len()).map(|i| self.step(i)).collect()
    }

    fn step(&mut self, index: usize) -> Value {
        match &self.conversation.steps[index] {
            Step::Notify { method, params } => {
                let mut notify = Map::new();
                notify.insert("method".into(), json!(method));
                if let Some(params) = params {
                    notify.insert("params".into(), self.sent(params));
                }
                json!({"notify": notify})
            }
            Step::Request(request) => json!({"request": self.request(index, request)}),
        }
    }

    fn request(&mut self, index: usize, request: &Request) -> Value {
        let mut step = Map::new();
        step.insert("method".into(), json!(request.method));
        if let Some(params) = &request.params {
            step.insert("params".into(), self.sent(params));
        }
        if request.progress {
            step.insert("progress".into(), json!(true));
        }
        let answers = scripted(&request.asked, self.secrets, self.notes);
        if !answers.is_empty() {
            step.insert("answers".into(), Value::Array(answers));
        }
        match &request.answer {
            None => {
                // The server never answered while we listened (a stream
                // left open, a call the client gave up on).
                step.insert("wait".into(), json!(false));
            }
            Some(Answer::Error(error)) => {
                let code = error.get("code").cloned().unwrap_or(Value::Null);
                self.notes.insert("error messages (the code is kept)");
                step.insert("expect".into(), json!({"error": {"code": code}}));
            }
            Some(Answer::Result(result)) => {
                let capture = self.capture(index, result);
                if !capture.is_empty() {
                    step.insert("capture".into(), Value::Object(capture));
                }
                let expected = generalize::pattern(result, self.secrets, self.notes);
                step.insert("expect".into(), json!({"result": expected}));
            }
        }
        Value::Object(step)
    }

    /// What the client sends, with the values captured earlier as variables.
    fn sent(&mut self, params: &Value) -> Value {
        let mut sent = generalize::sent(params, self.secrets, self.notes);
        for (value, variable) in &self.captured {
            generalize::substitute(
                &mut sent,
                &generalize::literal(value),
                &format!("${{{variable}}}"),
            );
        }
        sent
    }

    /// The volatile values of step `index`'s answer that a later request sends back.
    fn capture(&mut self, index: usize, result: &Value) -> Map<String, Value> {
        let later: Vec<&Value> = self.conversation.steps[index + 1..]
            .iter()
            .filter_map(|s| match s {
                Step::Request(r) => r.params.as_ref(),
                Step::Notify { params, .. } => params.as_ref(),
            })
            .collect();
        let mut capture = Map::new();
        for (value, path) in generalize::volatile_strings(result) {
            let reused = later.iter().any(|p| generalize::contains(p, &value));
            if !reused || self.captured.iter().any(|(v, _)| *v == value) {
                continue;
            }
            let variable = format!("recorded_{}", self.captured.len() + 1);
            capture.insert(variable.clone(), json!(path));
            self.captured.push((value, variable));
            self.notes.insert("values sent back (captured)");
        }
        capture
    }
}

/// The client's answers to the server's requests during one step, one per
/// method (the first), as `other` answers.
fn scripted(asked: &[Asked], secrets: &Secrets, notes: &mut Notes) -> Vec<Value> {
    let mut answers: Vec<Value> = Vec::new();
    let mut methods: Vec<&str> = Vec::new();
    for request in asked {
        if methods.contains(&request.method.as_str()) {
            continue;
        }
        methods.push(&request.method);
        let reply = match &request.reply {
            None => json!("no_reply"),
            Some(Answer::Result(result)) => json!({"result": generalize::sent(result, secrets, notes)}),
            Some(Answer::Error(error)) => json!({"error": generalize::sent(error, secrets, notes)}),
        };
        answers.push(json!({"other": {"method": request.method, "reply": reply}}));
    }
    answers
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use mcp_conform_core::requirements::UserCatalogue;
    use mcp_conform_core::scenario::load::load_text;
    use mcp_conform_core::scenario::validate::Origin;
    use mcp_conform_core::version::ProtocolVersion;

    use super::*;

    fn request(method: &str, params: Value, answer: Option<Answer>, asked: Vec<Asked>) -> Step {
        Step::Request(Request {
            method: method.into(),
            params: Some(params),
            progress: false,
            answer,
            asked,
        })
    }

    #[test]
    fn a_written_conversation_loads_and_sends_cursors_back() {
        let conversation = Conversation {
            version: Some(ProtocolVersion::V2025_06_18),
            capabilities: Some(json!({"sampling": {}})),
            info: Some(json!({"name": "c", "version": "1"})),
            steps: vec![
                request(
                    "tools/list",
                    json!({}),
                    Some(Answer::Result(json!({"tools": [], "nextCursor": "page-2"}))),
                    vec![],
                ),
                request(
                    "tools/list",
                    json!({"cursor": "page-2"}),
                    Some(Answer::Result(json!({"tools": []}))),
                    vec![],
                ),
                request(
                    "tools/call",
                    json!({"name": "sample"}),
                    Some(Answer::Error(json!({"code": -32602, "message": "no"}))),
                    vec![Asked {
                        method: "sampling/createMessage".into(),
                        params: None,
                        reply: Some(Answer::Result(json!({"role": "assistant"}))),
                    }],
                ),
                request("subscriptions/listen", json!({}), None, vec![]),
                Step::Notify {
                    method: "notifications/roots/list_changed".into(),
                    params: None,
                },
            ],
            server: None,
            server_notifications: 2,
        };
        let provenance = Provenance {
            id: "recorded.example".into(),
            replay: "mcp-conform run --stdio 'server' --protocol 2025-06-18".into(),
        };
        let text = server_scenario(&conversation, &provenance, &Secrets::default());
        let scenario = load_text(
            Path::new("recorded.yaml"),
            &text,
            Origin::User(&UserCatalogue::default()),
        )
        .unwrap_or_else(|d| panic!("{d:?}\n{text}"));
        assert_eq!(scenario.id, "recorded.example");
        assert_eq!(scenario.steps.len(), 5);
        assert!(text.contains("cursor: ${recorded_1}"), "{text}");
        assert!(text.contains("recorded_1: $.result.nextCursor"), "{text}");
        assert!(
            text.contains("# Not asserted: the 2 notifications the server sent."),
            "{text}"
        );
        assert!(text.contains("# Replay: mcp-conform run --stdio 'server' --protocol 2025-06-18 THIS_FILE"));
    }
}
