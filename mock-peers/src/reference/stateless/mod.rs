//! The stateless revision, 2026-07-28: no handshake, every request stands
//! alone with its own `_meta`, the server never sends requests (it asks for
//! input inside results, [`input`]), change notifications travel only on
//! `subscriptions/listen` streams ([`listen`]), and results say what they
//! are and how long they keep ([`results`]).
//!
//! [`StatelessServer`] is what the whole server shares: tools added at run
//! time and open listen streams (lists never depend on the connection,
//! LIST-004). A [`Connection`] is where one client's frames go: the stdio
//! process, or one HTTP POST.

mod confirm_first;
mod input;
mod listen;
pub(crate) mod meta;
mod multi_turn;
mod results;
mod state;
mod task_input;
pub(crate) mod tasks;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value, json};

use self::confirm_first::Phase;
use self::input::Turn;
use self::listen::ListKind;
use self::meta::{MODERN, RequestMeta};
use super::dispatch::SHUTDOWN_GRACE;
use super::inflight::Inflight;
use super::sink::Sink;
use super::tasks::TaskStore;
use super::tools::args::{ArgError, Args};
use super::tools::{self, Call, text_result};
use super::{completion, identity, prompts, resources};
use mcp_conform_core::wire::jsonrpc::{self, Incoming, RpcError, code, id_key};

/// The methods of 2026-07-28 this server serves.
const METHODS: [&str; 10] = [
    "server/discover",
    "subscriptions/listen",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "prompts/list",
    "prompts/get",
    "completion/complete",
];

/// Tools added at run time that the server keeps; the oldest go first.
const DYNAMIC_TOOLS_KEPT: usize = 64;

/// What every stateless request of the process shares.
#[derive(Debug)]
pub(crate) struct StatelessServer {
    dynamic_tools: Mutex<Vec<String>>,
    listens: Arc<listen::Registry>,
    next_connection: AtomicU64,
    /// The tasks of the extension: any request may poll any of them.
    tasks: TaskStore,
}

impl StatelessServer {
    pub fn new() -> Arc<StatelessServer> {
        let listens = Arc::new(listen::Registry::default());
        let watching = Arc::clone(&listens);
        Arc::new(StatelessServer {
            dynamic_tools: Mutex::default(),
            listens,
            next_connection: AtomicU64::default(),
            tasks: TaskStore::extension(move |state| watching.task_changed(state)),
        })
    }
}

/// What must hold before a request is served: a method of 2026-07-28
/// (-32601), the per-request protocol fields ([`RequestMeta::read`]), and
/// for a tool that cannot do without a client capability, that this
/// request declared it (-32021, MODN-008).
pub(crate) fn admit(method: &str, params: &Map<String, Value>) -> Result<RequestMeta, RpcError> {
    if !METHODS.contains(&method) && !tasks::METHODS.contains(&method) {
        return Err(method_not_found(method));
    }
    let meta = RequestMeta::read(params)?;
    tasks::admit(method, params, &meta)?;
    let tool = (method == "tools/call")
        .then(|| params.get("name").and_then(Value::as_str))
        .flatten();
    let needs = tool.map(|t| (t, input::needs_of(t)));
    if let Some((tool, needs)) = needs
        && let Some(need) = needs.into_iter().find(|need| !need.declared_by(&meta.client))
    {
        return Err(need.missing(&format!("the {tool} tool")));
    }
    Ok(meta)
}

fn method_not_found(method: &str) -> RpcError {
    let message = match method {
        "initialize" => format!(
            "initialize opens a legacy session only as the first request; this connection is stateless ({MODERN}). Versions: {}",
            meta::supported_versions().join(", ")
        ),
        _ => format!("method not found in {MODERN}: {method}"),
    };
    RpcError::new(code::METHOD_NOT_FOUND, message)
}

/// One client's side of the server: the stdio process, or one HTTP POST.
#[derive(Debug)]
pub(crate) struct Connection {
    server: Arc<StatelessServer>,
    sink: Sink,
    /// Tells this connection's request ids apart from other connections'.
    number: u64,
    inflight: Inflight,
    /// The user whose token the request came with (a protected server's
    /// HTTP POST); what it is issued is bound to them.
    principal: Option<String>,
}

impl Connection {
    pub fn new(server: Arc<StatelessServer>, sink: Sink, principal: Option<String>) -> Arc<Connection> {
        let number = server.next_connection.fetch_add(1, Ordering::Relaxed);
        Arc::new(Connection {
            server,
            sink,
            number,
            inflight: Inflight::default(),
            principal,
        })
    }

    /// Handles one stdio line.
    pub fn on_line(self: &Arc<Self>, line: &str) {
        let message = match serde_json::from_str::<Value>(line) {
            Ok(Value::Array(_)) => {
                let error = RpcError::invalid_request(format!("JSON-RPC batches do not exist in {MODERN}"));
                return self.sink.send(jsonrpc::response(&Value::Null, Err(error)));
            }
            Ok(message) => message,
            Err(error) => {
                let error = RpcError::new(code::PARSE_ERROR, format!("parse error: {error}"));
                return self.sink.send(jsonrpc::response(&Value::Null, Err(error)));
            }
        };
        match Incoming::read(&message) {
            Incoming::Invalid { id, error } => self.sink.send(jsonrpc::response(&id, Err(error))),
            Incoming::Response { id, .. } => {
                eprintln!("reference server: a stateless client sent a response (id {id}); ignored");
            }
            Incoming::Notification { method, params } => self.on_notification(&method, &params),
            Incoming::Request { id, method, params } => self.on_request(id, method, params),
        }
    }

    /// Handles one request.
    pub fn on_request(self: &Arc<Self>, id: Value, method: String, params: Map<String, Value>) {
        match admit(&method, &params) {
            Ok(meta) => self.serve(id, &method, params, meta),
            Err(error) => self.sink.send(jsonrpc::response(&id, Err(error))),
        }
    }

    /// Serves an admitted request.
    pub fn serve(self: &Arc<Self>, id: Value, method: &str, params: Map<String, Value>, meta: RequestMeta) {
        let host = StatelessCall {
            server: Arc::clone(&self.server),
            meta,
            sink: self.sink.clone(),
            principal: self.principal.clone(),
        };
        match method {
            "subscriptions/listen" => {
                let tasks = (&self.server.tasks, self.principal.as_deref());
                let opened =
                    self.server
                        .listens
                        .open((self.number, id.clone()), &params, self.sink.clone(), tasks);
                if let Err(error) = opened {
                    self.sink.send(jsonrpc::response(&id, Err(error)));
                }
            }
            "tools/call" => {
                let running = self
                    .inflight
                    .spawn(id, async move { host.call_tool(&params).await });
                let sink = self.sink.clone();
                tokio::spawn(async move {
                    if let Ok(Some(frame)) = running.await {
                        sink.send(frame);
                    }
                });
            }
            _ => self
                .sink
                .send(jsonrpc::response(&id, host.route(method, &params))),
        }
    }

    pub fn on_notification(&self, method: &str, params: &Map<String, Value>) {
        match (method, params.get("requestId")) {
            ("notifications/cancelled", Some(id)) => {
                if !self.cancel(id) {
                    eprintln!("reference server: nothing running with id {id} to cancel");
                }
            }
            _ => eprintln!("reference server: notification {method} needs no action"),
        }
    }

    /// Request `id` was cancelled (stdio `notifications/cancelled`, or its
    /// HTTP stream closed): nothing more goes out for it (CANC-003). False
    /// when nothing ran under that id.
    pub fn cancel(&self, id: &Value) -> bool {
        let call = self.inflight.cancel(id);
        let stream = self.server.listens.cancel(self.number, id);
        call || stream
    }

    /// The input ended: running calls get a moment to answer, then this
    /// connection's listen streams end gracefully (SUBS-005).
    pub async fn shut_down(&self) {
        self.inflight.drain(SHUTDOWN_GRACE).await;
        self.server.listens.end(|connection, _| connection == self.number);
    }
}

/// One stateless request as its tools see it: its own declarations, the
/// server's shared state, and the sink of its connection.
#[derive(Debug)]
struct StatelessCall {
    server: Arc<StatelessServer>,
    meta: RequestMeta,
    sink: Sink,
    principal: Option<String>,
}

impl StatelessCall {
    /// Every method but `tools/call` and `subscriptions/listen`.
    fn route(&self, method: &str, params: &Map<String, Value>) -> Result<Value, RpcError> {
        let result = match method {
            "server/discover" => Ok(json!({
                "supportedVersions": meta::supported_versions(),
                "capabilities": identity::capabilities(MODERN),
                "instructions": identity::INSTRUCTIONS,
            })),
            "tools/list" => tools::list(self, params),
            "resources/list" => resources::list(MODERN, params),
            "resources/read" => resources::read(params, MODERN),
            "resources/templates/list" => resources::list_templates(MODERN, params),
            "prompts/list" => prompts::list(MODERN, params),
            "prompts/get" => prompts::get(params),
            "completion/complete" => completion::complete(params),
            "tasks/get" | "tasks/update" | "tasks/cancel" => {
                tasks::route(&self.server.tasks, method, params, self.principal.as_deref())
            }
            other => Err(method_not_found(other)),
        }?;
        Ok(results::complete_for(method, result))
    }

    /// A tool call, run as a task when the request opted in and the tool
    /// can be one (the extension), else answered when it ends.
    async fn call_tool(&self, params: &Map<String, Value>) -> Result<Value, RpcError> {
        let (name, arguments) = tools::target(params)?;
        if name == confirm_first::TOOL {
            return match confirm_first::confirm(params, arguments, self.principal.as_deref())? {
                Phase::Ask(interim) => Ok(interim),
                Phase::Refused(result) => Ok(results::complete(result)),
                Phase::Confirmed if !self.meta.client.tasks_extension => {
                    Ok(results::complete(text_result("confirmed; the job ran at once")))
                }
                Phase::Confirmed => Ok(self.start_task(&confirm_first::task_call(params))),
            };
        }
        if !tasks::runs_as_task(name, &self.meta) {
            return self.run_tool(params).await;
        }
        Ok(self.start_task(params))
    }

    /// Runs the call `params` as a task of the extension: its
    /// `CreateTaskResult`.
    fn start_task(&self, params: &Map<String, Value>) -> Value {
        let mut call = params.clone();
        // Progress is not sent for tasks (TASKX-034): the call runs without its token.
        if let Some(meta) = call.get_mut("_meta").and_then(Value::as_object_mut) {
            meta.remove("progressToken");
        }
        let host = StatelessCall {
            server: Arc::clone(&self.server),
            meta: self.meta.clone(),
            sink: self.sink.clone(),
            principal: self.principal.clone(),
        };
        let name = tools::target(&call)
            .map(|(name, _)| name.to_owned())
            .unwrap_or_default();
        if input::need_of(&name).is_none() {
            let run = async move { host.run_tool(&call).await };
            return tasks::created(self.server.tasks.start(None, self.principal.clone(), run));
        }
        let tool = name;
        let asking = |input| async move {
            let (_, arguments) = tools::target(&call)?;
            let outcome = task_input::run(&tool, &call, arguments, host.principal.as_deref(), input).await?;
            tools::finish(&host, &tool, outcome).map(results::complete)
        };
        tasks::created(
            self.server
                .tasks
                .start_asking(None, self.principal.clone(), asking),
        )
    }

    async fn run_tool(&self, params: &Map<String, Value>) -> Result<Value, RpcError> {
        let (name, arguments) = tools::target(params)?;
        // What a broken backend does to a tool: a JSON-RPC error, which ends
        // a task `failed` (TASKX-012).
        if name == "fail" && arguments.get("internal") == Some(&Value::Bool(true)) {
            return Err(RpcError::new(
                code::INTERNAL_ERROR,
                "the fail tool's backend is down",
            ));
        }
        let call = Call {
            host: self,
            args: Args(arguments),
            progress_token: tools::progress_token(params),
        };
        let outcome = if name == tools::multi_turn::BOOK {
            match multi_turn::call(params, arguments, self.principal.as_deref())? {
                Turn::Ask(interim) => return Ok(interim),
                Turn::Answer(outcome) => outcome,
            }
        } else if input::need_of(name).is_some() {
            match input::call(name, params, arguments, self.principal.as_deref())? {
                Turn::Ask(interim) => return Ok(interim),
                Turn::Answer(outcome) => outcome,
            }
        } else if name == "end_listen" {
            self.end_listen(call.args)
        } else {
            match tools::run_local(call, name).await {
                Some(outcome) => outcome,
                None => return Err(tools::unknown_tool(name)),
            }
        };
        tools::finish(self, name, outcome).map(results::complete)
    }

    /// `end_listen`: ends the listen streams opened by requests with the given id.
    fn end_listen(&self, args: Args<'_>) -> Result<Value, ArgError> {
        let id = args
            .0
            .get("subscriptionId")
            .filter(|id| id.is_string() || id.is_i64() || id.is_u64())
            .ok_or_else(|| ArgError("`subscriptionId` must be a string or an integer".to_owned()))?;
        let ended = self.server.listens.end(|_, listen| id_key(listen) == id_key(id));
        Ok(text_result(format!("ended {ended} listen stream(s)")))
    }
}

/// A stateless request's tool calls: log messages only as its own
/// `logLevel` asks, tools and subscriptions of the whole server.
impl tools::Host for StatelessCall {
    fn version(&self) -> mcp_conform_core::version::ProtocolVersion {
        self.meta.version
    }

    fn sink(&self) -> &Sink {
        &self.sink
    }

    fn log_enabled(&self, rank: usize) -> bool {
        self.meta.log_rank.is_some_and(|lowest| rank >= lowest)
    }

    fn log_filter(&self) -> &'static str {
        "the request's io.modelcontextprotocol/logLevel (none means no log messages)"
    }

    fn dynamic_tools(&self) -> Vec<String> {
        self.server.dynamic_tools.lock().expect("tools lock").clone()
    }

    fn add_dynamic_tool(&self, name: &str) -> bool {
        let mut tools = self.server.dynamic_tools.lock().expect("tools lock");
        // Adding a name again re-registers it: another client may have added it.
        if !tools.iter().any(|t| t == name) {
            tools.push(name.to_owned());
            if tools.len() > DYNAMIC_TOOLS_KEPT {
                tools.remove(0);
            }
        }
        true
    }

    fn tools_changed(&self) {
        self.server.listens.list_changed(ListKind::Tools);
    }

    fn resource_updated(&self, uri: &str) -> bool {
        self.server.listens.resource_updated(uri)
    }
}
