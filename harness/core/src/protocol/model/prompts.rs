//! Prompts: listing, getting, and the list-changed notification.

use super::common::{
    BOOL, CACHE_SCOPE_FIELD, CONTENT_BLOCK, ICONS, META, NOTIFICATION_PARAMS, PAGINATED_PARAMS,
    REQUEST_META_FIELD, RESULT_META_FIELD, RESULT_TYPE_FIELD, ROLE, STR, STR_MAP, TTL_FIELD, array,
};
use super::mrtr::{INPUT_RESPONSES_FIELD, REQUEST_STATE_FIELD};
use super::{Flow, MethodSpec, Side, notification, request};
use crate::protocol::cite;
use crate::protocol::shape::{Named, Shape, Versions, opt, req};
use crate::version::ProtocolVersion::*;

static ARGUMENT: Shape = Shape::Object(&[
    req("name", &STR),
    opt("title", &STR).since(V2025_06_18),
    opt("description", &STR),
    opt("required", &BOOL),
]);

static PROMPT: Shape = Shape::Object(&[
    req("name", &STR),
    opt("title", &STR).since(V2025_06_18),
    opt("description", &STR),
    opt("arguments", &array(&ARGUMENT)),
    ICONS,
    META,
]);

static LIST_RESULT: Shape = Shape::Object(&[
    req("prompts", &array(&PROMPT)),
    opt("nextCursor", &STR),
    RESULT_META_FIELD,
    RESULT_TYPE_FIELD,
    TTL_FIELD,
    CACHE_SCOPE_FIELD,
]);

static GET_PARAMS: Shape = Shape::Object(&[
    req("name", &STR),
    opt("arguments", &STR_MAP),
    INPUT_RESPONSES_FIELD,
    REQUEST_STATE_FIELD,
    REQUEST_META_FIELD,
]);

static MESSAGE: Shape = Shape::Named(&Named {
    name: "PromptMessage",
    requirement: cite::PROM_004,
    shape: Shape::Object(&[req("role", &ROLE), req("content", &CONTENT_BLOCK)]),
});

static GET_RESULT: Shape = Shape::Object(&[
    opt("description", &STR),
    req("messages", &array(&MESSAGE)),
    RESULT_META_FIELD,
    RESULT_TYPE_FIELD,
]);

pub(super) static LIST: MethodSpec = request(
    "prompts/list",
    Flow::ClientToServer,
    Versions::ALL,
    opt("params", &PAGINATED_PARAMS).required_since(V2026_07_28),
    &LIST_RESULT,
)
.gated(Side::Server, "prompts", Versions::LEGACY, cite::LIST_006)
.cacheable();

pub(super) static GET: MethodSpec = request(
    "prompts/get",
    Flow::ClientToServer,
    Versions::ALL,
    req("params", &GET_PARAMS),
    &GET_RESULT,
)
.gated(Side::Server, "prompts", Versions::LEGACY, cite::LIST_006)
.may_require_input();

pub(super) static LIST_CHANGED: MethodSpec = notification(
    "notifications/prompts/list_changed",
    Flow::ServerToClient,
    Versions::ALL,
    opt("params", &NOTIFICATION_PARAMS),
)
.gated(
    Side::Server,
    "prompts.listChanged",
    Versions::LEGACY,
    cite::LIST_002,
);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn prompt_messages_have_a_role_and_one_content_block() {
        let good = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]});
        assert!(GET.check_result(&good, V2024_11_05).is_empty());
        let bad = json!({"messages": [{"role": "system", "content": [{"type": "text", "text": "hi"}]}]});
        let found = GET.check_result(&bad, V2024_11_05);
        assert_eq!(found.len(), 2);
        assert!(found.iter().all(|v| v.requirement == cite::PROM_004));
    }

    #[test]
    fn get_arguments_are_strings() {
        let found = GET.check_params(Some(&json!({"name": "p", "arguments": {"n": 3}})), V2025_06_18);
        assert_eq!(found[0].pointer.as_deref(), Some("/params/arguments/n"));
        assert!(
            LIST.check_result(
                &json!({"prompts": [{"name": "p", "arguments": [{"name": "a"}]}]}),
                V2025_06_18
            )
            .is_empty()
        );
    }
}
