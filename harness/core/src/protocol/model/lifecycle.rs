//! The handshake and `ping`.

use super::common::{
    CLIENT_CAPABILITIES, IMPLEMENTATION, NOTIFICATION_PARAMS, REQUEST_META_FIELD, REQUEST_PARAMS,
    RESULT_META_FIELD, SERVER_CAPABILITIES, STR,
};
use super::{Flow, MethodSpec, notification, request};
use crate::protocol::cite;
use crate::protocol::shape::{Named, Shape, Versions, opt, req};

static INITIALIZE_PARAMS: Shape = Shape::Named(&Named {
    name: "InitializeRequestParams",
    requirement: cite::LIFE_002,
    shape: Shape::Object(&[
        req("protocolVersion", &STR),
        req("capabilities", &CLIENT_CAPABILITIES),
        req("clientInfo", &IMPLEMENTATION),
        REQUEST_META_FIELD,
    ]),
});

static INITIALIZE_RESULT: Shape = Shape::Named(&Named {
    name: "InitializeResult",
    requirement: cite::LIFE_003,
    shape: Shape::Object(&[
        req("protocolVersion", &STR),
        req("capabilities", &SERVER_CAPABILITIES),
        req("serverInfo", &IMPLEMENTATION),
        opt("instructions", &STR),
        RESULT_META_FIELD,
    ]),
});

static PING_RESULT: Shape = Shape::Named(&Named {
    name: "EmptyResult",
    requirement: cite::PING_001,
    shape: Shape::Object(&[]),
});

pub(super) static INITIALIZE: MethodSpec = request(
    "initialize",
    Flow::ClientToServer,
    Versions::LEGACY,
    req("params", &INITIALIZE_PARAMS),
    &INITIALIZE_RESULT,
);

pub(super) static INITIALIZED: MethodSpec = notification(
    "notifications/initialized",
    Flow::ClientToServer,
    Versions::LEGACY,
    opt("params", &NOTIFICATION_PARAMS),
);

pub(super) static PING: MethodSpec = request(
    "ping",
    Flow::Both,
    Versions::LEGACY,
    opt("params", &REQUEST_PARAMS),
    &PING_RESULT,
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::version::ProtocolVersion::*;
    use serde_json::json;

    #[test]
    fn initialize_needs_version_capabilities_and_client_info() {
        let good = json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}});
        assert!(INITIALIZE.check_params(Some(&good), V2025_06_18).is_empty());
        let bad = json!({"protocolVersion": "2025-06-18", "clientInfo": {"name": "c"}});
        let found = INITIALIZE.check_params(Some(&bad), V2025_06_18);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found.iter().any(|v| v.requirement == cite::LIFE_002));
        assert!(!INITIALIZE.check_params(None, V2024_11_05).is_empty());
    }

    #[test]
    fn initialize_result_and_ping() {
        let result = json!({"protocolVersion": "2024-11-05", "capabilities": {"logging": {}}, "serverInfo": {"name": "s", "version": "1"}});
        assert!(INITIALIZE.check_result(&result, V2024_11_05).is_empty());
        let found = INITIALIZE.check_result(&json!({"protocolVersion": 5}), V2024_11_05);
        assert!(found.iter().all(|v| v.requirement == cite::LIFE_003));
        assert_eq!(found.len(), 3);
        assert_eq!(
            PING.check_result(&json!([]), V2025_03_26)[0].requirement,
            cite::PING_001
        );
    }
}
