//! What our HTTP servers read from a request: its body, its headers, the
//! loopback guard, and what a POSTed body holds.

use std::collections::HashSet;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

use http_body_util::{BodyExt, Limited};
use hyper::StatusCode;
use hyper::body::Incoming;
use hyper::header::{self, HeaderMap};
pub(crate) use mcp_conform_core::wire::headers::media_types;
use mcp_conform_core::wire::jsonrpc::id_key;
use serde_json::Value;

use super::respond::Refusal;

/// The largest POST body accepted.
const BODY_LIMIT: usize = 4 << 20;

/// A random session id of 32 hex digits (visible ASCII, unguessable:
/// SipHash under the process's random keys).
pub(crate) fn new_session_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    (0..2)
        .map(|half| {
            let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
            hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
            hasher.write_u128(nanos);
            hasher.write_u8(half);
            format!("{:016x}", hasher.finish())
        })
        .collect()
}

/// What a POST body holds, as far as the transport cares.
#[derive(Debug, Default)]
pub(crate) struct BodyShape {
    /// Ids of the requests in it, as [`id_key`]s.
    pub requests: HashSet<String>,
    pub initialize: bool,
    /// The request a `notifications/cancelled` names, as an [`id_key`].
    pub cancels: Option<String>,
}

impl BodyShape {
    pub fn of(text: &str) -> BodyShape {
        let mut shape = BodyShape::default();
        let message: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        let items = match &message {
            Value::Array(items) => items.iter().collect(),
            single => vec![single],
        };
        if message.get("method").and_then(Value::as_str) == Some("notifications/cancelled") {
            shape.cancels = message.pointer("/params/requestId").map(id_key);
        }
        for item in items {
            if let (Some(method), Some(id)) = (item.get("method").and_then(Value::as_str), item.get("id")) {
                shape.requests.insert(id_key(id));
                shape.initialize |= method == "initialize" && message.is_object();
            }
        }
        shape
    }
}

pub(crate) fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|value| value.to_str().ok())
}

pub(crate) fn accepts(headers: &HeaderMap, wanted: &[&str]) -> bool {
    let listed = media_types(header_str(headers, header::ACCEPT.as_str()));
    wanted.iter().all(|w| listed.iter().any(|l| l == w))
}

/// A loopback host name, with its port already removed: `localhost` or
/// any loopback address (all of 127.0.0.0/8, where the servers may listen).
fn is_loopback_name(host: &str) -> bool {
    let host = host.to_ascii_lowercase();
    let address = host.trim_start_matches('[').trim_end_matches(']');
    host == "localhost"
        || address
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// `host[:port]` without the port.
fn strip_port(authority: &str) -> &str {
    if authority.starts_with('[') {
        return authority.find(']').map_or(authority, |end| &authority[..=end]);
    }
    authority.split(':').next().unwrap_or(authority)
}

/// The DNS rebinding guard: `Host` must name the loopback interface and an
/// `Origin`, when sent, must be a loopback origin.
pub(crate) fn local_only(headers: &HeaderMap) -> Result<(), &'static str> {
    let host = header_str(headers, header::HOST.as_str()).map(str::trim);
    if !host.is_some_and(|host| is_loopback_name(strip_port(host))) {
        return Err("Host must be a loopback address or localhost");
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or_default().trim();
        let authority = origin
            .strip_prefix("http://")
            .or_else(|| origin.strip_prefix("https://"));
        if !authority.is_some_and(|a| !a.contains('/') && is_loopback_name(strip_port(a))) {
            return Err("Origin not allowed: only local origins may use this server");
        }
    }
    Ok(())
}

/// The session an HTTP+SSE message names (`/messages?session_id=…`).
pub(crate) fn legacy_session_id(uri: &hyper::Uri) -> Option<String> {
    uri.query()
        .unwrap_or_default()
        .split('&')
        .find_map(|pair| pair.strip_prefix("session_id="))
        .map(str::to_owned)
}

/// The body as text (at most [`BODY_LIMIT`] bytes; 413 beyond).
pub(crate) async fn read_body(body: Incoming) -> Result<String, Refusal> {
    match Limited::new(body, BODY_LIMIT).collect().await {
        Ok(collected) => Ok(String::from_utf8_lossy(&collected.to_bytes()).into_owned()),
        Err(_) => Err(Refusal::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "request body too large or broken",
        )),
    }
}

#[cfg(test)]
mod tests {
    use hyper::header::HeaderValue;

    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn only_local_hosts_and_origins_pass() {
        assert!(local_only(&headers(&[("host", "127.0.0.1:8080")])).is_ok());
        assert!(local_only(&headers(&[("host", "localhost")])).is_ok());
        assert!(local_only(&headers(&[("host", "[::1]:9")])).is_ok());
        // Every loopback address a server may listen on (`serve --http 127.0.0.2:0`).
        assert!(local_only(&headers(&[("host", "127.0.0.2:8080")])).is_ok());
        assert!(local_only(&headers(&[("host", "128.0.0.1:8080")])).is_err());
        assert!(local_only(&headers(&[("host", "localhost.evil.example")])).is_err());
        assert!(local_only(&headers(&[("host", "evil.example:80")])).is_err());
        assert!(local_only(&headers(&[])).is_err());
        assert!(
            local_only(&headers(&[
                ("host", "127.0.0.1"),
                ("origin", "http://localhost:3000")
            ]))
            .is_ok()
        );
        assert!(
            local_only(&headers(&[
                ("host", "127.0.0.1"),
                ("origin", "https://evil.example")
            ]))
            .is_err()
        );
        assert!(
            local_only(&headers(&[
                ("host", "127.0.0.1"),
                ("origin", "http://127.0.0.1.evil.example")
            ]))
            .is_err()
        );
        assert!(local_only(&headers(&[("host", "127.0.0.1"), ("origin", "null")])).is_err());
    }

    #[test]
    fn accept_lists_are_read_per_media_type() {
        let both = headers(&[("accept", "application/json, text/event-stream;q=0.9")]);
        assert!(accepts(&both, &["application/json", "text/event-stream"]));
        let json_only = headers(&[("accept", "application/json")]);
        assert!(!accepts(&json_only, &["application/json", "text/event-stream"]));
    }

    #[test]
    fn session_ids_are_visible_ascii_and_differ() {
        let (a, b) = (new_session_id(), new_session_id());
        assert_ne!(a, b);
        assert!(a.bytes().all(|c| (0x21..=0x7e).contains(&c)) && a.len() == 32);
    }

    #[test]
    fn body_shapes_find_requests() {
        let init = BodyShape::of(r#"{"jsonrpc":"2.0","id":0,"method":"initialize"}"#);
        assert!(init.initialize && init.requests.len() == 1);
        let note = BodyShape::of(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        assert!(!note.initialize && note.requests.is_empty());
        let batch = BodyShape::of(
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#,
        );
        assert_eq!(batch.requests.len(), 2);
        assert!(BodyShape::of("not json").requests.is_empty());
    }
}
