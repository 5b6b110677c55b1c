//! Progress and cancellation notifications, sent by either side.

use super::common::{NOTIFICATION_META_FIELD, NUM, PROGRESS_TOKEN, REQUEST_ID, STR};
use super::{Flow, MethodSpec, notification};
use crate::protocol::cite;
use crate::protocol::shape::{Field, Named, Shape, Versions, opt, req};
use crate::version::ProtocolVersion::*;

static PROGRESS_PARAMS: Shape = Shape::Object(&[
    req("progressToken", &PROGRESS_TOKEN),
    req("progress", &NUM),
    opt("total", &NUM),
    opt("message", &STR).since(V2025_03_26),
    NOTIFICATION_META_FIELD,
]);

/// `requestId` became optional in 2025-11-25, where tasks are cancelled by
/// other means, and required again when tasks left the core in 2026-07-28.
const REQUEST_ID_FIELD: Field = Field {
    required: Some(Versions::between(V2024_11_05, V2025_06_18)),
    ..opt("requestId", &REQUEST_ID).until(V2025_11_25)
};

static CANCELLED_PARAMS: Shape = Shape::Named(&Named {
    name: "CancelledNotificationParams",
    requirement: cite::CANC_001,
    shape: Shape::Object(&[
        REQUEST_ID_FIELD,
        req("requestId", &REQUEST_ID).since(V2026_07_28),
        opt("reason", &STR),
        NOTIFICATION_META_FIELD,
    ]),
});

pub(super) static PROGRESS: MethodSpec = notification(
    "notifications/progress",
    Flow::Both,
    Versions::ALL,
    req("params", &PROGRESS_PARAMS),
);

pub(super) static CANCELLED: MethodSpec = notification(
    "notifications/cancelled",
    Flow::Both,
    Versions::ALL,
    req("params", &CANCELLED_PARAMS),
);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn progress_needs_token_and_number() {
        assert!(
            PROGRESS
                .check_params(Some(&json!({"progressToken": 7, "progress": 0.5})), V2024_11_05)
                .is_empty()
        );
        let found = PROGRESS.check_params(
            Some(&json!({"progressToken": null, "progress": "1"})),
            V2024_11_05,
        );
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].requirement, cite::PROG_001);
    }

    #[test]
    fn request_id_is_optional_from_2025_11_25() {
        let reason_only = json!({"reason": "bored"});
        assert!(!CANCELLED.check_params(Some(&reason_only), V2025_06_18).is_empty());
        assert!(CANCELLED.check_params(Some(&reason_only), V2025_11_25).is_empty());
    }
}
