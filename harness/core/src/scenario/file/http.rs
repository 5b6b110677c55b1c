//! The `http` step: one raw HTTP exchange with the server under test, for
//! the transport's own rules (status codes, headers, SSE framing).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;

use super::{Json, LevelName};
use crate::span::Located;

/// `http`: send one HTTP request of our own and judge the answer. Over
/// stdio a scenario with this step is not-applicable.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpStep {
    /// `GET`, `POST`, `DELETE`, or any other method.
    pub method: Located<String>,
    /// Default: where messages go (`${post_url}`) for POST, the server's
    /// URL (`${url}`) otherwise. Templated.
    #[serde(default)]
    pub url: Option<Located<String>>,
    /// Headers (names and values templated), over the engine's defaults: `Accept` as a
    /// client would send it, `Content-Type: application/json` with a body,
    /// the session id and `MCP-Protocol-Version` as the session has them.
    /// `null` removes a default.
    #[serde(default)]
    pub headers: BTreeMap<String, Option<Located<String>>>,
    /// A JSON body (templated).
    #[serde(default)]
    pub body: Option<Located<Json>>,
    /// A body sent byte for byte (malformed input).
    #[serde(default)]
    pub raw: Option<Located<String>>,
    /// Which `Mcp-Session-Id` to send: `current` (default; none before the
    /// server issued one), `none`, or a value (templated).
    #[serde(default)]
    pub session: Option<Located<String>>,
    /// The bearer token to present to a protected server (`requires:
    /// {protected: true}`): `valid` (what every request of the run sends),
    /// `none` (no `Authorization` header), a token broken in one way
    /// (`expired`, `not-yet-valid`, `wrong-audience`, `wrong-issuer`,
    /// `bad-signature`, `alg-none`, `unknown-key`, `garbage`),
    /// `upper-case-audience` (the same resource, spelled in upper case),
    /// `other-user` (sound, for a second user), or `{scope: "a b"}`, a valid token granting exactly those scopes (templated: `${needed}` mints it during the run).
    #[serde(default)]
    #[schemars(with = "Option<TokenSchema>")]
    pub token: Option<Located<Json>>,
    /// What the answer must look like for the rest of the scenario to
    /// apply (for what the spec leaves optional, e.g. `{status: 200}` after
    /// a GET that may be refused with 405). Unmet: not-applicable, and
    /// `expect` is not judged.
    #[serde(default)]
    pub require: Option<Located<HttpExpectation>>,
    /// What the answer must look like; each expectation is its own check.
    #[serde(default)]
    pub expect: Vec<Located<HttpExpectation>>,
    /// Variables to capture from the answer: name → JSONPath over
    /// `{status, headers, body, events, messages}`.
    #[serde(default)]
    pub capture: BTreeMap<String, Located<String>>,
    /// Budget for the whole exchange in milliseconds (default 5000).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

/// Matchers over the answer. The answer is read until every expectation
/// holds, the server ends it, or the budget runs out.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpExpectation {
    /// Matcher over the status code (`406`, `{$gte: 400, $lt: 500}`).
    #[serde(default)]
    pub status: Option<Located<Json>>,
    /// Matcher over the headers, by lower-cased name.
    #[serde(default)]
    pub headers: Option<Located<Json>>,
    /// Matcher over the body: its JSON, else its text (`""`: empty).
    #[serde(default)]
    pub body: Option<Located<Json>>,
    /// Matcher over the first `WWW-Authenticate` challenge, read as
    /// `{scheme, <parameter>: <value>...}` (names lower-cased, quotes
    /// removed), e.g. `{scheme: Bearer, error: invalid_token,
    /// resource_metadata: {$type: string}}`; null without the header.
    #[serde(default)]
    pub challenge: Option<Located<Json>>,
    /// Matcher over the SSE events, `[{id, event, data, message}]`.
    #[serde(default)]
    pub events: Option<Located<Json>>,
    /// Matcher over the JSON messages received, from the body or events.
    #[serde(default)]
    pub messages: Option<Located<Json>>,
    /// Matcher over the last `retry:` of the stream, in milliseconds.
    #[serde(default)]
    pub retry: Option<Located<Json>>,
    /// Matcher over the whole answer `{status, headers, body, events,
    /// messages, retry, ended}`, for alternatives (`$one_of`).
    #[serde(default)]
    pub answer: Option<Located<Json>>,
    /// Whether the server ended the body within the budget.
    #[serde(default)]
    pub ended: Option<bool>,
    /// What the check is called in reports (default: from the members).
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub level: Option<Located<LevelName>>,
    #[serde(default)]
    pub requirement: Option<Located<String>>,
}

/// What `token` accepts, for the schema.
#[derive(JsonSchema)]
#[serde(untagged)]
#[expect(dead_code, reason = "only its schema is used")]
enum TokenSchema {
    Minted(crate::auth::TokenChoice),
    Absent(NoToken),
    Scoped {
        /// The scopes granted, space-separated (`""`: none); may take a captured value (`${needed}`).
        scope: String,
    },
}

/// `none`: no `Authorization` header, for the schema.
#[derive(JsonSchema)]
#[serde(rename_all = "kebab-case")]
#[expect(dead_code, reason = "only its schema is used")]
enum NoToken {
    None,
}

/// The transport a scenario needs (`requires.transport`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum TransportName {
    /// stdio: what the scenario observes cannot be seen over HTTP.
    Stdio,
    /// Either HTTP transport.
    Http,
    /// Streamable HTTP (2025-03-26 on).
    Streamable,
    /// The legacy HTTP+SSE transport (2024-11-05).
    Sse,
}

impl std::fmt::Display for TransportName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TransportName::Stdio => "stdio",
            TransportName::Http => "HTTP",
            TransportName::Streamable => "Streamable HTTP",
            TransportName::Sse => "HTTP+SSE",
        })
    }
}
