//! A server answers with a `CreateTaskResult` only once the task is stored,
//! so a `tasks/get` sent straight afterwards finds it (TASKX-008).

use serde_json::Value;

use super::{Check, summarize};
use crate::Level;
use crate::protocol::cite;
use crate::span::Span;

const NAME: &str = "the task can be polled as soon as it is created";

/// Judges the `response` to the `tasks/get` for `task_id` sent straight
/// after its creation: any result passes, an error fails.
pub fn polled_at_once(task_id: &Value, response: &Value, span: Span) -> Check {
    if response.get("result").is_some() {
        return Check::pass(NAME, cite::TASKX_008, Level::Must, span);
    }
    let message = format!(
        "tasks/get for task {task_id}, sent straight after it was created: {}",
        summarize(response)
    );
    Check::broken(NAME, cite::TASKX_008, Level::Must, span, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Verdict;
    use serde_json::json;

    #[test]
    fn an_unknown_fresh_task_fails() {
        let found = json!({"result": {"taskId": "t1", "status": "working"}});
        assert_eq!(
            polled_at_once(&json!("t1"), &found, Span::default()).verdict,
            Verdict::Pass
        );
        let missing = json!({"error": {"code": -32602, "message": "no such task"}});
        let check = polled_at_once(&json!("t1"), &missing, Span::default());
        assert_eq!(
            (check.verdict, check.requirement.as_str()),
            (Verdict::Fail, "TASKX-008")
        );
    }
}
