//! Sampling (`sampling/createMessage`): the server asks the client's model.

use super::common::{
    AUDIO_CONTENT, BOOL, CONTENT_BLOCK, IMAGE_CONTENT, INT, META, NUM, OBJECT, RESULT_META_FIELD, ROLE,
    SERVER_REQUEST_META_FIELD, STR, STR_ARRAY, TEXT_CONTENT, array, variant,
};
use super::tasks::TASK_FIELD;
use super::tools::TOOL;
use super::{Flow, Gate, MemberGate, MethodSpec, Side, input_request, request};
use crate::protocol::cite;
use crate::protocol::shape::{Alt, Named, Shape, Tagged, Variant, Versions, opt, req};
use crate::requirements::RequirementId;
use crate::version::ProtocolVersion::*;

/// A priority of [`MODEL_PREFERENCES`]: a number from 0 to 1.
static PRIORITY: Shape = Shape::Number {
    min: Some(0.0),
    max: Some(1.0),
};

static MODEL_PREFERENCES: Shape = Shape::Named(&Named {
    name: "ModelPreferences",
    requirement: cite::SAMP_003,
    shape: Shape::Object(&[
        opt("hints", &array(&Shape::Object(&[opt("name", &STR)]))),
        opt("costPriority", &PRIORITY),
        opt("speedPriority", &PRIORITY),
        opt("intelligencePriority", &PRIORITY),
    ]),
});

static TOOL_USE: Shape = Shape::Object(&[
    req("type", &Shape::Const("tool_use")),
    req("id", &STR),
    req("name", &STR),
    req("input", &OBJECT),
    META,
]);

static TOOL_RESULT: Shape = Shape::Object(&[
    req("type", &Shape::Const("tool_result")),
    req("toolUseId", &STR),
    req("content", &array(&CONTENT_BLOCK)),
    opt("structuredContent", &OBJECT),
    opt("isError", &BOOL),
    META,
]);

const SINCE_TOOLS: Versions = Versions::since(V2025_11_25);

static BLOCK: Shape = Shape::Tagged(&Tagged {
    tag: "type",
    default: None,
    variants: &[
        variant("text", &TEXT_CONTENT),
        variant("image", &IMAGE_CONTENT),
        Variant {
            value: "audio",
            versions: Versions::since(V2025_03_26),
            shape: &AUDIO_CONTENT,
        },
        Variant {
            value: "tool_use",
            versions: SINCE_TOOLS,
            shape: &TOOL_USE,
        },
        Variant {
            value: "tool_result",
            versions: SINCE_TOOLS,
            shape: &TOOL_RESULT,
        },
    ],
    requirement: None,
});

/// One block, or (from 2025-11-25) a list of blocks.
static CONTENT: Shape = Shape::AnyOf(&[
    Alt {
        versions: Versions::ALL,
        shape: &BLOCK,
    },
    Alt {
        versions: SINCE_TOOLS,
        shape: &array(&BLOCK),
    },
]);

static MESSAGE: Shape = Shape::Object(&[req("role", &ROLE), req("content", &CONTENT), META]);

static PARAMS: Shape = Shape::Named(&Named {
    name: "CreateMessageRequestParams",
    requirement: cite::SAMP_002,
    shape: Shape::Object(&[
        req("messages", &array(&MESSAGE)),
        opt("modelPreferences", &MODEL_PREFERENCES),
        opt("systemPrompt", &STR),
        opt(
            "includeContext",
            &Shape::Enum(&["none", "thisServer", "allServers"]),
        ),
        opt("temperature", &NUM),
        req("maxTokens", &INT),
        opt("stopSequences", &STR_ARRAY),
        opt("metadata", &OBJECT),
        opt("tools", &array(&TOOL)).since(V2025_11_25),
        opt(
            "toolChoice",
            &Shape::Object(&[opt("mode", &Shape::Enum(&["auto", "required", "none"]))]),
        )
        .since(V2025_11_25),
        TASK_FIELD,
        SERVER_REQUEST_META_FIELD,
    ]),
});

/// The result, and from 2026-07-28 the input response.
pub(super) static RESULT: Shape = Shape::Object(&[
    req("role", &ROLE),
    req("content", &CONTENT),
    req("model", &STR),
    opt("stopReason", &STR),
    RESULT_META_FIELD,
]);

pub(super) static CREATE_MESSAGE: MethodSpec = request(
    "sampling/createMessage",
    Flow::ServerToClient,
    Versions::LEGACY,
    req("params", &PARAMS),
    &RESULT,
)
.gated(Side::Client, "sampling", Versions::LEGACY, cite::SAMP_001);

pub(super) static CREATE_MESSAGE_INPUT: MethodSpec =
    input_request("sampling/createMessage", req("params", &PARAMS), &RESULT).gated(
        Side::Client,
        "sampling",
        Versions::since(V2026_07_28),
        cite::MRTR_004,
    );

/// A 2025-11-25 gate on the client's `sampling` sub-capabilities.
const fn sampling_gate(
    member: &'static str,
    values: &'static [&'static str],
    path: &'static str,
    requirement: RequirementId,
) -> MemberGate {
    MemberGate {
        method: "sampling/createMessage",
        member,
        values,
        gate: Gate {
            holder: Side::Client,
            path,
            versions: Versions::only(V2025_11_25),
            requirement,
        },
    }
}

pub(super) static MEMBER_GATES: &[MemberGate] = &[
    sampling_gate("tools", &[], "sampling.tools", cite::SAMP_007),
    sampling_gate("toolChoice", &[], "sampling.tools", cite::SAMP_007),
    sampling_gate(
        "includeContext",
        &["thisServer", "allServers"],
        "sampling.context",
        cite::SAMP_006,
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn params(preferences: serde_json::Value, content: serde_json::Value) -> serde_json::Value {
        json!({"messages": [{"role": "user", "content": content}], "maxTokens": 10, "modelPreferences": preferences})
    }

    #[test]
    fn priorities_are_between_zero_and_one() {
        let text = json!({"type": "text", "text": "hi"});
        let good = params(
            json!({"costPriority": 0, "speedPriority": 1, "hints": [{"name": "m"}]}),
            text.clone(),
        );
        assert!(CREATE_MESSAGE.check_params(Some(&good), V2024_11_05).is_empty());
        let bad = params(json!({"intelligencePriority": 1.01}), text);
        let found = CREATE_MESSAGE.check_params(Some(&bad), V2024_11_05);
        assert_eq!(found[0].requirement, cite::SAMP_003);
        assert_eq!(
            found[0].pointer.as_deref(),
            Some("/params/modelPreferences/intelligencePriority")
        );
    }

    #[test]
    fn tool_blocks_and_block_lists_arrive_in_2025_11_25() {
        let tool_use = json!([{"type": "tool_use", "id": "1", "name": "t", "input": {}}]);
        let message = params(json!({}), tool_use);
        assert!(
            CREATE_MESSAGE
                .check_params(Some(&message), V2025_11_25)
                .is_empty()
        );
        let found = CREATE_MESSAGE.check_params(Some(&message), V2025_06_18);
        assert_eq!(found[0].requirement, cite::SAMP_002);
        let result = json!({"role": "assistant", "content": {"type": "audio", "data": "", "mimeType": "audio/wav"}, "model": "m"});
        assert!(!CREATE_MESSAGE.check_result(&result, V2024_11_05).is_empty());
        assert!(CREATE_MESSAGE.check_result(&result, V2025_03_26).is_empty());
    }
}
