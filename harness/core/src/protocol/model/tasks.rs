//! Tasks of 2025-11-25 (experimental): a request augmented with
//! `params.task` is answered at once with a `CreateTaskResult`; the
//! requester polls `tasks/get` and fetches the real answer with
//! `tasks/result`. Either side may be the receiver. The 2026-07-28
//! extension that replaced them is a different protocol (section 26).

use super::common::{INT, OBJECT, PAGINATED_PARAMS, REQUEST_META_FIELD, RESULT_META_FIELD, STR, alt, array};
use super::{Flow, MethodSpec, notification, request};
use crate::protocol::cite;
use crate::protocol::shape::{Field, Named, Shape, Versions, opt, req};
use crate::version::ProtocolVersion::*;

/// The only version with these tasks.
const TASK_VERSIONS: Versions = Versions::only(V2025_11_25);

/// The status of a task, and the moves the lifecycle allows (TASK-004).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskStatus {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl TaskStatus {
    /// The wire names, in the order of the lifecycle.
    pub const NAMES: [&'static str; 5] = ["working", "input_required", "completed", "failed", "cancelled"];

    pub fn parse(name: &str) -> Option<TaskStatus> {
        Some(match name {
            "working" => TaskStatus::Working,
            "input_required" => TaskStatus::InputRequired,
            "completed" => TaskStatus::Completed,
            "failed" => TaskStatus::Failed,
            "cancelled" => TaskStatus::Cancelled,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }

    /// Completed, failed and cancelled end a task for good.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }

    /// Whether a task seen in `self` may later be seen in `next`. Polls see
    /// only some states, so any non-terminal status may be followed by any
    /// status; a terminal one only by itself.
    pub fn may_become(self, next: TaskStatus) -> bool {
        !self.is_terminal() || self == next
    }
}

static STATUS: Shape = Shape::Named(&Named {
    name: "TaskStatus",
    requirement: cite::TASK_003,
    shape: Shape::Enum(&TaskStatus::NAMES),
});

/// `ttl`: milliseconds from creation, or `null` for unlimited.
pub(super) static TTL: Shape = Shape::AnyOf(&[alt(&INT), alt(&Shape::Null)]);

/// The task fields, which every task answer carries at its top level
/// (`tasks/get`, `tasks/cancel`, the status notification) or under `task`
/// (`CreateTaskResult`).
pub(super) static TASK: Shape = Shape::Named(&Named {
    name: "Task",
    requirement: cite::TASK_003,
    shape: Shape::Object(&[
        req("taskId", &STR),
        req("status", &STATUS),
        opt("statusMessage", &STR),
        req("createdAt", &STR),
        req("lastUpdatedAt", &STR),
        req("ttl", &TTL),
        opt("pollInterval", &INT),
    ]),
});

/// What answers an accepted task-augmented request.
pub static CREATE_TASK_RESULT: Shape = Shape::Named(&Named {
    name: "CreateTaskResult",
    requirement: cite::TASK_003,
    shape: Shape::Object(&[req("task", &TASK), RESULT_META_FIELD]),
});

static TASK_METADATA: Shape = Shape::Object(&[opt("ttl", &INT)]);

/// `params.task` of a request that asks to run as a task.
pub(super) const TASK_FIELD: Field = opt("task", &TASK_METADATA).since(V2025_11_25).until(V2025_11_25);

static AUGMENTABLE: Shape = Shape::Map(&Shape::Map(&OBJECT));

static CAPABILITY: Shape = Shape::Object(&[
    opt("list", &OBJECT),
    opt("cancel", &OBJECT),
    opt("requests", &AUGMENTABLE),
]);

/// The `tasks` capability of either side: `list`, `cancel`, and the
/// request types that may be augmented, by area and method.
pub(super) const TASKS_CAPABILITY: Field = opt("tasks", &CAPABILITY).since(V2025_11_25).until(V2025_11_25);

static TASK_SUPPORT: Shape = Shape::Named(&Named {
    name: "ToolExecution",
    requirement: cite::TASK_002,
    shape: Shape::Enum(&["forbidden", "optional", "required"]),
});

static EXECUTION: Shape = Shape::Object(&[opt("taskSupport", &TASK_SUPPORT)]);

/// A tool's `execution.taskSupport`.
pub(super) const EXECUTION_FIELD: Field = opt("execution", &EXECUTION).since(V2025_11_25).until(V2025_11_25);

pub(super) static TASK_ID_PARAMS: Shape = Shape::Object(&[req("taskId", &STR), REQUEST_META_FIELD]);

static LIST_RESULT: Shape = Shape::Object(&[
    req("tasks", &array(&TASK)),
    opt("nextCursor", &STR),
    RESULT_META_FIELD,
]);

pub(super) static GET: MethodSpec = request(
    "tasks/get",
    Flow::Both,
    TASK_VERSIONS,
    req("params", &TASK_ID_PARAMS),
    &TASK,
);

/// The payload is the underlying request's own result, which the checker
/// judges against that request's method when it saw the task created.
pub(super) static RESULT: MethodSpec = request(
    "tasks/result",
    Flow::Both,
    TASK_VERSIONS,
    req("params", &TASK_ID_PARAMS),
    &OBJECT,
);

pub(super) static LIST: MethodSpec = request(
    "tasks/list",
    Flow::Both,
    TASK_VERSIONS,
    opt("params", &PAGINATED_PARAMS),
    &LIST_RESULT,
);

pub(super) static CANCEL: MethodSpec = request(
    "tasks/cancel",
    Flow::Both,
    TASK_VERSIONS,
    req("params", &TASK_ID_PARAMS),
    &TASK,
);

pub(super) static STATUS_NOTIFICATION: MethodSpec = notification(
    "notifications/tasks/status",
    Flow::Both,
    TASK_VERSIONS,
    req("params", &TASK),
);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn task(status: &str) -> serde_json::Value {
        json!({"taskId": "t1", "status": status, "createdAt": "2025-11-25T10:30:00Z",
               "lastUpdatedAt": "2025-11-25T10:30:00Z", "ttl": null})
    }

    #[test]
    fn task_answers_carry_the_task_fields() {
        assert_eq!(GET.check_result(&task("working"), V2025_11_25), []);
        let mut no_ttl = task("working");
        no_ttl.as_object_mut().unwrap().remove("ttl");
        let found = GET.check_result(&no_ttl, V2025_11_25);
        assert_eq!(found[0].requirement, cite::TASK_003);
        assert_eq!(
            CANCEL.check_result(&task("done"), V2025_11_25)[0]
                .pointer
                .as_deref(),
            Some("/result/status")
        );
        let created = json!({"task": task("working")});
        assert_eq!(CREATE_TASK_RESULT.check(&created, V2025_11_25, "/result"), []);
        let flat = CREATE_TASK_RESULT.check(&task("working"), V2025_11_25, "/result");
        assert_eq!(flat[0].requirement, cite::TASK_003);
    }

    #[test]
    fn terminal_statuses_never_change() {
        use TaskStatus::*;
        assert!(Working.may_become(InputRequired) && InputRequired.may_become(Working));
        assert!(Working.may_become(Completed) && Completed.may_become(Completed));
        assert!(!Completed.may_become(Working) && !Failed.may_become(Cancelled));
        assert!(!Cancelled.may_become(Completed));
        for name in TaskStatus::NAMES {
            assert_eq!(TaskStatus::parse(name).map(TaskStatus::name), Some(name));
        }
    }
}
