//! How a client answers the input requests of its extension tasks
//! (TASKX-019, TASKX-020): each key of a `tasks/update`'s `inputResponses`
//! is one the server has shown for that task, and no request is answered
//! twice.
//!
//! A key the server showed once and no longer shows is not judged: the
//! server may have moved on while the client answered the state it had
//! read, and the order of frames cannot say which state that was.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::Level;
use crate::json::pointer_member;
use crate::protocol::cite;
use crate::protocol::violation::Violation;

/// What the checker knows of one task's input requests.
#[derive(Debug, Default)]
struct TaskInputs {
    /// The request each key stood for when the server last showed it.
    shown: HashMap<String, Value>,
    /// The request each key stood for when the client answered it.
    answered: HashMap<String, Option<Value>>,
}

/// The input requests of the extension's tasks, by task id.
#[derive(Debug, Default)]
pub(in crate::protocol) struct InputAnswers {
    tasks: HashMap<String, TaskInputs>,
}

fn input_requests(task: &Value) -> Option<&Map<String, Value>> {
    task.get("inputRequests").and_then(Value::as_object)
}

impl InputAnswers {
    /// The server showed the state `task` (a `tasks/get` answer, a
    /// `CreateTaskResult`, a `notifications/tasks`).
    pub fn shown(&mut self, task: &Value) {
        let Some(id) = task.get("taskId").and_then(Value::as_str) else {
            return;
        };
        let inputs = self.tasks.entry(id.to_owned()).or_default();
        for (key, request) in input_requests(task).into_iter().flatten() {
            inputs.shown.insert(key.clone(), request.clone());
        }
    }

    /// Judges a client's `tasks/update`: every key answers a request the
    /// server showed for the task (TASKX-020), and none a request the client
    /// answered before (TASKX-019: a request still shown after its answer
    /// may just not be processed yet). A task never shown is not judged.
    pub fn updated(&mut self, params: Option<&Value>, out: &mut Vec<Violation>) {
        let task = params.and_then(|p| p.get("taskId")).and_then(Value::as_str);
        let Some(inputs) = task.and_then(|id| self.tasks.get_mut(id)) else {
            return;
        };
        let task = task.unwrap_or_default();
        let responses = params
            .and_then(|p| p.get("inputResponses"))
            .and_then(Value::as_object);
        for key in responses.into_iter().flat_map(Map::keys) {
            let at = pointer_member("/params/inputResponses", key);
            let request = inputs.shown.get(key);
            if request.is_none() {
                let message = format!(
                    "task {task:?} was sent an answer for input key {key:?}, which its inputRequests never showed"
                );
                out.push(Violation::must(cite::TASKX_020, message).at(at));
            } else if inputs
                .answered
                .get(key)
                .is_some_and(|before| before.as_ref() == request)
            {
                let message = format!("task {task:?} was sent a second answer for input key {key:?}");
                out.push(Violation::new(cite::TASKX_019, Level::Should, message).at(at));
            }
            inputs.answered.insert(key.clone(), request.cloned());
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::requirements::RequirementId;

    const NONE: [RequirementId; 0] = [];

    fn asking(keys: Value) -> Value {
        json!({"taskId": "t1", "status": "input_required", "inputRequests": keys})
    }

    fn update(answers: &mut InputAnswers, task: &str, keys: &[&str]) -> Vec<RequirementId> {
        let responses: Map<String, Value> = keys
            .iter()
            .map(|k| ((*k).to_owned(), json!({"action": "accept"})))
            .collect();
        let params = json!({"taskId": task, "inputResponses": responses});
        let mut out = Vec::new();
        answers.updated(Some(&params), &mut out);
        out.iter().map(|v| v.requirement).collect()
    }

    #[test]
    fn each_shown_key_is_answered_once() {
        let name = json!({"method": "elicitation/create", "params": {"message": "name?"}});
        let city = json!({"method": "elicitation/create", "params": {"message": "city?"}});
        let mut answers = InputAnswers::default();
        answers.shown(&asking(json!({"name": name})));
        assert_eq!(update(&mut answers, "t1", &["name"]), NONE);
        answers.shown(&asking(json!({"name": name, "city": city})));
        assert_eq!(update(&mut answers, "t1", &["city"]), NONE, "the new key only");
        assert_eq!(
            update(&mut answers, "t1", &["name"]),
            [cite::TASKX_019],
            "answered twice"
        );
        assert_eq!(
            update(&mut answers, "t1", &["age"]),
            [cite::TASKX_020],
            "never shown"
        );
        assert_eq!(update(&mut answers, "t2", &["age"]), NONE, "a task never shown");
    }

    #[test]
    fn a_key_shown_for_a_new_request_may_be_answered_again() {
        let mut answers = InputAnswers::default();
        answers.shown(&asking(
            json!({"q": {"method": "elicitation/create", "params": {"message": "a"}}}),
        ));
        assert_eq!(update(&mut answers, "t1", &["q"]), NONE);
        // The server broke TASKX-018; the client answers what it was shown.
        answers.shown(&asking(
            json!({"q": {"method": "elicitation/create", "params": {"message": "b"}}}),
        ));
        assert_eq!(update(&mut answers, "t1", &["q"]), NONE);
        answers.shown(&json!({"taskId": "t1", "status": "working"}));
        assert_eq!(
            update(&mut answers, "t1", &["q"]),
            [cite::TASKX_019],
            "no longer shown, answered before"
        );
    }
}
