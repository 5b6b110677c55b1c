//! The `task` step under the tasks extension (2026-07-28): the request
//! opts in through its own `clientCapabilities`, and so does every poll
//! (TASKX-015); the outcome is the `result` or `error` the terminal
//! `tasks/get` inlines (TASKX-010).

use mcp_conform_core::judge::{summarize, task_stored};
use mcp_conform_core::protocol::meta_key::CLIENT_CAPABILITIES;
use mcp_conform_core::protocol::tasks::TaskStatus;
use mcp_conform_core::protocol::tasks_extension::{EXTENSION, is_task_result};
use mcp_conform_core::scenario::model::TaskStep;
use mcp_conform_core::{Level, Verdict};
use serde_json::{Value, json};
use tokio::time::Instant;

use super::input_keys::InputKeys;
use super::{StepRunner, Stop};
use crate::runner::outcome::Check;
use crate::runner::verify::check_response;

/// What the underlying request would have answered, as a response: the
/// inlined `result` of a completed task, the `error` of a failed one.
fn outcome(task: &Value) -> Value {
    let status = task
        .get("status")
        .and_then(Value::as_str)
        .and_then(TaskStatus::parse);
    match status {
        Some(TaskStatus::Completed) => json!({"result": task.get("result")}),
        Some(TaskStatus::Failed) => json!({"error": task.get("error")}),
        _ => json!({}),
    }
}

impl<'s> StepRunner<'s> {
    /// `params` with this session's client capabilities plus the extension
    /// in their `_meta`.
    pub(in crate::runner::steps) fn opted_in(&self, mut params: Value) -> Value {
        let mut capabilities = self
            .session
            .envelope()
            .map_or_else(|| json!({}), |envelope| envelope.capabilities.clone());
        capabilities["extensions"][EXTENSION] = json!({});
        params["_meta"][CLIENT_CAPABILITIES] = capabilities;
        params
    }

    pub(super) async fn extension_task(&mut self, step: &'s TaskStep) -> Stop {
        let tag = &step.tag;
        let params = match self.render(step.params.as_ref()) {
            Ok(params) => params,
            Err(stop) => return stop,
        };
        let params = match step.progress {
            true => self.with_progress_token(params, None),
            false => params.unwrap_or_else(|| json!({})),
        };
        let params = self.opted_in(params);
        let before = self.session.peer_requests().len();
        let response = match self.task_request(&step.method, params, step, step.timeout).await {
            Ok(response) => response,
            Err(stop) => return stop,
        };
        let Some(mut task) = response.get("result").filter(|r| is_task_result(r)).cloned() else {
            return match response.get("result") {
                // Creating a task is the server's choice (TASKX-004).
                Some(_) => Stop::halted(
                    Verdict::NotApplicable,
                    "the server answered the opted-in call without a task, as the extension lets it (TASKX-004)",
                ),
                None => {
                    let message = format!("no task was created: {}", summarize(&response));
                    self.checks.push(Check::broken_for("task created", tag, message));
                    Stop::Done
                }
            };
        };
        let task_id = self.note_created(step, &task);
        if let Err(stop) = self.poll_at_once(step, &task_id, &mut task).await {
            return stop;
        }
        let mut seen = Vec::new();
        let mut inputs = InputKeys::default();
        let deadline = Instant::now() + step.within;
        let followed = self
            .poll(step, &task_id, &mut task, deadline, &mut seen, &mut inputs)
            .await;
        self.check_required_answers(&step.answers, before);
        if let Err(stop) = followed {
            return stop;
        }
        if inputs.any_answered() {
            let check = Check::pass("task input keys", "TASKX-018", Level::Must, tag.span);
            self.checks.push(check);
        }
        self.checks.push(match &step.expect {
            Some(expect) => check_response("task outcome".into(), expect, &outcome(&task), &mut self.ctx),
            None => Check::pass_for("task outcome", tag),
        });
        self.check_statuses(step, &seen);
        Stop::Done
    }

    /// Answers the input requests `task` shows and were not answered yet
    /// from the step's answers, with `tasks/update`. A script that gives up
    /// on an input leaves the task waiting: the rest is not-applicable.
    pub(super) async fn answer_task_input(
        &mut self,
        step: &'s TaskStep,
        task_id: &Value,
        task: &Value,
        inputs: &mut InputKeys,
    ) -> Result<(), Stop> {
        let (responses, give_up) = self.answer_inlined(&inputs.unanswered(task), &step.answers);
        if give_up || responses.is_empty() {
            let note = "the scenario leaves the task's input unanswered, so it cannot be followed to its end";
            return Err(Stop::halted(Verdict::NotApplicable, note));
        }
        inputs.answer(responses.keys().cloned());
        let update = self.opted_in(json!({"taskId": task_id, "inputResponses": responses}));
        self.task_answer("tasks/update", update, step, step.timeout)
            .await
            .map(drop)
    }

    /// A `tasks/get` sent straight after the `CreateTaskResult` finds the
    /// task (TASKX-008); the state it shows replaces the created one.
    async fn poll_at_once(
        &mut self,
        step: &'s TaskStep,
        task_id: &Value,
        task: &mut Value,
    ) -> Result<(), Stop> {
        let params = self.opted_in(json!({"taskId": task_id}));
        let response = self.task_request("tasks/get", params, step, step.timeout).await?;
        let check = task_stored::polled_at_once(task_id, &response, step.tag.span);
        let stored = check.verdict == Verdict::Pass;
        self.checks.push(check);
        match response.get("result").filter(|_| stored) {
            Some(state) => {
                *task = state.clone();
                Ok(())
            }
            None => Err(Stop::Done),
        }
    }
}
