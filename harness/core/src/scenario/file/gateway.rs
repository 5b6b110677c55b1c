//! `role: gateway`: the mock servers behind the gateway under test, and the
//! steps that act on their side of the wire.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{Answer, ErrorReply, Json, ServerSetup};
use crate::span::Located;

/// One mock server behind the gateway: how it presents itself and how it
/// answers the gateway's requests. The gateway starts it (from the
/// generated config, or `{server:NAME}`), as often as it likes; every
/// connection plays the same script.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BackendSetup {
    /// capabilities, serverInfo, protocolVersion and instructions of its
    /// `initialize` answer, as `server` of a `role: client` scenario.
    #[serde(default)]
    pub server: Option<Located<ServerSetup>>,
    /// Scripted answers to the gateway's requests (`other` with `when` for
    /// lists by cursor and calls by tool name; `hold` keeps a request open
    /// until a `reply` step). Unscripted requests get `-32601`, `ping` `{}`.
    #[serde(default)]
    pub answers: Vec<Located<Answer>>,
}

/// `reply`: answer the oldest request of `method` a backend holds (its
/// scripted answer said `hold`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplyStep {
    /// The backend that holds the request.
    pub backend: Located<String>,
    /// The held request's method, e.g. `tools/call`.
    pub method: Located<String>,
    /// The result to send (templated); give `result` or `error`.
    #[serde(default)]
    pub result: Option<Located<Json>>,
    #[serde(default)]
    pub error: Option<Located<ErrorReply>>,
}

/// `script`: from this step on, a backend answers from these answers
/// first (on its open connections and on those the gateway opens later),
/// e.g. a new tool list before it announces `list_changed`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScriptStep {
    pub backend: Located<String>,
    pub answers: Vec<Located<Answer>>,
}
