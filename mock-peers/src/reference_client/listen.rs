//! Re-listing in the stateless era: list changes come only on a
//! `subscriptions/listen` stream the client opened for them, and on stdio,
//! where every stream shares the one channel, a notification belongs to the
//! stream its `subscriptionId` names (SUBS-004).

use mcp_conform_core::protocol::meta_key::SUBSCRIPTION_ID;
use serde_json::{Map, Value, json};

use crate::session::Received;

pub(super) const LISTEN: &str = "subscriptions/listen";
const ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";

/// The listen filter for the lists the plan walks whose changes the server
/// announces (`listChanged` in its capabilities); `None` when there are none.
pub(super) fn filter(nouns: &[String], server_capabilities: &Value) -> Option<Value> {
    let announced = nouns
        .iter()
        .filter(|noun| server_capabilities.pointer(&format!("/{noun}/listChanged")) == Some(&json!(true)))
        .map(|noun| (format!("{noun}ListChanged"), json!(true)));
    let filter: Map<String, Value> = announced.collect();
    (!filter.is_empty()).then(|| Value::Object(filter))
}

/// Whether the stream of listen request `id` was acknowledged.
pub(super) fn acknowledged(notifications: &[Received], id: &Value) -> bool {
    notifications
        .iter()
        .any(|n| n.method() == Some(ACKNOWLEDGED) && belongs_to(&n.message, id))
}

/// Whether `notification` came on the stream of listen request `id`.
pub(super) fn belongs_to(notification: &Value, id: &Value) -> bool {
    notification
        .get("params")
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(SUBSCRIPTION_ID))
        == Some(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nouns(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn the_filter_asks_for_the_announced_lists_the_plan_walks() {
        let capabilities =
            json!({"tools": {"listChanged": true}, "prompts": {}, "resources": {"listChanged": true}});
        assert_eq!(
            filter(&nouns(&["tools", "prompts"]), &capabilities),
            Some(json!({"toolsListChanged": true}))
        );
        assert_eq!(
            filter(&nouns(&["resources", "tools"]), &capabilities),
            Some(json!({"resourcesListChanged": true, "toolsListChanged": true}))
        );
        assert_eq!(filter(&nouns(&["prompts"]), &capabilities), None);
    }

    #[test]
    fn a_notification_belongs_to_the_stream_its_subscription_id_names() {
        let tagged = |id: Value| json!({"method": "notifications/tools/list_changed", "params": {"_meta": {SUBSCRIPTION_ID: id}}});
        assert!(belongs_to(&tagged(json!(4)), &json!(4)));
        assert!(!belongs_to(&tagged(json!(5)), &json!(4)));
        assert!(!belongs_to(&tagged(json!("4")), &json!(4)));
        assert!(!belongs_to(
            &json!({"method": "notifications/tools/list_changed"}),
            &json!(4)
        ));
        let ack = Received {
            index: 0,
            message: json!({"method": ACKNOWLEDGED, "params": {"notifications": {}, "_meta": {SUBSCRIPTION_ID: 4}}}),
        };
        assert!(acknowledged(std::slice::from_ref(&ack), &json!(4)));
        assert!(!acknowledged(&[ack], &json!(3)));
    }
}
