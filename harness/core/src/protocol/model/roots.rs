//! Roots: the server asks the client which roots it exposes.

use super::common::{META, NOTIFICATION_PARAMS, REQUEST_PARAMS, RESULT_META_FIELD, STR, array};
use super::{Flow, MethodSpec, Side, notification, request};
use crate::protocol::shape::{Named, Shape, Versions, opt, req};

static ROOT: Shape = Shape::Named(&Named {
    name: "Root",
    requirement: "ROOT-002",
    shape: Shape::Object(&[req("uri", &STR), opt("name", &STR), META]),
});

static LIST_RESULT: Shape = Shape::Object(&[req("roots", &array(&ROOT)), RESULT_META_FIELD]);

pub(super) static LIST: MethodSpec = request(
    "roots/list",
    Flow::ServerToClient,
    Versions::LEGACY,
    opt("params", &REQUEST_PARAMS),
    &LIST_RESULT,
)
.gated(Side::Client, "roots", Versions::LEGACY, "LIST-006");

pub(super) static LIST_CHANGED: MethodSpec = notification(
    "notifications/roots/list_changed",
    Flow::ClientToServer,
    Versions::LEGACY,
    opt("params", &NOTIFICATION_PARAMS),
)
.gated(Side::Client, "roots.listChanged", Versions::LEGACY, "LIST-002");

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
        assert_eq!(found[0].requirement, "ROOT-002");
        assert!(LIST.direction.allows(crate::protocol::PeerRole::Server));
        assert!(!LIST.direction.allows(crate::protocol::PeerRole::Client));
    }
}
