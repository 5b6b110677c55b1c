//! The per-connection frame checker: JSON-RPC envelope rules, request/response
//! bookkeeping, and the method rules of the negotiated version.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use serde_json::Value;

use super::content::{self, ToolCatalogue};
use super::model::errors::{self, ErrorAnswer, URL_ELICITATION_REQUIRED};
use super::model::tasks::CREATE_TASK_RESULT;
use super::model::{Gate, MethodKind, PeerRole, is_input_required, member_gates, method_in, methods};
use super::shape::SCHEMA_001;
use super::stateless::{self, Conversation};
use super::task_extension::TaskExtension;
use super::task_ledger::TaskLedger;
use super::violation::Violation;
use crate::Level;
use crate::protocol::cite;
use crate::requirements::RequirementId;
use crate::version::{Era, ProtocolVersion};
use crate::wire::{Classified, Direction, Frame, Invalid, RequestId, classify};

/// What an invalid request is recorded as, so that its error response matches.
const INVALID_REQUEST: &str = "(invalid request)";

/// The probe a dual-era client sends before anything else (MODN-009).
const DISCOVER: &str = "server/discover";

/// The methods checked before any version is known.
const LIFECYCLE: [&str; 3] = ["initialize", "notifications/initialized", "ping"];

/// Judges every frame of one connection, in order.
///
/// Before a version is negotiated, methods are checked against the version
/// the `initialize` request offered; before that request, only the
/// lifecycle methods are checked. A conversation whose first request
/// carries a stateless `_meta` protocol version (2026-07-28) is checked
/// under that version, with its per-request rules ([`Conversation`]).
#[derive(Debug)]
pub struct FrameChecker {
    us: PeerRole,
    negotiated: Option<ProtocolVersion>,
    offered: Option<ProtocolVersion>,
    next_index: usize,
    /// Every request id each side has used.
    used_ids: HashSet<(PeerRole, RequestId)>,
    /// Requests not answered yet, by sender and id, with their method.
    outstanding: HashMap<(PeerRole, RequestId), String>,
    answered: HashSet<(PeerRole, RequestId)>,
    /// Capabilities each side declared during the handshake.
    capabilities: HashMap<PeerRole, Value>,
    /// Whether the checker sees the connection from its start, so that
    /// rules about earlier frames apply.
    whole_connection: bool,
    /// When the client sent `notifications/initialized`, if it has.
    initialized_at: Option<Duration>,
    /// When the frame being checked crossed the wire.
    frame_at: Duration,
    /// The connection is stdio, where stdout carries nothing but messages.
    stdio: bool,
    /// Progress tokens of requests in flight: the request, and the last
    /// progress reported for it.
    tokens: HashMap<String, ((PeerRole, RequestId), Option<f64>)>,
    /// Tokens whose request has been answered.
    finished_tokens: HashSet<String>,
    /// The tools the server listed, for judging their calls.
    tools: ToolCatalogue,
    /// The tool each `tools/call` in flight names.
    called_tools: HashMap<(PeerRole, RequestId), String>,
    /// What the rules of a stateless conversation remember.
    conversation: Conversation,
    /// What the rules of 2025-11-25 tasks remember.
    tasks: TaskLedger,
    /// What the rules of the tasks extension (2026-07-28+) remember.
    task_extension: TaskExtension,
}

impl FrameChecker {
    /// A checker for a connection on which the harness plays `us`: frames
    /// with [`Direction::Sent`] come from `us`.
    pub fn new(us: PeerRole) -> Self {
        FrameChecker {
            us,
            negotiated: None,
            offered: None,
            next_index: 0,
            used_ids: HashSet::new(),
            outstanding: HashMap::new(),
            answered: HashSet::new(),
            capabilities: HashMap::new(),
            whole_connection: true,
            initialized_at: None,
            frame_at: Duration::ZERO,
            stdio: false,
            tokens: HashMap::new(),
            finished_tokens: HashSet::new(),
            tools: ToolCatalogue::default(),
            called_tools: HashMap::new(),
            conversation: Conversation::default(),
            tasks: TaskLedger::default(),
            task_extension: TaskExtension::default(),
        }
    }

    /// The same checker for a stdio connection: text that is not a JSON
    /// message breaks the stdio rules (STDIO-002 for the server's stdout,
    /// STDIO-003 for the client's writes) rather than only JSON-RPC's.
    pub fn on_stdio(mut self) -> Self {
        self.stdio = true;
        self
    }

    /// Fixes the version to check against (for example when the
    /// handshake happened out of view).
    pub fn set_version(&mut self, version: ProtocolVersion) {
        self.negotiated = Some(version);
    }

    /// The version frames are checked against now, if any.
    pub fn version(&self) -> Option<ProtocolVersion> {
        self.negotiated.or(self.offered)
    }

    fn is_stateless(&self) -> bool {
        self.version().is_some_and(|v| v.era() == Era::Stateless)
    }

    /// In 2026-07-28 servers send no requests and clients no responses
    /// (RPC-017; on stdio the transport page says it again, STDIO-007).
    fn check_role(&self, sender: PeerRole, out: &mut Vec<Violation>) {
        if !self.is_stateless() {
            return;
        }
        let message = match sender {
            PeerRole::Server => "a 2026-07-28 server sent a JSON-RPC request",
            PeerRole::Client => "a 2026-07-28 client sent a JSON-RPC response",
        };
        out.push(Violation::must(cite::RPC_017, message).at(""));
        if self.stdio {
            let message = match sender {
                PeerRole::Server => "a server wrote a JSON-RPC request to stdout",
                PeerRole::Client => "a client wrote a JSON-RPC response to stdin",
            };
            out.push(Violation::must(cite::STDIO_007, message).at(""));
        }
    }

    /// Every rule the next frame of the connection breaks.
    pub fn check(&mut self, frame: &Frame) -> Vec<Violation> {
        let index = self.next_index;
        self.next_index += 1;
        self.frame_at = frame.at;
        let sender = match frame.direction {
            Direction::Sent => self.us,
            Direction::Received => self.us.other(),
        };
        let mut out = Vec::new();
        match classify(&frame.raw) {
            Classified::Batch(items) => {
                let raw: Value = serde_json::from_slice(&frame.raw).unwrap_or(Value::Null);
                self.check_batch(items, &raw, sender, &mut out);
            }
            Classified::Invalid(invalid) => {
                let raw: Option<Value> = serde_json::from_slice(&frame.raw).ok();
                let mut violation = invalid_violation(&invalid, raw.as_ref(), "");
                if self.stdio {
                    violation.requirement = match (&invalid, sender) {
                        (Invalid::Envelope { .. }, _) => violation.requirement,
                        (Invalid::NotUtf8 { .. }, _) => cite::STDIO_001,
                        (_, PeerRole::Server) => cite::STDIO_002,
                        (_, PeerRole::Client) => cite::STDIO_003,
                    };
                }
                out.push(violation);
                // An invalid request may still be answered under its id.
                let request = raw.as_ref().filter(|r| r.get("method").is_some());
                if let Some(id) = request.and_then(|r| r.get("id")).and_then(RequestId::from_value) {
                    self.note_request(sender, &id, INVALID_REQUEST, &mut out);
                }
            }
            message => self.check_message(message, sender, "", &mut out),
        }
        for violation in &mut out {
            violation.frame_index = Some(index);
            violation.by_us = sender == self.us;
        }
        out
    }

    fn check_batch(
        &mut self,
        items: Vec<Classified>,
        raw: &Value,
        sender: PeerRole,
        out: &mut Vec<Violation>,
    ) {
        if self.version() != Some(ProtocolVersion::V2025_03_26) {
            let version = self
                .version()
                .map_or("this connection".to_owned(), |v| v.to_string());
            let message = format!("a JSON-RPC batch, but batches exist only in 2025-03-26, not in {version}");
            // On stdio the transport page says it again, from 2025-06-18.
            let requirement = match self.version() {
                Some(v) if self.stdio && v >= ProtocolVersion::V2025_06_18 => cite::STDIO_006,
                _ => cite::RPC_001,
            };
            out.push(Violation::must(requirement, message).at(""));
        }
        if items.is_empty() {
            out.push(Violation::must(cite::RPC_001, "an empty batch").at(""));
        }
        for (i, item) in items.into_iter().enumerate() {
            let prefix = format!("/{i}");
            if item.method() == Some("initialize") {
                out.push(
                    Violation::must(cite::RPC_014, "`initialize` sent inside a batch").at(prefix.clone()),
                );
            }
            match item {
                Classified::Invalid(invalid) => out.push(invalid_violation(&invalid, raw.get(i), &prefix)),
                Classified::Batch(_) => {
                    out.push(Violation::must(cite::RPC_001, "a batch nested in a batch").at(prefix))
                }
                message => self.check_message(message, sender, &prefix, out),
            }
        }
    }

    fn check_message(
        &mut self,
        message: Classified,
        sender: PeerRole,
        prefix: &str,
        out: &mut Vec<Violation>,
    ) {
        let mut found = Vec::new();
        match message {
            Classified::Request { id, method, params } => {
                if method == "initialize" {
                    self.note_initialize_request(params.as_ref());
                }
                if self.version().is_none() {
                    self.negotiated = params
                        .as_ref()
                        .and_then(|p| p.pointer("/_meta/io.modelcontextprotocol~1protocolVersion"))
                        .and_then(Value::as_str)
                        .and_then(|v| v.parse().ok())
                        .filter(|v: &ProtocolVersion| v.era() == Era::Stateless);
                }
                if sender == PeerRole::Server {
                    self.check_role(sender, &mut found);
                } else if self.is_stateless() {
                    stateless::check_client_info(params.as_ref(), &mut found);
                    let capabilities = params
                        .as_ref()
                        .and_then(|p| p.pointer("/_meta/io.modelcontextprotocol~1clientCapabilities"));
                    let at = "/params/_meta/io.modelcontextprotocol~1clientCapabilities";
                    stateless::check_extension_ids(capabilities, at, &mut found);
                    if let Some(version) = self.version().filter(|_| self.whole_connection) {
                        self.conversation
                            .client_request(&id, &method, params.as_ref(), version, &mut found);
                        self.task_extension.client_request(
                            &method,
                            params.as_ref(),
                            self.frame_at,
                            &mut found,
                        );
                    }
                }
                // By time, not transcript order: a request read before our
                // notification was sent may be filed after it.
                let early = self.initialized_at.is_none_or(|sent| self.frame_at < sent);
                let stateful = !self.is_stateless();
                if sender == PeerRole::Server
                    && early
                    && stateful
                    && method != "ping"
                    && self.whole_connection
                {
                    let message = format!("`{method}` sent before the client's notifications/initialized");
                    found.push(Violation::new(cite::LIFE_009, Level::Should, message).at("/method"));
                }
                if let Some(token) = params.as_ref().and_then(|p| p.pointer("/_meta/progressToken")) {
                    self.tokens
                        .insert(token.to_string(), ((sender, id.clone()), None));
                }
                if method == "tools/call"
                    && let Some(tool) = params
                        .as_ref()
                        .and_then(|p| p.get("name"))
                        .and_then(Value::as_str)
                {
                    self.called_tools.insert((sender, id.clone()), tool.to_owned());
                }
                self.note_request(sender, &id, &method, &mut found);
                if self.version() == Some(ProtocolVersion::V2025_11_25) {
                    let receiver = self.capabilities.get(&sender.other());
                    self.tasks.note_request(
                        (sender, id.clone()),
                        &method,
                        params.as_ref(),
                        receiver,
                        self.frame_at,
                        &mut found,
                    );
                }
                self.check_method(sender, &method, MethodKind::Request, params.as_ref(), &mut found);
            }
            Classified::Notification { method, params } => {
                // A stateless server cancels the client's listen streams (CANC-006).
                let server_closes_stream = self.is_stateless() && sender == PeerRole::Server;
                if method == "notifications/cancelled" && self.whole_connection && !server_closes_stream {
                    self.check_cancelled(sender, params.as_ref(), &mut found);
                }
                if method == "notifications/initialized" && sender == PeerRole::Client {
                    self.initialized_at.get_or_insert(self.frame_at);
                }
                if method == "notifications/progress" && self.whole_connection {
                    found.extend(self.check_progress(sender, params.as_ref()));
                }
                if sender == PeerRole::Server && self.is_stateless() {
                    stateless::check_stream_tag(&method, params.as_ref(), &mut found);
                    if self.whole_connection {
                        self.conversation
                            .server_notification(&method, params.as_ref(), &mut found);
                        self.task_extension
                            .server_notification(&method, params.as_ref(), &mut found);
                    }
                }
                self.check_method(
                    sender,
                    &method,
                    MethodKind::Notification,
                    params.as_ref(),
                    &mut found,
                );
            }
            Classified::Result { id, result } => {
                if sender == PeerRole::Client {
                    self.check_role(sender, &mut found);
                }
                let request = self.conversation.answered(&id);
                let key = (sender.other(), id.clone());
                // A task keeps its request's progress token until it ends (TASK-008).
                let created = self.tasks.creates_task(&key, &result).map(str::to_owned);
                if let Some(method) = self.take_answered(sender, &id, created.is_some(), &mut found) {
                    if method == "initialize" {
                        self.note_initialize_result(&result);
                    }
                    let tool = self.called_tools.remove(&key);
                    let extension_task = match (&request, self.version(), sender) {
                        (Some(request), Some(version), PeerRole::Server)
                            if version.era() == Era::Stateless =>
                        {
                            self.task_extension.server_result(
                                &request.method,
                                request.capabilities(),
                                &result,
                                (version, self.frame_at),
                                &mut found,
                            )
                        }
                        _ => false,
                    };
                    match (created, self.version()) {
                        (Some(task_method), Some(version)) => {
                            found.extend(CREATE_TASK_RESULT.check(&result, version, "/result"));
                            self.tasks.note_origin(key.clone(), sender, &result);
                            self.tasks
                                .note_created(sender, &task_method, &result, self.frame_at, &mut found);
                        }
                        _ if extension_task => {}
                        _ => self.check_result(sender, &method, tool.as_deref(), &result, &mut found),
                    }
                    self.check_task_payload(&key, &result, &mut found);
                    self.tasks.answered(&key);
                    if let (Some(request), Some(version), PeerRole::Server) =
                        (request, self.version(), sender)
                        && version.era() == Era::Stateless
                    {
                        self.conversation
                            .server_result(&id, &request, &result, version, &mut found);
                    }
                }
            }
            Classified::Error { id, error } => {
                if sender == PeerRole::Client {
                    self.check_role(sender, &mut found);
                }
                let request = id.as_ref().and_then(|id| self.conversation.answered(id));
                let answering = match &id {
                    Some(id) => {
                        self.tasks.answered(&(sender.other(), id.clone()));
                        self.take_answered(sender, id, false, &mut found)
                    }
                    None => None,
                };
                if let (Some(code), Some(version)) = (error.code, self.version()) {
                    let answer = ErrorAnswer {
                        code,
                        data: error.data.as_ref(),
                        sender,
                        answering: answering.as_deref(),
                        requested_version: request.as_ref().and_then(|r| r.protocol_version.as_deref()),
                    };
                    found.extend(errors::check_error(&answer, version));
                }
                if error.code.is_none() {
                    found.push(
                        Violation::must(cite::RPC_006, "the error `code` is missing or not an integer")
                            .at("/error/code"),
                    );
                }
                if error.message.is_none() {
                    let text = "the error `message` is missing or not a string";
                    found.push(Violation::must(cite::RPC_006, text).at("/error/message"));
                }
                if error.code == Some(URL_ELICITATION_REQUIRED)
                    && self.version() == Some(ProtocolVersion::V2025_11_25)
                {
                    content::check_url_elicitation_required(error.data.as_ref(), &mut found);
                }
            }
            Classified::Batch(_) | Classified::Invalid(_) => unreachable!("handled by the caller"),
        }
        out.extend(found.into_iter().map(|v| rebase(v, prefix)));
    }

    fn note_request(&mut self, sender: PeerRole, id: &RequestId, method: &str, out: &mut Vec<Violation>) {
        let key = (sender, id.clone());
        let fresh = self.used_ids.insert(key.clone());
        // From 2026-07-28 an id may come back once its request is answered.
        let reused = match self.is_stateless() {
            true => self.outstanding.contains_key(&key),
            false => !fresh,
        };
        if reused {
            out.push(
                Violation::must(
                    cite::RPC_003,
                    format!("request id {id} was already used by the same side"),
                )
                .at("/id"),
            );
            return;
        }
        self.outstanding.insert(key, method.to_owned());
    }

    /// Marks the request answered by a response from `responder`, and
    /// returns its method; reports a response that answers nothing. The
    /// request's progress tokens end with it unless `keep_tokens`.
    fn take_answered(
        &mut self,
        responder: PeerRole,
        id: &RequestId,
        keep_tokens: bool,
        out: &mut Vec<Violation>,
    ) -> Option<String> {
        let key = (responder.other(), id.clone());
        if let Some(method) = self.outstanding.remove(&key) {
            if keep_tokens {
                self.answered.insert(key);
                return Some(method);
            }
            let finished: Vec<String> = self
                .tokens
                .iter()
                .filter(|(_, (request, _))| *request == key)
                .map(|(t, _)| t.clone())
                .collect();
            for token in finished {
                self.tokens.remove(&token);
                self.finished_tokens.insert(token);
            }
            self.answered.insert(key);
            return Some(method);
        }
        let message = if self.answered.contains(&key) {
            format!("request {id} was already answered")
        } else {
            format!("no request with id {id} was sent by the other side")
        };
        out.push(Violation::must(cite::RPC_004, message).at("/id"));
        None
    }

    /// Progress names the token of a request in flight, comes from the
    /// side that received that request, increases (PROG-002/003/004), and
    /// stops once the task the request created is seen ended (TASK-008).
    fn check_progress(&mut self, sender: PeerRole, params: Option<&Value>) -> Option<Violation> {
        let params = params?;
        let token = params.get("progressToken")?.to_string();
        let progress = params.get("progress").and_then(Value::as_f64)?;
        let Some((request, last)) = self.tokens.get_mut(&token) else {
            let violation = if self.finished_tokens.contains(&token) {
                Violation::must(
                    cite::PROG_004,
                    format!("progress for token {token} after its response"),
                )
            } else {
                Violation::must(
                    cite::PROG_003,
                    format!("progress for token {token}, which no request in flight carries"),
                )
            };
            return Some(violation.at("/params/progressToken"));
        };
        if request.0 == sender {
            let message = format!("progress for token {token} sent by the side that made the request");
            return Some(Violation::must(cite::PROG_003, message).at("/params/progressToken"));
        }
        // Only stdio keeps the order: over HTTP, progress written before
        // the task ended may reach us after the answer that showed the end.
        if let Some((task, status)) = self.tasks.ended_task_of(request).filter(|_| self.stdio) {
            let message = format!(
                "progress for token {token} after its task {task:?} was seen {}",
                status.name()
            );
            return Some(Violation::must(cite::TASK_008, message).at("/params/progressToken"));
        }
        let previous = last.replace(progress);
        previous.filter(|p| progress <= *p).map(|p| {
            Violation::must(
                cite::PROG_002,
                format!("progress for token {token} went from {p} to {progress}"),
            )
            .at("/params/progress")
        })
    }

    fn check_cancelled(&self, sender: PeerRole, params: Option<&Value>, out: &mut Vec<Violation>) {
        let Some(id) = params
            .and_then(|p| p.get("requestId"))
            .and_then(RequestId::from_value)
        else {
            return;
        };
        if !self.used_ids.contains(&(sender, id.clone())) {
            let message = format!("cancels request {id}, which the sender never issued");
            out.push(Violation::must(cite::CANC_001, message).at("/params/requestId"));
        }
    }

    fn note_initialize_request(&mut self, params: Option<&Value>) {
        let Some(params) = params else { return };
        let offered = params
            .get("protocolVersion")
            .and_then(Value::as_str)
            .and_then(stateful_version);
        self.offered = Some(offered.unwrap_or(ProtocolVersion::LATEST_STATEFUL));
        if let Some(capabilities) = params.get("capabilities") {
            self.capabilities.insert(PeerRole::Client, capabilities.clone());
        }
    }

    fn note_initialize_result(&mut self, result: &Value) {
        if let Some(version) = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .and_then(stateful_version)
        {
            self.negotiated = Some(version);
        }
        if let Some(capabilities) = result.get("capabilities") {
            self.capabilities.insert(PeerRole::Server, capabilities.clone());
        }
    }

    /// The version to check `name` with, if it is checked at all.
    fn version_for(&self, name: &str) -> Option<ProtocolVersion> {
        match self.version() {
            Some(version) => Some(version),
            None => LIFECYCLE
                .contains(&name)
                .then_some(ProtocolVersion::LATEST_STATEFUL),
        }
    }

    fn check_method(
        &self,
        sender: PeerRole,
        name: &str,
        kind: MethodKind,
        params: Option<&Value>,
        out: &mut Vec<Violation>,
    ) {
        let Some(version) = self.version_for(name) else {
            return;
        };
        let Some(spec) = method_in(name, version) else {
            // A request of ours for an unknown method probes the peer, which
            // should answer -32601; so does a stateless client's request for
            // a legacy method (a dual-era client falling back, MODN-009), and
            // a client's `server/discover` before `initialize` (a dual-era
            // client probing for the era, MODN-009).
            let era_probe = name == DISCOVER && self.offered.is_none();
            let probe = sender == self.us
                || (sender == PeerRole::Client && (version.era() == Era::Stateless || era_probe));
            if !(probe && kind == MethodKind::Request) {
                out.push(unknown_method(name, version));
            }
            return;
        };
        if spec.kind == MethodKind::InputRequest {
            // A server's request was reported by the role rule already.
            if !(sender == PeerRole::Server && kind == MethodKind::Request) {
                let message = format!("`{name}` travels only inside an InputRequiredResult in {version}");
                out.push(Violation::must(SCHEMA_001, message).at("/method"));
            }
            return;
        }
        match (spec.kind, kind) {
            (MethodKind::Notification, MethodKind::Request) => {
                out.push(
                    Violation::must(
                        cite::RPC_007,
                        format!("`{name}` is a notification and has no `id`"),
                    )
                    .at("/id"),
                );
            }
            (MethodKind::Request, MethodKind::Notification) => {
                let message = format!("`{name}` is a request and needs an `id`");
                out.push(Violation::must(SCHEMA_001, message).at(""));
            }
            _ => {}
        }
        out.extend(spec.check_params(params, version));
        if let Some(params) = params {
            content::check_meta_keys(params, "/params", version, out);
            if name == "sampling/createMessage" {
                content::check_sampling_history(params, version, out);
            }
        }
        if !spec.direction.allows(sender) {
            let message = format!("`{name}` is not sent by the {}", role_name(sender));
            out.push(Violation::must(SCHEMA_001, message).at("/method"));
        } else {
            if let Some(gate) = spec.gate {
                self.check_gate(&gate, version, &format!("`{name}`"), "/method", out);
            }
            let used = member_gates(name).filter(|g| params.is_some_and(|p| g.applies_to(p)));
            for member in used {
                let what = format!("`{}` in `{name}`", member.member);
                self.check_gate(
                    &member.gate,
                    version,
                    &what,
                    &format!("/params/{}", member.member),
                    out,
                );
            }
        }
    }

    /// Reports `what` used although the holder of `gate` did not declare its capability.
    fn check_gate(
        &self,
        gate: &Gate,
        version: ProtocolVersion,
        what: &str,
        pointer: &str,
        out: &mut Vec<Violation>,
    ) {
        let Some(declared) = self.capabilities.get(&gate.holder) else {
            return;
        };
        if gate.versions.contains(version) && !gate.is_open(declared) {
            let message = format!(
                "{what} needs the {} capability `{}`, which was not declared",
                role_name(gate.holder),
                gate.path
            );
            out.push(
                Violation::new(gate.requirement, gate_level(gate.requirement, version), message).at(pointer),
            );
        }
    }

    fn check_result(
        &mut self,
        responder: PeerRole,
        name: &str,
        tool: Option<&str>,
        result: &Value,
        out: &mut Vec<Violation>,
    ) {
        let spec = self
            .version_for(name)
            .and_then(|version| Some((method_in(name, version)?, version)));
        let Some((spec, version)) = spec else {
            return;
        };
        out.extend(spec.check_result(result, version));
        content::check_meta_keys(result, "/result", version, out);
        if is_input_required(result) {
            return;
        }
        if let Some(gate) = spec
            .gate
            .filter(|gate| gate.holder == responder && offers_something(name, result))
        {
            self.check_offered(&gate, name, version, out);
        }
        match (name, tool) {
            ("server/discover", _) => {
                stateless::check_extension_ids(result.get("capabilities"), "/result/capabilities", out);
                // What the handshake told of a stateful server, discovery tells of a stateless one.
                if let Some(capabilities) = result
                    .get("capabilities")
                    .filter(|_| responder == PeerRole::Server)
                {
                    self.capabilities.insert(PeerRole::Server, capabilities.clone());
                }
            }
            ("tools/list", _) => {
                self.tools.check_list(result, version, out);
                self.tasks.note_tools(result);
            }
            // The extension's task answers are judged by `task_extension`.
            ("tasks/get" | "tasks/cancel" | "tasks/list", _) if version.era() == Era::Stateful => {
                self.tasks.note_answer(responder, name, result, out);
            }
            ("tools/call", Some(tool)) => self.tools.check_call(tool, result, version, out),
            ("resources/read", _) => content::check_resource_contents(result, out),
            _ => {}
        }
    }

    /// The answer to a `tasks/result` for a task we saw created names it
    /// (TASK-005) and has the shape of the result of the method the task runs.
    fn check_task_payload(&self, key: &(PeerRole, RequestId), result: &Value, out: &mut Vec<Violation>) {
        let Some(version) = self.version() else {
            return;
        };
        let method = self.tasks.fetched(key, result, out);
        if let Some(spec) = method.and_then(|m| method_in(m, version)) {
            out.extend(spec.check_result(result, version));
        }
    }

    /// A peer that serves a feature has declared its capability
    /// (TOOL-001, RES-001, PROM-001, COMP-001; of a client: ROOT-001,
    /// SAMP-001, ELIC-001).
    fn check_offered(&self, gate: &Gate, name: &str, version: ProtocolVersion, out: &mut Vec<Violation>) {
        let Some(declared) = self.capabilities.get(&gate.holder) else {
            return;
        };
        let requirement = match gate.path.split('.').next() {
            Some("tools") => cite::TOOL_001,
            Some("resources") => cite::RES_001,
            Some("prompts") => cite::PROM_001,
            Some("completions") => cite::COMP_001,
            Some("roots") => cite::ROOT_001,
            Some("sampling") => cite::SAMP_001,
            Some("elicitation") => cite::ELIC_001,
            _ => return,
        };
        // The gate's versions are those of the requesting side's rule
        // (LIST-006); serving means declaring in every era, and from
        // 2026-07-28 the declaration is the discover result's.
        let applies = gate.versions.contains(version) || version.era() == Era::Stateless;
        if applies && !gate.is_open(declared) {
            let message = format!(
                "`{name}` was served although the {} capability `{}` was not declared",
                role_name(gate.holder),
                gate.path
            );
            out.push(Violation::must(requirement, message).at("/result"));
        }
    }
}

/// Every rule one message breaks in `version`, judged on its own: no
/// handshake, no declared capabilities. `sender` sent it; a response is
/// judged as the answer to a request for `answering`.
pub fn check_message(
    version: ProtocolVersion,
    sender: PeerRole,
    message: &Value,
    answering: Option<&str>,
) -> Vec<Violation> {
    let mut checker = FrameChecker::new(sender.other());
    checker.set_version(version);
    checker.whole_connection = false;
    if let (Some(method), Some(id)) = (answering, message.get("id").and_then(RequestId::from_value)) {
        checker.note_request(sender.other(), &id, method, &mut Vec::new());
    }
    let raw = serde_json::to_vec(message).unwrap_or_default();
    checker.check(&Frame::new(Direction::Received, raw, std::time::Duration::ZERO))
}

/// A result offers something unless all it lists is empty lists: an empty
/// `prompts/list` from a server without prompts offers no prompts, and no
/// roots are no roots. An elicitation offers something only when accepted:
/// a client that merely cancels what it cannot show elicits nothing.
fn offers_something(method: &str, result: &Value) -> bool {
    if method == "elicitation/create" {
        return result.get("action").and_then(Value::as_str) == Some("accept");
    }
    let mut lists = result
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(_, member)| member.as_array());
    match lists.next() {
        None => true,
        Some(first) => !(first.is_empty() && lists.all(Vec::is_empty)),
    }
}

fn stateful_version(text: &str) -> Option<ProtocolVersion> {
    text.parse()
        .ok()
        .filter(|v: &ProtocolVersion| v.era() == Era::Stateful)
}

fn role_name(role: PeerRole) -> &'static str {
    match role {
        PeerRole::Server => "server",
        PeerRole::Client => "client",
    }
}

/// A method that `version` does not define: one from another version breaks
/// the rule to stay on the negotiated version; an unheard-of one is a shape error.
fn unknown_method(name: &str, version: ProtocolVersion) -> Violation {
    let defined: Vec<String> = methods()
        .filter(|m| m.name == name)
        .map(|m| m.versions.to_string())
        .collect();
    if defined.is_empty() {
        return Violation::must(SCHEMA_001, format!("unknown method `{name}`")).at("/method");
    }
    let message = format!(
        "`{name}` does not exist in {version} (only in {})",
        defined.join(", ")
    );
    let violation = match version {
        // LIFE-010/011 bind the stateful versions; later, the shape rule.
        v if v.era() == Era::Stateless => Violation::must(SCHEMA_001, message),
        v if v >= ProtocolVersion::V2025_06_18 => Violation::must(cite::LIFE_011, message),
        _ => Violation::new(cite::LIFE_010, Level::Should, message),
    };
    violation.at("/method")
}

/// Capability rules that are only SHOULD in some versions.
fn gate_level(requirement: RequirementId, version: ProtocolVersion) -> Level {
    match requirement {
        cite::LIST_002 | cite::LIST_006 if version < ProtocolVersion::V2025_06_18 => Level::Should,
        cite::RES_007 | cite::SAMP_006 => Level::Should,
        _ => Level::Must,
    }
}

/// The violation for a frame `classify` could not read; `raw` is its JSON,
/// when it is JSON, to tell which envelope rule broke.
fn invalid_violation(invalid: &Invalid, raw: Option<&Value>, pointer: &str) -> Violation {
    let requirement = match (invalid, raw) {
        (Invalid::Envelope { .. }, Some(value)) => envelope_requirement(value),
        _ => cite::RPC_001,
    };
    Violation::must(requirement, invalid.to_string()).at(pointer)
}

/// Which envelope rule the JSON message `value` breaks (RPC-001 when it is
/// not JSON-RPC 2.0 at all).
pub(crate) fn envelope_requirement(value: &Value) -> RequirementId {
    let Some(obj) = value.as_object() else {
        return cite::RPC_001;
    };
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return cite::RPC_001;
    }
    let (has_result, has_error) = (obj.contains_key("result"), obj.contains_key("error"));
    if let Some(method) = obj.get("method") {
        return match () {
            _ if !method.is_string() => cite::RPC_001,
            _ if has_result || has_error => cite::RPC_005,
            _ if obj.get("params").is_some_and(|p| !p.is_object() && !p.is_array()) => SCHEMA_001,
            _ => cite::RPC_002,
        };
    }
    match (has_result, has_error) {
        (true, true) | (false, false) => cite::RPC_005,
        (false, true) if !obj["error"].is_object() => cite::RPC_006,
        _ => cite::RPC_004,
    }
}

/// Moves a violation's pointer under `prefix` (a batch element).
fn rebase(mut violation: Violation, prefix: &str) -> Violation {
    if !prefix.is_empty() {
        violation.pointer = Some(format!("{prefix}{}", violation.pointer.unwrap_or_default()));
    }
    violation
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use ProtocolVersion::*;

    /// A client-playing checker, with frames given as text.
    struct Session(FrameChecker);

    impl Session {
        fn new() -> Self {
            Session(FrameChecker::new(PeerRole::Client))
        }

        fn sent(&mut self, text: &str) -> Vec<Violation> {
            self.0.check(&Frame::new(
                Direction::Sent,
                text.as_bytes().to_vec(),
                Duration::ZERO,
            ))
        }

        fn received(&mut self, text: &str) -> Vec<Violation> {
            self.0.check(&Frame::new(
                Direction::Received,
                text.as_bytes().to_vec(),
                Duration::ZERO,
            ))
        }

        fn handshake(version: &str, server_capabilities: &str) -> Self {
            let mut session = Session::new();
            let init = format!(
                r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"c","version":"1"}}}}}}"#
            );
            assert_eq!(session.sent(&init), []);
            let result = format!(
                r#"{{"jsonrpc":"2.0","id":0,"result":{{"protocolVersion":"{version}","capabilities":{server_capabilities},"serverInfo":{{"name":"s","version":"1"}}}}}}"#
            );
            assert_eq!(session.received(&result), []);
            assert_eq!(
                session.sent(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
                []
            );
            session
        }
    }

    fn requirements(found: &[Violation]) -> Vec<RequirementId> {
        found.iter().map(|v| v.requirement).collect()
    }

    #[test]
    fn negotiates_the_version_and_records_frame_indices() {
        let mut session = Session::handshake("2025-06-18", r#"{"tools":{}}"#);
        assert_eq!(session.0.version(), Some(V2025_06_18));
        let found = session.received(r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[]}"#);
        assert_eq!(requirements(&found), [cite::SCHEMA_001]);
        assert_eq!(found[0].frame_index, Some(3));
        assert!(!found[0].by_us);
    }

    #[test]
    fn progress_names_a_live_token_and_increases() {
        let mut session = Session::handshake("2025-06-18", r#"{"tools":{}}"#);
        let progress = |p: u32| {
            format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"t","progress":{p}}}}}"#
            )
        };
        assert_eq!(requirements(&session.received(&progress(1))), [cite::PROG_003]);
        let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":"t"}}}"#;
        assert_eq!(session.sent(call), []);
        assert_eq!(session.received(&progress(1)), []);
        assert_eq!(session.received(&progress(2)), []);
        assert_eq!(requirements(&session.received(&progress(2))), [cite::PROG_002]);
        assert_eq!(
            session.received(r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#),
            []
        );
        assert_eq!(requirements(&session.received(&progress(3))), [cite::PROG_004]);
    }

    #[test]
    fn server_requests_wait_for_initialized() {
        let mut session = Session::new();
        let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"c","version":"1"}}}"#;
        assert_eq!(session.sent(init), []);
        let roots = r#"{"jsonrpc":"2.0","id":5,"method":"roots/list"}"#;
        assert_eq!(requirements(&session.received(roots)), [cite::LIFE_009]);
        assert_eq!(
            session.received(r#"{"jsonrpc":"2.0","id":6,"method":"ping"}"#),
            []
        );
    }

    #[test]
    fn envelope_rules_cite_their_requirements() {
        let mut session = Session::new();
        assert_eq!(requirements(&session.received("{oops")), [cite::RPC_001]);
        assert_eq!(
            requirements(&session.received(r#"{"jsonrpc":"1.0","method":"ping","id":1}"#)),
            [cite::RPC_001]
        );
        assert_eq!(
            requirements(&session.received(r#"{"jsonrpc":"2.0","method":"ping","id":null}"#)),
            [cite::RPC_002]
        );
        assert_eq!(
            requirements(&session.received(r#"{"jsonrpc":"2.0","method":"ping","id":1.5}"#)),
            [cite::RPC_002]
        );
        assert_eq!(
            requirements(&session.received(r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{}}"#)),
            [cite::RPC_005]
        );
        assert_eq!(
            requirements(&session.received(r#"{"jsonrpc":"2.0","id":1}"#)),
            [cite::RPC_005]
        );
        let bad_error = session.received(r#"{"jsonrpc":"2.0","id":null,"error":{"code":"x"}}"#);
        assert_eq!(requirements(&bad_error), [cite::RPC_006, cite::RPC_006]);
        assert!(session.sent("\u{1}").iter().all(|v| v.by_us));
        // An invalid request of ours may be answered under its id.
        session.sent(r#"{"jsonrpc":"1.0","method":"ping","id":"bad"}"#);
        assert_eq!(
            requirements(
                &session.received(r#"{"jsonrpc":"2.0","id":"bad","error":{"code":-32600,"message":"no"}}"#)
            ),
            Vec::<&str>::new()
        );
    }

    #[test]
    fn request_ids_are_unique_and_answered_once() {
        let mut session = Session::handshake("2025-11-25", "{}");
        assert_eq!(
            session.sent(r#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#)[0].requirement,
            cite::RPC_003
        );
        assert_eq!(session.sent(r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#), []);
        // The other side may use the same id for its own requests.
        assert_eq!(
            session.received(r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#),
            []
        );
        assert_eq!(session.received(r#"{"jsonrpc":"2.0","id":"a","result":{}}"#), []);
        let again = session.received(r#"{"jsonrpc":"2.0","id":"a","result":{}}"#);
        assert_eq!(requirements(&again), [cite::RPC_004]);
        assert!(again[0].message.contains("already answered"));
        let stray = session.received(r#"{"jsonrpc":"2.0","id":99,"error":{"code":-32603,"message":"x"}}"#);
        assert_eq!(requirements(&stray), [cite::RPC_004]);
    }

    #[test]
    fn results_are_checked_against_the_request_method() {
        let mut session = Session::handshake("2025-06-18", r#"{"tools":{}}"#);
        assert_eq!(
            session.sent(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#),
            []
        );
        let found = session.received(r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t"}]}}"#);
        assert_eq!(requirements(&found), [cite::TOOL_002]);
        assert_eq!(found[0].pointer.as_deref(), Some("/result/tools/0"));
    }

    #[test]
    fn direction_kind_and_unknown_methods() {
        let mut session = Session::handshake("2025-03-26", r#"{"logging":{}}"#);
        let wrong_way = session.received(r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#);
        assert_eq!(requirements(&wrong_way), [cite::SCHEMA_001]);
        let ungated = session.sent(r#"{"jsonrpc":"2.0","id":6,"method":"tools/list"}"#);
        assert_eq!(requirements(&ungated), [cite::LIST_006]);
        assert_eq!(
            ungated[0].level,
            Level::Should,
            "capabilities are a SHOULD before 2025-06-18"
        );
        assert!(ungated[0].by_us);
        let with_id = session.sent(r#"{"jsonrpc":"2.0","id":7,"method":"notifications/initialized"}"#);
        assert_eq!(requirements(&with_id), [cite::RPC_007]);
        assert_eq!(
            session.sent(r#"{"jsonrpc":"2.0","id":8,"method":"x/probe"}"#),
            [],
            "probing is allowed"
        );
        let unknown = session.received(r#"{"jsonrpc":"2.0","method":"x/unknown"}"#);
        assert_eq!(requirements(&unknown), [cite::SCHEMA_001]);
        let too_new =
            session.received(r#"{"jsonrpc":"2.0","id":9,"method":"elicitation/create","params":{}}"#);
        assert_eq!(requirements(&too_new), [cite::LIFE_010]);
    }

    #[test]
    fn capability_gates_hold_from_2025_06_18() {
        let mut session = Session::handshake("2025-06-18", "{}");
        let log = session.received(
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":1}}"#,
        );
        assert_eq!(requirements(&log), [cite::LOG_001]);
        let sampling = session.received(
            r#"{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}}"#,
        );
        assert_eq!(requirements(&sampling), [cite::SAMP_001]);
        assert_eq!(sampling[0].level, Level::Must);
    }

    #[test]
    fn features_are_served_only_when_declared() {
        let mut session = Session::handshake("2025-11-25", r#"{"tools":{}}"#);
        session.sent(r#"{"jsonrpc":"2.0","id":7,"method":"prompts/list"}"#);
        let empty = session.received(r#"{"jsonrpc":"2.0","id":7,"result":{"prompts":[]}}"#);
        assert!(requirements(&empty).is_empty(), "an empty list offers nothing");
        session.sent(r#"{"jsonrpc":"2.0","id":8,"method":"prompts/list"}"#);
        let served = session.received(r#"{"jsonrpc":"2.0","id":8,"result":{"prompts":[{"name":"p"}]}}"#);
        assert_eq!(requirements(&served), [cite::PROM_001]);
        session.sent(r#"{"jsonrpc":"2.0","id":9,"method":"tools/list"}"#);
        let declared = session.received(r#"{"jsonrpc":"2.0","id":9,"result":{"tools":[]}}"#);
        assert!(requirements(&declared).is_empty());
    }

    #[test]
    fn a_client_serves_only_what_it_declared() {
        let mut server = FrameChecker::new(PeerRole::Server);
        let mut frame = |direction, text: &str| {
            let frame = Frame::new(direction, text.as_bytes().to_vec(), Duration::ZERO);
            requirements(&server.check(&frame))
        };
        let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
        assert_eq!(frame(Direction::Received, init), Vec::<&str>::new());
        frame(
            Direction::Sent,
            r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#,
        );
        frame(
            Direction::Received,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        );
        let asked = [
            (
                1,
                r#""sampling/createMessage","params":{"messages":[],"maxTokens":1}"#,
            ),
            (
                2,
                r#""elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}"#,
            ),
            (
                3,
                r#""elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}"#,
            ),
            (4, r#""roots/list""#),
            (5, r#""roots/list""#),
        ];
        for (id, rest) in asked {
            frame(
                Direction::Sent,
                &format!(r#"{{"jsonrpc":"2.0","id":{id},"method":{rest}}}"#),
            );
        }
        let answers = [
            (
                1,
                r#"{"role":"assistant","content":{"type":"text","text":"t"},"model":"m"}"#,
                vec![cite::SAMP_001],
            ),
            (2, r#"{"action":"accept","content":{}}"#, vec![cite::ELIC_001]),
            (3, r#"{"action":"cancel"}"#, vec![]),
            (4, r#"{"roots":[{"uri":"file:///x"}]}"#, vec![cite::ROOT_001]),
            (5, r#"{"roots":[]}"#, vec![]),
        ];
        for (id, result, expected) in answers {
            let answer = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#);
            assert_eq!(frame(Direction::Received, &answer), expected, "answer {id}");
        }
    }

    #[test]
    fn members_with_capabilities_of_their_own() {
        let mut session = Session::new();
        let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{},"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}"#;
        assert_eq!(session.sent(init), []);
        assert_eq!(
            session.sent(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            []
        );
        let sampling = r#"{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1,"tools":[],"includeContext":"thisServer"}}"#;
        let found = session.received(sampling);
        assert_eq!(requirements(&found), [cite::SAMP_007, cite::SAMP_006]);
        assert_eq!(found[0].pointer.as_deref(), Some("/params/tools"));
        assert_eq!(found[1].level, Level::Should);
        let url = r#"{"jsonrpc":"2.0","id":2,"method":"elicitation/create","params":{"mode":"url","message":"m","url":"https://x","elicitationId":"e"}}"#;
        assert_eq!(requirements(&session.received(url)), [cite::ELIC_002]);
        let form = r#"{"jsonrpc":"2.0","id":3,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}"#;
        assert_eq!(session.received(form), []);
    }

    #[test]
    fn batches_exist_only_in_2025_03_26() {
        let mut session = Session::handshake("2025-03-26", "{}");
        let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/progress","params":{}}]"#;
        let found = session.sent(batch);
        assert_eq!(requirements(&found), [cite::SCHEMA_001, cite::SCHEMA_001]);
        assert!(found[0].pointer.as_deref().unwrap().starts_with("/1/params"));
        let mut later = Session::handshake("2025-06-18", "{}");
        assert_eq!(
            requirements(&later.sent(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#)),
            [cite::RPC_001]
        );
        let mut early = Session::new();
        early.0.set_version(V2025_03_26);
        let init = r#"[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}]"#;
        assert_eq!(requirements(&early.sent(init)), [cite::RPC_014]);
    }

    #[test]
    fn before_initialize_only_lifecycle_is_checked() {
        let mut session = Session::new();
        assert_eq!(
            session.received(r#"{"jsonrpc":"2.0","method":"notifications/message","params":{}}"#),
            []
        );
        let init = session.sent(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05"}}"#,
        );
        assert_eq!(requirements(&init), [cite::LIFE_002, cite::LIFE_002]);
        assert_eq!(session.0.version(), Some(V2024_11_05));
        let cancel = session
            .received(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#);
        assert_eq!(requirements(&cancel), [cite::CANC_001]);
    }

    #[test]
    fn messages_are_checked_alone() {
        let result = serde_json::json!({"jsonrpc": "2.0", "id": 4, "result": {"roots": [{"uri": 1}]}});
        let found = check_message(V2024_11_05, PeerRole::Client, &result, Some("roots/list"));
        assert_eq!(requirements(&found), [cite::ROOT_002]);
        let stray = check_message(V2024_11_05, PeerRole::Client, &result, None);
        assert_eq!(requirements(&stray), [cite::RPC_004]);
        let ping = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
        assert_eq!(check_message(V2025_11_25, PeerRole::Server, &ping, None), []);
    }

    #[test]
    fn text_that_is_not_a_message_breaks_the_stdio_rules() {
        let mut checker = FrameChecker::new(PeerRole::Client).on_stdio();
        let banner = Frame::new(Direction::Received, b"server ready".to_vec(), Duration::ZERO);
        assert_eq!(requirements(&checker.check(&banner)), [cite::STDIO_002]);
        let envelope = Frame::new(
            Direction::Received,
            br#"{"jsonrpc":"1.0"}"#.to_vec(),
            Duration::ZERO,
        );
        assert_eq!(requirements(&checker.check(&envelope)), [cite::RPC_001]);
        let latin1 = Frame::new(Direction::Received, b"\"caf\xe9\"".to_vec(), Duration::ZERO);
        assert_eq!(requirements(&checker.check(&latin1)), [cite::STDIO_001]);
        checker.set_version(ProtocolVersion::V2025_06_18);
        let batch = Frame::new(
            Direction::Received,
            br#"[{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":1}}]"#
                .to_vec(),
            Duration::ZERO,
        );
        assert_eq!(requirements(&checker.check(&batch)), [cite::STDIO_006]);
    }

    /// The per-request `_meta` of a 2026-07-28 client.
    const META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}"#;

    fn stateless_request(id: u32, method: &str) -> String {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{"_meta":{META}}}}}"#)
    }

    #[test]
    fn a_stateless_conversation_is_recognised_by_its_first_request() {
        let mut session = Session::new();
        assert_eq!(session.sent(&stateless_request(1, "tools/list")), []);
        assert_eq!(session.0.version(), Some(V2026_07_28));
        let bare = session.received(r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#);
        assert_eq!(
            requirements(&bare),
            [cite::RPC_015, cite::CACHE_001, cite::CACHE_001, cite::MODN_003]
        );
        assert_eq!(bare[3].level, Level::Should);
        // An answered id may come back; one still in flight may not.
        assert_eq!(session.sent(&stateless_request(1, "tools/list")), []);
        assert_eq!(
            requirements(&session.sent(&stateless_request(1, "tools/list"))),
            [cite::RPC_003]
        );
    }

    #[test]
    fn discovery_tells_what_the_server_declared() {
        let mut session = Session::new();
        assert_eq!(session.sent(&stateless_request(1, "server/discover")), []);
        let discovered = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"prompts":{}},"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}}"#;
        assert_eq!(session.received(discovered), []);
        assert_eq!(session.sent(&stateless_request(2, "tools/list")), []);
        let tools = r#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","tools":[{"name":"t","inputSchema":{"type":"object"}}],"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}}"#;
        assert_eq!(requirements(&session.received(tools)), [cite::TOOL_001]);
    }

    #[test]
    fn a_dual_era_client_may_fall_back_to_initialize() {
        let mut server = Session(FrameChecker::new(PeerRole::Server));
        assert_eq!(server.received(&stateless_request(1, "server/discover")), []);
        assert_eq!(server.0.version(), Some(V2026_07_28));
        let unknown = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}"#;
        assert_eq!(server.sent(unknown), []);
        let init = r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
        assert_eq!(server.received(init), [], "falling back is no violation");
        let result = r#"{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#;
        assert_eq!(server.sent(result), []);
        assert_eq!(server.0.version(), Some(V2025_11_25));
        assert_eq!(server.received(r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#), []);
    }

    #[test]
    fn a_dual_era_client_may_probe_a_legacy_server_before_initialize() {
        let mut server = Session(FrameChecker::new(PeerRole::Server));
        server.0.set_version(V2025_11_25);
        assert_eq!(server.received(&stateless_request(1, "server/discover")), []);
        let init = r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
        assert_eq!(server.received(init), []);
        let late = server.received(&stateless_request(3, "server/discover"));
        assert_eq!(requirements(&late), [cite::LIFE_011], "no probe once initialized");
        let other = server.received(&stateless_request(4, "mcp-conform/unknown"));
        assert!(!other.is_empty(), "only the probe is excused");
    }

    #[test]
    fn stateless_servers_send_no_requests_and_clients_no_responses() {
        let mut client = Session::new();
        client.0.set_version(V2026_07_28);
        let roots = r#"{"jsonrpc":"2.0","id":9,"method":"roots/list"}"#;
        assert_eq!(requirements(&client.received(roots)), [cite::RPC_017]);
        let mut server = Session(FrameChecker::new(PeerRole::Server).on_stdio());
        server.0.set_version(V2026_07_28);
        let answer = r#"{"jsonrpc":"2.0","id":9,"result":{"roots":[]}}"#;
        assert_eq!(
            requirements(&server.received(answer)),
            [cite::RPC_017, cite::STDIO_007, cite::RPC_004]
        );
        let removed = server.received(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        assert_eq!(requirements(&removed), [cite::SCHEMA_001]);
        assert!(removed[0].message.contains("only in 2024-11-05…2025-11-25"));
    }

    #[test]
    fn checker_is_send() {
        fn assert_send<T: Send>() {}
        assert_send::<FrameChecker>();
    }
}
