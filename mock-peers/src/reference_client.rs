//! The bundled reference client: a correct MCP client that does what a
//! `role: client` scenario's plan asks (the `MCP_CONFORM_PLAN` environment
//! variable), so that the client scenarios have a peer that passes them all.
//! With a [`ClientFault`] it breaks one rule on purpose: the broken-client
//! fixtures that prove each client check catches what it should.
//!
//! Over HTTP (`--url`) it speaks Streamable HTTP; its HTTP faults are a
//! proxy in front of the correct transport (`reference_client/http_faults.rs`).
//!
//! Plan keys (all optional): `elicitation` (`accept`, `decline`, `cancel`,
//! `ignore`), `sampling` (`approve`, `deny`, `ignore`), `list` (list methods'
//! nouns to walk: `tools`, `prompts`, `resources`), `calls` (`[{name,
//! arguments}]` tools to call), `call_timeout_ms` (then the call is
//! cancelled), `linger_ms` (how long to keep serving before leaving).

mod http_faults;

use std::time::Duration;

use mcp_conform_core::scenario::model::Reply;
use serde_json::{Map, Value, json};
use tokio::time::Instant;

use crate::client::{ClientSession, PeerRequest, RequestHandler, WaitError};
use crate::transport::{HttpMode, HttpOptions, HttpTransport, StdioCommand, StdioTransport, Transport};

crate::faults::faults! {
    ClientFault, "client";
    RequestBeforeInitialize = "request-before-initialize", "LIFE-001", "tools/list is sent before initialize.";
    NoClientInfo = "no-client-info", "LIFE-002", "initialize carries no clientInfo.";
    NoInitialized = "no-initialized", "LIFE-007", "notifications/initialized is never sent.";
    PingWithContent = "ping-with-content", "PING-001", "ping is answered with a non-empty result.";
    RootsNotFile = "roots-not-file", "ROOT-002", "A root has an https:// URI.";
    ContentIgnoresSchema = "content-ignores-schema", "ELIC-010", "Accepted elicitation content has a string where the schema asks for an integer.";
    DeclineWithContent = "decline-with-content", "ELIC-009", "A declined elicitation still carries content.";
    UndeclaredUrlMode = "undeclared-url-mode", "ELIC-004", "A URL-mode elicitation is accepted although only form mode was declared.";
    SamplingWithoutModel = "sampling-without-model", "SAMP-004", "A sampling result names no model.";
    IgnoresNextCursor = "ignores-next-cursor", "PAGE-003", "A list walk stops after the first page despite nextCursor.";
    NoCancelOnTimeout = "no-cancel-on-timeout", "LIFE-015", "A request that timed out is abandoned without notifications/cancelled.";
    HttpAcceptJsonOnly = "http-accept-json-only", "HTTP-004", "Over HTTP, POSTs accept application/json only, not text/event-stream.";
    HttpBatch = "http-batch", "HTTP-005", "Over HTTP, notifications/initialized is POSTed inside a JSON array.";
    HttpGetWrongAccept = "http-get-wrong-accept", "HTTP-012", "Over HTTP, the standalone GET stream is asked for with Accept: application/json.";
    HttpNoSessionId = "http-no-session-id", "HTTP-016", "Over HTTP, requests leave out the Mcp-Session-Id the server issued.";
    HttpNoDelete = "http-no-delete", "HTTP-017", "Over HTTP, the client leaves without a DELETE for its session.";
    HttpNoVersionHeader = "http-no-version-header", "HTTP-018", "Over HTTP, requests after initialize leave out MCP-Protocol-Version.";
}

impl ClientFault {
    /// Whether the fault breaks a rule of the HTTP transport (it shows only
    /// over `--url`).
    pub fn is_http(self) -> bool {
        self.name().starts_with("http-")
    }
}

/// How the reference client reaches its server.
#[derive(Debug, Clone)]
pub enum ServerAddress {
    /// A command line it starts, spoken to over stdio.
    Command(StdioCommand),
    /// A Streamable HTTP endpoint.
    Url(String),
}

/// How long the server has to answer initialize and each list page.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);

/// What the scenario asks the client to do.
#[derive(Debug, Clone, Default)]
pub struct Plan(Value);

impl Plan {
    /// Reads `MCP_CONFORM_PLAN` (an empty plan when unset or not JSON).
    pub fn from_env() -> Plan {
        let text = std::env::var("MCP_CONFORM_PLAN").unwrap_or_default();
        Plan(serde_json::from_str(&text).unwrap_or_else(|_| json!({})))
    }

    fn word(&self, key: &str, default: &'static str) -> String {
        self.0
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or(default)
            .to_owned()
    }

    fn millis(&self, key: &str, default: u64) -> Duration {
        Duration::from_millis(self.0.get(key).and_then(Value::as_u64).unwrap_or(default))
    }

    fn list(&self, key: &str) -> Vec<Value> {
        self.0
            .get(key)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    }
}

/// Answers the server's requests as the plan says.
struct Answers {
    plan: Plan,
    fault: Option<ClientFault>,
}

impl RequestHandler for Answers {
    fn answer(&mut self, request: &PeerRequest) -> Reply {
        let params = request.params.clone().unwrap_or_else(|| json!({}));
        match request.method.as_str() {
            "ping" if self.fault == Some(ClientFault::PingWithContent) => {
                Reply::Result(json!({"pong": true}))
            }
            "ping" => Reply::Result(json!({})),
            "roots/list" => {
                let uri = if self.fault == Some(ClientFault::RootsNotFile) {
                    "https://example.com/project"
                } else {
                    "file:///tmp/mcp-conform-project"
                };
                Reply::Result(json!({"roots": [{"uri": uri, "name": "project"}]}))
            }
            "elicitation/create" => self.elicit(&params),
            "sampling/createMessage" => match self.plan.word("sampling", "approve").as_str() {
                "ignore" => Reply::NoReply,
                "deny" => refusal(-1, "the user rejected the sampling request"),
                _ => {
                    let mut message = json!({
                        "role": "assistant",
                        "content": {"type": "text", "text": "A reply from the reference client."},
                        "model": "mcp-conform-reference",
                        "stopReason": "endTurn",
                    });
                    if self.fault == Some(ClientFault::SamplingWithoutModel) {
                        message.as_object_mut().map(|m| m.remove("model"));
                    }
                    Reply::Result(message)
                }
            },
            other => refusal(-32601, &format!("the reference client does not serve {other}")),
        }
    }
}

impl Answers {
    fn elicit(&self, params: &Value) -> Reply {
        let url_mode = params.get("mode").and_then(Value::as_str) == Some("url");
        if url_mode && self.fault != Some(ClientFault::UndeclaredUrlMode) {
            return refusal(-32602, "URL-mode elicitation was not declared");
        }
        match self.plan.word("elicitation", "accept").as_str() {
            "ignore" => Reply::NoReply,
            "cancel" => Reply::Result(json!({"action": "cancel"})),
            "decline" if self.fault == Some(ClientFault::DeclineWithContent) => {
                Reply::Result(json!({"action": "decline", "content": {}}))
            }
            "decline" => Reply::Result(json!({"action": "decline"})),
            _ if url_mode => Reply::Result(json!({"action": "accept"})),
            _ => {
                let schema = params.get("requestedSchema").cloned().unwrap_or(Value::Null);
                let ignore_schema = self.fault == Some(ClientFault::ContentIgnoresSchema);
                Reply::Result(json!({"action": "accept", "content": form_content(&schema, ignore_schema)}))
            }
        }
    }
}

/// What a user who accepts every default fills in: the field's default, or a
/// valid value of its type (a string everywhere when `ignore_schema`).
fn form_content(schema: &Value, ignore_schema: bool) -> Value {
    let mut content = Map::new();
    let properties = schema.get("properties").and_then(Value::as_object);
    for (name, field) in properties.into_iter().flatten() {
        let value = if ignore_schema {
            json!("mcp-conform")
        } else if let Some(default) = field.get("default") {
            default.clone()
        } else if let Some(first) = field.get("enum").and_then(|e| e.get(0)) {
            first.clone()
        } else {
            match field.get("type").and_then(Value::as_str) {
                Some("integer" | "number") => field.get("minimum").cloned().unwrap_or(json!(1)),
                Some("boolean") => json!(true),
                _ => json!("mcp-conform"),
            }
        };
        content.insert(name.clone(), value);
    }
    Value::Object(content)
}

fn refusal(code: i64, message: &str) -> Reply {
    Reply::Error {
        code,
        message: message.to_owned(),
        data: None,
    }
}

/// Starts (or reaches) the server, follows the plan, and leaves.
pub async fn run(server: &ServerAddress, plan: Plan, fault: Option<ClientFault>) -> Result<(), String> {
    let mut proxy = None;
    let transport: Transport = match server {
        ServerAddress::Command(command) => StdioTransport::spawn(command).map_err(|e| e.to_string())?.into(),
        ServerAddress::Url(url) => {
            let mut url = url.clone();
            if let Some(fault) = fault.filter(|f| f.is_http()) {
                let started = http_faults::FaultProxy::start(&url, fault).await?;
                url = started.url().to_owned();
                proxy = Some(started);
            }
            let options = HttpOptions {
                mode: HttpMode::Streamable,
                answer_timeout: ANSWER_TIMEOUT,
                ..HttpOptions::new(url)
            };
            HttpTransport::new(options).map_err(|e| e.to_string())?.into()
        }
    };
    let mut session = ClientSession::new(transport);
    let mut answers = Answers { plan, fault };
    let outcome = follow_plan(&mut session, &mut answers).await;
    session.shutdown(Duration::from_secs(1)).await;
    drop(proxy);
    outcome
}

async fn follow_plan(session: &mut ClientSession, answers: &mut Answers) -> Result<(), String> {
    let fault = answers.fault;
    if fault == Some(ClientFault::RequestBeforeInitialize) {
        session
            .request("tools/list", None, None)
            .await
            .map_err(|e| e.to_string())?;
    }
    let mut params = json!({
        "protocolVersion": "2025-11-25",
        "capabilities": {"roots": {"listChanged": true}, "sampling": {}, "elicitation": {"form": {}}},
        "clientInfo": {"name": "mcp-conform-reference-client", "version": env!("CARGO_PKG_VERSION")},
    });
    if fault == Some(ClientFault::NoClientInfo) {
        params.as_object_mut().map(|p| p.remove("clientInfo"));
    }
    call(session, answers, "initialize", params, ANSWER_TIMEOUT).await?;
    if fault != Some(ClientFault::NoInitialized) {
        session
            .notify("notifications/initialized", None)
            .await
            .map_err(|e| e.to_string())?;
    }
    for noun in answers.plan.list("list") {
        walk(session, answers, noun.as_str().unwrap_or("tools")).await?;
    }
    let call_timeout = answers.plan.millis("call_timeout_ms", 5000);
    for tool in answers.plan.list("calls") {
        let params =
            json!({"name": tool["name"], "arguments": tool.get("arguments").cloned().unwrap_or(json!({}))});
        call(session, answers, "tools/call", params, call_timeout).await?;
    }
    let linger = answers.plan.millis("linger_ms", 1500);
    session.idle_until(Instant::now() + linger, answers).await;
    Ok(())
}

/// Sends a request and waits for its answer; past `timeout` the request is
/// cancelled and abandoned.
async fn call(
    session: &mut ClientSession,
    answers: &mut Answers,
    method: &str,
    params: Value,
    timeout: Duration,
) -> Result<Value, String> {
    let id = session
        .request(method, Some(params), None)
        .await
        .map_err(|e| e.to_string())?;
    match session
        .wait_response(&id, Instant::now() + timeout, answers)
        .await
    {
        Ok(response) => Ok(response.message),
        Err(WaitError::TimedOut) if answers.fault == Some(ClientFault::NoCancelOnTimeout) => Ok(Value::Null),
        Err(WaitError::TimedOut) => {
            let cancel = json!({"requestId": id, "reason": "timed out"});
            session
                .notify("notifications/cancelled", Some(cancel))
                .await
                .map_err(|e| e.to_string())?;
            Ok(Value::Null)
        }
        Err(other) => Err(format!("{method}: {other:?}")),
    }
}

/// Walks `<noun>/list` to its last page.
async fn walk(session: &mut ClientSession, answers: &mut Answers, noun: &str) -> Result<(), String> {
    let method = format!("{noun}/list");
    let mut params = json!({});
    loop {
        let response = call(session, answers, &method, params.clone(), ANSWER_TIMEOUT).await?;
        let next = response.pointer("/result/nextCursor").filter(|c| !c.is_null());
        match next {
            Some(cursor) if answers.fault != Some(ClientFault::IgnoresNextCursor) => {
                params = json!({"cursor": cursor});
            }
            _ => return Ok(()),
        }
    }
}
