//! The scenario file format, v1: exactly what a YAML file may say.
//!
//! These types are deserialized from YAML (every item keeps its [`Located`]
//! span) and are the source of the published JSON Schema
//! (`scenarios/scenario.schema.json`). They are validated into the runnable
//! [`super::model`] before anything runs. Steps and answers are externally
//! tagged enums (`- request: {...}`), never untagged or flattened, so that
//! spans survive and errors name the valid keys.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::span::Located;

mod auth;
mod gateway;
mod http;
mod task;

pub use auth::IssuerMetadata;
pub use auth::{
    AuthSetup, IssParameter, MetadataMismatch, MetadataPlacement, PreRegistration, RegistrationRefusal,
    StateParameter, SwitchSetup,
};
pub use gateway::{BackendSetup, ReplyStep, ScriptStep};
pub use http::{HttpExpectation, HttpStep, TransportName};
pub use task::TaskStep;

/// A JSON value written by the scenario author; on the expected side it is a
/// matcher (see the `matcher` module for operators such as `$type`).
pub type Json = Value;

/// One scenario file.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// Stable identifier, unique in the suite (kebab-case, may contain `/`).
    pub id: Located<String>,
    /// One line saying what the scenario checks.
    pub title: String,
    /// Longer explanation, shown by `mcp-conform explain`.
    #[serde(default)]
    pub description: Option<String>,
    /// Requirement IDs this scenario checks; expectations without their own
    /// `requirement` cite the first one. A bundled scenario cites the MCP
    /// spec catalogue (`mcp-conform list --requirements`). A scenario of your
    /// own may cite your catalogue's IDs (`requirements.yaml` beside it, or
    /// `--requirements FILE`), judged at the level the catalogue gives them,
    /// or leave this out: its expectations are then product checks, judged
    /// at MUST unless a step says `level:`.
    #[serde(default)]
    pub requirements: Option<Vec<Located<String>>>,
    /// Protocol versions the scenario applies to, in catalogue notation:
    /// `all`, `legacy`, `modern`, `2025-06-18+`, `2024-11-05..2025-03-26`, or a
    /// comma-separated list. Default: `legacy` (the stateful versions).
    #[serde(default)]
    pub versions: Option<Located<String>>,
    /// The side of the conversation under test. Default: `server`.
    #[serde(default)]
    pub role: Option<Located<Role>>,
    /// What the peer must offer for the scenario to apply. Anything missing
    /// makes the scenario not-applicable, never a failure.
    #[serde(default)]
    pub requires: Requires,
    /// How the mock client presents itself.
    #[serde(default)]
    pub client: ClientSetup,
    /// `role: client` only: how the mock server presents itself.
    #[serde(default)]
    pub server: Option<Located<ServerSetup>>,
    /// `role: client` only: what the client under test is asked to do, handed
    /// to it as JSON in the environment variable `MCP_CONFORM_PLAN` (fixture
    /// clients read it; see scenarios/README.md for the keys they know).
    #[serde(default)]
    pub plan: Option<Located<Json>>,
    /// `role: client` only, over HTTP, from 2025-06-18: the mock server is
    /// an OAuth protected resource with a scripted authorization server
    /// beside it (see scenarios/README.md).
    #[serde(default)]
    pub auth: Option<Located<AuthSetup>>,
    /// `role: gateway` only: the mock servers behind the gateway, by name
    /// (letters, digits, `-` and `_`). The front is the mock client.
    #[serde(default)]
    pub backends: BTreeMap<String, Located<BackendSetup>>,
    /// `auto` (default): the engine performs the handshake (initialize,
    /// notifications/initialized) before the steps. `manual`: the steps do it,
    /// to test the lifecycle itself.
    #[serde(default)]
    pub handshake: Handshake,
    /// Scripted answers to requests the peer sends at any time during the
    /// scenario. Step-level answers take precedence.
    #[serde(default)]
    pub answers: Vec<Located<Answer>>,
    /// Budget for the whole scenario in milliseconds (default 30000).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// What to do, in order.
    pub steps: Vec<Located<Step>>,
}

/// The side under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// The peer under test is a server; we play the client.
    Server,
    /// The peer under test is a client; we play the server.
    Client,
    /// The peer under test is a gateway: we play the client in front of it
    /// and every server (`backends`) behind it.
    Gateway,
}

/// Preconditions that gate a scenario.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Requires {
    /// Server capabilities that must be declared, as dotted paths
    /// (`tools`, `resources.subscribe`, `tools.listChanged`).
    #[serde(default)]
    pub capabilities: Vec<Located<String>>,
    /// Server capabilities that must NOT be declared (for "never sent when
    /// not declared" checks).
    #[serde(default)]
    pub absent_capabilities: Vec<Located<String>>,
    /// Server capabilities of which at least one must be declared (say,
    /// those that promise a `subscriptions/listen` stream).
    #[serde(default)]
    pub any_capabilities: Vec<Located<String>>,
    /// Profile triggers the scenario uses (`tool_that_elicits`, ...). Without
    /// them in the selected profile the scenario is not-observed.
    #[serde(default)]
    pub triggers: Vec<Located<String>>,
    /// The transport the scenario needs (`http`, `streamable`, `sse`);
    /// implied `http` by an `http` step. Others: not-applicable.
    #[serde(default)]
    pub transport: Option<Located<TransportName>>,
    /// HTTP: the server must have issued an `Mcp-Session-Id` (sessions are
    /// optional; without one the scenario is not-applicable).
    #[serde(default)]
    pub session: bool,
    /// HTTP: the server must be OAuth-protected (it answers a request
    /// without a token with 401) and the harness its authorization server
    /// (`--auth-issuer`); otherwise the scenario is not-applicable.
    #[serde(default)]
    pub protected: bool,
    /// `role: gateway`: client capabilities the gateway must declare to a
    /// backend (dotted paths such as `elicitation`), judged on the
    /// connection a backend `request` goes out on; unmet → not-applicable.
    #[serde(default)]
    pub client_capabilities: Vec<Located<String>>,
}

/// How the mock client presents itself in `initialize` (or, on 2026-07-28,
/// in each request's `_meta`).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClientSetup {
    /// Client capabilities to declare. Default: `{}`.
    #[serde(default)]
    pub capabilities: Option<Located<Json>>,
    /// clientInfo. Default: `{name: mcp-conform, version: <tool version>}`.
    #[serde(default)]
    pub info: Option<Located<Json>>,
    /// The protocolVersion to offer in `initialize`, verbatim (may be an
    /// unknown version, to test negotiation). Default: the run's version.
    #[serde(default)]
    pub protocol_version: Option<Located<String>>,
}

/// How the mock server presents itself in its `initialize` answer.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ServerSetup {
    /// Server capabilities to declare. Default: `{}`.
    #[serde(default)]
    pub capabilities: Option<Json>,
    /// serverInfo. Default: `{name: mcp-conform, version: <tool version>}`.
    #[serde(default)]
    pub info: Option<Json>,
    /// The protocolVersion to answer, verbatim. Default: the version the
    /// client offered when the scenario applies to it, else the run's version.
    #[serde(default)]
    pub protocol_version: Option<String>,
    /// Instructions for the client's model.
    #[serde(default)]
    pub instructions: Option<String>,
    /// From 2026-07-28: whether input-required results carry a
    /// `requestState` (default `true`; `false` tests a client's retry of a
    /// round that gave none).
    #[serde(default)]
    pub request_state: Option<bool>,
}

/// Who performs the handshake.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Handshake {
    #[default]
    Auto,
    Manual,
}

/// A step or expectation that may say how its checks are judged: `level`
/// (MUST, SHOULD or MAY; default: the level the catalogue, yours or the
/// spec's, gives the requirement cited, else MUST) and `requirement` (default: the scenario's first;
/// none in a scenario of yours citing none: a product check). Each such item
/// declares the two fields itself, since a shared struct would need
/// `#[serde(flatten)]`, which loses `deny_unknown_fields` and the spans; the
/// list below is where they are read as one.
pub trait Tagged {
    fn level(&self) -> Option<&Located<LevelName>>;
    fn requirement(&self) -> Option<&Located<String>>;
}

macro_rules! tagged {
    ($($item:ty),+ $(,)?) => {$(
        impl Tagged for $item {
            fn level(&self) -> Option<&Located<LevelName>> {
                self.level.as_ref()
            }
            fn requirement(&self) -> Option<&Located<String>> {
                self.requirement.as_ref()
            }
        }
    )+};
}

tagged!(
    ResponseExpectation,
    ExpectNotificationsStep,
    ExpectSilenceStep,
    ExpectRequestStep,
    ExpectValueStep,
    ExpectSubscriptionEndStep,
    SubscribeStep,
    UnsubscribeStep,
    AliveStep,
    PaginateStep,
    CloseStep,
    AskedFor,
    HttpExpectation,
    TaskStep,
);

/// A requirement level as written in a scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
pub enum LevelName {
    #[serde(rename = "MUST")]
    Must,
    #[serde(rename = "SHOULD")]
    Should,
    #[serde(rename = "MAY")]
    May,
}

/// One step of a scenario.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// Send a request and check its response.
    Request(Box<RequestStep>),
    /// Send a notification.
    Notify(NotifyStep),
    /// Send text exactly as written (one line on stdio), for malformed input.
    SendRaw(SendRawStep),
    /// Expect notifications from the peer (already received ones count).
    ExpectNotifications(ExpectNotificationsStep),
    /// Expect that nothing (of the listed kinds) arrives for a while.
    ExpectSilence(ExpectSilenceStep),
    /// Expect a request from the peer outside any call (for example
    /// `roots/list` after `notifications/initialized`), answered by the
    /// matching scripted answer.
    ExpectRequest(ExpectRequestStep),
    /// Wait for the response to a request sent with `wait: false`.
    Await(AwaitStep),
    /// Answer a request the peer sent earlier, held by a named
    /// `expect_request` (its scripted answer being `no_reply`).
    Respond(RespondStep),
    /// Walk a paginated list to its end.
    Paginate(Box<PaginateStep>),
    /// Run steps once for each element of a list variable.
    ForEach(ForEachStep),
    /// Set variables from values (templated).
    Set(BTreeMap<String, Json>),
    /// Pause for this many milliseconds.
    Sleep(u64),
    /// End the connection (stdio: close the server's stdin) and check how
    /// the peer goes away.
    Close(CloseStep),
    /// One raw HTTP exchange of our own (HTTP transports only).
    Http(Box<HttpStep>),
    /// Cancel a request sent with `wait: false`, the way the version does
    /// it: `notifications/cancelled`, or from 2026-07-28 over HTTP closing
    /// the request's response stream.
    Cancel(CancelStep),
    /// Ask for change notifications, the way the version does it: on
    /// stateful versions `resources/subscribe` for each resource (list
    /// changes need only the capability), from 2026-07-28 a
    /// `subscriptions/listen` stream, kept open, whose acknowledgement is
    /// awaited.
    Subscribe(SubscribeStep),
    /// End a subscription: `resources/unsubscribe` for each resource, or
    /// cancelling the listen stream.
    Unsubscribe(UnsubscribeStep),
    /// Check that the server still answers: `ping` on stateful versions,
    /// `server/discover` from 2026-07-28 (which has no `ping`).
    Alive(AliveStep),
    /// Judge a value the steps before captured (say, two walks of a list
    /// compared).
    ExpectValue(ExpectValueStep),
    /// 2026-07-28: the server ends a subscription itself, with a complete
    /// result for its listen request or `notifications/cancelled` naming it.
    ExpectSubscriptionEnd(ExpectSubscriptionEndStep),
    /// Run a request as a task and follow it to its end.
    Task(Box<TaskStep>),
    /// `role: gateway`: a backend answers a request it holds.
    Reply(ReplyStep),
    /// `role: gateway`: a backend answers from new answers from now on.
    Script(ScriptStep),
}

/// `expect_subscription_end`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpectSubscriptionEndStep {
    /// The subscription's `name` (default `subscription`).
    #[serde(default)]
    pub name: Option<Located<String>>,
    /// How long to wait, in milliseconds (default 5000).
    #[serde(default)]
    pub within_ms: Option<u64>,
    #[serde(default)]
    pub level: Option<Located<LevelName>>,
    #[serde(default)]
    pub requirement: Option<Located<String>>,
}

/// `expect_value`: a templated value against a matcher.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpectValueStep {
    /// What the check is called in reports.
    pub name: String,
    /// The value judged, usually a `${var}` (keeps its JSON type).
    pub value: Located<Json>,
    /// The matcher it must satisfy.
    #[serde(rename = "match")]
    pub matcher: Located<Json>,
    #[serde(default)]
    pub level: Option<Located<LevelName>>,
    #[serde(default)]
    pub requirement: Option<Located<String>>,
}

/// `cancel`: cancel a pending request.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CancelStep {
    /// The `name` of a request sent with `wait: false`.
    pub request: Located<String>,
    /// The `reason` of `notifications/cancelled`.
    #[serde(default)]
    pub reason: Option<String>,
}

/// `subscribe`: the change notifications wanted, named after the members of
/// a 2026-07-28 listen filter. From 2026-07-28 `${<name>.id}` is the id of
/// the listen request (`null` before).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SubscribeStep {
    /// Refers to the subscription in `unsubscribe` (default `subscription`).
    #[serde(default)]
    pub name: Option<Located<String>>,
    /// `toolsListChanged`, `promptsListChanged`, `resourcesListChanged`
    /// (booleans) and `resourceSubscriptions` (URIs); templated.
    pub notifications: Located<Json>,
    /// How long the acknowledgement (or each subscribe answer) may take, in
    /// milliseconds (default 5000).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// From 2026-07-28, `true`: the acknowledgement is a precondition, not a
    /// check. When none comes, or it does not agree to the whole filter
    /// (every flag set, every listed URI or task id), the rest of the
    /// scenario is not-applicable: the server chose not to serve it.
    #[serde(default)]
    pub require: bool,
    /// Level and requirement of the subscribe answers on stateful versions;
    /// from 2026-07-28 the acknowledgement is judged under SUBS-001.
    #[serde(default)]
    pub level: Option<Located<LevelName>>,
    #[serde(default)]
    pub requirement: Option<Located<String>>,
}

/// `unsubscribe`: end a subscription.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UnsubscribeStep {
    /// The subscription's `name` (default `subscription`).
    #[serde(default)]
    pub name: Option<Located<String>>,
    #[serde(default)]
    pub level: Option<Located<LevelName>>,
    #[serde(default)]
    pub requirement: Option<Located<String>>,
}

/// `alive`: the server still answers a request.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AliveStep {
    /// Budget for the answer in milliseconds (default 5000).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    #[serde(default)]
    pub level: Option<Located<LevelName>>,
    #[serde(default)]
    pub requirement: Option<Located<String>>,
}

/// `request`: send a request, then (by default) wait for and check its response.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RequestStep {
    /// The method, e.g. `tools/call`.
    pub method: Located<String>,
    /// Params; `${var}` is substituted. Omitted: no `params` member.
    #[serde(default)]
    pub params: Option<Located<Json>>,
    /// Use this id instead of the engine's next one (to test id handling).
    #[serde(default)]
    pub id: Option<Located<Json>>,
    /// Add `_meta.progressToken` with a fresh token; its value is available
    /// as `${<name>.progress_token}` when the step has a `name`, and always as
    /// `${progress_token}`.
    #[serde(default)]
    pub progress: bool,
    /// A name to refer to this request later (`await`, `${name.id}`).
    #[serde(default)]
    pub name: Option<Located<String>>,
    /// `false`: send and continue; check the response in an `await` step.
    #[serde(default = "yes")]
    pub wait: bool,
    /// Answers to requests the peer sends while this request is pending.
    #[serde(default)]
    pub answers: Vec<Located<Answer>>,
    /// What the response must look like.
    #[serde(default)]
    pub expect: Option<Located<ResponseExpectation>>,
    /// `true`: `expect` is a precondition, not a check. When the response
    /// does not meet it, the rest of the scenario is not-observed (the peer
    /// did not do what the scenario needs, e.g. a client whose roots never
    /// changed).
    #[serde(default)]
    pub require: bool,
    /// 2026-07-28: the retry of an input-required result echoes an altered
    /// `requestState`, and its answer is the one `expect` judges (a server
    /// that issues no state makes the scenario not-applicable).
    #[serde(default)]
    pub tamper_request_state: bool,
    /// Variables to capture from the response message: name → JSONPath
    /// (RFC 9535) over the whole response, e.g. `$.result.nextCursor`.
    #[serde(default)]
    pub capture: BTreeMap<String, Located<String>>,
    /// Budget for the response in milliseconds (default 5000).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// `role: gateway`: the backend that sends the request to the gateway
    /// (on the connection that carried the gateway's latest request to it).
    /// Without it the front (the mock client) sends it.
    #[serde(default)]
    pub backend: Option<Located<String>>,
}

fn yes() -> bool {
    true
}

/// What a response must look like. Give `result` or `error` (a matcher over
/// that member), or `any_of` for alternatives; with none, any response passes.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResponseExpectation {
    /// Matcher over `result`; an error response fails it.
    #[serde(default)]
    pub result: Option<Located<Json>>,
    /// Matcher over `error` (`{code: -32602}`); a result response fails it.
    #[serde(default)]
    pub error: Option<Located<Json>>,
    /// Alternatives: the response must satisfy at least one.
    #[serde(default)]
    pub any_of: Vec<Located<ResponseExpectation>>,
    /// No response at all must arrive within the step's budget (for
    /// cancelled requests and notifications-as-requests).
    #[serde(default)]
    pub none: bool,
    #[serde(default)]
    pub level: Option<Located<LevelName>>,
    #[serde(default)]
    pub requirement: Option<Located<String>>,
}

/// `notify`: send a notification.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NotifyStep {
    pub method: Located<String>,
    #[serde(default)]
    pub params: Option<Located<Json>>,
    /// `role: gateway`: the backend that sends it, on every connection the
    /// gateway holds open to it.
    #[serde(default)]
    pub backend: Option<Located<String>>,
}

/// `send_raw`: send bytes the engine does not build or check.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SendRawStep {
    /// The text to send; on stdio the engine adds the newline.
    pub text: Located<String>,
    /// What the next response (whatever its id) must look like.
    #[serde(default)]
    pub expect: Option<Located<ResponseExpectation>>,
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

/// One notification to look for.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NotificationPattern {
    pub method: Located<String>,
    /// Matcher over `params`.
    #[serde(default)]
    pub params: Option<Located<Json>>,
    /// How many must arrive at least (default 1).
    #[serde(default)]
    pub min: Option<u32>,
    /// How many may arrive at most (default: no limit).
    #[serde(default)]
    pub max: Option<u32>,
    /// Variables to capture from the first matching notification (JSONPath
    /// over the whole message).
    #[serde(default)]
    pub capture: BTreeMap<String, Located<String>>,
}

/// In which order expected notifications must arrive.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Order {
    #[default]
    AnyOrder,
    Ordered,
}

/// `expect_notifications`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpectNotificationsStep {
    pub notifications: Vec<Located<NotificationPattern>>,
    #[serde(default)]
    pub order: Order,
    /// Count what arrived since the request with this `name` was sent,
    /// instead of since the previous step started.
    #[serde(default)]
    pub since: Option<Located<String>>,
    /// How long to wait for the missing ones, in milliseconds (default 2000).
    #[serde(default)]
    pub within_ms: Option<u64>,
    #[serde(default)]
    pub level: Option<Located<LevelName>>,
    #[serde(default)]
    pub requirement: Option<Located<String>>,
}

/// `expect_silence`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpectSilenceStep {
    /// How long to watch, in milliseconds.
    pub within_ms: u64,
    /// What may not arrive: method names, `response` (a response to no
    /// request of ours, or to one we cancelled) or `*` (anything; the
    /// default).
    #[serde(default)]
    pub forbid: Vec<Located<String>>,
    #[serde(default)]
    pub level: Option<Located<LevelName>>,
    #[serde(default)]
    pub requirement: Option<Located<String>>,
    /// `role: gateway`: watch what reaches this backend instead of the front.
    #[serde(default)]
    pub backend: Option<Located<String>>,
}

/// `expect_request`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpectRequestStep {
    /// The method the peer must send.
    pub method: Located<String>,
    /// Matcher over its params.
    #[serde(default)]
    pub params: Option<Located<Json>>,
    #[serde(default)]
    pub within_ms: Option<u64>,
    /// A name for the request: `${name}` is `{id, method, params}`, and a
    /// `respond` step can answer it.
    #[serde(default)]
    pub name: Option<Located<String>>,
    /// `true`: a precondition, not a check. When no such request comes, the
    /// rest of the scenario is not-observed (a client that never does what
    /// the plan asks is not judged on what would follow).
    #[serde(default)]
    pub require: bool,
    /// `role: client`: what a client that leaves before sending it means.
    /// Default `not-observed` (one-shot clients leave when their work is
    /// done); `fail` where leaving is how a client breaks the rule.
    #[serde(default)]
    pub on_leave: Option<OnLeave>,
    #[serde(default)]
    pub level: Option<Located<LevelName>>,
    #[serde(default)]
    pub requirement: Option<Located<String>>,
    /// `role: gateway`: the request must reach this backend (on any of its
    /// connections) instead of the front.
    #[serde(default)]
    pub backend: Option<Located<String>>,
}

/// What a peer that leaves before an expected request means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
pub enum OnLeave {
    #[serde(rename = "not-observed")]
    NotObserved,
    #[serde(rename = "fail")]
    Fail,
}

/// `respond`: the answer to a held request of the peer. Give `result`
/// (templated) or `error`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RespondStep {
    /// The `name` of the `expect_request` that received the request.
    pub to: Located<String>,
    #[serde(default)]
    pub result: Option<Located<Json>>,
    #[serde(default)]
    pub error: Option<ErrorReply>,
}

/// `await`: the response to an earlier `wait: false` request.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AwaitStep {
    /// The `name` of the request.
    pub request: Located<String>,
    #[serde(default)]
    pub expect: Option<Located<ResponseExpectation>>,
    /// `true`: `expect` (this step's, or the request's) is a precondition,
    /// as `require` of `request`.
    #[serde(default)]
    pub require: bool,
    #[serde(default)]
    pub capture: BTreeMap<String, Located<String>>,
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

/// `paginate`: call a list method until the result has no `nextCursor`.
/// Checks that no item repeats and no `nextCursor` comes back (a walk that
/// would never end); a walk still going after `max_pages` is not judged.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PaginateStep {
    /// e.g. `tools/list`.
    pub method: Located<String>,
    /// Extra params for every page; `cursor` is added by the engine.
    #[serde(default)]
    pub params: Option<Located<Json>>,
    /// The result member holding the page's items, e.g. `tools`.
    pub items: Located<String>,
    /// JSON Pointer into an item that identifies it (`/name`, `/uri`), for
    /// the duplicate check. Default: the whole item.
    #[serde(default)]
    pub key: Option<Located<String>>,
    /// Stop after this many pages (default 100), not judging the walk.
    #[serde(default)]
    pub max_pages: Option<u32>,
    /// Matcher every page's result must satisfy.
    #[serde(default)]
    pub expect_page: Option<Located<Json>>,
    /// Matcher every item must satisfy.
    #[serde(default)]
    pub expect_item: Option<Located<Json>>,
    /// Matcher over the array of every item of every page, in order, after
    /// the walk (`$contains` with `$capture` picks one out).
    #[serde(default)]
    pub expect_items: Option<Located<Json>>,
    /// Store all items, in order, in this variable.
    #[serde(default)]
    pub capture: Option<Located<String>>,
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    #[serde(default)]
    pub level: Option<Located<LevelName>>,
    #[serde(default)]
    pub requirement: Option<Located<String>>,
}

/// `for_each`: repeat steps per element of a list variable.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ForEachStep {
    /// The list: a `${var}` reference.
    #[serde(rename = "in")]
    pub list: Located<String>,
    /// The variable each element is bound to.
    #[serde(rename = "as")]
    pub binding: Located<String>,
    /// Run for at most this many elements (default: all).
    #[serde(default)]
    pub limit: Option<u32>,
    pub steps: Vec<Located<Step>>,
}

/// `close`: end the connection and watch the peer leave.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CloseStep {
    /// The peer must exit within this many milliseconds (stdio).
    #[serde(default)]
    pub expect_exit_within_ms: Option<u64>,
    #[serde(default)]
    pub level: Option<Located<LevelName>>,
    #[serde(default)]
    pub requirement: Option<Located<String>>,
}

/// A scripted answer to a request the peer sends us. Declared once: the
/// engine delivers it as a JSON-RPC response (stateful versions) or as an
/// `inputResponses` entry when retrying an input-required result (2026-07-28).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    /// `elicitation/create`.
    Elicitation(ElicitationAnswer),
    /// `sampling/createMessage`: the scripted "LLM".
    Sampling(SamplingAnswer),
    /// `roots/list`.
    Roots(RootsAnswer),
    /// Any other method, answered with a raw result or error.
    Other(OtherAnswer),
}

/// What the peer's request must look like, and whether it must come at all.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AskedFor {
    /// Matcher over the request's params (e.g. sampling `modelPreferences`).
    #[serde(default)]
    pub params: Option<Located<Json>>,
    /// The peer must send this request (else the check fails at `level`).
    /// Default false: if it never comes, the check is not-observed.
    #[serde(default)]
    pub required: bool,
    /// The peer must not send this request (it still gets the reply if it
    /// does, and the check fails at `level`): what a call must not ask
    /// once the user declined.
    #[serde(default)]
    pub forbidden: bool,
    #[serde(default)]
    pub level: Option<Located<LevelName>>,
    #[serde(default)]
    pub requirement: Option<Located<String>>,
}

/// How to reply to an elicitation.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ElicitationReply {
    /// The user accepted; `content` is the form data (form mode).
    Accept {
        #[serde(default)]
        content: Option<Json>,
    },
    /// The user declined.
    Decline,
    /// The user dismissed the request.
    Cancel,
    /// A JSON-RPC error instead of a result.
    Error(ErrorReply),
    /// Never answer.
    NoReply,
}

/// `elicitation` answer.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ElicitationAnswer {
    #[serde(default)]
    pub expect: Option<Located<AskedFor>>,
    pub reply: Located<ElicitationReply>,
}

/// How to reply to a sampling request.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SamplingReply {
    /// A model message (`role`, `content`, `model`, `stopReason`; templated).
    Message(Json),
    /// A JSON-RPC error (e.g. the user rejected the request).
    Error(ErrorReply),
    /// Never answer.
    NoReply,
}

/// `sampling` answer.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SamplingAnswer {
    #[serde(default)]
    pub expect: Option<Located<AskedFor>>,
    pub reply: Located<SamplingReply>,
}

/// How to reply to `roots/list`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RootsReply {
    /// The roots to report (`[{uri, name}]`).
    Roots(Vec<Json>),
    Error(ErrorReply),
    NoReply,
}

/// `roots` answer.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RootsAnswer {
    #[serde(default)]
    pub expect: Option<Located<AskedFor>>,
    pub reply: Located<RootsReply>,
}

/// A raw reply.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RawReply {
    Result(Json),
    Error(ErrorReply),
    NoReply,
    /// Backends only: leave the request open until a `reply` step answers it.
    Hold,
}

/// `other` answer: for any method.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OtherAnswer {
    pub method: Located<String>,
    /// Matcher over the request's params (absent params read as `{}`): the
    /// answer serves only requests it matches, so that several answers for
    /// one method can serve, say, the pages of a list by `cursor`.
    #[serde(default)]
    pub when: Option<Located<Json>>,
    #[serde(default)]
    pub expect: Option<Located<AskedFor>>,
    pub reply: Located<RawReply>,
}

/// A JSON-RPC error to send.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ErrorReply {
    pub code: i64,
    pub message: String,
    #[serde(default)]
    pub data: Option<Json>,
}
