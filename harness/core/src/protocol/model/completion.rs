//! Argument completion (`completion/complete`).

use super::common::{
    BOOL, INT, REQUEST_META_FIELD, RESULT_META_FIELD, RESULT_TYPE_FIELD, STR, STR_MAP, variant,
};
use super::{Flow, MethodSpec, Side, request};
use crate::protocol::cite;
use crate::protocol::shape::{Named, Shape, Tagged, Versions, opt, req};
use crate::version::ProtocolVersion::*;

/// The most values one completion result may hold.
pub(super) const MAX_VALUES: usize = 100;

static PROMPT_REF: Shape = Shape::Object(&[
    req("type", &Shape::Const("ref/prompt")),
    req("name", &STR),
    opt("title", &STR).since(V2025_06_18),
]);

static RESOURCE_REF: Shape = Shape::Object(&[req("type", &Shape::Const("ref/resource")), req("uri", &STR)]);

static PARAMS: Shape = Shape::Named(&Named {
    name: "CompleteRequestParams",
    requirement: cite::COMP_003,
    shape: Shape::Object(&[
        req(
            "ref",
            &Shape::Tagged(&Tagged {
                tag: "type",
                default: None,
                variants: &[
                    variant("ref/prompt", &PROMPT_REF),
                    variant("ref/resource", &RESOURCE_REF),
                ],
                requirement: None,
            }),
        ),
        req(
            "argument",
            &Shape::Object(&[req("name", &STR), req("value", &STR)]),
        ),
        opt("context", &Shape::Object(&[opt("arguments", &STR_MAP)])).since(V2025_06_18),
        REQUEST_META_FIELD,
    ]),
});

static RESULT: Shape = Shape::Object(&[
    req(
        "completion",
        &Shape::Named(&Named {
            name: "CompleteResult.completion",
            requirement: cite::COMP_002,
            shape: Shape::Object(&[
                req(
                    "values",
                    &Shape::Array {
                        items: &STR,
                        max_items: Some(MAX_VALUES),
                    },
                ),
                opt("total", &INT),
                opt("hasMore", &BOOL),
            ]),
        }),
    ),
    RESULT_META_FIELD,
    RESULT_TYPE_FIELD,
]);

/// Exists in every version; the `completions` capability gating it arrived
/// in 2025-03-26 (from 2026-07-28 it is declared by `server/discover`).
pub(super) static COMPLETE: MethodSpec = request(
    "completion/complete",
    Flow::ClientToServer,
    Versions::ALL,
    req("params", &PARAMS),
    &RESULT,
)
.gated(
    Side::Server,
    "completions",
    Versions::between(V2025_03_26, V2025_11_25),
    cite::COMP_001,
);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn refs_are_prompt_or_resource() {
        let good = json!({"ref": {"type": "ref/resource", "uri": "file:///{x}"}, "argument": {"name": "x", "value": "a"}});
        assert!(COMPLETE.check_params(Some(&good), V2024_11_05).is_empty());
        let bad = json!({"ref": {"type": "ref/tool", "name": "t"}, "argument": {"name": "x", "value": "a"}});
        assert_eq!(
            COMPLETE.check_params(Some(&bad), V2024_11_05)[0].requirement,
            cite::COMP_003
        );
    }

    #[test]
    fn at_most_a_hundred_values() {
        let values: Vec<String> = (0..=MAX_VALUES).map(|i| i.to_string()).collect();
        let found = COMPLETE.check_result(&json!({"completion": {"values": values}}), V2025_06_18);
        assert_eq!(found[0].requirement, cite::COMP_002);
        assert!(
            COMPLETE
                .check_result(&json!({"completion": {"values": ["a"], "total": 1}}), V2025_06_18)
                .is_empty()
        );
        let gate = COMPLETE.gate.expect("gated");
        assert!(!gate.versions.contains(V2024_11_05) && gate.versions.contains(V2025_03_26));
    }
}
