//! The HTTP header names MCP defines, lower-case as hyper and the recorded
//! [`FrameMeta`](super::FrameMeta) headers spell them, and the reading of
//! header values both the peers and the rules judging them rely on.

/// The session a Streamable HTTP request belongs to (up to 2025-11-25).
pub const SESSION_ID: &str = "mcp-session-id";
/// The protocol version a request speaks (from 2025-06-18; mirrored from
/// the body in 2026-07-28).
pub const PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// The SSE event a GET resumes after.
pub const LAST_EVENT_ID: &str = "last-event-id";
/// 2026-07-28: the method of the POSTed message.
pub const METHOD: &str = "mcp-method";
/// 2026-07-28: the tool or prompt name, or resource URI, of the request.
pub const NAME: &str = "mcp-name";
/// 2026-07-28: `Mcp-Param-{Name}` carries a tool argument marked `x-mcp-header`.
pub const PARAM_PREFIX: &str = "mcp-param-";

/// What a recorded secret header value reads as.
pub const REDACTED: &str = "<redacted>";

/// Words in a header name that mark its value as secret.
const SECRET_WORDS: &[&str] = &["authorization", "cookie", "token", "key", "secret"];

/// Whether the value of a header with this name must not be recorded.
pub fn is_secret(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    SECRET_WORDS.iter().any(|word| name.contains(word))
}

/// RFC 9110 token characters.
pub fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// The media types an `Accept` or `Content-Type` header lists, lowercased,
/// without parameters.
pub fn media_types(value: Option<&str>) -> Vec<String> {
    value
        .unwrap_or_default()
        .split(',')
        .filter_map(|item| item.split(';').next())
        .map(|media| media.trim().to_ascii_lowercase())
        .filter(|media| !media.is_empty())
        .collect()
}
