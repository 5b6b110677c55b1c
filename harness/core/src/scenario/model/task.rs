//! The runnable `task` step.

use std::time::Duration;

use serde_json::Value;

use super::{CheckTag, ResponseCheck, ScriptedAnswer};
use crate::matcher::Matcher;

/// One request run as a task and followed to its end.
#[derive(Debug, Clone)]
pub struct TaskStep {
    pub method: String,
    /// A template.
    pub params: Option<Value>,
    pub ttl: Option<u64>,
    pub progress: bool,
    /// Holds the task's id as `${<name>.task_id}`.
    pub name: String,
    pub answers: Vec<ScriptedAnswer>,
    pub created: Option<Matcher>,
    pub statuses: Option<Matcher>,
    pub status: Option<Matcher>,
    pub expect: Option<ResponseCheck>,
    pub within: Duration,
    pub timeout: Duration,
    pub tag: CheckTag,
}
