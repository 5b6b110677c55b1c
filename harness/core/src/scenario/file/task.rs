//! The `task` step: run one request as a task and follow it to its end.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{Answer, Json, LevelName, ResponseExpectation};
use crate::span::Located;

/// `task`: send a request that runs as a task, the way the version asks for
/// one (2025-11-25: `params.task`), poll the task no faster than the
/// receiver's `pollInterval` until its status is terminal, then fetch its
/// outcome (2025-11-25: `tasks/result`). While the task runs, the peer's
/// requests (an elicitation the task needs, say) are served by `answers`
/// and the scenario's answers, as everywhere else; under the tasks
/// extension so are the input requests a `tasks/get` inlines, answered with
/// `tasks/update`. `${<name>.task_id}` is the task's id for the steps after it.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskStep {
    /// The method of the request, e.g. `tools/call`.
    pub method: Located<String>,
    /// Params; `${var}` is substituted. The engine adds what asks for a task.
    #[serde(default)]
    pub params: Option<Located<Json>>,
    /// The task lifetime to ask for, in milliseconds (2025-11-25 `ttl`).
    #[serde(default)]
    pub ttl_ms: Option<u64>,
    /// Add `_meta.progressToken` with a fresh token (see `request`).
    #[serde(default)]
    pub progress: bool,
    /// Names the task for later steps (default `task`).
    #[serde(default)]
    pub name: Option<Located<String>>,
    /// Answers to requests the peer sends while the task runs.
    #[serde(default)]
    pub answers: Vec<Located<Answer>>,
    /// Matcher over the task as created (its `taskId`, `status`, `ttl`...).
    #[serde(default)]
    pub created: Option<Located<Json>>,
    /// Matcher over the statuses seen, in order, each once per run of
    /// equal polls (e.g. `["working", "completed"]`, or
    /// `{$contains: "input_required"}`).
    #[serde(default)]
    pub statuses: Option<Located<Json>>,
    /// Matcher over the terminal status (e.g. `completed`).
    #[serde(default)]
    pub status: Option<Located<Json>>,
    /// What the task's outcome must be: `result` (the request's own result)
    /// or `error` (its JSON-RPC error), as in a `request`'s `expect`.
    #[serde(default)]
    pub expect: Option<Located<ResponseExpectation>>,
    /// Budget for the task to reach a terminal status, in milliseconds
    /// (default 10000).
    #[serde(default)]
    pub within_ms: Option<u64>,
    /// Budget for each request of the step, in milliseconds (default 5000).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// Level and requirement of the task's checks (creation, status,
    /// statuses); `expect` may name its own.
    #[serde(default)]
    pub level: Option<Located<LevelName>>,
    #[serde(default)]
    pub requirement: Option<Located<String>>,
}
