//! Tools: listing, calling, and the list-changed notification.

use super::common::{
    BOOL, CACHE_SCOPE_FIELD, CONTENT_BLOCK, ICONS, META, NOTIFICATION_PARAMS, OBJECT, PAGINATED_PARAMS,
    REQUEST_META_FIELD, RESULT_META_FIELD, RESULT_TYPE_FIELD, STR, STR_ARRAY, STRUCTURED_CONTENT, TTL_FIELD,
    array,
};
use super::mrtr::{INPUT_RESPONSES_FIELD, REQUEST_STATE_FIELD};
use super::tasks::{EXECUTION_FIELD, TASK_FIELD};
use super::{Flow, MethodSpec, Side, notification, request};
use crate::protocol::cite;
use crate::protocol::shape::{Alt, Named, Shape, Versions, opt, req};
use crate::version::ProtocolVersion::*;

/// `inputSchema` and `outputSchema`: a JSON Schema object with `type: "object"` at the root.
static OBJECT_SCHEMA: Shape = Shape::Object(&[
    req("type", &Shape::Const("object")),
    opt("properties", &Shape::Map(&OBJECT)),
    opt("required", &STR_ARRAY),
    opt("$schema", &STR).since(V2025_11_25),
]);

/// `outputSchema`: an object schema up to 2025-11-25; any 2020-12 schema
/// object after.
static OUTPUT_SCHEMA: Shape = Shape::ByVersion(&[
    Alt {
        versions: Versions::between(V2025_06_18, V2025_11_25),
        shape: &OBJECT_SCHEMA,
    },
    Alt {
        versions: Versions::since(V2026_07_28),
        shape: &OBJECT,
    },
]);

static TOOL_ANNOTATIONS: Shape = Shape::Object(&[
    opt("title", &STR),
    opt("readOnlyHint", &BOOL),
    opt("destructiveHint", &BOOL),
    opt("idempotentHint", &BOOL),
    opt("openWorldHint", &BOOL),
]);

/// A tool definition; sampling reuses it for `tools` (2025-11-25).
pub(super) static TOOL: Shape = Shape::Named(&Named {
    name: "Tool",
    requirement: cite::TOOL_002,
    shape: Shape::Object(&[
        req("name", &STR),
        opt("title", &STR).since(V2025_06_18),
        opt("description", &STR),
        req("inputSchema", &OBJECT_SCHEMA),
        opt("outputSchema", &OUTPUT_SCHEMA).since(V2025_06_18),
        opt("annotations", &TOOL_ANNOTATIONS).since(V2025_03_26),
        ICONS,
        EXECUTION_FIELD,
        META,
    ]),
});

static LIST_RESULT: Shape = Shape::Object(&[
    req("tools", &array(&TOOL)),
    opt("nextCursor", &STR),
    RESULT_META_FIELD,
    RESULT_TYPE_FIELD,
    TTL_FIELD,
    CACHE_SCOPE_FIELD,
]);

static CALL_PARAMS: Shape = Shape::Object(&[
    req("name", &STR),
    opt("arguments", &OBJECT),
    INPUT_RESPONSES_FIELD,
    REQUEST_STATE_FIELD,
    TASK_FIELD,
    REQUEST_META_FIELD,
]);

static CALL_RESULT: Shape = Shape::Object(&[
    req("content", &array(&CONTENT_BLOCK)),
    opt("isError", &BOOL),
    opt("structuredContent", &STRUCTURED_CONTENT).since(V2025_06_18),
    RESULT_META_FIELD,
    RESULT_TYPE_FIELD,
]);

pub(super) static LIST: MethodSpec = request(
    "tools/list",
    Flow::ClientToServer,
    Versions::ALL,
    opt("params", &PAGINATED_PARAMS).required_since(V2026_07_28),
    &LIST_RESULT,
)
.gated(Side::Server, "tools", Versions::LEGACY, cite::LIST_006)
.cacheable();

pub(super) static CALL: MethodSpec = request(
    "tools/call",
    Flow::ClientToServer,
    Versions::ALL,
    req("params", &CALL_PARAMS),
    &CALL_RESULT,
)
.gated(Side::Server, "tools", Versions::LEGACY, cite::LIST_006)
.may_require_input();

pub(super) static LIST_CHANGED: MethodSpec = notification(
    "notifications/tools/list_changed",
    Flow::ServerToClient,
    Versions::ALL,
    opt("params", &NOTIFICATION_PARAMS),
)
.gated(
    Side::Server,
    "tools.listChanged",
    Versions::LEGACY,
    cite::LIST_002,
);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tools_need_a_name_and_an_object_input_schema() {
        let good = json!({"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]});
        assert!(LIST.check_result(&good, V2024_11_05).is_empty());
        let bad = json!({"tools": [{"name": "echo", "inputSchema": {"type": "array"}}]});
        let found = LIST.check_result(&bad, V2024_11_05);
        assert_eq!(found[0].requirement, cite::TOOL_002);
        assert_eq!(
            found[0].pointer.as_deref(),
            Some("/result/tools/0/inputSchema/type")
        );
    }

    #[test]
    fn annotations_and_output_schema_follow_versions() {
        let tool = json!({"tools": [{"name": "t", "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": "yes"}, "outputSchema": {"type": "string"}}]});
        assert!(
            LIST.check_result(&tool, V2024_11_05).is_empty(),
            "both are unknown extras in 2024-11-05"
        );
        assert_eq!(LIST.check_result(&tool, V2025_03_26).len(), 1);
        assert_eq!(LIST.check_result(&tool, V2025_06_18).len(), 2);
    }

    #[test]
    fn call_results_hold_content_blocks_and_structured_content() {
        let audio = json!({"content": [{"type": "audio", "data": "AA==", "mimeType": "audio/wav"}]});
        assert!(!CALL.check_result(&audio, V2024_11_05).is_empty());
        assert!(CALL.check_result(&audio, V2025_03_26).is_empty());
        let structured = json!({"content": [], "structuredContent": [1, 2]});
        assert!(!CALL.check_result(&structured, V2025_06_18).is_empty());
        assert!(
            CALL.check_params(Some(&json!({"arguments": {}})), V2025_06_18)[0]
                .message
                .contains("`name`")
        );
        assert_eq!(LIST_CHANGED.gate.map(|g| g.path), Some("tools.listChanged"));
    }
}
