//! What a server's results carry in the stateless era (2026-07-28+),
//! shared by the reference server and the mock server that tests clients:
//! a `resultType` (RPC-015), the server's identity in `_meta` (MODN-003),
//! and on cacheable results how long and by whom they may be reused
//! (CACHE-001). Members a result already has are kept, so a scenario can
//! script an odd one on purpose.

use mcp_conform_core::protocol::INPUT_REQUIRED;
use mcp_conform_core::protocol::meta_key::SERVER_INFO;
use serde_json::{Map, Value, json};

/// `resultType` of a final result.
const COMPLETE: &str = "complete";

fn with_server_info(result: &mut Map<String, Value>, server_info: &Value) {
    let meta = result.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
    if let Some(meta) = meta.as_object_mut() {
        meta.entry(SERVER_INFO).or_insert_with(|| server_info.clone());
    }
}

/// A final result of the server named `server_info`.
pub fn complete(result: Value, server_info: &Value) -> Value {
    let Value::Object(mut result) = result else {
        return result;
    };
    result.entry("resultType").or_insert_with(|| json!(COMPLETE));
    with_server_info(&mut result, server_info);
    Value::Object(result)
}

/// A cacheable result, fresh for `ttl_ms` and reusable by `scope` (`public`
/// or `private`).
pub fn cacheable(result: Value, ttl_ms: u64, scope: &str) -> Value {
    let Value::Object(mut result) = result else {
        return result;
    };
    result.entry("ttlMs").or_insert_with(|| json!(ttl_ms));
    result.entry("cacheScope").or_insert_with(|| json!(scope));
    Value::Object(result)
}

/// An interim result: the client answers `input_requests` (key → request)
/// and retries with `request_state`, if given, echoed.
pub fn input_required(
    input_requests: Map<String, Value>,
    request_state: Option<String>,
    server_info: &Value,
) -> Value {
    let mut result = Map::new();
    result.insert("resultType".to_owned(), json!(INPUT_REQUIRED));
    result.insert("inputRequests".to_owned(), Value::Object(input_requests));
    if let Some(state) = request_state {
        result.insert("requestState".to_owned(), json!(state));
    }
    with_server_info(&mut result, server_info);
    Value::Object(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_gain_what_they_lack_and_keep_what_they_have() {
        let info = json!({"name": "s", "version": "1"});
        let done = cacheable(complete(json!({"tools": []}), &info), 0, "private");
        assert_eq!(done["resultType"], "complete");
        assert_eq!(done["_meta"][SERVER_INFO], info);
        assert_eq!(
            (done["ttlMs"].clone(), done["cacheScope"].clone()),
            (json!(0), json!("private"))
        );
        let scripted = json!({"resultType": "mystery", "ttlMs": 5, "_meta": {"x": 1}});
        let kept = cacheable(complete(scripted, &info), 0, "private");
        assert_eq!(kept["resultType"], "mystery");
        assert_eq!(kept["ttlMs"], 5);
        assert_eq!(kept["_meta"]["x"], 1);
        assert_eq!(kept["_meta"][SERVER_INFO], info);
        let asked = input_required(Map::new(), Some("s1".into()), &info);
        assert_eq!(asked["resultType"], INPUT_REQUIRED);
        assert_eq!(asked["requestState"], "s1");
        assert!(
            input_required(Map::new(), None, &info)
                .get("requestState")
                .is_none()
        );
    }
}
