//! Logging: the client sets a level, the server sends log messages.

use super::common::{ANY, EMPTY_RESULT, LOGGING_LEVEL, NOTIFICATION_META_FIELD, REQUEST_META_FIELD, STR};
use super::{Flow, MethodSpec, Side, notification, request};
use crate::protocol::cite;
use crate::protocol::shape::{Named, Shape, Versions, opt, req};

static SET_LEVEL_PARAMS: Shape = Shape::Object(&[req("level", &LOGGING_LEVEL), REQUEST_META_FIELD]);

static MESSAGE_PARAMS: Shape = Shape::Named(&Named {
    name: "LoggingMessageNotificationParams",
    requirement: cite::LOG_002,
    shape: Shape::Object(&[
        req("level", &LOGGING_LEVEL),
        opt("logger", &STR),
        req("data", &ANY),
        NOTIFICATION_META_FIELD,
    ]),
});

pub(super) static SET_LEVEL: MethodSpec = request(
    "logging/setLevel",
    Flow::ClientToServer,
    Versions::LEGACY,
    req("params", &SET_LEVEL_PARAMS),
    &EMPTY_RESULT,
)
.gated(Side::Server, "logging", Versions::LEGACY, cite::LIST_006);

pub(super) static MESSAGE: MethodSpec = notification(
    "notifications/message",
    Flow::ServerToClient,
    Versions::ALL,
    req("params", &MESSAGE_PARAMS),
)
.gated(Side::Server, "logging", Versions::LEGACY, cite::LOG_001);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::version::ProtocolVersion::*;
    use serde_json::json;

    #[test]
    fn levels_are_the_syslog_eight() {
        assert!(
            SET_LEVEL
                .check_params(Some(&json!({"level": "notice"})), V2025_03_26)
                .is_empty()
        );
        let found = SET_LEVEL.check_params(Some(&json!({"level": "verbose"})), V2025_03_26);
        assert_eq!(found[0].requirement, cite::LOG_002);
    }

    #[test]
    fn messages_need_level_and_data() {
        assert!(
            MESSAGE
                .check_params(Some(&json!({"level": "error", "data": null})), V2024_11_05)
                .is_empty()
        );
        let found = MESSAGE.check_params(Some(&json!({"level": "error"})), V2024_11_05);
        assert_eq!(found.len(), 1);
        assert!(found[0].message.contains("`data`"));
    }
}
