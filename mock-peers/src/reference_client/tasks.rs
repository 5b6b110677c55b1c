//! Tool calls run as tasks. On 2025-11-25 a call is augmented with
//! `params.task` only when the server lists `tasks.requests.tools.call` and
//! the tool's `execution.taskSupport` allows it (TASK-001, TASK-002); the
//! task is polled with `tasks/get` no faster than the latest `pollInterval`
//! until it is terminal, then its outcome is fetched once with
//! `tasks/result` and polling stops (TASK-010). From 2026-07-28 the client
//! opts in to the tasks extension on every request when the server
//! declares it (TASKX-001), takes a `resultType: "task"` answer as the
//! call's (TASKX-005), and polls by `pollIntervalMs` until the status is
//! terminal, the outcome inlined (TASKX-028).

use std::collections::HashSet;
use std::time::Duration;

use mcp_conform_core::protocol::capability_declared;
use mcp_conform_core::protocol::tasks::TaskStatus;
use mcp_conform_core::protocol::tasks_extension::{EXTENSION, declares_extension};
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

/// The client's capabilities for a server that declared
/// `server_capabilities`: opted in to the tasks extension where the server
/// has it, unless the plan `withholds` tasks.
pub(super) fn opted_in(mut capabilities: Value, server_capabilities: &Value, withheld: bool) -> Value {
    if declares_extension(Some(server_capabilities)) && !withheld {
        capabilities["extensions"][EXTENSION] = json!({});
    }
    capabilities
}

/// Which era's task a call's answer created.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Flavor {
    /// A 2025-11-25 `CreateTaskResult`: the task in `task`.
    Utility,
    /// The extension's: `resultType: "task"`, the task at the top.
    Extension,
}

impl Flavor {
    /// The member that suggests the poll interval.
    fn interval_member(self) -> &'static str {
        match self {
            Flavor::Utility => "pollInterval",
            Flavor::Extension => "pollIntervalMs",
        }
    }
}

/// The task a call's answer created, if it is a `CreateTaskResult`.
pub(super) fn created(response: &Value) -> Option<(Value, Flavor)> {
    if let Some(task) = response.pointer("/result/task").filter(|task| task.is_object()) {
        return Some((task.clone(), Flavor::Utility));
    }
    let result = response.get("result")?;
    (result.get("resultType") == Some(&json!("task"))).then(|| (result.clone(), Flavor::Extension))
}

/// The status a task answer shows.
fn status(task: &Value) -> Option<TaskStatus> {
    task.get("status")
        .and_then(Value::as_str)
        .and_then(TaskStatus::parse)
}

/// How long the server asks the client to wait between polls.
fn interval(task: &Value, flavor: Flavor) -> Duration {
    task.get(flavor.interval_member())
        .and_then(Value::as_u64)
        .map_or(DEFAULT_POLL, Duration::from_millis)
}

impl Host {
    /// Follows the task `task` to its end, and on 2025-11-25 fetches its
    /// outcome (the extension inlines it in the last poll).
    pub(super) async fn follow_task(&mut self, task: &Value, flavor: Flavor) -> Result<(), String> {
        let id = task.get("taskId").cloned().unwrap_or(Value::Null);
        let give_up = Instant::now() + TASK_BUDGET;
        let mut latest = task.clone();
        let mut answered = HashSet::new();
        while !status(&latest).is_some_and(TaskStatus::is_terminal) {
            if Instant::now() >= give_up {
                return Ok(());
            }
            if flavor == Flavor::Extension && status(&latest) == Some(TaskStatus::InputRequired) {
                let updated = self.answer_task_input(&id, &latest, &mut answered).await?;
                if updated && self.fault == Some(ClientFault::ModernTaskStopsAfterUpdate) {
                    return Ok(());
                }
            }
            let wait = match self.fault {
                Some(ClientFault::TaskPollsFast | ClientFault::ModernTaskPollsFast) => {
                    interval(&latest, flavor) / 10
                }
                _ => interval(&latest, flavor),
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
        if flavor == Flavor::Extension {
            return Ok(());
        }
        self.call("tasks/result", json!({"taskId": id}), ANSWER_TIMEOUT)
            .await
            .map(drop)
    }

    /// Answers with `tasks/update` the questions an input-required task of
    /// the extension shows, each key once (TASKX-019, TASKX-020): a key
    /// answered before may still show until the server catches up. True
    /// when an update was sent.
    async fn answer_task_input(
        &mut self,
        id: &Value,
        task: &Value,
        answered: &mut HashSet<String>,
    ) -> Result<bool, String> {
        let mut unanswered = task.clone();
        if let Some(requests) = unanswered.get_mut("inputRequests").and_then(Value::as_object_mut)
            && self.fault != Some(ClientFault::ModernTaskAnswersTwice)
        {
            requests.retain(|key, _| !answered.contains(key));
        }
        let index = self.session.transcript().len().saturating_sub(1);
        let (mut responses, _) = self
            .session
            .answer_input_requests(&unanswered, index, &mut self.answers);
        if responses.is_empty() {
            return Ok(false);
        }
        answered.extend(responses.keys().cloned());
        if self.fault == Some(ClientFault::ModernTaskUnknownKey) {
            responses.insert("mcp-conform-never-asked".into(), json!({"action": "decline"}));
        }
        self.call(
            "tasks/update",
            json!({"taskId": id, "inputResponses": responses}),
            ANSWER_TIMEOUT,
        )
        .await
        .map(|_| true)
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

    #[test]
    fn the_extension_is_declared_only_to_a_server_that_has_it() {
        let server = json!({"extensions": {EXTENSION: {}}});
        let declared = opted_in(json!({"sampling": {}}), &server, false);
        assert_eq!(declared, json!({"sampling": {}, "extensions": {EXTENSION: {}}}));
        assert_eq!(opted_in(json!({}), &server, true), json!({}));
        assert_eq!(opted_in(json!({}), &json!({"tools": {}}), false), json!({}));
    }

    #[test]
    fn a_task_answer_is_read_in_its_era() {
        let utility = json!({"result": {"task": {"taskId": "t"}}});
        assert_eq!(created(&utility), Some((json!({"taskId": "t"}), Flavor::Utility)));
        let extension = json!({"result": {"resultType": "task", "taskId": "t"}});
        let (task, flavor) = created(&extension).unwrap();
        assert_eq!((task["taskId"].as_str(), flavor), (Some("t"), Flavor::Extension));
        assert_eq!(
            created(&json!({"result": {"resultType": "complete", "content": []}})),
            None
        );
        assert_eq!(
            interval(&json!({"pollIntervalMs": 7}), Flavor::Extension),
            Duration::from_millis(7)
        );
        assert_eq!(
            interval(&json!({"pollIntervalMs": 7}), Flavor::Utility),
            DEFAULT_POLL
        );
    }
}
