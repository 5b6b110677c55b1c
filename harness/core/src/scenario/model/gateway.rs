//! The runnable form of `role: gateway` scenarios: the backends and the
//! steps played on their side.

use std::time::Duration;

use serde_json::Value;

use super::{Capture, CheckTag, Reply, ResponseCheck, ScriptedAnswer, ServerModel};
use crate::matcher::Matcher;
use crate::span::Span;

/// One mock server behind the gateway.
#[derive(Debug, Clone)]
pub struct Backend {
    /// Its key in the generated config and in `{server:NAME}`.
    pub name: String,
    pub server: ServerModel,
    pub answers: Vec<ScriptedAnswer>,
    /// Where it is declared.
    pub span: Span,
}

/// A step played by one backend.
#[derive(Debug, Clone)]
pub struct BackendStep {
    pub backend: String,
    pub action: BackendAction,
}

/// What a backend does or expects.
#[derive(Debug, Clone)]
pub enum BackendAction {
    /// Sends a request to the gateway and judges the answer.
    Request {
        method: String,
        /// A template.
        params: Option<Value>,
        expect: Option<ResponseCheck>,
        capture: Vec<Capture>,
        timeout: Duration,
    },
    /// Sends a notification on every open connection.
    Notify { method: String, params: Option<Value> },
    /// The gateway must send it this request.
    ExpectRequest {
        method: String,
        params: Option<Matcher>,
        within: Duration,
        tag: CheckTag,
    },
    /// Nothing (or nothing in `forbid`) reaches it.
    ExpectSilence {
        within: Duration,
        forbid: Vec<String>,
        tag: CheckTag,
    },
    /// Answers the oldest held request of `method` (a template reply).
    Reply { method: String, reply: Reply },
    /// Answers from these first from now on.
    Script(Vec<ScriptedAnswer>),
}
