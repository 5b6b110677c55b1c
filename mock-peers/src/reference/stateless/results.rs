//! The reference server's stateless results: what every one carries
//! (`crate::stateless_result`), with this server's identity and its caching
//! choices.

use serde_json::{Map, Value};

use super::meta::MODERN;
use crate::reference::identity;
use crate::stateless_result;

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

/// A final result.
pub(crate) fn complete(result: Value) -> Value {
    stateless_result::complete(result, &identity::server_info(MODERN))
}

/// The final result of `method`, with the caching fields when it is cacheable.
pub(crate) fn complete_for(method: &str, result: Value) -> Value {
    let result = complete(result);
    match ttl_ms(method) {
        Some(ttl) => stateless_result::cacheable(result, ttl, CACHE_SCOPE),
        None => result,
    }
}

/// An interim result: the client answers `input_requests` (key → request)
/// and retries with `request_state` echoed.
pub(crate) fn input_required(input_requests: Map<String, Value>, request_state: String) -> Value {
    stateless_result::input_required(
        input_requests,
        Some(request_state),
        &identity::server_info(MODERN),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cacheable_results_carry_ttl_and_scope() {
        let listed = complete_for("tools/list", json!({ "tools": [] }));
        assert_eq!(listed["resultType"], json!("complete"));
        assert_eq!(
            (listed["ttlMs"].clone(), listed["cacheScope"].clone()),
            (json!(0), json!("public"))
        );
        assert!(listed["_meta"][crate::reference::era::SERVER_INFO]["name"].is_string());
        let called = complete_for("tools/call", json!({ "content": [] }));
        assert!(called.get("ttlMs").is_none() && called.get("cacheScope").is_none());
        let kept = complete(json!({ "_meta": { "x": 1 } }));
        assert_eq!(kept["_meta"]["x"], json!(1));
    }
}
