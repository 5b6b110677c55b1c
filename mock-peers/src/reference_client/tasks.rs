//! Tool calls run as tasks (2025-11-25): a call is augmented with
//! `params.task` only when the server lists `tasks.requests.tools.call` and
//! the tool's `execution.taskSupport` allows it (TASK-001, TASK-002); the
//! task is polled with `tasks/get` no faster than the latest `pollInterval`
//! until it is terminal, then its outcome is fetched once with
//! `tasks/result` and polling stops (TASK-010).

use std::time::Duration;

use mcp_conform_core::protocol::capability_declared;
use mcp_conform_core::protocol::tasks::TaskStatus;
use serde_json::{Value, json};
use tokio::time::Instant;

use super::{ANSWER_TIMEOUT, ClientFault, Host};
use crate::session::WaitError;

/// The poll interval when the server suggests none.
const DEFAULT_POLL: Duration = Duration::from_millis(500);
/// How long a task may run before the client stops following it.
const TASK_BUDGET: Duration = Duration::from_secs(30);
/// The lifetime the client asks for its tasks.
const TTL_MS: u64 = 60_000;

/// Whether a call of a tool whose `execution.taskSupport` is `support` goes
/// out as a task, to a server that declared `server_capabilities`.
pub(super) fn augments(
    server_capabilities: &Value,
    support: Option<&str>,
    fault: Option<ClientFault>,
) -> bool {
    if !capability_declared(server_capabilities, "tasks.requests.tools.call") {
        return false;
    }
    fault == Some(ClientFault::TaskForbiddenTool) || matches!(support, Some("optional" | "required"))
}

/// The `task` member of an augmented call.
pub(super) fn request() -> Value {
    json!({"ttl": TTL_MS})
}

/// The task a call's answer created, if it is a `CreateTaskResult`.
pub(super) fn created(response: &Value) -> Option<&Value> {
    response.pointer("/result/task").filter(|task| task.is_object())
}

/// The status a task answer shows.
fn status(task: &Value) -> Option<TaskStatus> {
    task.get("status")
        .and_then(Value::as_str)
        .and_then(TaskStatus::parse)
}

/// How long the server asks the client to wait between polls.
fn interval(task: &Value) -> Duration {
    task.get("pollInterval")
        .and_then(Value::as_u64)
        .map_or(DEFAULT_POLL, Duration::from_millis)
}

impl Host {
    /// Follows the task `task` (its `CreateTaskResult` member) to its end
    /// and fetches its outcome.
    pub(super) async fn follow_task(&mut self, task: &Value) -> Result<(), String> {
        let id = task.get("taskId").cloned().unwrap_or(Value::Null);
        let give_up = Instant::now() + TASK_BUDGET;
        let mut latest = task.clone();
        while !status(&latest).is_some_and(TaskStatus::is_terminal) {
            if Instant::now() >= give_up {
                return Ok(());
            }
            let wait = match self.fault {
                Some(ClientFault::TaskPollsFast) => interval(&latest) / 10,
                _ => interval(&latest),
            };
            self.pause(Instant::now() + wait).await?;
            let answer = self
                .call("tasks/get", json!({"taskId": id}), ANSWER_TIMEOUT)
                .await?;
            match answer.get("result") {
                Some(result) => latest = result.clone(),
                None => return Ok(()),
            }
        }
        if self.fault == Some(ClientFault::TaskPollsPastEnd) {
            self.send("tasks/get", json!({"taskId": id})).await?;
        }
        self.call("tasks/result", json!({"taskId": id}), ANSWER_TIMEOUT)
            .await
            .map(drop)
    }

    /// Serves the server until `until`, walking again any list it says
    /// changed meanwhile.
    async fn pause(&mut self, until: Instant) -> Result<(), String> {
        loop {
            match self.serve(None, until).await {
                Ok(_) => {
                    for noun in std::mem::take(&mut self.relist) {
                        self.walk(&noun).await?;
                    }
                }
                Err(WaitError::TimedOut) => return Ok(()),
                Err(other) => return Err(format!("{other:?}")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_declared_request_of_a_tool_that_allows_it_is_augmented() {
        let declared = json!({"tasks": {"requests": {"tools": {"call": {}}}}});
        assert!(augments(&declared, Some("optional"), None));
        assert!(augments(&declared, Some("required"), None));
        assert!(!augments(&declared, Some("forbidden"), None));
        assert!(!augments(&declared, None, None));
        assert!(!augments(&json!({"tasks": {"list": {}}}), Some("optional"), None));
        let broken = Some(ClientFault::TaskForbiddenTool);
        assert!(augments(&declared, None, broken));
        assert!(!augments(&json!({}), None, broken));
    }
}
