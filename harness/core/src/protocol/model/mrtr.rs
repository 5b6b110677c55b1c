//! Multi round-trip requests (2026-07-28+): a `tools/call`, `prompts/get`
//! or `resources/read` may answer with an `InputRequiredResult` holding
//! input requests and/or opaque state; the client retries with its input
//! responses and the state echoed back.

use serde_json::Value;

use super::common::{RESULT_META_FIELD, STR};
use super::{MethodKind, elicitation, method_in, roots, sampling};
use crate::json::pointer_member;
use crate::protocol::cite;
use crate::protocol::shape::{Alt, Field, Named, Shape, Versions, opt};
use crate::protocol::violation::Violation;
use crate::version::ProtocolVersion::{self, *};

/// The `resultType` of an interim result.
pub const INPUT_REQUIRED: &str = "input_required";

static INPUT_REQUIRED_RESULT: Shape = Shape::Named(&Named {
    name: "InputRequiredResult",
    requirement: cite::MRTR_003,
    shape: Shape::Object(&[
        opt("inputRequests", &Shape::Map(&Shape::Any)),
        opt("requestState", &STR),
        RESULT_META_FIELD,
    ]),
});

/// What a client may answer to an input request.
static INPUT_RESPONSE: Shape = Shape::Named(&Named {
    name: "InputResponse",
    requirement: cite::MRTR_006,
    shape: Shape::AnyOf(&[
        Alt {
            versions: Versions::ALL,
            shape: &sampling::RESULT,
        },
        Alt {
            versions: Versions::ALL,
            shape: &roots::LIST_RESULT,
        },
        Alt {
            versions: Versions::ALL,
            shape: &elicitation::RESULT,
        },
    ]),
});

static INPUT_RESPONSES: Shape = Shape::Map(&INPUT_RESPONSE);

/// `inputResponses` of a retried request.
pub(super) const INPUT_RESPONSES_FIELD: Field = opt("inputResponses", &INPUT_RESPONSES).since(V2026_07_28);

/// `requestState` of a retried request, echoed unchanged.
pub(super) const REQUEST_STATE_FIELD: Field = opt("requestState", &STR).since(V2026_07_28);

/// Whether a result is an interim `InputRequiredResult`.
pub fn is_input_required(result: &Value) -> bool {
    result.get("resultType").and_then(Value::as_str) == Some(INPUT_REQUIRED)
}

/// The input requests of an `InputRequiredResult`, by key, with their method.
pub fn input_requests(result: &Value) -> impl Iterator<Item = (&str, Option<&str>, &Value)> {
    result
        .get("inputRequests")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(key, request)| {
            (
                key.as_str(),
                request.get("method").and_then(Value::as_str),
                request,
            )
        })
}

/// Every rule an `InputRequiredResult` breaks: it holds input requests or
/// state (MRTR-002), and each input request is a sampling, elicitation or
/// roots request of the version (MRTR-003) that carries no progress token,
/// which only clients send (PROG-001).
pub(super) fn check_input_required(result: &Value, version: ProtocolVersion) -> Vec<Violation> {
    let mut out = INPUT_REQUIRED_RESULT.check(result, version, "/result");
    if result.get("inputRequests").is_none() && result.get("requestState").is_none() {
        let message = "an InputRequiredResult with neither `inputRequests` nor `requestState`";
        out.push(Violation::must(cite::MRTR_002, message).at("/result"));
    }
    for (key, method, request) in input_requests(result) {
        let at = pointer_member("/result/inputRequests", key);
        let spec = method
            .and_then(|m| method_in(m, version))
            .filter(|spec| spec.kind == MethodKind::InputRequest);
        let Some(spec) = spec else {
            let message = format!(
                "input request `{key}` is not an elicitation/create, sampling/createMessage or roots/list request (method {})",
                method.map_or("missing".to_owned(), |m| format!("`{m}`"))
            );
            out.push(Violation::must(cite::MRTR_003, message).at(at));
            continue;
        };
        let params = request.get("params");
        out.extend(spec.check_params_at(params, version, &format!("{at}/params")));
        if params.and_then(|p| p.pointer("/_meta/progressToken")).is_some() {
            let message = format!("input request `{key}` carries a progress token; only clients send them");
            out.push(Violation::must(cite::PROG_001, message).at(format!("{at}/params/_meta/progressToken")));
        }
    }
    out
}
