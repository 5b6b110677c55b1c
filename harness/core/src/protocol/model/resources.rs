//! Resources: listing, templates, reading, subscriptions and their notifications.

use super::common::{
    ANNOTATIONS, CACHE_SCOPE_FIELD, EMPTY_RESULT, ICONS, INT, META, NOTIFICATION_META_FIELD,
    NOTIFICATION_PARAMS, PAGINATED_PARAMS, REQUEST_META_FIELD, RESOURCE_CONTENTS, RESULT_META_FIELD,
    RESULT_TYPE_FIELD, STR, TTL_FIELD, array,
};
use super::mrtr::{INPUT_RESPONSES_FIELD, REQUEST_STATE_FIELD};
use super::{Flow, MethodSpec, Side, notification, request};
use crate::protocol::cite;
use crate::protocol::shape::{Named, Shape, Versions, opt, req};
use crate::version::ProtocolVersion::*;

static RESOURCE: Shape = Shape::Named(&Named {
    name: "Resource",
    requirement: cite::RES_002,
    shape: Shape::Object(&[
        req("uri", &STR),
        req("name", &STR),
        opt("title", &STR).since(V2025_06_18),
        opt("description", &STR),
        opt("mimeType", &STR),
        opt("size", &INT),
        opt("annotations", &ANNOTATIONS),
        ICONS,
        META,
    ]),
});

static RESOURCE_TEMPLATE: Shape = Shape::Named(&Named {
    name: "ResourceTemplate",
    requirement: cite::RES_002,
    shape: Shape::Object(&[
        req("uriTemplate", &STR),
        req("name", &STR),
        opt("title", &STR).since(V2025_06_18),
        opt("description", &STR),
        opt("mimeType", &STR),
        opt("annotations", &ANNOTATIONS),
        ICONS,
        META,
    ]),
});

static LIST_RESULT: Shape = Shape::Object(&[
    req("resources", &array(&RESOURCE)),
    opt("nextCursor", &STR),
    RESULT_META_FIELD,
    RESULT_TYPE_FIELD,
    TTL_FIELD,
    CACHE_SCOPE_FIELD,
]);

static TEMPLATES_LIST_RESULT: Shape = Shape::Object(&[
    req("resourceTemplates", &array(&RESOURCE_TEMPLATE)),
    opt("nextCursor", &STR),
    RESULT_META_FIELD,
    RESULT_TYPE_FIELD,
    TTL_FIELD,
    CACHE_SCOPE_FIELD,
]);

/// Params naming one resource: subscribe, unsubscribe.
static URI_PARAMS: Shape = Shape::Object(&[req("uri", &STR), REQUEST_META_FIELD]);

/// Params of `resources/read`, which may be retried with input responses.
static READ_PARAMS: Shape = Shape::Object(&[
    req("uri", &STR),
    INPUT_RESPONSES_FIELD,
    REQUEST_STATE_FIELD,
    REQUEST_META_FIELD,
]);

static READ_RESULT: Shape = Shape::Object(&[
    req("contents", &array(&RESOURCE_CONTENTS)),
    RESULT_META_FIELD,
    RESULT_TYPE_FIELD,
    TTL_FIELD,
    CACHE_SCOPE_FIELD,
]);

static UPDATED_PARAMS: Shape = Shape::Object(&[req("uri", &STR), NOTIFICATION_META_FIELD]);

pub(super) static LIST: MethodSpec = request(
    "resources/list",
    Flow::ClientToServer,
    Versions::ALL,
    opt("params", &PAGINATED_PARAMS).required_since(V2026_07_28),
    &LIST_RESULT,
)
.gated(Side::Server, "resources", Versions::LEGACY, cite::LIST_006)
.cacheable();

pub(super) static TEMPLATES_LIST: MethodSpec = request(
    "resources/templates/list",
    Flow::ClientToServer,
    Versions::ALL,
    opt("params", &PAGINATED_PARAMS).required_since(V2026_07_28),
    &TEMPLATES_LIST_RESULT,
)
.gated(Side::Server, "resources", Versions::LEGACY, cite::LIST_006)
.cacheable();

pub(super) static READ: MethodSpec = request(
    "resources/read",
    Flow::ClientToServer,
    Versions::ALL,
    req("params", &READ_PARAMS),
    &READ_RESULT,
)
.gated(Side::Server, "resources", Versions::LEGACY, cite::LIST_006)
.may_require_input()
.cacheable();

pub(super) static SUBSCRIBE: MethodSpec = request(
    "resources/subscribe",
    Flow::ClientToServer,
    Versions::LEGACY,
    req("params", &URI_PARAMS),
    &EMPTY_RESULT,
)
.gated(
    Side::Server,
    "resources.subscribe",
    Versions::LEGACY,
    cite::LIST_006,
);

pub(super) static UNSUBSCRIBE: MethodSpec = request(
    "resources/unsubscribe",
    Flow::ClientToServer,
    Versions::LEGACY,
    req("params", &URI_PARAMS),
    &EMPTY_RESULT,
)
.gated(
    Side::Server,
    "resources.subscribe",
    Versions::LEGACY,
    cite::LIST_006,
);

pub(super) static LIST_CHANGED: MethodSpec = notification(
    "notifications/resources/list_changed",
    Flow::ServerToClient,
    Versions::ALL,
    opt("params", &NOTIFICATION_PARAMS),
)
.gated(
    Side::Server,
    "resources.listChanged",
    Versions::LEGACY,
    cite::LIST_002,
);

pub(super) static UPDATED: MethodSpec = notification(
    "notifications/resources/updated",
    Flow::ServerToClient,
    Versions::ALL,
    req("params", &UPDATED_PARAMS),
)
.gated(
    Side::Server,
    "resources.subscribe",
    Versions::LEGACY,
    cite::RES_007,
);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn resources_and_templates_need_their_identifiers() {
        let good =
            json!({"resources": [{"uri": "file:///a", "name": "a", "annotations": {"priority": 0.5}}]});
        assert!(LIST.check_result(&good, V2024_11_05).is_empty());
        let bad = json!({"resources": [{"uri": "file:///a", "annotations": {"priority": 2}}]});
        let found = LIST.check_result(&bad, V2024_11_05);
        let requirements: Vec<_> = found.iter().map(|v| v.requirement).collect();
        assert_eq!(requirements, [cite::RES_002, cite::RES_009]);
        let template = json!({"resourceTemplates": [{"uri": "file:///{x}", "name": "x"}]});
        assert!(!TEMPLATES_LIST.check_result(&template, V2025_06_18).is_empty());
    }

    #[test]
    fn contents_are_text_or_blob() {
        let good = json!({"contents": [{"uri": "file:///a", "blob": "AA=="}]});
        assert!(READ.check_result(&good, V2025_11_25).is_empty());
        let neither = json!({"contents": [{"uri": "file:///a"}]});
        assert_eq!(
            READ.check_result(&neither, V2025_11_25)[0].requirement,
            cite::RES_002
        );
        assert!(!UPDATED.check_params(None, V2025_03_26).is_empty());
        assert_eq!(SUBSCRIBE.gate.map(|g| g.path), Some("resources.subscribe"));
    }
}
