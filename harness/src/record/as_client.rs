//! The same recording written as a `role: client` scenario, to test the
//! client alone: the server's side is scripted (its `initialize` or
//! `server/discover` answer as the mock server's `server`, each answer it
//! gave as an `other` answer picked by the request's params), and each
//! request of the client is expected in turn. A request during which the
//! server asked the client something is held, the server's requests are
//! sent with the client's recorded answers as expectations, and then the
//! held request is answered as it was.

use mcp_conform_core::redact::Secrets;
use mcp_conform_core::version::Era;
use serde_json::{Map, Value, json};

use super::conversation::{Answer, Conversation, Request, Step};
use super::generalize::{self, Known, Notes};
use super::writer::{Provenance, file_text};

/// How long the client has for each request it is expected to send.
const WITHIN_MS: u64 = 10_000;

/// The `role: client` scenario file's text; `plan` is what the client was
/// asked to do, when it was asked (`MCP_CONFORM_PLAN`). A 2026-07-28
/// conversation with input rounds is refused: its server asks nothing by
/// request, and the rounds themselves are not kept.
pub fn client_scenario(
    conversation: &Conversation,
    provenance: &Provenance,
    secrets: &Secrets,
    plan: Option<Value>,
) -> Result<String, String> {
    let stateless = conversation.version.is_some_and(|v| v.era() == Era::Stateless);
    let rounds = conversation
        .steps
        .iter()
        .any(|s| matches!(s, Step::Request(r) if !r.asked.is_empty()));
    if stateless && rounds {
        return Err("a 2026-07-28 conversation with input rounds cannot be written --as client yet".into());
    }
    let mut notes = Notes::new();
    let mut answers = Vec::new();
    let mut steps = Vec::new();
    let requests = conversation.steps.iter().filter_map(|s| match s {
        Step::Request(request) => Some(request),
        Step::Notify { .. } => None,
    });
    let requests: Vec<&Request> = requests.collect();
    let handed_out: Known = requests
        .iter()
        .filter_map(|r| match &r.answer {
            Some(Answer::Result(result)) => Some(generalize::volatile_strings(result)),
            _ => None,
        })
        .flatten()
        .map(|(value, _path)| value)
        .collect();
    for (index, request) in requests.iter().enumerate() {
        let when = picked_by(request, &requests, &handed_out, secrets, &mut notes);
        let expected = json!({"method": request.method, "params": when, "within_ms": WITHIN_MS});
        if request.asked.is_empty() {
            answers.push(other(
                &request.method,
                &when,
                reply(request.answer.as_ref(), secrets, &mut notes),
            ));
            steps.push(json!({"expect_request": expected}));
            continue;
        }
        let held = format!("held_{}", index + 1);
        answers.push(other(&request.method, &when, json!("no_reply")));
        let mut expected = expected;
        expected["name"] = json!(held);
        steps.push(json!({"expect_request": expected}));
        for asked in &request.asked {
            let mut ask = Map::new();
            ask.insert("method".into(), json!(asked.method));
            if let Some(params) = &asked.params {
                ask.insert("params".into(), generalize::sent(params, secrets, &mut notes));
            }
            if let Some(Answer::Result(result)) = &asked.reply {
                ask.insert(
                    "expect".into(),
                    json!({"result": generalize::pattern(result, secrets, &mut notes)}),
                );
            }
            steps.push(json!({"request": ask}));
        }
        let mut respond = Map::new();
        respond.insert("to".into(), json!(held));
        match &request.answer {
            Some(Answer::Result(result)) => {
                respond.insert("result".into(), generalize::sent(result, secrets, &mut notes));
            }
            Some(Answer::Error(error)) => {
                respond.insert("error".into(), generalize::sent(error, secrets, &mut notes));
            }
            None => continue,
        }
        steps.push(json!({"respond": respond}));
    }
    let mut document = Map::new();
    document.insert("id".into(), json!(provenance.id));
    document.insert(
        "title".into(),
        json!(format!(
            "Recorded conversation, the client's side ({} requests)",
            answers.len()
        )),
    );
    document.insert("role".into(), json!("client"));
    if let Some(version) = conversation.version {
        document.insert("versions".into(), json!(version.as_str()));
    }
    document.insert("server".into(), server_model(conversation, secrets, &mut notes));
    if let Some(plan) = plan {
        document.insert("plan".into(), plan);
    }
    document.insert("answers".into(), Value::Array(answers));
    document.insert("steps".into(), Value::Array(steps));
    let client_notifications = conversation
        .steps
        .iter()
        .filter(|s| matches!(s, Step::Notify { .. }))
        .count();
    let not_asserted = (client_notifications > 0)
        .then(|| format!("the {client_notifications} notifications the client sent"));
    Ok(file_text(document, provenance, &notes, not_asserted))
}

/// What picks this request's answer among those of its method: its params
/// as a pattern, and, absent, every member another request of the method
/// had (so the first page's answer does not serve the cursor of the next).
/// The values the scripted server hands out are matched as they are.
fn picked_by(
    request: &Request,
    all: &[&Request],
    known: &Known,
    secrets: &Secrets,
    notes: &mut Notes,
) -> Value {
    let params = request.params.clone().unwrap_or_else(|| json!({}));
    let mut when = generalize::pattern_knowing(&params, known, secrets, notes);
    let Some(when_members) = when.as_object_mut() else {
        return when;
    };
    let siblings = all.iter().filter(|r| r.method == request.method);
    for members in siblings.filter_map(|r| r.params.as_ref()?.as_object()) {
        for name in members.keys() {
            if params.get(name).is_none() && !when_members.contains_key(name) {
                when_members.insert(name.clone(), json!({"$absent": true}));
            }
        }
    }
    when
}

fn other(method: &str, when: &Value, reply: Value) -> Value {
    json!({"other": {"method": method, "when": when, "reply": reply}})
}

/// The server's answer as a scripted reply; one it never gave stays unsent.
fn reply(answer: Option<&Answer>, secrets: &Secrets, notes: &mut Notes) -> Value {
    match answer {
        Some(Answer::Result(result)) => json!({"result": generalize::sent(result, secrets, notes)}),
        Some(Answer::Error(error)) => json!({"error": generalize::sent(error, secrets, notes)}),
        None => json!("no_reply"),
    }
}

/// The mock server: what the real one said of itself.
fn server_model(conversation: &Conversation, secrets: &Secrets, notes: &mut Notes) -> Value {
    let said = conversation.server.clone().unwrap_or_else(|| json!({}));
    let mut server = Map::new();
    server.insert(
        "capabilities".into(),
        said.get("capabilities").cloned().unwrap_or_else(|| json!({})),
    );
    if let Some(info) = said.get("serverInfo") {
        server.insert("info".into(), generalize::sent(info, secrets, notes));
    }
    if let Some(instructions) = said.get("instructions") {
        server.insert(
            "instructions".into(),
            generalize::sent(instructions, secrets, notes),
        );
    }
    Value::Object(server)
}
