//! Subscriptions (2026-07-28+): the client opens a listen stream with a
//! filter; the server acknowledges the part it honours, then sends only
//! those notifications, each tagged with the listen request's id.

use serde_json::Value;

use super::common::{
    BOOL, IMPLEMENTATION, NOTIFICATION_META_FIELD, REQUEST_ID, REQUEST_META_FIELD, RESULT_TYPE_FIELD,
    STR_ARRAY,
};
use super::{Flow, MethodSpec, notification, request};
use crate::protocol::cite;
use crate::protocol::meta_key;
use crate::protocol::shape::{Named, Shape, Versions, opt, req};
use crate::version::ProtocolVersion::*;

/// The notifications a listen stream opts into, and what each filter
/// member turns on.
pub const FILTER_MEMBERS: [(&str, &str); 3] = [
    ("toolsListChanged", "notifications/tools/list_changed"),
    ("promptsListChanged", "notifications/prompts/list_changed"),
    ("resourcesListChanged", "notifications/resources/list_changed"),
];

/// The filter member listing subscribed resource URIs.
pub const RESOURCE_SUBSCRIPTIONS: &str = "resourceSubscriptions";

/// The filter member listing tasks whose `notifications/tasks` the stream
/// wants (the tasks extension, TASKX-032).
pub const TASK_IDS: &str = "taskIds";

/// The notification a `resourceSubscriptions` filter member turns on.
pub const RESOURCE_UPDATED: &str = "notifications/resources/updated";

/// The server capabilities that promise something a listen stream carries:
/// a server declaring none of them (`resources: {}` alone) owes no stream.
pub const LISTEN_CAPABILITIES: [&str; 4] = [
    "tools.listChanged",
    "prompts.listChanged",
    "resources.listChanged",
    "resources.subscribe",
];

/// Whether server `capabilities` declare one of [`LISTEN_CAPABILITIES`].
pub fn promises_listen(capabilities: &Value) -> bool {
    LISTEN_CAPABILITIES.iter().any(|path| {
        path.split('.')
            .try_fold(capabilities, |v, key| v.get(key))
            .is_some_and(|flag| flag == &Value::Bool(true))
    })
}

/// Whether a listen stream opened with `filter` asked for notification
/// `method` (about `params`); `None` for a notification that does not
/// travel on listen streams.
pub fn asks_for(filter: &Value, method: &str, params: Option<&Value>) -> Option<bool> {
    if method == RESOURCE_UPDATED {
        let uri = params.and_then(|p| p.get("uri"));
        let listed = filter.get(RESOURCE_SUBSCRIPTIONS).and_then(Value::as_array);
        return Some(uri.is_some_and(|uri| listed.is_some_and(|l| l.contains(uri))));
    }
    let (member, _) = FILTER_MEMBERS.iter().find(|(_, m)| *m == method)?;
    Some(filter.get(member) == Some(&Value::Bool(true)))
}

static FILTER: Shape = Shape::Object(&[
    opt("toolsListChanged", &BOOL),
    opt("promptsListChanged", &BOOL),
    opt("resourcesListChanged", &BOOL),
    opt(RESOURCE_SUBSCRIPTIONS, &STR_ARRAY),
    opt(TASK_IDS, &STR_ARRAY),
]);

static LISTEN_PARAMS: Shape = Shape::Object(&[req("notifications", &FILTER), REQUEST_META_FIELD]);

static LISTEN_RESULT: Shape = Shape::Object(&[
    req(
        "_meta",
        &Shape::Object(&[
            opt(meta_key::SERVER_INFO, &IMPLEMENTATION),
            req(meta_key::SUBSCRIPTION_ID, &REQUEST_ID),
        ]),
    ),
    RESULT_TYPE_FIELD,
]);

static ACKNOWLEDGED_PARAMS: Shape = Shape::Named(&Named {
    name: "SubscriptionsAcknowledgedNotificationParams",
    requirement: cite::SUBS_001,
    shape: Shape::Object(&[req("notifications", &FILTER), NOTIFICATION_META_FIELD]),
});

pub(super) static LISTEN: MethodSpec = request(
    "subscriptions/listen",
    Flow::ClientToServer,
    Versions::since(V2026_07_28),
    req("params", &LISTEN_PARAMS),
    &LISTEN_RESULT,
);

pub(super) static ACKNOWLEDGED: MethodSpec = notification(
    "notifications/subscriptions/acknowledged",
    Flow::ServerToClient,
    Versions::since(V2026_07_28),
    req("params", &ACKNOWLEDGED_PARAMS),
);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_a_list_changed_or_subscribe_flag_promises_a_listen_stream() {
        assert!(promises_listen(&json!({"tools": {"listChanged": true}})));
        assert!(promises_listen(&json!({"resources": {"subscribe": true}})));
        assert!(!promises_listen(
            &json!({"resources": {}, "tools": {"listChanged": false}})
        ));
    }

    #[test]
    fn listen_needs_a_filter_and_its_result_the_subscription_id() {
        let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}});
        let params = json!({"notifications": {"toolsListChanged": true}, "_meta": meta});
        assert!(LISTEN.check_params(Some(&params), V2026_07_28).is_empty());
        assert!(
            !LISTEN
                .check_params(Some(&json!({"_meta": meta})), V2026_07_28)
                .is_empty()
        );
        let result =
            json!({"resultType": "complete", "_meta": {"io.modelcontextprotocol/subscriptionId": 3}});
        assert!(LISTEN.check_result(&result, V2026_07_28).is_empty());
        assert!(
            !LISTEN
                .check_result(&json!({"resultType": "complete"}), V2026_07_28)
                .is_empty()
        );
        let ack = ACKNOWLEDGED.check_params(Some(&json!({"notifications": []})), V2026_07_28);
        assert_eq!(ack[0].requirement, cite::SUBS_001);
    }

    #[test]
    fn a_filter_asks_for_the_lists_it_sets_and_the_resources_it_names() {
        let filter = json!({"toolsListChanged": true, "promptsListChanged": false,
            "resourceSubscriptions": ["file:///a"]});
        assert_eq!(
            asks_for(&filter, "notifications/tools/list_changed", None),
            Some(true)
        );
        assert_eq!(
            asks_for(&filter, "notifications/prompts/list_changed", None),
            Some(false)
        );
        assert_eq!(
            asks_for(&filter, "notifications/resources/list_changed", None),
            Some(false)
        );
        let about = |uri: &str| json!({"uri": uri});
        assert_eq!(
            asks_for(&filter, RESOURCE_UPDATED, Some(&about("file:///a"))),
            Some(true)
        );
        assert_eq!(
            asks_for(&filter, RESOURCE_UPDATED, Some(&about("file:///b"))),
            Some(false)
        );
        assert_eq!(asks_for(&filter, "notifications/progress", None), None);
    }
}
