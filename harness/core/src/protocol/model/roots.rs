//! Roots: the server asks the client which roots it exposes.

use super::common::{META, NOTIFICATION_PARAMS, RESULT_META_FIELD, SERVER_REQUEST_PARAMS, STR, array};
use super::{Flow, MethodSpec, Side, input_request, notification, request};
use crate::protocol::cite;
use crate::protocol::shape::{Named, Shape, Versions, opt, req};
use crate::version::ProtocolVersion::V2026_07_28;

static ROOT: Shape = Shape::Named(&Named {
    name: "Root",
    requirement: cite::ROOT_002,
    shape: Shape::Object(&[req("uri", &STR), opt("name", &STR), META]),
});

/// The result, and from 2026-07-28 the input response.
pub(super) static LIST_RESULT: Shape = Shape::Object(&[req("roots", &array(&ROOT)), RESULT_META_FIELD]);

pub(super) static LIST: MethodSpec = request(
    "roots/list",
    Flow::ServerToClient,
    Versions::LEGACY,
    opt("params", &SERVER_REQUEST_PARAMS),
    &LIST_RESULT,
)
.gated(Side::Client, "roots", Versions::LEGACY, cite::LIST_006);

pub(super) static LIST_INPUT: MethodSpec =
    input_request("roots/list", opt("params", &SERVER_REQUEST_PARAMS), &LIST_RESULT).gated(
        Side::Client,
        "roots",
        Versions::since(V2026_07_28),
        cite::MRTR_004,
    );

pub(super) static LIST_CHANGED: MethodSpec = notification(
    "notifications/roots/list_changed",
    Flow::ClientToServer,
    Versions::LEGACY,
    opt("params", &NOTIFICATION_PARAMS),
)
.gated(
    Side::Client,
    "roots.listChanged",
    Versions::LEGACY,
    cite::LIST_002,
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::version::ProtocolVersion::*;
    use serde_json::json;

    #[test]
    fn roots_have_a_uri() {
        assert!(
            LIST.check_result(
                &json!({"roots": [{"uri": "file:///w", "name": "w"}]}),
                V2024_11_05
            )
            .is_empty()
        );
        let found = LIST.check_result(&json!({"roots": [{"name": "w"}]}), V2024_11_05);
        assert_eq!(found[0].requirement, cite::ROOT_002);
        assert!(LIST.direction.allows(crate::protocol::PeerRole::Server));
        assert!(!LIST.direction.allows(crate::protocol::PeerRole::Client));
    }
}
