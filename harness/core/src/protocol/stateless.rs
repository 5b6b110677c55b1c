//! The rules of a stateless (2026-07-28+) conversation that need earlier
//! frames: what each client request declared (its capabilities and log
//! level), the listen streams open, the input rounds awaiting a retry and
//! the pages of list walks.
//!
//! Rules that need to know more than the frames show (that a server ignores
//! earlier requests, MODN-004; that lists do not depend on the connection,
//! LIST-004; that a server copes with declined elicitations, ELIC-016) are
//! left to the runner.

use std::collections::HashMap;

use serde_json::Value;

use super::content::is_extension_id;
use super::meta_key::{
    CLIENT_CAPABILITIES, CLIENT_INFO, LOG_LEVEL, PROTOCOL_VERSION, SERVER_INFO, SUBSCRIPTION_ID,
};
use super::model::subscriptions::{FILTER_MEMBERS, RESOURCE_SUBSCRIPTIONS, RESOURCE_UPDATED, TASK_IDS};
use super::model::{
    LOG_LEVELS, MethodKind, capability_declared, input_requests, is_input_required, member_gates, method_in,
};
use super::violation::Violation;
use crate::Level;
use crate::json::pointer_member;
use crate::protocol::cite;
use crate::version::ProtocolVersion;
use crate::wire::RequestId;

const LISTEN: &str = "subscriptions/listen";
const ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
const LOG_MESSAGE: &str = "notifications/message";
const PROGRESS: &str = "notifications/progress";
const CANCELLED: &str = "notifications/cancelled";
const TASK_STATUS: &str = "notifications/tasks";

/// Methods 2026-07-28 removed; a modern server answers them -32601 (PING-002).
pub const REMOVED_METHODS: [&str; 4] = [
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
];

/// A client request waiting for its answer, as far as later rules need it.
#[derive(Debug)]
pub(super) struct ClientRequest {
    pub method: String,
    pub protocol_version: Option<String>,
    capabilities: Option<Value>,
    /// The severity index of the `logLevel` the request set.
    log_level: Option<usize>,
    /// Its `name` or `uri`, which a retry repeats.
    target: Option<Value>,
    /// The `cacheScope` of the page whose `nextCursor` this request sent.
    expected_scope: Option<String>,
    /// A listen request answered while its stream was not acknowledged.
    unacknowledged_stream: bool,
}

/// An open listen stream.
#[derive(Debug)]
struct Subscription {
    filter: Value,
    acknowledged: bool,
    /// The tasks the acknowledgement agreed to send `notifications/tasks` for.
    agreed_tasks: Vec<String>,
}

impl Subscription {
    /// Whether the stream follows tasks: its filter lists `taskIds`.
    fn follows_tasks(&self) -> bool {
        !strings(&self.filter, TASK_IDS).is_empty()
    }
}

/// An `InputRequiredResult` the client has not retried yet.
#[derive(Debug)]
struct InputRound {
    method: String,
    target: Option<Value>,
    id: RequestId,
    /// The key and method of each input request.
    requests: Vec<(String, Option<String>)>,
    state: Option<String>,
}

/// Clients name themselves in every request's `_meta` (MODN-003, SHOULD).
pub(super) fn check_client_info(params: Option<&Value>, out: &mut Vec<Violation>) {
    let meta = params.and_then(|p| p.get("_meta"));
    if meta.is_some_and(|m| m.get(CLIENT_INFO).is_none()) {
        let message = "the request's `_meta` has no `io.modelcontextprotocol/clientInfo`";
        out.push(Violation::new(cite::MODN_003, Level::Should, message).at("/params/_meta"));
    }
}

/// Extension identifiers under `capabilities.extensions` are `_meta` keys
/// with their prefix (MODN-012).
pub(super) fn check_extension_ids(capabilities: Option<&Value>, pointer: &str, out: &mut Vec<Violation>) {
    let extensions = capabilities
        .and_then(|c| c.get("extensions"))
        .and_then(Value::as_object);
    for id in extensions.into_iter().flatten().map(|(id, _)| id) {
        if !is_extension_id(id) {
            let message = format!("extension identifier {id:?} is not a prefixed `_meta`-style key");
            out.push(Violation::must(cite::MODN_012, message).at(format!("{pointer}/extensions")));
        }
    }
}

/// Whether `method` travels only on listen streams.
fn is_stream_only(method: &str) -> bool {
    method == ACKNOWLEDGED || method == RESOURCE_UPDATED || FILTER_MEMBERS.iter().any(|(_, m)| *m == method)
}

/// A notification that travels only on listen streams names its stream
/// (SUBS-001 for the acknowledgement, SUBS-003 for the others).
pub(super) fn check_stream_tag(method: &str, params: Option<&Value>, out: &mut Vec<Violation>) {
    let tagged = params
        .and_then(|p| p.get("_meta"))
        .is_some_and(|m| m.get(SUBSCRIPTION_ID).is_some());
    if is_stream_only(method) && !tagged {
        let requirement = if method == ACKNOWLEDGED {
            cite::SUBS_001
        } else {
            cite::SUBS_003
        };
        let message = format!("`{method}` without `_meta.io.modelcontextprotocol/subscriptionId`");
        out.push(Violation::must(requirement, message).at("/params"));
    }
}

impl ClientRequest {
    /// The `clientCapabilities` the request declared.
    pub fn capabilities(&self) -> Option<&Value> {
        self.capabilities.as_ref()
    }
}

/// Bookkeeping of one stateless conversation.
#[derive(Debug, Default)]
pub(super) struct Conversation {
    in_flight: HashMap<RequestId, ClientRequest>,
    subscriptions: HashMap<RequestId, Subscription>,
    rounds: Vec<InputRound>,
    /// The `cacheScope` of the page that handed out each `(method, cursor)`.
    walks: HashMap<(String, String), String>,
}

impl Conversation {
    /// Notes a client request, and judges it as a retry (MRTR-006).
    pub fn client_request(
        &mut self,
        id: &RequestId,
        method: &str,
        params: Option<&Value>,
        version: ProtocolVersion,
        out: &mut Vec<Violation>,
    ) {
        let meta = params.and_then(|p| p.get("_meta"));
        let target = params
            .and_then(|p| p.get("name").or_else(|| p.get("uri")))
            .cloned();
        if params.is_some_and(|p| p.get("inputResponses").is_some() || p.get("requestState").is_some()) {
            self.check_retry(id, method, target.as_ref(), params, version, out);
        }
        if method == LISTEN {
            let filter = params.and_then(|p| p.get("notifications")).cloned();
            self.subscriptions.insert(
                id.clone(),
                Subscription {
                    filter: filter.unwrap_or(Value::Null),
                    acknowledged: false,
                    agreed_tasks: Vec::new(),
                },
            );
        }
        let cursor = params.and_then(|p| p.get("cursor")).and_then(Value::as_str);
        let expected_scope = cursor.and_then(|c| self.walks.get(&(method.to_owned(), c.to_owned())).cloned());
        let text = |key: &str| meta.and_then(|m| m.get(key));
        self.in_flight.insert(
            id.clone(),
            ClientRequest {
                method: method.to_owned(),
                protocol_version: text(PROTOCOL_VERSION).and_then(Value::as_str).map(str::to_owned),
                capabilities: text(CLIENT_CAPABILITIES).cloned(),
                log_level: text(LOG_LEVEL)
                    .and_then(Value::as_str)
                    .and_then(|l| LOG_LEVELS.iter().position(|x| *x == l)),
                target,
                expected_scope,
                unacknowledged_stream: false,
            },
        );
    }

    /// A retry carries a new id, the exact state it was given, and an
    /// answer of the right kind to every input request (MRTR-006). A retry
    /// of a round this conversation did not see (one begun on another
    /// connection) is not judged.
    fn check_retry(
        &mut self,
        id: &RequestId,
        method: &str,
        target: Option<&Value>,
        params: Option<&Value>,
        version: ProtocolVersion,
        out: &mut Vec<Violation>,
    ) {
        let Some(index) = self
            .rounds
            .iter()
            .rposition(|r| r.method == method && r.target.as_ref() == target)
        else {
            return;
        };
        let round = self.rounds.remove(index);
        let mut broken =
            |message: String, pointer: &str| out.push(Violation::must(cite::MRTR_006, message).at(pointer));
        if round.id == *id {
            broken(
                format!("the retry reuses id {id} of the request it retries"),
                "/id",
            );
        }
        let state = params.and_then(|p| p.get("requestState"));
        match (&round.state, state) {
            (Some(given), Some(sent)) if sent.as_str() != Some(given) => broken(
                "`requestState` was not echoed unchanged".to_owned(),
                "/params/requestState",
            ),
            (Some(_), None) => broken(
                "the retry leaves out the `requestState` it was given".to_owned(),
                "/params",
            ),
            (None, Some(_)) => broken(
                "the retry sends a `requestState` although none was given".to_owned(),
                "/params/requestState",
            ),
            _ => {}
        }
        let responses = params.and_then(|p| p.get("inputResponses"));
        for (key, request) in &round.requests {
            let Some(response) = responses.and_then(|r| r.get(key.as_str())) else {
                broken(
                    format!("the retry has no input response for `{key}`"),
                    "/params/inputResponses",
                );
                continue;
            };
            let at = pointer_member("/params/inputResponses", key);
            let shape = request
                .as_deref()
                .and_then(|m| method_in(m, version))
                .and_then(|spec| spec.result);
            if let Some(wrong) = shape.and_then(|s| s.check(response, version, &at).into_iter().next()) {
                let method = request.as_deref().unwrap_or_default();
                let message = format!(
                    "the input response for `{key}` does not answer its {method} request: {}",
                    wrong.message
                );
                broken(message, &at);
            }
        }
    }

    /// Judges a notification from the server: listen-stream notifications
    /// come after their acknowledgement, on a stream that asked for them
    /// (SUBS-001, SUBS-003, LIST-003, RES-008), and task states only for
    /// tasks it agreed to (TASKX-033); log messages answer a request that
    /// set a log level, at or above it (LOG-006); neither they nor progress
    /// go on a listen stream (PROG-006, LOG-006; TASKX-034 on one that
    /// follows tasks).
    pub fn server_notification(&mut self, method: &str, params: Option<&Value>, out: &mut Vec<Violation>) {
        let subscription_id = params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(SUBSCRIPTION_ID));
        let follows_tasks = subscription_id
            .and_then(RequestId::from_value)
            .and_then(|id| self.subscriptions.get(&id))
            .is_some_and(Subscription::follows_tasks);
        match method {
            LOG_MESSAGE | PROGRESS if follows_tasks => {
                let message = format!("`{method}` on a listen stream that follows tasks");
                return out.push(Violation::must(cite::TASKX_034, message).at("/params/_meta"));
            }
            LOG_MESSAGE => return self.check_log(params, subscription_id.is_some(), out),
            PROGRESS if subscription_id.is_some() => {
                let message = "progress on a listen stream; it belongs to its request's response stream";
                return out.push(Violation::must(cite::PROG_006, message).at("/params/_meta"));
            }
            CANCELLED => return self.check_cancelled(params, out),
            _ => {}
        }
        let Some(raw) = subscription_id.filter(|_| is_stream_only(method) || method == TASK_STATUS) else {
            return;
        };
        let at = "/params/_meta/io.modelcontextprotocol~1subscriptionId";
        let subscription = RequestId::from_value(raw).and_then(|id| self.subscriptions.get_mut(&id));
        let Some(subscription) = subscription else {
            let message = format!("subscriptionId {raw} names no open subscriptions/listen request");
            return out.push(Violation::must(cite::SUBS_003, message).at(at));
        };
        if method == ACKNOWLEDGED {
            subscription.acknowledged = true;
            let agreed = params.and_then(|p| p.get("notifications"));
            subscription.agreed_tasks = agreed
                .map(|a| strings(a, TASK_IDS).into_iter().map(str::to_owned).collect())
                .unwrap_or_default();
            return check_acknowledged(&subscription.filter, params, out);
        }
        if !subscription.acknowledged {
            let message = format!("`{method}` on subscription {raw} before its acknowledgement");
            out.push(Violation::must(cite::SUBS_001, message).at("/method"));
        }
        if method == TASK_STATUS {
            return check_agreed_task(&subscription.agreed_tasks, params, out);
        }
        check_filter(&subscription.filter, method, params, out);
    }

    /// A server cancels only listen streams, which then end (CANC-006).
    fn check_cancelled(&mut self, params: Option<&Value>, out: &mut Vec<Violation>) {
        let Some(raw) = params.and_then(|p| p.get("requestId")) else {
            return;
        };
        let closed = RequestId::from_value(raw).and_then(|id| self.subscriptions.remove(&id));
        if closed.is_none() {
            let message =
                format!("the server cancelled {raw}, which is no open subscriptions/listen request");
            out.push(Violation::must(cite::CANC_006, message).at("/params/requestId"));
        }
    }

    fn check_log(&self, params: Option<&Value>, on_stream: bool, out: &mut Vec<Violation>) {
        if on_stream {
            let message = "a log message on a listen stream; logs belong to the request that asked for them";
            return out.push(Violation::must(cite::LOG_006, message).at("/params/_meta"));
        }
        let asked = self.in_flight.values().filter_map(|r| r.log_level).min();
        let level = params.and_then(|p| p.get("level")).and_then(Value::as_str);
        let Some(threshold) = asked else {
            let message = "a log message while no request in flight set `io.modelcontextprotocol/logLevel`";
            return out.push(Violation::must(cite::LOG_006, message).at("/method"));
        };
        if let Some(index) = level.and_then(|l| LOG_LEVELS.iter().position(|x| *x == l))
            && index < threshold
        {
            let message = format!(
                "a `{}` log message, below `{}`, the lowest level a request in flight asked for",
                LOG_LEVELS[index], LOG_LEVELS[threshold]
            );
            out.push(Violation::must(cite::LOG_006, message).at("/params/level"));
        }
    }

    /// Ends the request `id` answers and returns what it declared.
    pub fn answered(&mut self, id: &RequestId) -> Option<ClientRequest> {
        let stream = self.subscriptions.remove(id);
        let mut request = self.in_flight.remove(id)?;
        request.unacknowledged_stream = stream.is_some_and(|s| !s.acknowledged);
        Some(request)
    }

    /// Judges a result from the server for `request` (MODN-003, MRTR-004,
    /// CACHE-002, SUBS-003, PING-002) and keeps what later frames need.
    pub fn server_result(
        &mut self,
        id: &RequestId,
        request: &ClientRequest,
        result: &Value,
        version: ProtocolVersion,
        out: &mut Vec<Violation>,
    ) {
        if REMOVED_METHODS.contains(&request.method.as_str()) {
            let message = format!(
                "`{}` does not exist in {version}, yet it was answered with a result",
                request.method
            );
            out.push(Violation::new(cite::PING_002, Level::Should, message).at("/result"));
            return;
        }
        let meta = result.get("_meta");
        if meta.and_then(|m| m.get(SERVER_INFO)).is_none() {
            let message = "the result's `_meta` has no `io.modelcontextprotocol/serverInfo`";
            out.push(Violation::new(cite::MODN_003, Level::Should, message).at("/result"));
        }
        if request.unacknowledged_stream {
            let message = format!("listen request {id} was answered before its acknowledgement");
            out.push(Violation::must(cite::SUBS_001, message).at("/result"));
        }
        if request.method == LISTEN
            && let Some(echoed) = meta.and_then(|m| m.get(SUBSCRIPTION_ID))
            && RequestId::from_value(echoed).as_ref() != Some(id)
        {
            let message = format!("the listen result names subscription {echoed}, not {id}");
            out.push(Violation::must(cite::SUBS_003, message).at("/result/_meta"));
        }
        if is_input_required(result) {
            self.note_round(id, request, result, version, out);
            return;
        }
        self.check_scope(request, result, out);
    }

    fn note_round(
        &mut self,
        id: &RequestId,
        request: &ClientRequest,
        result: &Value,
        version: ProtocolVersion,
        out: &mut Vec<Violation>,
    ) {
        if let Some(declared) = &request.capabilities {
            check_declared(result, declared, version, out);
        }
        self.rounds.push(InputRound {
            method: request.method.clone(),
            target: request.target.clone(),
            id: id.clone(),
            requests: input_requests(result)
                .map(|(key, method, _)| (key.to_owned(), method.map(str::to_owned)))
                .collect(),
            state: result
                .get("requestState")
                .and_then(Value::as_str)
                .map(str::to_owned),
        });
    }

    /// Every page of one list walk has the same `cacheScope` (CACHE-002).
    fn check_scope(&mut self, request: &ClientRequest, result: &Value, out: &mut Vec<Violation>) {
        let Some(scope) = result.get("cacheScope").and_then(Value::as_str) else {
            return;
        };
        if let Some(expected) = &request.expected_scope
            && expected != scope
        {
            let message = format!(
                "this page of `{}` is `{scope}`, the page before was `{expected}`",
                request.method
            );
            out.push(Violation::must(cite::CACHE_002, message).at("/result/cacheScope"));
        }
        if let Some(next) = result.get("nextCursor").and_then(Value::as_str) {
            self.walks
                .insert((request.method.clone(), next.to_owned()), scope.to_owned());
        }
    }
}

/// Input requests ask only for what the request's `clientCapabilities`
/// declared: the method's capability and, for sampling tools and
/// elicitation modes, the member's (MRTR-004).
fn check_declared(result: &Value, declared: &Value, version: ProtocolVersion, out: &mut Vec<Violation>) {
    for (key, method, request) in input_requests(result) {
        let Some(spec) = method
            .and_then(|m| method_in(m, version))
            .filter(|s| s.kind == MethodKind::InputRequest)
        else {
            continue;
        };
        let params = request.get("params").unwrap_or(&Value::Null);
        let mut needed: Vec<&str> = spec.gate.iter().map(|g| g.path).collect();
        needed.extend(
            member_gates(spec.name)
                .filter(|g| g.applies_to(params))
                .map(|g| g.gate.path),
        );
        // Form mode needs `elicitation.form`, unless `elicitation` is bare
        // (`{}` means form only).
        let form = spec.name == "elicitation/create" && !params.get("mode").is_some_and(|m| m != "form");
        let url_only = declared
            .get("elicitation")
            .and_then(Value::as_object)
            .is_some_and(|e| e.contains_key("url") && !e.contains_key("form"));
        if form && url_only {
            needed.push("elicitation.form");
        }
        for path in needed {
            if !capability_declared(declared, path) {
                let message = format!(
                    "input request `{key}` needs the client capability `{path}`, which this request did not declare"
                );
                out.push(
                    Violation::must(cite::MRTR_004, message).at(pointer_member("/result/inputRequests", key)),
                );
            }
        }
    }
}

/// The acknowledged filter is the part of the requested one the server
/// honours: it adds nothing the client did not ask for (SUBS-002).
fn check_acknowledged(requested: &Value, params: Option<&Value>, out: &mut Vec<Violation>) {
    let Some(acknowledged) = params.and_then(|p| p.get("notifications")) else {
        return;
    };
    for (member, _) in FILTER_MEMBERS {
        if acknowledged.get(member) == Some(&Value::Bool(true))
            && requested.get(member) != Some(&Value::Bool(true))
        {
            let message =
                format!("the acknowledgement turns on `{member}`, which the listen request did not ask for");
            out.push(Violation::new(cite::SUBS_002, Level::Should, message).at("/params/notifications"));
        }
    }
    for member in [RESOURCE_SUBSCRIPTIONS, TASK_IDS] {
        let wanted = strings(requested, member);
        for item in strings(acknowledged, member)
            .into_iter()
            .filter(|i| !wanted.contains(i))
        {
            let message = format!(
                "the acknowledgement's `{member}` lists {item:?}, which the listen request did not list"
            );
            out.push(Violation::new(cite::SUBS_002, Level::Should, message).at("/params/notifications"));
        }
    }
}

/// A stream carries `notifications/tasks` for the tasks its
/// acknowledgement agreed to (TASKX-033, stated as fact: SHOULD).
fn check_agreed_task(agreed: &[String], params: Option<&Value>, out: &mut Vec<Violation>) {
    let task = params.and_then(|p| p.get("taskId")).and_then(Value::as_str);
    if let Some(task) = task.filter(|t| !agreed.iter().any(|a| a == t)) {
        let message =
            format!("notifications/tasks for task {task:?}, which the acknowledgement did not agree to");
        out.push(Violation::new(cite::TASKX_033, Level::Should, message).at("/params/taskId"));
    }
}

/// A listen stream carries only the notification types its filter asked
/// for (LIST-003), and resource updates only for listed URIs (RES-008).
fn check_filter(filter: &Value, method: &str, params: Option<&Value>, out: &mut Vec<Violation>) {
    if method == RESOURCE_UPDATED {
        let listed = uris(filter);
        if listed.is_empty() {
            let message = "a resource update on a stream that subscribed to no resource";
            return out.push(Violation::must(cite::LIST_003, message).at("/method"));
        }
        let uri = params.and_then(|p| p.get("uri")).and_then(Value::as_str);
        if let Some(uri) = uri.filter(|u| !listed.contains(u)) {
            let message =
                format!("an update for {uri:?}, which the stream's resourceSubscriptions do not list");
            out.push(Violation::must(cite::RES_008, message).at("/params/uri"));
        }
        return;
    }
    let member = FILTER_MEMBERS.iter().find(|(_, m)| *m == method).map(|(f, _)| *f);
    if let Some(member) = member
        && filter.get(member) != Some(&Value::Bool(true))
    {
        let message = format!("`{method}` on a stream whose filter did not set `{member}`");
        out.push(Violation::must(cite::LIST_003, message).at("/method"));
    }
}

fn uris(filter: &Value) -> Vec<&str> {
    strings(filter, RESOURCE_SUBSCRIPTIONS)
}

/// The strings a filter member lists.
fn strings<'a>(filter: &'a Value, member: &str) -> Vec<&'a str> {
    filter
        .get(member)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}
