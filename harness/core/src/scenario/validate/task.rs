//! Validation of the `task` step.

use std::time::Duration;

use super::{STEP_TIMEOUT, Validator};
use crate::scenario::{file, model};
use crate::span::Span;

/// How long a task may take to reach a terminal status, by default.
const TASK_BUDGET: Duration = Duration::from_secs(10);

/// The only request a server runs as a task, in both eras.
const TASK_METHOD: &str = "tools/call";

impl Validator<'_> {
    pub(super) fn task_step(&mut self, step: &file::TaskStep, span: Span) -> model::StepKind {
        if step.method.value != TASK_METHOD {
            self.error_help(
                step.method.span,
                format!("`{}` cannot run as a task", step.method.value),
                "not a task request",
                "a server runs only tools/call as a task (2025-11-25 and the tasks extension alike)",
            );
        }
        let params = self.template(step.params.as_ref());
        let answers = step.answers.iter().map(|a| self.answer(a)).collect();
        let tag = self.tag(step, span);
        let created = step.created.as_ref().and_then(|m| self.matcher(m));
        let statuses = step.statuses.as_ref().and_then(|m| self.matcher(m));
        let status = step.status.as_ref().and_then(|m| self.matcher(m));
        let expect = step.expect.as_ref().map(|e| self.response(e, Some(&tag)));
        let name = step.name.as_ref().map_or("task", |n| &n.value).to_owned();
        // Both, as for a named request: `${task.task_id}` is looked up by its root too.
        self.defined.insert(format!("{name}.task_id"));
        self.defined.insert(name.clone());
        model::StepKind::Task(Box::new(model::TaskStep {
            method: step.method.value.clone(),
            params,
            ttl: step.ttl_ms,
            progress: step.progress,
            name,
            answers,
            created,
            statuses,
            status,
            expect,
            within: self.millis(step.within_ms, TASK_BUDGET, span),
            timeout: self.millis(step.timeout_ms, STEP_TIMEOUT, span),
            tag,
        }))
    }
}
