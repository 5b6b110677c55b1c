//! What the client under test did over HTTP, kept so that the client's own
//! transport rules (headers, sessions, DELETE) can be judged afterwards
//! (`protocol/client_http.rs`). The mock server fills it in; the messages
//! each POST carried are in the transcript, under its label.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::wire::headers::media_types;

/// The path the mock server serves Streamable HTTP at: where a client's
/// POSTs, GETs and DELETEs belong.
pub const MCP_PATH: &str = "/mcp";

/// One HTTP request the client made, and how the mock server answered it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboundRequest {
    /// Time since the mock server started.
    pub at: Duration,
    /// `post#3`, `get#4`, `delete#7`: the label its frames carry.
    pub label: String,
    /// The HTTP method (`POST`, `GET`, `DELETE`, …).
    pub method: String,
    /// The path and query it was sent to.
    pub target: String,
    /// Lower-case names, secret values redacted.
    pub headers: BTreeMap<String, String>,
    /// The status the mock server answered with.
    pub status: u16,
    /// The body was a JSON array (a batch).
    pub array: bool,
    /// Why the mock server turned it away, when it did.
    pub refusal: Option<String>,
    /// The client closed the response stream before the response to its
    /// request: in the stateless era, that cancels the request.
    pub cancelled: bool,
    /// The headers whose value held one of the values the server was told
    /// to watch for (behind a gateway: the client's token at its front),
    /// seen before they were redacted.
    pub watched: Vec<String>,
}

impl InboundRequest {
    /// A header's value, by lower-case name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }

    /// Whether its `Accept` header lists `media` (a type without parameters).
    pub fn accepts(&self, media: &str) -> bool {
        media_types(self.header("accept"))
            .iter()
            .any(|listed| listed == media)
    }
}

/// Everything the mock server saw of the client over HTTP.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpClientRecord {
    /// Every request, in the order they arrived.
    pub requests: Vec<InboundRequest>,
    /// The client chose the HTTP+SSE transport of 2024-11-05.
    pub legacy: bool,
    /// The stateless era (2026-07-28+) was served: no session, POST only.
    pub stateless: bool,
    /// The session id the mock server issued, if any.
    pub session_id: Option<String>,
    /// When our answer to `initialize` went out: from then on the client
    /// knows the session id and the negotiated version.
    pub answered_at: Option<Duration>,
    /// The version our `initialize` answer named.
    pub version: Option<String>,
    /// How the client's process ended while we still served it (only when
    /// mcp-conform started the client itself), as the transport described it.
    pub left: Option<String>,
    /// The mock server was OAuth-protected (`auth:`): what the client did
    /// of OAuth.
    pub auth: Option<super::oauth::ClientAuthRecord>,
}
