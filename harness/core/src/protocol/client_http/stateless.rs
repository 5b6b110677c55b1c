//! The client's rules of Streamable HTTP in the stateless era (2026-07-28+),
//! judged on each POSTed request with the message it carried (the
//! transcript's frame under its label) and the tools our `tools/list`
//! answers had listed by then: the body's version, method and name
//! mirrored into headers (HTTP-020), marked tool arguments into
//! `Mcp-Param-*` headers (HTTP-023), and no call of a tool whose
//! `x-mcp-header` use is invalid (HTTP-024); and the tasks extension's
//! requests name their task in `Mcp-Name` (TASKX-030).

use std::collections::HashMap;

use serde_json::Value;

use super::Finding;
use crate::Level;
use crate::evidence::http::{HttpClientRecord, InboundRequest};
use crate::protocol::cite;
use crate::protocol::meta_key::PROTOCOL_VERSION;
use crate::wire::headers::REDACTED;
use crate::wire::mirror::{self, ParamHeader};
use crate::wire::{Direction, Frame};

/// One request the client POSTed.
struct Posted<'a> {
    request: &'a InboundRequest,
    message: Value,
    /// For a `tools/call`: how our latest `tools/list` answer defined the
    /// tool it names, if one did.
    tool: Option<Value>,
}

impl Posted<'_> {
    fn method(&self) -> &str {
        self.message
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    fn params(&self) -> Option<&Value> {
        self.message.get("params")
    }

    /// The tool's `x-mcp-header` declarations, or why they are invalid.
    fn declarations(&self) -> Option<Result<Vec<ParamHeader>, String>> {
        self.tool.as_ref().map(mirror::header_params)
    }
}

/// What the transcript shows of the conversation.
struct Conversation<'a> {
    posted: Vec<Posted<'a>>,
    /// We listed a tool whose `x-mcp-header` use is invalid.
    listed_invalid: bool,
}

/// The findings of the stateless era's rules.
pub(super) fn findings(record: &HttpClientRecord, transcript: &[Frame]) -> [Finding; 4] {
    let conversation = read(record, transcript);
    [
        standard_headers(&conversation),
        param_headers(&conversation),
        invalid_tools_dropped(&conversation),
        task_headers(&conversation),
    ]
}

/// The tasks extension's requests, whose `Mcp-Name` is their task's id.
const TASK_REQUESTS: [&str; 3] = ["tasks/get", "tasks/update", "tasks/cancel"];

/// Walks the transcript in order: each POSTed request with the tools
/// listed before it.
fn read<'a>(record: &'a HttpClientRecord, transcript: &[Frame]) -> Conversation<'a> {
    let posts: HashMap<&str, &InboundRequest> = record
        .requests
        .iter()
        .filter(|r| r.method == "POST")
        .map(|r| (r.label.as_str(), r))
        .collect();
    let mut asked: HashMap<String, String> = HashMap::new();
    let mut listed: HashMap<String, Value> = HashMap::new();
    let mut conversation = Conversation {
        posted: Vec::new(),
        listed_invalid: false,
    };
    for frame in transcript {
        let Ok(message) = serde_json::from_slice::<Value>(&frame.raw) else {
            continue;
        };
        let method = message.get("method").and_then(Value::as_str);
        let id = message.get("id").map(Value::to_string);
        match (frame.direction, method, id) {
            (Direction::Received, Some(method), Some(id)) => {
                asked.insert(id, method.to_owned());
                let Some(request) = frame.meta.stream.as_deref().and_then(|label| posts.get(label)) else {
                    continue;
                };
                let tool = (method == "tools/call")
                    .then(|| mirror::named(method, message.get("params")))
                    .flatten()
                    .and_then(|name| listed.get(name).cloned());
                conversation.posted.push(Posted {
                    request,
                    message,
                    tool,
                });
            }
            (Direction::Sent, None, Some(id)) if asked.get(&id).is_some_and(|m| m == "tools/list") => {
                let tools = message.pointer("/result/tools").and_then(Value::as_array);
                for tool in tools.into_iter().flatten() {
                    if let Some(name) = tool.get("name").and_then(Value::as_str) {
                        conversation.listed_invalid |= mirror::header_params(tool).is_err();
                        listed.insert(name.to_owned(), tool.clone());
                    }
                }
            }
            _ => {}
        }
    }
    conversation
}

/// What is wrong with `header` (shown as `shown`), which mirrors `body`;
/// `encoded` when it may use the Base64 sentinel form.
fn mismatch(request: &InboundRequest, shown: &str, body: &str, encoded: bool) -> Option<String> {
    let Some(sent) = request.header(&shown.to_ascii_lowercase()) else {
        return Some(format!("no {shown} header (the body says `{body}`)"));
    };
    let meant = match encoded {
        true => mirror::decode(sent),
        false => Some(sent.to_owned()),
    };
    match meant {
        None => Some(format!("{shown} `{sent}` is not valid =?base64?…?= UTF-8")),
        Some(meant) if meant != body => Some(format!("{shown} `{sent}`, but the body says `{body}`")),
        Some(_) => None,
    }
}

/// Whether `sent` carries `text` as it is although `text` is not
/// header-safe (it should have been Base64-encoded).
fn sent_unencoded(sent: &str, text: &str) -> bool {
    sent == text && mirror::encode(text) != text
}

/// HTTP-020: `MCP-Protocol-Version` as the body's `_meta` names it,
/// `Mcp-Method`, and `Mcp-Name` where the method has a name.
fn standard_headers(conversation: &Conversation) -> Finding {
    let mut finding = Finding::new(
        "each POST mirrors its protocol version, method and name into headers",
        cite::HTTP_020,
        Level::Must,
    );
    for post in &conversation.posted {
        let request = post.request;
        let version = post
            .params()
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(PROTOCOL_VERSION))
            .and_then(Value::as_str);
        let wrong = match version {
            Some(version) => mismatch(request, "MCP-Protocol-Version", version, false),
            None => request
                .header("mcp-protocol-version")
                .is_none()
                .then(|| "no MCP-Protocol-Version header".to_owned()),
        };
        // A task request's name is the extension's rule (TASKX-030).
        let name =
            mirror::named(post.method(), post.params()).filter(|_| !TASK_REQUESTS.contains(&post.method()));
        let problems = [
            wrong,
            mismatch(request, "Mcp-Method", post.method(), false),
            name.and_then(|name| mismatch(request, "Mcp-Name", name, true)),
        ];
        for problem in problems.into_iter().flatten() {
            finding.problem(request, problem);
        }
    }
    finding.over(&requests(conversation), "the client POSTed no request")
}

/// HTTP-023: each argument a listed tool marks `x-mcp-header` goes into
/// its `Mcp-Param-{Name}` exactly when it has a value, equal to it, and
/// (like `Mcp-Name`) in the Base64 sentinel form when not header-safe.
fn param_headers(conversation: &Conversation) -> Finding {
    let mut finding = Finding::new(
        "marked tool arguments are mirrored into Mcp-Param headers, Base64 where not header-safe",
        cite::HTTP_023,
        Level::Must,
    );
    let mut judged = Vec::new();
    for post in &conversation.posted {
        let name = mirror::named(post.method(), post.params());
        if let (Some(name), Some(sent)) = (name, post.request.header("mcp-name"))
            && sent_unencoded(sent, name)
        {
            finding.problem(
                post.request,
                format!("Mcp-Name `{sent}` is not header-safe and not Base64-encoded"),
            );
        }
        let Some(Ok(declared)) = post.declarations() else {
            continue;
        };
        if declared.is_empty() {
            continue;
        }
        judged.push(post.request);
        let arguments = post.params().and_then(|p| p.get("arguments"));
        for param in &declared {
            if let Some(problem) = param_problem(post.request, param, param.argument(arguments)) {
                finding.problem(post.request, problem);
            }
        }
    }
    finding.over(
        &judged,
        "the client called no listed tool with x-mcp-header parameters",
    )
}

/// What is wrong with the `Mcp-Param` header of `param`, whose argument is
/// `argument` (absent or null: `None`).
fn param_problem(request: &InboundRequest, param: &ParamHeader, argument: Option<&Value>) -> Option<String> {
    let shown = format!("Mcp-Param-{}", param.name);
    let path = param.path.join(".");
    let sent = request.header(&param.header());
    match (argument, sent) {
        (None, None) | (Some(_), Some(REDACTED)) => None,
        (None, Some(_)) => Some(format!("{shown} is sent, but argument `{path}` has no value")),
        (Some(value), None) => Some(format!("no {shown} header for argument `{path}` = {value}")),
        (Some(value), Some(sent)) => match mirror::decode(sent) {
            None => Some(format!("{shown} `{sent}` is not valid =?base64?…?= UTF-8")),
            Some(meant) if !mirror::same_value(&meant, value) => Some(format!(
                "{shown} `{sent}` does not match argument `{path}` = {value}"
            )),
            Some(_) if mirror::header_text(value).is_some_and(|text| sent_unencoded(sent, &text)) => Some(
                format!("{shown} `{sent}` is not header-safe and not Base64-encoded"),
            ),
            Some(_) => None,
        },
    }
}

/// HTTP-024: no call of a tool we listed with an invalid `x-mcp-header`
/// use (the client must have dropped it from its list).
fn invalid_tools_dropped(conversation: &Conversation) -> Finding {
    let mut finding = Finding::new(
        "tools whose x-mcp-header use is invalid are dropped, never called",
        cite::HTTP_024,
        Level::Must,
    );
    if !conversation.listed_invalid {
        finding.unobserved = Some("the server listed no tool with an invalid x-mcp-header".into());
    }
    for post in &conversation.posted {
        if let Some(Err(why)) = post.declarations() {
            let name = mirror::named(post.method(), post.params()).unwrap_or_default();
            finding.problem(
                post.request,
                format!("calls `{name}`, listed with an invalid x-mcp-header use ({why}): a client over HTTP drops such a tool"),
            );
        }
    }
    finding
}

/// TASKX-030: `tasks/get`, `tasks/update` and `tasks/cancel` carry
/// `Mcp-Name` equal to their `taskId` and `Mcp-Method` naming the method.
fn task_headers(conversation: &Conversation) -> Finding {
    let mut finding = Finding::new(
        "task requests name their task in Mcp-Name and their method in Mcp-Method",
        cite::TASKX_030,
        Level::Must,
    );
    let tasks: Vec<&Posted> = conversation
        .posted
        .iter()
        .filter(|post| TASK_REQUESTS.contains(&post.method()))
        .collect();
    for post in &tasks {
        let task = mirror::named(post.method(), post.params()).unwrap_or_default();
        let problems = [
            mismatch(post.request, "Mcp-Name", task, true),
            mismatch(post.request, "Mcp-Method", post.method(), false),
        ];
        for problem in problems.into_iter().flatten() {
            finding.problem(post.request, problem);
        }
    }
    let requests: Vec<&InboundRequest> = tasks.iter().map(|post| post.request).collect();
    finding.over(
        &requests,
        "the client POSTed no tasks/get, tasks/update or tasks/cancel",
    )
}

fn requests<'a>(conversation: &Conversation<'a>) -> Vec<&'a InboundRequest> {
    conversation.posted.iter().map(|post| post.request).collect()
}
