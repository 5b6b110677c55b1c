//! The `task` step: a request run as a task, polled to its end. In
//! 2025-11-25 the request asks for a task (`params.task`) and its outcome
//! comes from `tasks/result`; with the tasks extension (2026-07-28) the
//! request opts in and the outcome is inlined in the last `tasks/get`
//! ([`extension`]).

mod extension;
mod input_keys;

use std::time::Duration;

use mcp_conform_core::Level;
use mcp_conform_core::judge::summarize;
use mcp_conform_core::protocol::tasks::TaskStatus;
use mcp_conform_core::scenario::model::{CheckTag, ScriptedAnswer, TaskStep};
use mcp_mock_peers::session::WaitError;
use serde_json::{Value, json};
use tokio::time::Instant;

use self::input_keys::InputKeys;
use super::{StepRunner, Stop, Wait};
use crate::runner::outcome::Check;
use crate::runner::verify::{check_matcher, check_response};

/// How often to poll a task whose receiver suggests no poll interval.
const DEFAULT_POLL: Duration = Duration::from_millis(200);

/// Which tasks a step follows: the member that suggests the poll interval,
/// and whether polls must opt in to the extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flavor {
    Utility,
    Extension,
}

impl Flavor {
    fn poll_interval(self, task: &Value) -> Duration {
        let member = match self {
            Flavor::Utility => "pollInterval",
            Flavor::Extension => "pollIntervalMs",
        };
        task.get(member)
            .and_then(Value::as_u64)
            .map_or(DEFAULT_POLL, Duration::from_millis)
    }
}

/// The status of a task answer (`tasks/get`, `CreateTaskResult.task`).
fn status_of(task: &Value) -> Option<TaskStatus> {
    task.get("status")
        .and_then(Value::as_str)
        .and_then(TaskStatus::parse)
}

impl<'s> StepRunner<'s> {
    pub(super) async fn task(&mut self, step: &'s TaskStep) -> Stop {
        if self.is_stateless() {
            return self.extension_task(step).await;
        }
        let tag = &step.tag;
        let params = match self.render(step.params.as_ref()) {
            Ok(params) => params,
            Err(stop) => return stop,
        };
        let mut params = match step.progress {
            true => self.with_progress_token(params, None),
            false => params.unwrap_or_else(|| json!({})),
        };
        params["task"] = step.ttl.map_or_else(|| json!({}), |ttl| json!({"ttl": ttl}));
        let before = self.begin_answers();
        let response = match self.task_request(&step.method, params, step, step.timeout).await {
            Ok(response) => response,
            Err(stop) => return stop,
        };
        let Some(task) = response
            .pointer("/result/task")
            .filter(|t| t.get("taskId").is_some())
        else {
            let message = format!("no task was created: {}", summarize(&response));
            self.checks.push(Check::broken_for("task created", tag, message));
            return Stop::Done;
        };
        let task = task.clone();
        let task_id = self.note_created(step, &task);
        let mut seen = Vec::new();
        let deadline = Instant::now() + step.within;
        let stop = self.follow(step, &task_id, task, deadline, &mut seen).await;
        self.check_required_answers(&step.answers, before);
        if stop != Stop::Done {
            return stop;
        }
        self.check_statuses(step, &seen);
        Stop::Done
    }

    /// Judges the created task against `created`, keeps its id as
    /// `${<name>.task_id}`, and returns it.
    fn note_created(&mut self, step: &'s TaskStep, task: &Value) -> Value {
        let tag = &step.tag;
        self.checks.push(match &step.created {
            Some(matcher) => check_matcher("task created".into(), tag, matcher, Some(task), &mut self.ctx),
            None => Check::pass_for("task created", tag),
        });
        let task_id = task["taskId"].clone();
        self.ctx
            .vars
            .insert(format!("{}.task_id", step.name), task_id.clone());
        task_id
    }

    /// Matches the statuses seen, and the last one, against the step's.
    fn check_statuses(&mut self, step: &'s TaskStep, seen: &[TaskStatus]) {
        let tag = &step.tag;
        let statuses: Vec<&str> = seen.iter().map(|s| s.name()).collect();
        if let Some(matcher) = &step.statuses {
            let check = check_matcher(
                "task statuses".into(),
                tag,
                matcher,
                Some(&json!(statuses)),
                &mut self.ctx,
            );
            self.checks.push(check);
        }
        if let Some(matcher) = &step.status {
            let last = statuses.last().map(|s| json!(s));
            let check = check_matcher("task status".into(), tag, matcher, last.as_ref(), &mut self.ctx);
            self.checks.push(check);
        }
    }

    /// Polls the task no faster than its `pollInterval` until it is
    /// terminal or needs input, fetches its outcome with `tasks/result`
    /// (which blocks until the task ends and carries the requests for
    /// input), and polls once more when the end was not seen yet. `seen`
    /// gets every status, consecutive repeats once.
    async fn follow(
        &mut self,
        step: &'s TaskStep,
        task_id: &Value,
        mut task: Value,
        deadline: Instant,
        seen: &mut Vec<TaskStatus>,
    ) -> Stop {
        let mut inputs = InputKeys::default();
        if let Err(stop) = self
            .poll(step, task_id, &mut task, deadline, seen, &mut inputs)
            .await
        {
            return stop;
        }
        let remaining = deadline.saturating_duration_since(Instant::now());
        let outcome = json!({"taskId": task_id});
        let response = match self
            .task_request("tasks/result", outcome, step, remaining + step.timeout)
            .await
        {
            Ok(response) => response,
            Err(stop) => return stop,
        };
        self.checks.push(match &step.expect {
            Some(expect) => check_response("task outcome".into(), expect, &response, &mut self.ctx),
            None => Check::pass_for("task outcome", &step.tag),
        });
        if seen.last().is_some_and(|s| s.is_terminal()) {
            return Stop::Done;
        }
        let poll = json!({"taskId": task_id});
        match self.task_answer("tasks/get", poll, step, step.timeout).await {
            Ok(task) => {
                seen.extend(status_of(&task).filter(|s| seen.last() != Some(s)));
                Stop::Done
            }
            Err(stop) => stop,
        }
    }

    /// Polls `tasks/get` no faster than the task's latest poll interval
    /// until it is terminal or (2025-11-25) needs input, within `deadline`
    /// (else a broken check); the extension's input requests are answered
    /// on the way ([`Self::answer_task_input`]). `task` ends as the last state seen;
    /// `seen` gets every status, consecutive repeats once; `inputs` judges
    /// the keys of every state's input requests (TASKX-018).
    async fn poll(
        &mut self,
        step: &'s TaskStep,
        task_id: &Value,
        task: &mut Value,
        deadline: Instant,
        seen: &mut Vec<TaskStatus>,
        inputs: &mut InputKeys,
    ) -> Result<(), Stop> {
        let tag = &step.tag;
        let flavor = match self.is_stateless() {
            true => Flavor::Extension,
            false => Flavor::Utility,
        };
        loop {
            let status = status_of(task);
            if let Some(status) = status.filter(|s| seen.last() != Some(s)) {
                seen.push(status);
            }
            if let Some(departure) = inputs.observe(task) {
                let check = Check::broken("task input keys", "TASKX-018", Level::Must, tag.span, departure);
                self.checks.push(check);
                return Err(Stop::Done);
            }
            let awaited = status == Some(TaskStatus::InputRequired) && inputs.awaited(task);
            if awaited && flavor == Flavor::Extension {
                self.answer_task_input(step, task_id, task, inputs).await?;
            } else if awaited || status.is_none_or(|s| s.is_terminal()) {
                return Ok(());
            }
            let interval = flavor.poll_interval(task);
            if Instant::now() + interval > deadline {
                let message = format!(
                    "the task was still {} after {} ms",
                    seen.last().map_or("unknown", |s| s.name()),
                    step.within.as_millis()
                );
                self.checks
                    .push(Check::broken_for("task reaches a terminal status", tag, message));
                return Err(Stop::Done);
            }
            if let Some(error) = self.idle(interval, &step.answers).await {
                return Err(self.peer_gone(tag, &error));
            }
            let params = match flavor {
                Flavor::Utility => json!({"taskId": task_id}),
                Flavor::Extension => self.opted_in(json!({"taskId": task_id})),
            };
            *task = self.task_answer("tasks/get", params, step, step.timeout).await?;
        }
    }

    /// The task state a `tasks/get` answers with; an error answer is a
    /// broken check and ends the step.
    async fn task_answer(
        &mut self,
        method: &str,
        params: Value,
        step: &'s TaskStep,
        timeout: Duration,
    ) -> Result<Value, Stop> {
        let task_id = params["taskId"].clone();
        let response = self.task_request(method, params, step, timeout).await?;
        match response.get("result") {
            Some(task) => Ok(task.clone()),
            None => {
                let message = format!("{method} for task {task_id} failed: {}", summarize(&response));
                self.checks
                    .push(Check::broken_for("task can be polled", &step.tag, message));
                Err(Stop::Done)
            }
        }
    }

    /// Sends one request of the step and waits for its response, serving
    /// the peer meanwhile with the step's answers.
    async fn task_request(
        &mut self,
        method: &str,
        params: Value,
        step: &'s TaskStep,
        timeout: Duration,
    ) -> Result<Value, Stop> {
        let tag: &CheckTag = &step.tag;
        let answers: &'s [ScriptedAnswer] = &step.answers;
        let id = match self.session.request(method, Some(params), None).await {
            Ok(id) => id,
            Err(error) => return Err(self.peer_gone(tag, &WaitError::Transport(error.to_string()))),
        };
        let deadline = Instant::now() + timeout;
        match self.wait(Wait::Response(&id), deadline, answers).await {
            Ok(got) => Ok(got.message()),
            Err(error @ (WaitError::TimedOut | WaitError::Stray(_) | WaitError::Malformed { .. })) => {
                let missing = format!(
                    "no response to {method} (id {id}) within {} ms",
                    timeout.as_millis()
                );
                let check = self.unanswered(format!("response to {method}"), tag, &error, missing, false);
                self.checks.push(check);
                Err(Stop::Done)
            }
            Err(error) => Err(self.peer_gone(tag, &error)),
        }
    }
}
