//! The runnable form of a scenario: validated, defaults applied, matchers
//! compiled, replies built. The runner consumes only these types; every item
//! keeps the [`Span`] of the YAML it came from, for located verdicts.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use serde_json::Value;
use serde_json_path::JsonPath;

pub use super::file::IssuerMetadata;
pub use super::file::{
    Handshake, IssParameter, MetadataMismatch, MetadataPlacement, Order, PreRegistration,
    RegistrationRefusal, Role, StateParameter, TransportName,
};
use crate::Level;
use crate::matcher::Matcher;
use crate::span::{SourceFile, Span};
use crate::version::VersionSet;

mod auth;
mod gateway;
mod http;
mod task;

pub use auth::{AuthLayout, ClientAuth, StepUp};
pub use gateway::{Backend, BackendAction, BackendStep};
pub use http::{HttpBody, HttpCheck, HttpExchangeStep, SessionChoice};
pub use task::TaskStep;

/// A validated scenario.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub id: String,
    pub title: String,
    pub description: Option<String>,
    /// The file it came from, for diagnostics and snapshot headers.
    pub source: SourceFile,
    /// Where the scenario's `id` is written.
    pub span: Span,
    pub requirements: Vec<String>,
    /// Every requirement ID it checks: `requirements` and each expectation's
    /// own `requirement` (never an ID merely mentioned in prose).
    pub cited: BTreeSet<String>,
    pub versions: VersionSet,
    pub role: Role,
    pub requires: Preconditions,
    pub client: ClientModel,
    /// `role: client`: how the mock server presents itself.
    pub server: ServerModel,
    /// `role: client`: what the client under test is asked to do.
    pub plan: Option<Value>,
    /// `role: client`: the mock server is OAuth-protected, so.
    pub auth: Option<ClientAuth>,
    /// `role: gateway`: the mock servers behind the gateway, in name order.
    pub backends: Vec<Backend>,
    pub handshake: Handshake,
    pub answers: Vec<ScriptedAnswer>,
    pub timeout: Duration,
    pub steps: Vec<Step>,
}

/// What the peer must offer for the scenario to apply.
#[derive(Debug, Clone, Default)]
pub struct Preconditions {
    /// Dotted capability paths that must be declared.
    pub capabilities: Vec<String>,
    /// Dotted capability paths that must not be declared.
    pub absent_capabilities: Vec<String>,
    /// Dotted capability paths of which at least one must be declared.
    pub any_capabilities: Vec<String>,
    /// Profile triggers used.
    pub triggers: Vec<String>,
    /// The transport needed, if any.
    pub transport: Option<TransportName>,
    /// HTTP: the server must have issued a session id.
    pub session: bool,
    /// HTTP: the server must be OAuth-protected, the harness its issuer.
    pub protected: bool,
    /// `role: gateway`: client capabilities the gateway must declare to the
    /// backend a backend request goes to.
    pub client_capabilities: Vec<String>,
}

/// How the mock client presents itself.
#[derive(Debug, Clone)]
pub struct ClientModel {
    pub capabilities: Value,
    /// `None`: the engine's default clientInfo.
    pub info: Option<Value>,
    /// Verbatim version to offer; `None`: the run's version.
    pub protocol_version: Option<String>,
}

/// How the mock server presents itself.
#[derive(Debug, Clone)]
pub struct ServerModel {
    pub capabilities: Value,
    /// `None`: the engine's default serverInfo.
    pub info: Option<Value>,
    /// Verbatim version to answer; `None`: negotiated.
    pub protocol_version: Option<String>,
    pub instructions: Option<String>,
    /// From 2026-07-28: input-required results carry a `requestState`.
    pub request_state: bool,
}

/// Level and requirement of one expectation, and where it is written.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckTag {
    pub level: Level,
    pub requirement: String,
    pub span: Span,
}

/// One step with its location.
#[derive(Debug, Clone)]
pub struct Step {
    pub kind: StepKind,
    pub span: Span,
}

/// What a step does.
#[derive(Debug, Clone)]
pub enum StepKind {
    Request(Box<RequestStep>),
    Notify {
        method: String,
        params: Option<Value>,
    },
    SendRaw {
        text: String,
        expect: Option<ResponseCheck>,
        timeout: Duration,
    },
    ExpectNotifications {
        patterns: Vec<NotificationPattern>,
        order: Order,
        /// Count from when the request of this name was sent.
        since: Option<String>,
        within: Duration,
        tag: CheckTag,
    },
    ExpectSilence {
        within: Duration,
        forbid: Vec<String>,
        tag: CheckTag,
    },
    ExpectRequest {
        method: String,
        params: Option<Matcher>,
        within: Duration,
        /// Holds the request as `${name}`, for `respond`.
        name: Option<String>,
        /// A precondition: unmet, the rest is not-observed.
        require: bool,
        /// A peer that leaves before sending it breaks the check (else the
        /// rest is not-observed).
        leaving_fails: bool,
        tag: CheckTag,
    },
    Await {
        request: String,
        expect: Option<ResponseCheck>,
        /// `expect` (or the request's) is a precondition.
        require: bool,
        capture: Vec<Capture>,
        timeout: Duration,
    },
    /// Answers the request held by the named `expect_request`.
    Respond {
        to: String,
        reply: Reply,
    },
    Paginate(PaginateStep),
    ForEach {
        list: String,
        binding: String,
        limit: Option<u32>,
        steps: Vec<Step>,
    },
    Set(BTreeMap<String, Value>),
    Sleep(Duration),
    Close {
        expect_exit_within: Option<Duration>,
        tag: CheckTag,
    },
    Http(HttpExchangeStep),
    /// Cancel the pending request named `request`.
    Cancel {
        request: String,
        reason: Option<String>,
    },
    Subscribe(SubscribeStep),
    Unsubscribe {
        name: String,
        tag: CheckTag,
    },
    Alive {
        timeout: Duration,
        tag: CheckTag,
    },
    ExpectSubscriptionEnd {
        name: String,
        within: Duration,
        tag: CheckTag,
    },
    ExpectValue {
        name: String,
        /// A template.
        value: Value,
        matcher: Matcher,
        tag: CheckTag,
    },
    /// A request run as a task, followed to its end.
    Task(Box<TaskStep>),
    /// `role: gateway`: a step on a backend's side.
    Backend(BackendStep),
}

/// Change notifications to ask for.
#[derive(Debug, Clone)]
pub struct SubscribeStep {
    pub name: String,
    /// The listen filter (a template).
    pub notifications: Value,
    pub timeout: Duration,
    /// The acknowledgement of the whole filter is a precondition.
    pub require: bool,
    pub tag: CheckTag,
}

/// A request to send. `params` is a template (`${var}` substituted at run time).
#[derive(Debug, Clone)]
pub struct RequestStep {
    pub method: String,
    pub params: Option<Value>,
    pub id: Option<Value>,
    pub progress: bool,
    pub name: Option<String>,
    pub wait: bool,
    pub answers: Vec<ScriptedAnswer>,
    pub expect: Option<ResponseCheck>,
    /// `expect` is a precondition: unmet, the rest is not-observed.
    pub require: bool,
    pub tamper_request_state: bool,
    pub capture: Vec<Capture>,
    pub timeout: Duration,
    /// `timeout` is the file's `timeout_ms`, kept as it is; otherwise it is
    /// the default, which the runner may fit to the peer's latency.
    pub declared_timeout: bool,
}

/// A JSONPath capture into a variable.
#[derive(Debug, Clone)]
pub struct Capture {
    pub var: String,
    pub path: JsonPath,
    pub span: Span,
}

/// What a response must look like.
#[derive(Debug, Clone)]
pub struct ResponseCheck {
    pub expect: ResponseExpect,
    pub tag: CheckTag,
    pub span: Span,
}

/// The accepted responses.
#[derive(Debug, Clone)]
pub enum ResponseExpect {
    /// Any response.
    Any,
    /// A result matching.
    Result(Matcher),
    /// An error whose `error` object matches.
    Error(Matcher),
    /// At least one alternative holds.
    AnyOf(Vec<ResponseCheck>),
    /// No response may arrive within the budget.
    NoResponse,
}

impl ResponseExpect {
    /// Whether no response at all meets it (`none`, or an `any_of` offering it).
    pub fn admits_silence(&self) -> bool {
        match self {
            ResponseExpect::NoResponse => true,
            ResponseExpect::AnyOf(alternatives) => alternatives.iter().any(|a| a.expect.admits_silence()),
            _ => false,
        }
    }
}

/// A notification to look for.
#[derive(Debug, Clone)]
pub struct NotificationPattern {
    pub method: String,
    pub params: Option<Matcher>,
    pub min: u32,
    pub max: Option<u32>,
    pub capture: Vec<Capture>,
    pub span: Span,
}

/// A pagination walk.
#[derive(Debug, Clone)]
pub struct PaginateStep {
    pub method: String,
    pub params: Option<Value>,
    pub items: String,
    /// JSON Pointer into an item.
    pub key: Option<String>,
    pub max_pages: u32,
    pub expect_page: Option<Matcher>,
    pub expect_item: Option<Matcher>,
    /// Over all items, after the walk.
    pub expect_items: Option<Matcher>,
    pub capture: Option<String>,
    pub timeout: Duration,
    pub tag: CheckTag,
}

/// Which kind of peer request an answer serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnswerKind {
    Elicitation,
    Sampling,
    Roots,
    Other,
}

/// A scripted answer to a request the peer sends.
#[derive(Debug, Clone)]
pub struct ScriptedAnswer {
    pub kind: AnswerKind,
    /// The JSON-RPC method it answers (`elicitation/create`, ...).
    pub method: String,
    /// Serves only requests whose params (`{}` when absent) match.
    pub when: Option<Matcher>,
    pub expect: Option<AskedFor>,
    pub reply: Reply,
    pub span: Span,
}

/// Expectations on the peer's request.
#[derive(Debug, Clone)]
pub struct AskedFor {
    pub params: Option<Matcher>,
    pub required: bool,
    /// The peer must not ask: a check that fails when it does.
    pub forbidden: bool,
    pub tag: CheckTag,
}

/// What we send back. `Result` values are templates.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    Result(Value),
    Error {
        code: i64,
        message: String,
        data: Option<Value>,
    },
    NoReply,
    /// Backends only: no answer until a `reply` step gives one.
    Hold,
}
