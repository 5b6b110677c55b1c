//! `server/discover` (2026-07-28+): what replaced the handshake. The
//! server names its versions and capabilities; the result is cacheable.

use super::common::{
    CACHE_SCOPE_FIELD, REQUEST_PARAMS, RESULT_META_FIELD, RESULT_TYPE_FIELD, SERVER_CAPABILITIES, STR,
    STR_ARRAY, TTL_FIELD,
};
use super::{Flow, MethodSpec, request};
use crate::protocol::cite;
use crate::protocol::shape::{Named, Shape, Versions, opt, req};
use crate::version::ProtocolVersion::*;

static DISCOVER_RESULT: Shape = Shape::Named(&Named {
    name: "DiscoverResult",
    requirement: cite::MODN_007,
    shape: Shape::Object(&[
        req("supportedVersions", &STR_ARRAY),
        req("capabilities", &SERVER_CAPABILITIES),
        opt("instructions", &STR),
        RESULT_META_FIELD,
        RESULT_TYPE_FIELD,
        TTL_FIELD,
        CACHE_SCOPE_FIELD,
    ]),
});

pub(super) static DISCOVER: MethodSpec = request(
    "server/discover",
    Flow::ClientToServer,
    Versions::since(V2026_07_28),
    req("params", &REQUEST_PARAMS),
    &DISCOVER_RESULT,
)
.cacheable();

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn discover_names_versions_capabilities_and_caching() {
        let good = json!({"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
            "ttlMs": 60000, "cacheScope": "public"});
        assert!(DISCOVER.check_result(&good, V2026_07_28).is_empty());
        let found = DISCOVER.check_result(
            &json!({"resultType": "complete", "capabilities": {}, "ttlMs": -1, "cacheScope": "shared"}),
            V2026_07_28,
        );
        let ids: Vec<_> = found.iter().map(|v| v.requirement).collect();
        assert_eq!(ids, [cite::MODN_007, cite::CACHE_001, cite::CACHE_001]);
        let bare = DISCOVER.check_params(None, V2026_07_28);
        assert_eq!(bare[0].requirement, cite::MODN_001);
    }
}
