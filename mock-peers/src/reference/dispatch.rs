//! Routing incoming frames: lifecycle gates, method dispatch, batches, and the
//! in-flight table that makes `tools/call` concurrent and cancellable.

use std::sync::Arc;
use std::time::Duration;

use mcp_conform_core::version::ProtocolVersion;
use serde_json::{Map, Value, json};
use tokio::task::JoinHandle;

use super::inflight::Inflight;
use super::outbound::Outbound;
use super::session::{self, ClientCapabilities, Negotiated, Session};
use super::sink::{self, Sink};
use super::tasks::{self, TaskStore};
use super::{completion, identity, prompts, resources, tools};
use mcp_conform_core::wire::jsonrpc::{self, Incoming, RpcError, code};

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
pub(crate) const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// Everything one connection shares between its tasks.
#[derive(Debug)]
pub(crate) struct Server {
    pub session: Session,
    pub outbound: Outbound,
    pub sink: Sink,
    /// Running `tools/call` requests.
    inflight: Inflight,
    /// Tools called as tasks (2025-11-25).
    pub tasks: TaskStore,
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
            inflight: Inflight::default(),
            tasks: TaskStore::default(),
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
            single => match self.on_message(Incoming::read(&single), false) {
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
        self.inflight.drain(SHUTDOWN_GRACE).await;
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
            .map(|item| self.on_message(Incoming::read(&item), true))
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
                let tasks = self.session.version() == tasks::VERSION;
                if method == "tools/call"
                    && tasks
                    && let Some(answer) = tasks::route_call(self, &params)
                {
                    return Reply::Now(jsonrpc::response(&id, answer));
                }
                if method == "tasks/result" {
                    let server = Arc::clone(self);
                    return Reply::Later(
                        self.inflight
                            .spawn(id, async move { tasks::result(server, params).await }),
                    );
                }
                if method == "tools/call" {
                    let server = Arc::clone(self);
                    return Reply::Later(
                        self.inflight
                            .spawn(id, async move { tools::call(&server, &params).await }),
                    );
                }
                Reply::Now(jsonrpc::response(&id, self.route(&method, &params)))
            }
        }
    }

    /// Lifecycle and method-existence checks that come before any handler.
    fn admit(&self, method: &str, in_batch: bool) -> Result<(), RpcError> {
        let task_method = tasks::METHODS.contains(&method) && self.session.version() == tasks::VERSION;
        if !METHODS.contains(&method) && !task_method {
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
            "tools/list" => tools::list(self, params),
            "resources/list" => resources::list(version, params),
            "resources/read" => resources::read(params, version),
            "resources/templates/list" => resources::list_templates(version, params),
            "resources/subscribe" => resources::subscribe(&self.session, params),
            "resources/unsubscribe" => resources::unsubscribe(&self.session, params),
            "prompts/list" => prompts::list(version, params),
            "prompts/get" => prompts::get(params),
            "completion/complete" => completion::complete(params),
            "logging/setLevel" => self.set_level(params),
            "tasks/get" | "tasks/list" | "tasks/cancel" => tasks::route(&self.tasks, method, params),
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
                if !self.inflight.cancel(request_id) {
                    eprintln!("reference server: nothing running with id {request_id} to cancel");
                }
            }
            other => eprintln!("reference server: notification {other} needs no action"),
        }
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
            "capabilities": identity::capabilities(version),
            "serverInfo": identity::server_info(version),
            "instructions": identity::INSTRUCTIONS,
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

/// A legacy session's tool calls: log levels from `logging/setLevel`, tools
/// and subscriptions of this connection, notifications on its one sink.
impl tools::Host for Server {
    fn version(&self) -> ProtocolVersion {
        self.session.version()
    }

    fn sink(&self) -> &Sink {
        &self.sink
    }

    fn log_enabled(&self, rank: usize) -> bool {
        self.session.log_enabled(rank)
    }

    fn log_filter(&self) -> &'static str {
        "logging/setLevel"
    }

    fn dynamic_tools(&self) -> Vec<String> {
        self.session.dynamic_tools()
    }

    fn add_dynamic_tool(&self, name: &str) -> bool {
        self.session.add_dynamic_tool(name)
    }

    fn tools_changed(&self) {
        self.sink.send(jsonrpc::notification(
            "notifications/tools/list_changed",
            json!({}),
        ));
    }

    fn resource_updated(&self, uri: &str) -> bool {
        if !self.session.is_subscribed(uri) {
            return false;
        }
        let params = json!({ "uri": uri });
        self.sink
            .send(jsonrpc::notification("notifications/resources/updated", params));
        true
    }
}
