//! What every stateless result carries: its `resultType` (RPC-015), the
//! server's identity in `_meta` (MODN-003), and on cacheable results how
//! long and by whom they may be reused (CACHE-001).

use serde_json::{Map, Value, json};

use super::meta::MODERN;
use crate::reference::era::SERVER_INFO;
use crate::reference::identity;

/// `resultType` of a final result.
const COMPLETE: &str = "complete";
/// `resultType` of an interim result asking the client for input.
const INPUT_REQUIRED: &str = "input_required";

/// Every cacheable result is `public`: nothing here depends on who asks,
/// and all pages of a list share it (CACHE-002).
const CACHE_SCOPE: &str = "public";

/// How long the result of `method` may be reused, if it is cacheable.
pub(crate) fn ttl_ms(method: &str) -> Option<u64> {
    match method {
        // Versions and capabilities never change while the process lives.
        "server/discover" => Some(3_600_000),
        // Tools come and go (add_tool); listen for list_changed instead.
        "tools/list" => Some(0),
        "prompts/list" | "resources/list" | "resources/templates/list" => Some(300_000),
        "resources/read" => Some(60_000),
        _ => None,
    }
}

fn with_server_info(result: &mut Map<String, Value>) {
    let meta = result.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
    if let Some(meta) = meta.as_object_mut() {
        meta.insert(SERVER_INFO.to_owned(), identity::server_info(MODERN));
    }
}

/// A final result.
pub(crate) fn complete(result: Value) -> Value {
    let Value::Object(mut result) = result else {
        return result;
    };
    result.insert("resultType".to_owned(), json!(COMPLETE));
    with_server_info(&mut result);
    Value::Object(result)
}

/// The final result of `method`, with the caching fields when it is cacheable.
pub(crate) fn complete_for(method: &str, result: Value) -> Value {
    let mut result = complete(result);
    if let (Some(ttl), Some(members)) = (ttl_ms(method), result.as_object_mut()) {
        members.insert("ttlMs".to_owned(), json!(ttl));
        members.insert("cacheScope".to_owned(), json!(CACHE_SCOPE));
    }
    result
}

/// An interim result: the client answers `input_requests` (key → request)
/// and retries with `request_state` echoed.
pub(crate) fn input_required(input_requests: Map<String, Value>, request_state: String) -> Value {
    let mut result = Map::new();
    result.insert("resultType".to_owned(), json!(INPUT_REQUIRED));
    result.insert("inputRequests".to_owned(), Value::Object(input_requests));
    result.insert("requestState".to_owned(), json!(request_state));
    with_server_info(&mut result);
    Value::Object(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cacheable_results_carry_ttl_and_scope() {
        let listed = complete_for("tools/list", json!({ "tools": [] }));
        assert_eq!(listed["resultType"], json!("complete"));
        assert_eq!(
            (listed["ttlMs"].clone(), listed["cacheScope"].clone()),
            (json!(0), json!("public"))
        );
        assert!(listed["_meta"][SERVER_INFO]["name"].is_string());
        let called = complete_for("tools/call", json!({ "content": [] }));
        assert!(called.get("ttlMs").is_none() && called.get("cacheScope").is_none());
        let kept = complete(json!({ "_meta": { "x": 1 } }));
        assert_eq!(kept["_meta"]["x"], json!(1));
    }
}
