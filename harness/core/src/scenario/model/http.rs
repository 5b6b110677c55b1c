//! The runnable `http` step.

use std::time::Duration;

use serde_json::Value;

use super::{Capture, CheckTag};
use crate::auth::TokenRequest;
use crate::matcher::Matcher;

/// One raw HTTP exchange. Strings and the JSON body are templates.
#[derive(Debug, Clone)]
pub struct HttpExchangeStep {
    /// Upper-cased.
    pub method: String,
    /// `None`: the engine's default for the method.
    pub url: Option<String>,
    /// Names and values are templates (names lower-cased once rendered);
    /// `None` removes the engine's default.
    pub headers: Vec<(String, Option<String>)>,
    pub body: HttpBody,
    pub session: SessionChoice,
    /// `None`: what every request of the run sends.
    pub token: Option<TokenRequest>,
    /// Unmet: the rest of the scenario is not-applicable.
    pub require: Option<HttpCheck>,
    pub expect: Vec<HttpCheck>,
    pub capture: Vec<Capture>,
    pub timeout: Duration,
}

/// What the request carries.
#[derive(Debug, Clone, PartialEq)]
pub enum HttpBody {
    None,
    Json(Value),
    Raw(String),
}

/// Which `Mcp-Session-Id` to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionChoice {
    Current,
    None,
    Value(String),
}

/// One expectation: a matcher over the whole answer
/// (`{status, headers, challenge, body, events, messages, retry, ended}`).
#[derive(Debug, Clone)]
pub struct HttpCheck {
    pub name: String,
    pub matcher: Matcher,
    /// Whether it judges only the head (status, headers): then reading on
    /// cannot change its outcome.
    pub head_only: bool,
    pub tag: CheckTag,
}
