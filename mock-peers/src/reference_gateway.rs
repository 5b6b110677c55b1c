//! The bundled reference gateway: a small aggregating gateway that proves
//! the gateway scenarios right (`mcp-conform reference-gateway CONFIG`).
//!
//! It speaks stdio in front, or Streamable HTTP on a loopback port
//! (`--port`, protected by an issuer's tokens with `--auth`), and connects
//! to every server of an `mcpServers` config behind it: a `command` it
//! starts, or a `url` it reaches over Streamable HTTP (`links.rs`). At the client's `initialize` it initializes each
//! backend, declaring the client's own elicitation, sampling and roots
//! capabilities. Lists are fetched afresh from every backend that declares
//! them, to their last page, named `BACKEND_NAME` (URIs `BACKEND+URI`) and
//! served in pages of [`PAGE`]. Calls, reads and gets go to the owner under
//! its own name; requests a backend sends during them go to the client and
//! the answers back; list_changed, progress and log notifications pass
//! through. With a [`GatewayFault`] it breaks one rule on purpose.

mod front_guard;
mod links;

use std::collections::HashMap;
use std::path::Path;

use mcp_conform_core::wire::jsonrpc::{self, RpcError, code};
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;

use self::front_guard::Presented;
pub use self::links::FrontOptions;
use self::links::{Event, Link};
use crate::faults::faults;

/// Items per page of the aggregate.
pub const PAGE: usize = 3;

faults! {
    GatewayFault, "gateway";
    NoNamespacing = "no-namespacing", "GATE-001", "Lists every backend's items under their own names, so colliding names appear twice." => [
        "gateway.elicitation", "gateway.list-changed",
        "gateway.prompts", "gateway.resources", "gateway.sampling", "gateway.tools",
    ];
    PrefixedCall = "prefixed-call", "GATE-001", "Forwards a call under its aggregated name instead of the backend's own." => [
        "gateway.elicitation", "gateway.list-changed",
        "gateway.prompts", "gateway.resources", "gateway.sampling", "gateway.tools",
    ];
    CallEveryBackend = "call-every-backend", "GATE-006", "Sends a tools/call to every backend, not only to the one that owns the tool." => ["gateway.tools"];
    FirstPageOnly = "first-page-only", "GATE-002", "Reads only the first page of each backend's list." => ["gateway.pagination"];
    AnswerWrongBackend = "answer-wrong-backend", "GATE-003", "Sends the client's answer to a backend's elicitation or sampling request to another backend." => ["gateway.elicitation", "gateway.sampling"];
    AlteredElicitation = "altered-elicitation", "GATE-003", "Drops `required` from the schema of an elicitation it passes on." => ["gateway.elicitation"];
    SamplingRefused = "sampling-refused", "GATE-003", "Declares sampling to its backends but refuses their sampling requests itself instead of asking the client." => ["gateway.sampling"];
    DropListChanged = "drop-list-changed", "GATE-004", "Does not pass the backends' list_changed notifications on." => ["gateway.list-changed"];
    StaleLists = "stale-lists", "GATE-004", "Serves the lists the backends gave at startup, never fetched again." => ["gateway.list-changed"];
    SwallowErrors = "swallow-errors", "GATE-005", "Turns a backend's JSON-RPC error into an empty successful result." => ["gateway.errors"];
    NoInitialized = "no-initialized", "LIFE-007", "Never sends notifications/initialized to its backends." => [
        "gateway.elicitation", "gateway.errors",
        "gateway.list-changed", "gateway.pagination", "gateway.prompts", "gateway.resources",
        "gateway.sampling", "gateway.tools",
    ];
    ListUndeclared = "list-undeclared", "LIST-006", "Lists tools, resources and prompts of every backend at startup, declared or not." => [
        "gateway.elicitation", "gateway.errors",
        "gateway.list-changed", "gateway.pagination", "gateway.prompts", "gateway.resources",
        "gateway.sampling", "gateway.tools",
    ];
    ElicitUndeclared = "elicit-undeclared", "ELIC-002", "Declares elicitation to its backends whatever the client declared, and passes elicitation on to a client that never declared it." => ["gateway.elicitation-undeclared"];
    ForwardsToken = "forwards-token", "AUTH-006", "Presents the client's bearer token from its protected front to its backends over HTTP." => ["gateway.token-passthrough"];
}

/// The lists a gateway aggregates: method, result member, the member that
/// names an item, and how a name is namespaced.
const LISTS: [(&str, &str, &str, Naming); 4] = [
    ("tools/list", "tools", "name", Naming::Name),
    ("prompts/list", "prompts", "name", Naming::Name),
    ("resources/list", "resources", "uri", Naming::Uri),
    (
        "resources/templates/list",
        "resourceTemplates",
        "uriTemplate",
        Naming::Uri,
    ),
];

/// `alpha_search` for names, `alpha+file:///x` for URIs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Naming {
    Name,
    Uri,
}

impl Naming {
    fn join(self, backend: &str, name: &str) -> String {
        match self {
            Naming::Name => format!("{backend}_{name}"),
            Naming::Uri => format!("{backend}+{name}"),
        }
    }

    fn separator(self) -> char {
        match self {
            Naming::Name => '_',
            Naming::Uri => '+',
        }
    }
}

/// The capability that gates a list.
fn capability(method: &str) -> &str {
    method.split('/').next().unwrap_or_default()
}

/// What an outstanding request of the gateway to a backend is for.
enum Pending {
    Initialize,
    /// A call, read or get of the client's, answered with the backend's answer.
    Forward(Value),
    /// A page of a list, for an aggregation.
    Page(usize),
    /// A copy nobody waits for (a fault).
    Ignored,
}

/// A client's list request being aggregated (or a startup prefetch).
struct Aggregation {
    /// The client's request id; `None` for the startup cache.
    front: Option<Value>,
    method: &'static str,
    offset: usize,
    waiting: usize,
    items: Vec<(usize, Value)>,
}

struct Backend {
    name: String,
    link: Link,
    capabilities: Value,
    next_id: i64,
    pending: HashMap<i64, Pending>,
}

struct Gateway {
    backends: Vec<Backend>,
    fault: Option<GatewayFault>,
    front: Link,
    /// What the client presented at a protected front.
    presented: Option<Presented>,
    /// The client's initialize request id while the backends initialize.
    initializing: Option<(Value, Value)>,
    client_capabilities: Value,
    aggregations: Vec<Aggregation>,
    /// Startup lists (the stale-lists fault), by method.
    cache: HashMap<&'static str, Vec<(usize, Value)>>,
    /// Requests of backends passed to the client: our id → (backend, its id).
    relayed: HashMap<String, (usize, Value)>,
    next_relay: u64,
}

/// Runs the gateway, its front as `front` says, with the servers of `config`.
pub async fn run(config: &Path, front: &FrontOptions, fault: Option<GatewayFault>) -> Result<(), String> {
    let text = std::fs::read_to_string(config).map_err(|e| format!("{}: {e}", config.display()))?;
    let parsed: Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", config.display()))?;
    let servers = parsed["mcpServers"]
        .as_object()
        .ok_or_else(|| format!("{}: no mcpServers object", config.display()))?;
    let (events, mut received) = mpsc::unbounded_channel();
    let mut backends = Vec::new();
    for (index, (name, server)) in servers.iter().enumerate() {
        backends.push(Backend {
            name: name.clone(),
            link: links::backend(name, index, server, &events)?,
            capabilities: Value::Null,
            next_id: 1,
            pending: HashMap::new(),
        });
    }
    let front = links::front(front, events).await?;
    let mut gateway = Gateway {
        backends,
        fault,
        front: front.link,
        presented: front.presented,
        initializing: None,
        client_capabilities: json!({}),
        aggregations: Vec::new(),
        cache: HashMap::new(),
        relayed: HashMap::new(),
        next_relay: 1,
    };
    while let Some(event) = received.recv().await {
        match event {
            Event::Front(message) => gateway.on_front(message),
            Event::Backend(index, message) => gateway.on_backend(index, message),
            Event::Closed => break,
        }
    }
    Ok(())
}

fn result(id: &Value, result: Value) -> Value {
    jsonrpc::response(id, Ok(result))
}

fn error(id: &Value, code: i64, message: &str) -> Value {
    jsonrpc::response(id, Err(RpcError::new(code, message)))
}

impl Gateway {
    fn faulty(&self, fault: GatewayFault) -> bool {
        self.fault == Some(fault)
    }

    fn send_front(&mut self, message: &Value) {
        self.front.send(message);
    }

    /// Sends a request to a backend; returns its id there.
    fn ask(&mut self, backend: usize, method: &str, params: Value, pending: Pending) -> i64 {
        let target = &mut self.backends[backend];
        let id = target.next_id;
        target.next_id += 1;
        target.pending.insert(id, pending);
        self.tell(backend, &jsonrpc::request(id, method, params));
        id
    }

    fn tell(&mut self, backend: usize, message: &Value) {
        let link = &self.backends[backend].link;
        if self.fault == Some(GatewayFault::ForwardsToken)
            && let Some(token) = self.presented.as_ref().and_then(Presented::token)
        {
            link.bearer(&token);
        }
        link.send(message);
    }

    fn on_front(&mut self, message: Value) {
        let method = message["method"].as_str().map(str::to_owned);
        let id = message.get("id").cloned();
        match (method.as_deref(), id) {
            (Some(method), Some(id)) => self.front_request(method, id, &message["params"]),
            (Some("notifications/roots/list_changed"), None) => {
                for backend in 0..self.backends.len() {
                    self.tell(backend, &message);
                }
            }
            (Some(_), None) => {}
            (None, Some(id)) => self.front_answer(&id.to_string(), message),
            (None, None) => {}
        }
    }

    fn front_request(&mut self, method: &str, id: Value, params: &Value) {
        match method {
            "initialize" => self.initialize(id, params),
            "ping" => self.send_front(&result(&id, json!({}))),
            _ => {
                if let Some(list) = LISTS.iter().find(|(m, ..)| *m == method) {
                    let offset = params["cursor"]
                        .as_str()
                        .and_then(|c| c.strip_prefix("gateway-page-"))
                        .and_then(|n| n.parse().ok());
                    match (offset, params.get("cursor")) {
                        (None, Some(_)) => {
                            self.send_front(&error(&id, code::INVALID_PARAMS, "invalid cursor"))
                        }
                        (offset, _) => self.aggregate(Some(id), list.0, offset.unwrap_or(0)),
                    }
                } else if let Some((naming, key)) = routed(method) {
                    self.route(id, method, params, naming, key);
                } else {
                    self.send_front(&error(&id, code::METHOD_NOT_FOUND, "method not found"));
                }
            }
        }
    }

    /// Initializes every backend with the client's capabilities; answers
    /// the client once all of them answered.
    fn initialize(&mut self, id: Value, params: &Value) {
        let offered = &params["capabilities"];
        let mut declared = Map::new();
        for capability in ["elicitation", "sampling", "roots"] {
            if let Some(value) = offered.get(capability) {
                declared.insert(capability.into(), value.clone());
            }
        }
        if self.faulty(GatewayFault::ElicitUndeclared) {
            declared.insert("elicitation".into(), json!({}));
        }
        if self.faulty(GatewayFault::SamplingRefused) {
            declared.insert("sampling".into(), json!({}));
        }
        self.client_capabilities = offered.clone();
        self.initializing = Some((id.clone(), params["protocolVersion"].clone()));
        let ours = json!({
            "protocolVersion": params["protocolVersion"],
            "capabilities": declared,
            "clientInfo": {"name": "mcp-conform-reference-gateway", "version": env!("CARGO_PKG_VERSION")},
        });
        for backend in 0..self.backends.len() {
            self.ask(backend, "initialize", ours.clone(), Pending::Initialize);
        }
        if self.backends.is_empty() {
            self.initialized();
        }
    }

    /// Every backend answered `initialize`.
    fn initialized(&mut self) {
        let Some((id, version)) = self.initializing.take() else {
            return;
        };
        if !self.faulty(GatewayFault::NoInitialized) {
            let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
            for backend in 0..self.backends.len() {
                self.tell(backend, &note);
            }
        }
        let mut capabilities = Map::new();
        for (method, ..) in LISTS {
            let noun = capability(method);
            if self.backends.iter().any(|b| b.capabilities.get(noun).is_some()) {
                capabilities.insert(noun.into(), json!({"listChanged": true}));
            }
        }
        let answer = json!({
            "protocolVersion": version,
            "capabilities": capabilities,
            "serverInfo": {"name": "mcp-conform-reference-gateway", "version": env!("CARGO_PKG_VERSION")},
        });
        self.send_front(&result(&id, answer));
        if self.faulty(GatewayFault::StaleLists) || self.faulty(GatewayFault::ListUndeclared) {
            for (method, ..) in LISTS {
                self.aggregate(None, method, 0);
            }
        }
    }

    /// Starts listing `method` on every backend that declares it.
    fn aggregate(&mut self, front: Option<Value>, method: &'static str, offset: usize) {
        if let (Some(id), Some(cached)) = (&front, self.cache.get(method))
            && self.faulty(GatewayFault::StaleLists)
        {
            let cached = cached.clone();
            return self.answer_list(id, method, offset, &cached);
        }
        let everywhere = self.faulty(GatewayFault::ListUndeclared);
        let owners: Vec<usize> = (0..self.backends.len())
            .filter(|b| everywhere || self.backends[*b].capabilities.get(capability(method)).is_some())
            .collect();
        let job = self.aggregations.len();
        self.aggregations.push(Aggregation {
            front,
            method,
            offset,
            waiting: owners.len(),
            items: Vec::new(),
        });
        for backend in &owners {
            self.ask(*backend, method, json!({}), Pending::Page(job));
        }
        if owners.is_empty() {
            self.finish(job);
        }
    }

    /// One page of a backend's list arrived.
    fn page(&mut self, backend: usize, job: usize, message: &Value) {
        let method = self.aggregations[job].method;
        let (_, member, ..) = LISTS
            .iter()
            .find(|(m, ..)| *m == method)
            .copied()
            .unwrap_or(LISTS[0]);
        let page = &message["result"];
        if let Some(items) = page[member].as_array() {
            let items = items.iter().map(|item| (backend, item.clone()));
            self.aggregations[job].items.extend(items);
        }
        match page["nextCursor"].as_str() {
            Some(cursor) if !self.faulty(GatewayFault::FirstPageOnly) => {
                let params = json!({"cursor": cursor});
                self.ask(backend, method, params, Pending::Page(job));
            }
            _ => {
                self.aggregations[job].waiting -= 1;
                if self.aggregations[job].waiting == 0 {
                    self.finish(job);
                }
            }
        }
    }

    fn finish(&mut self, job: usize) {
        let aggregation = &mut self.aggregations[job];
        let mut items = std::mem::take(&mut aggregation.items);
        // Backends answer in any order; the aggregate's pages need one order.
        items.sort_by_key(|(backend, _)| *backend);
        let (front, method, offset) = (aggregation.front.take(), aggregation.method, aggregation.offset);
        match front {
            Some(id) => self.answer_list(&id, method, offset, &items),
            None => {
                self.cache.insert(method, items);
            }
        }
    }

    /// Answers a list request with one page of the namespaced aggregate.
    fn answer_list(&mut self, id: &Value, method: &str, offset: usize, items: &[(usize, Value)]) {
        let (_, member, key, naming) = LISTS
            .iter()
            .find(|(m, ..)| *m == method)
            .copied()
            .unwrap_or(LISTS[0]);
        let named: Vec<Value> = items
            .iter()
            .map(|(backend, item)| {
                let mut item = item.clone();
                if !self.faulty(GatewayFault::NoNamespacing)
                    && let Some(name) = item[key].as_str()
                {
                    item[key] = json!(naming.join(&self.backends[*backend].name, name));
                }
                item
            })
            .collect();
        let page: Vec<Value> = named.iter().skip(offset).take(PAGE).cloned().collect();
        let mut answer = json!({ member: page });
        if offset + PAGE < named.len() {
            answer["nextCursor"] = json!(format!("gateway-page-{}", offset + PAGE));
        }
        self.send_front(&result(id, answer));
    }

    /// A call, read or get: to the backend whose prefix the name carries.
    fn route(&mut self, id: Value, method: &str, params: &Value, naming: Naming, key: &str) {
        let name = params[key].as_str().unwrap_or_default();
        let owner = self.backends.iter().position(|b| {
            name.strip_prefix(&b.name)
                .is_some_and(|rest| rest.starts_with(naming.separator()))
        });
        let Some(owner) = owner else {
            return self.send_front(&error(&id, -32602, &format!("unknown {key} {name:?}")));
        };
        let mut forwarded = params.clone();
        if !self.faulty(GatewayFault::PrefixedCall) {
            forwarded[key] = json!(name[self.backends[owner].name.len() + 1..]);
        }
        if self.faulty(GatewayFault::CallEveryBackend) && method == "tools/call" {
            for other in (0..self.backends.len()).filter(|b| *b != owner) {
                self.ask(other, method, forwarded.clone(), Pending::Ignored);
            }
        }
        self.ask(owner, method, forwarded, Pending::Forward(id));
    }

    fn on_backend(&mut self, backend: usize, message: Value) {
        let method = message["method"].as_str().map(str::to_owned);
        match (method.as_deref(), message.get("id").cloned()) {
            (Some(method), Some(id)) => self.backend_request(backend, method, id, message),
            (Some(method), None) => self.backend_notification(method, &message),
            (None, Some(id)) => {
                let pending = id
                    .as_i64()
                    .and_then(|id| self.backends[backend].pending.remove(&id));
                self.backend_answer(backend, pending, &message);
            }
            (None, None) => {}
        }
    }

    fn backend_answer(&mut self, backend: usize, pending: Option<Pending>, message: &Value) {
        match pending {
            Some(Pending::Initialize) => {
                self.backends[backend].capabilities = message["result"]["capabilities"].clone();
                if self
                    .backends
                    .iter()
                    .all(|b| !b.pending.values().any(|p| matches!(p, Pending::Initialize)))
                {
                    self.initialized();
                }
            }
            Some(Pending::Forward(id)) => {
                let answer = match message.get("error") {
                    Some(_) if self.faulty(GatewayFault::SwallowErrors) => {
                        result(&id, json!({"content": []}))
                    }
                    // The backend's error as it sent it, members and all.
                    Some(failure) => json!({"jsonrpc": "2.0", "id": id, "error": failure}),
                    None => result(&id, message["result"].clone()),
                };
                self.send_front(&answer);
            }
            Some(Pending::Page(job)) => self.page(backend, job, message),
            Some(Pending::Ignored) | None => {}
        }
    }

    /// A backend asks something of the client: passed to the client when
    /// it declared the capability, else refused.
    fn backend_request(&mut self, backend: usize, method: &str, id: Value, mut message: Value) {
        let capability = match method {
            "elicitation/create" => "elicitation",
            "sampling/createMessage" => "sampling",
            "roots/list" => "roots",
            "ping" => return self.tell(backend, &result(&id, json!({}))),
            _ => {
                return self.tell(backend, &error(&id, code::METHOD_NOT_FOUND, "method not found"));
            }
        };
        let declared = self.client_capabilities.get(capability).is_some();
        let refused = (capability == "sampling" && self.faulty(GatewayFault::SamplingRefused))
            || (!declared && !self.faulty(GatewayFault::ElicitUndeclared));
        if refused {
            let answer = error(&id, -1, "the client cannot do this");
            return self.tell(backend, &answer);
        }
        if self.faulty(GatewayFault::AlteredElicitation)
            && let Some(schema) = message["params"]["requestedSchema"].as_object_mut()
        {
            schema.remove("required");
        }
        let relay = format!("gateway-{}", self.next_relay);
        self.next_relay += 1;
        self.relayed.insert(json!(relay).to_string(), (backend, id));
        message["id"] = json!(relay);
        self.send_front(&message);
    }

    /// The client answered a request we passed on: back to the backend that asked.
    fn front_answer(&mut self, relay: &str, mut message: Value) {
        let Some((backend, id)) = self.relayed.remove(relay) else {
            return;
        };
        let backend = match self.faulty(GatewayFault::AnswerWrongBackend) {
            true => (backend + 1) % self.backends.len(),
            false => backend,
        };
        message["id"] = id;
        self.tell(backend, &message);
    }

    fn backend_notification(&mut self, method: &str, message: &Value) {
        let list_changed = method.ends_with("/list_changed");
        let passed = (list_changed && !self.faulty(GatewayFault::DropListChanged))
            || matches!(method, "notifications/progress" | "notifications/message");
        if passed {
            self.send_front(message);
        }
    }
}

/// Methods routed to one backend by a namespaced name or URI.
fn routed(method: &str) -> Option<(Naming, &'static str)> {
    match method {
        "tools/call" | "prompts/get" => Some((Naming::Name, "name")),
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => Some((Naming::Uri, "uri")),
        _ => None,
    }
}
