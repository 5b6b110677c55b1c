//! Routing incoming frames: lifecycle gates, method dispatch, batches, and the
//! in-flight table that makes `tools/call` concurrent and cancellable.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_conform_core::version::ProtocolVersion;
use serde_json::{Map, Value, json};
use tokio::task::{AbortHandle, JoinHandle};

use super::jsonrpc::{self, Incoming, RpcError, code, id_key};
use super::outbound::Outbound;
use super::session::{self, ClientCapabilities, Negotiated, Session};
use super::sink::{self, Sink};
use super::{completion, prompts, resources, tools};

/// Requests this server knows, in every supported version.
const METHODS: [&str; 13] = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
];

/// How long running calls may still answer after the input ends.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// Everything one connection shares between its tasks.
#[derive(Debug)]
pub(crate) struct Server {
    pub session: Session,
    pub outbound: Outbound,
    pub sink: Sink,
    /// Running `tools/call` requests by id key; removing an entry means "do not answer".
    inflight: Mutex<HashMap<String, AbortHandle>>,
}

/// What handling one message produced.
enum Reply {
    Nothing,
    Now(Value),
    /// A running request; yields its response unless it was cancelled.
    Later(JoinHandle<Option<Value>>),
}

impl Server {
    pub fn new(sink: Sink) -> Arc<Server> {
        Arc::new(Server {
            session: Session::new(),
            outbound: Outbound::default(),
            sink,
            inflight: Mutex::new(HashMap::new()),
        })
    }

    /// Handles one input line.
    pub fn on_line(self: &Arc<Self>, line: &str) {
        let message = match serde_json::from_str::<Value>(line) {
            Ok(message) => message,
            Err(error) => {
                let error = RpcError::new(code::PARSE_ERROR, format!("parse error: {error}"));
                self.sink.send(jsonrpc::response(&Value::Null, Err(error)));
                return;
            }
        };
        match message {
            Value::Array(items) => self.on_batch(items),
            single => match self.on_message(Incoming::classify(single), false) {
                Reply::Nothing => {}
                Reply::Now(frame) => self.sink.send(frame),
                Reply::Later(running) => {
                    let sink = self.sink.clone();
                    sink::spawn(async move {
                        if let Ok(Some(frame)) = running.await {
                            sink.send(frame);
                        }
                    });
                }
            },
        }
    }

    /// The input ended: fail server→client requests and give running calls a
    /// moment to answer before they are dropped.
    pub async fn shut_down(&self) {
        self.outbound.disconnect();
        let running: Vec<AbortHandle> = self
            .inflight
            .lock()
            .expect("inflight lock")
            .values()
            .cloned()
            .collect();
        let all_finished = async {
            while running.iter().any(|handle| !handle.is_finished()) {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        };
        let _ = tokio::time::timeout(SHUTDOWN_GRACE, all_finished).await;
        running.iter().for_each(AbortHandle::abort);
        // Let the tasks forwarding finished responses queue them.
        for _ in 0..3 {
            tokio::task::yield_now().await;
        }
    }

    fn on_batch(self: &Arc<Self>, items: Vec<Value>) {
        if !self.session.batches_allowed() {
            let error = RpcError::invalid_request(
                "JSON-RPC batches are accepted only when 2025-03-26 was negotiated",
            );
            self.sink.send(jsonrpc::response(&Value::Null, Err(error)));
            return;
        }
        if items.is_empty() {
            let error = RpcError::invalid_request("an empty batch is not a valid request");
            self.sink.send(jsonrpc::response(&Value::Null, Err(error)));
            return;
        }
        let replies: Vec<Reply> = items
            .into_iter()
            .map(|item| self.on_message(Incoming::classify(item), true))
            .collect();
        let sink = self.sink.clone();
        sink::spawn(async move {
            let mut frames = Vec::new();
            for reply in replies {
                match reply {
                    Reply::Nothing => {}
                    Reply::Now(frame) => frames.push(frame),
                    Reply::Later(running) => frames.extend(running.await.ok().flatten()),
                }
            }
            if !frames.is_empty() {
                sink.send(Value::Array(frames));
            }
        });
    }

    fn on_message(self: &Arc<Self>, incoming: Incoming, in_batch: bool) -> Reply {
        match incoming {
            Incoming::Invalid { id, error } => Reply::Now(jsonrpc::response(&id, Err(error))),
            Incoming::Response { id, outcome } => {
                if !self.outbound.deliver(&id, outcome) {
                    eprintln!("reference server: ignoring a response to unknown request id {id}");
                }
                Reply::Nothing
            }
            Incoming::Notification { method, params } => {
                self.on_notification(&method, &params);
                Reply::Nothing
            }
            Incoming::Request { id, method, params } => {
                if let Err(error) = self.admit(&method, in_batch) {
                    return Reply::Now(jsonrpc::response(&id, Err(error)));
                }
                if method == "tools/call" {
                    let server = Arc::clone(self);
                    return Reply::Later(
                        self.spawn_tracked(id, async move { tools::call(&server, &params).await }),
                    );
                }
                Reply::Now(jsonrpc::response(&id, self.route(&method, &params)))
            }
        }
    }

    /// Lifecycle and method-existence checks that come before any handler.
    fn admit(&self, method: &str, in_batch: bool) -> Result<(), RpcError> {
        if !METHODS.contains(&method) {
            return Err(RpcError::new(
                code::METHOD_NOT_FOUND,
                format!("method not found: {method}"),
            ));
        }
        match method {
            "ping" => Ok(()),
            "initialize" if in_batch => Err(RpcError::invalid_request(
                "initialize must not be sent in a batch",
            )),
            "initialize" => Ok(()),
            _ if self.session.negotiated().is_none() => Err(RpcError::invalid_request(format!(
                "server not initialized: send initialize before {method}"
            ))),
            _ => Ok(()),
        }
    }

    fn route(&self, method: &str, params: &Map<String, Value>) -> Result<Value, RpcError> {
        let version = self.session.version();
        match method {
            "initialize" => self.initialize(params),
            "ping" => Ok(json!({})),
            "tools/list" => tools::list(&self.session, params),
            "resources/list" => resources::list(version, params),
            "resources/read" => resources::read(params),
            "resources/templates/list" => resources::list_templates(version, params),
            "resources/subscribe" => resources::subscribe(&self.session, params),
            "resources/unsubscribe" => resources::unsubscribe(&self.session, params),
            "prompts/list" => prompts::list(version, params),
            "prompts/get" => prompts::get(params),
            "completion/complete" => completion::complete(params),
            "logging/setLevel" => self.set_level(params),
            other => Err(RpcError::new(
                code::METHOD_NOT_FOUND,
                format!("method not found: {other}"),
            )),
        }
    }

    fn on_notification(&self, method: &str, params: &Map<String, Value>) {
        match method {
            "notifications/initialized" => {
                if !self.session.confirm() {
                    eprintln!("reference server: notifications/initialized arrived out of order; ignored");
                }
            }
            "notifications/cancelled" => {
                let Some(request_id) = params.get("requestId") else {
                    eprintln!("reference server: notifications/cancelled without requestId; ignored");
                    return;
                };
                let running = self
                    .inflight
                    .lock()
                    .expect("inflight lock")
                    .remove(&id_key(request_id));
                match running {
                    Some(handle) => handle.abort(),
                    None => eprintln!("reference server: nothing running with id {request_id} to cancel"),
                }
            }
            other => eprintln!("reference server: notification {other} needs no action"),
        }
    }

    /// Runs a request on its own task so that others keep being served; its
    /// response is dropped if `notifications/cancelled` removes it first.
    fn spawn_tracked<F>(self: &Arc<Self>, id: Value, work: F) -> JoinHandle<Option<Value>>
    where
        F: Future<Output = Result<Value, RpcError>> + Send + 'static,
    {
        let key = id_key(&id);
        let server = Arc::clone(self);
        // Held while spawning so the task cannot finish before its entry exists.
        let mut inflight = self.inflight.lock().expect("inflight lock");
        let running = sink::spawn({
            let key = key.clone();
            async move {
                let outcome = work.await;
                let wanted = server
                    .inflight
                    .lock()
                    .expect("inflight lock")
                    .remove(&key)
                    .is_some();
                wanted.then(|| jsonrpc::response(&id, outcome))
            }
        });
        inflight.insert(key, running.abort_handle());
        running
    }

    fn initialize(&self, params: &Map<String, Value>) -> Result<Value, RpcError> {
        let requested = params
            .get("protocolVersion")
            .and_then(Value::as_str)
            .ok_or_else(|| RpcError::invalid_params("initialize needs a string `protocolVersion`"))?;
        let capabilities = params
            .get("capabilities")
            .and_then(Value::as_object)
            .ok_or_else(|| RpcError::invalid_params("initialize needs a `capabilities` object"))?;
        if !params
            .get("clientInfo")
            .and_then(|info| info.get("name"))
            .is_some_and(Value::is_string)
        {
            return Err(RpcError::invalid_params(
                "initialize needs `clientInfo` with a string `name`",
            ));
        }
        let version = session::negotiate(requested);
        let negotiated = Negotiated {
            version,
            client: ClientCapabilities::from_json(capabilities),
        };
        if !self.session.begin(negotiated) {
            return Err(RpcError::invalid_request(
                "initialize was already received on this connection",
            ));
        }
        Ok(json!({
            "protocolVersion": version.as_str(),
            "capabilities": server_capabilities(version),
            "serverInfo": server_info(version),
            "instructions": "Reference MCP server bundled with mcp-conform; its tools exercise every protocol feature.",
        }))
    }

    fn set_level(&self, params: &Map<String, Value>) -> Result<Value, RpcError> {
        let level = params.get("level").and_then(Value::as_str).unwrap_or_default();
        let rank = session::log_rank(level).ok_or_else(|| {
            RpcError::invalid_params(format!(
                "unknown log level {level:?}; expected one of {:?}",
                session::LOG_LEVELS
            ))
        })?;
        self.session.set_min_log_rank(rank);
        Ok(json!({}))
    }
}

fn server_capabilities(version: ProtocolVersion) -> Value {
    let mut capabilities = json!({
        "tools": { "listChanged": true },
        "resources": { "subscribe": true, "listChanged": true },
        "prompts": { "listChanged": true },
        "logging": {},
    });
    if version >= ProtocolVersion::V2025_03_26 {
        capabilities["completions"] = json!({});
    }
    capabilities
}

fn server_info(version: ProtocolVersion) -> Value {
    let mut info = json!({ "name": "mcp-conform-reference", "version": env!("CARGO_PKG_VERSION") });
    if version >= ProtocolVersion::V2025_06_18 {
        info["title"] = json!("mcp-conform reference server");
    }
    if version >= ProtocolVersion::V2025_11_25 {
        info["description"] = json!("A small, spec-following MCP server used to calibrate mcp-conform.");
    }
    info
}
