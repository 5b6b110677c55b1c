//! The keys of a task's `inputRequests` over its life, as polls show them
//! (TASKX-018): a key stands for one request only, and once its answer was
//! taken it is never asked again. A key answered but still shown is not a
//! departure: `tasks/update` is acknowledged before the task need show it.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

#[derive(Debug, Default)]
pub(super) struct InputKeys {
    /// Every request shown, by key.
    shown: BTreeMap<String, Value>,
    /// Keys `tasks/update` answered.
    answered: BTreeSet<String>,
    /// Answered keys a later poll no longer showed: their answer was taken.
    taken: BTreeSet<String>,
}

fn requests(task: &Value) -> Option<&Map<String, Value>> {
    task.get("inputRequests").and_then(Value::as_object)
}

impl InputKeys {
    /// Takes one poll's task state; returns the departure it shows, if any.
    pub fn observe(&mut self, task: &Value) -> Option<String> {
        let empty = Map::new();
        let requests = requests(task).unwrap_or(&empty);
        let gone = self.answered.iter().filter(|k| !requests.contains_key(*k));
        self.taken.extend(gone.cloned().collect::<Vec<_>>());
        for (key, request) in requests {
            if self.taken.contains(key) {
                return Some(format!(
                    "inputRequests key {key:?} was answered, its answer taken (a poll no longer showed it), and it is used again for {request}"
                ));
            }
            match self.shown.get(key) {
                Some(before) if before != request => {
                    return Some(format!(
                        "inputRequests key {key:?} stood for {before} and now stands for {request}"
                    ));
                }
                Some(_) => {}
                None => {
                    self.shown.insert(key.clone(), request.clone());
                }
            }
        }
        None
    }

    /// Whether the task waits on us: it shows a request not answered yet,
    /// or no `inputRequests` at all (nothing to answer it with).
    pub fn awaited(&self, task: &Value) -> bool {
        requests(task).is_none_or(|r| r.keys().any(|k| !self.answered.contains(k)))
    }

    /// The task state with only the requests not answered yet.
    pub fn unanswered(&self, task: &Value) -> Value {
        let open: Map<String, Value> = requests(task)
            .into_iter()
            .flatten()
            .filter(|(k, _)| !self.answered.contains(*k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        json!({ "inputRequests": open })
    }

    pub fn any_answered(&self) -> bool {
        !self.answered.is_empty()
    }

    pub fn answer(&mut self, keys: impl IntoIterator<Item = String>) {
        self.answered.extend(keys);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asking(requests: Value) -> Value {
        json!({ "status": "input_required", "inputRequests": requests })
    }

    #[test]
    fn an_answered_key_may_linger_but_never_come_back_or_change() {
        let question = json!({ "method": "elicitation/create", "params": { "message": "name?" } });
        let mut keys = InputKeys::default();
        assert_eq!(keys.observe(&asking(json!({ "q": question }))), None);
        assert!(keys.awaited(&asking(json!({ "q": question }))));
        keys.answer(["q".to_owned()]);
        assert!(!keys.awaited(&asking(json!({ "q": question }))));
        assert_eq!(
            keys.observe(&asking(json!({ "q": question }))),
            None,
            "not taken yet"
        );
        assert_eq!(keys.observe(&json!({ "status": "working" })), None);
        assert!(
            keys.observe(&asking(json!({ "q": question }))).is_some(),
            "asked again"
        );

        let mut keys = InputKeys::default();
        keys.observe(&asking(json!({ "q": question })));
        let other = json!({ "method": "elicitation/create", "params": { "message": "age?" } });
        assert!(
            keys.observe(&asking(json!({ "q": other }))).is_some(),
            "two requests"
        );
        assert_eq!(
            keys.unanswered(&asking(json!({ "q": other }))),
            json!({ "inputRequests": { "q": other } })
        );
    }
}
