//! Elicitation (2025-06-18+): the server asks the user, through the client,
//! for structured input (form mode) or to visit a URL (URL mode, 2025-11-25).

use super::common::{
    BOOL, INT, NOTIFICATION_META_FIELD, NUM, RESULT_META_FIELD, SERVER_REQUEST_META_FIELD, STR, STR_ARRAY,
    array, variant,
};
use super::tasks::TASK_FIELD;
use super::{Flow, Gate, MemberGate, MethodSpec, Side, input_request, notification, request};
use crate::protocol::cite;
use crate::protocol::shape::{Alt, Named, Shape, Tagged, Variant, Versions, opt, req};
use crate::version::ProtocolVersion::*;

const SINCE_2025_11_25: Versions = Versions::since(V2025_11_25);

/// `{const, title}`: one titled option of an enum schema (2025-11-25).
static TITLED_OPTION: Shape = Shape::Object(&[req("const", &STR), req("title", &STR)]);

/// A string schema, enum forms included: they share `type: "string"`.
static STRING_SCHEMA: Shape = Shape::Object(&[
    opt("title", &STR),
    opt("description", &STR),
    opt("minLength", &INT),
    opt("maxLength", &INT),
    opt("format", &Shape::Enum(&["email", "uri", "date", "date-time"])),
    opt("enum", &STR_ARRAY),
    opt("enumNames", &STR_ARRAY),
    opt("oneOf", &array(&TITLED_OPTION)).since(V2025_11_25),
    opt("default", &STR).since(V2025_11_25),
]);

static NUMBER_SCHEMA: Shape = Shape::Object(&[
    opt("title", &STR),
    opt("description", &STR),
    opt("minimum", &NUM),
    opt("maximum", &NUM),
    opt("default", &NUM).since(V2025_11_25),
]);

static BOOLEAN_SCHEMA: Shape = Shape::Object(&[
    opt("title", &STR),
    opt("description", &STR),
    opt("default", &BOOL),
]);

/// The items of a multi-select: untitled `enum` or titled `anyOf`.
static MULTI_SELECT_ITEMS: Shape = Shape::AnyOf(&[
    Alt {
        versions: Versions::ALL,
        shape: &Shape::Object(&[req("type", &Shape::Const("string")), req("enum", &STR_ARRAY)]),
    },
    Alt {
        versions: Versions::ALL,
        shape: &Shape::Object(&[req("anyOf", &array(&TITLED_OPTION))]),
    },
]);

static MULTI_SELECT_SCHEMA: Shape = Shape::Object(&[
    opt("title", &STR),
    opt("description", &STR),
    req("items", &MULTI_SELECT_ITEMS),
    opt("minItems", &INT),
    opt("maxItems", &INT),
    opt("default", &STR_ARRAY),
]);

static PRIMITIVE_SCHEMA: Shape = Shape::Named(&Named {
    name: "PrimitiveSchemaDefinition",
    requirement: cite::ELIC_006,
    shape: Shape::Tagged(&Tagged {
        tag: "type",
        default: None,
        variants: &[
            variant("string", &STRING_SCHEMA),
            variant("number", &NUMBER_SCHEMA),
            variant("integer", &NUMBER_SCHEMA),
            variant("boolean", &BOOLEAN_SCHEMA),
            Variant {
                value: "array",
                versions: SINCE_2025_11_25,
                shape: &MULTI_SELECT_SCHEMA,
            },
        ],
        requirement: Some(cite::ELIC_005),
    }),
});

static REQUESTED_SCHEMA: Shape = Shape::Object(&[
    req("type", &Shape::Const("object")),
    req("properties", &Shape::Map(&PRIMITIVE_SCHEMA)),
    opt("required", &STR_ARRAY),
    opt("$schema", &STR).since(V2025_11_25),
]);

static FORM_PARAMS: Shape = Shape::Named(&Named {
    name: "ElicitRequestFormParams",
    requirement: cite::ELIC_005,
    shape: Shape::Object(&[
        req("message", &STR),
        req("requestedSchema", &REQUESTED_SCHEMA),
        TASK_FIELD,
        SERVER_REQUEST_META_FIELD,
    ]),
});

static URL_PARAMS: Shape = Shape::Named(&Named {
    name: "ElicitRequestURLParams",
    requirement: cite::ELIC_012,
    shape: Shape::Object(&[
        req("message", &STR),
        req("url", &STR),
        req("elicitationId", &STR).until(V2025_11_25),
        TASK_FIELD,
        SERVER_REQUEST_META_FIELD,
    ]),
});

/// Form mode is the default when `mode` is absent.
static PARAMS: Shape = Shape::Tagged(&Tagged {
    tag: "mode",
    default: Some("form"),
    variants: &[
        variant("form", &FORM_PARAMS),
        Variant {
            value: "url",
            versions: SINCE_2025_11_25,
            shape: &URL_PARAMS,
        },
    ],
    requirement: Some(cite::ELIC_005),
});

/// A value of accepted form content. The spec's prose says number where
/// the official schema says integer; we follow the prose.
static CONTENT_VALUE: Shape = Shape::AnyOf(&[
    Alt {
        versions: Versions::ALL,
        shape: &STR,
    },
    Alt {
        versions: Versions::ALL,
        shape: &NUM,
    },
    Alt {
        versions: Versions::ALL,
        shape: &BOOL,
    },
    Alt {
        versions: SINCE_2025_11_25,
        shape: &STR_ARRAY,
    },
]);

/// The result, and from 2026-07-28 the input response.
pub(super) static RESULT: Shape = Shape::Named(&Named {
    name: "ElicitResult",
    requirement: cite::ELIC_008,
    shape: Shape::Object(&[
        req("action", &Shape::Enum(&["accept", "decline", "cancel"])),
        opt("content", &Shape::Map(&CONTENT_VALUE)),
        RESULT_META_FIELD,
    ]),
});

static COMPLETE_PARAMS: Shape = Shape::Named(&Named {
    name: "ElicitationCompleteNotificationParams",
    requirement: cite::ELIC_014,
    shape: Shape::Object(&[req("elicitationId", &STR), NOTIFICATION_META_FIELD]),
});

pub(super) static CREATE: MethodSpec = request(
    "elicitation/create",
    Flow::ServerToClient,
    Versions::between(V2025_06_18, V2025_11_25),
    req("params", &PARAMS),
    &RESULT,
)
.gated(Side::Client, "elicitation", Versions::LEGACY, cite::ELIC_002);

pub(super) static CREATE_INPUT: MethodSpec =
    input_request("elicitation/create", req("params", &PARAMS), &RESULT).gated(
        Side::Client,
        "elicitation",
        Versions::since(V2026_07_28),
        cite::MRTR_004,
    );

pub(super) static COMPLETE: MethodSpec = notification(
    "notifications/elicitation/complete",
    Flow::ServerToClient,
    Versions::only(V2025_11_25),
    req("params", &COMPLETE_PARAMS),
);

/// URL mode needs the client's `elicitation.url` (form mode is also what a
/// bare `elicitation: {}` means, so it has no gate of its own here).
pub(super) static MEMBER_GATES: &[MemberGate] = &[MemberGate {
    method: "elicitation/create",
    member: "mode",
    values: &["url"],
    gate: Gate {
        holder: Side::Client,
        path: "elicitation.url",
        versions: SINCE_2025_11_25,
        requirement: cite::ELIC_002,
    },
}];

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn form_requests_hold_flat_primitive_schemas() {
        let form = json!({"message": "Name?", "requestedSchema": {"type": "object",
            "properties": {"name": {"type": "string", "minLength": 1}, "age": {"type": "integer", "minimum": 0}}}});
        assert!(CREATE.check_params(Some(&form), V2025_06_18).is_empty());
        let nested = json!({"message": "m", "requestedSchema": {"type": "object",
            "properties": {"address": {"type": "object"}}}});
        let found = CREATE.check_params(Some(&nested), V2025_06_18);
        assert_eq!(found[0].requirement, cite::ELIC_005);
        let multi = json!({"message": "m", "requestedSchema": {"type": "object",
            "properties": {"tags": {"type": "array", "items": {"type": "string", "enum": ["a"]}}}}});
        assert!(!CREATE.check_params(Some(&multi), V2025_06_18).is_empty());
        assert!(CREATE.check_params(Some(&multi), V2025_11_25).is_empty());
    }

    #[test]
    fn url_mode_arrives_in_2025_11_25() {
        let url = json!({"mode": "url", "message": "Sign in", "url": "https://example.com/x", "elicitationId": "e1"});
        assert!(CREATE.check_params(Some(&url), V2025_11_25).is_empty());
        assert!(!CREATE.check_params(Some(&url), V2025_06_18).is_empty());
        let missing = json!({"mode": "url", "message": "Sign in"});
        let found = CREATE.check_params(Some(&missing), V2025_11_25);
        assert_eq!(found.len(), 2);
        assert!(found.iter().all(|v| v.requirement == cite::ELIC_012));
    }

    #[test]
    fn actions_are_accept_decline_cancel() {
        assert!(
            CREATE
                .check_result(
                    &json!({"action": "accept", "content": {"n": 1, "b": true}}),
                    V2025_06_18
                )
                .is_empty()
        );
        assert_eq!(
            CREATE.check_result(&json!({"action": "dismiss"}), V2025_06_18)[0].requirement,
            cite::ELIC_008
        );
        let multi = json!({"action": "accept", "content": {"tags": ["a"]}});
        assert!(!CREATE.check_result(&multi, V2025_06_18).is_empty());
        assert!(CREATE.check_result(&multi, V2025_11_25).is_empty());
        assert!(COMPLETE.versions.contains(V2025_11_25) && !COMPLETE.versions.contains(V2025_06_18));
    }
}
