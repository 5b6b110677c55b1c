//! The tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28+): a
//! `tools/call` from a request that opted in may be answered with a
//! `CreateTaskResult` (`resultType: "task"`, the task fields at the top);
//! the client polls `tasks/get`, whose answer inlines the outcome (`result`
//! or `error`) or the requests for input, answers those with
//! `tasks/update`, and may ask `tasks/cancel`, which is only acknowledged.
//! `tasks/result` and `tasks/list` are gone.

use serde_json::Value;

use super::common::{INT, OBJECT, REQUEST_META_FIELD, RESULT_META_FIELD, STR};
use super::tasks::{TASK_ID_PARAMS, TTL, TaskStatus};
use super::{Flow, MethodSpec, notification, request};
use crate::Level;
use crate::protocol::cite;
use crate::protocol::shape::{Field, Named, Shape, Versions, opt, req};
use crate::protocol::violation::Violation;
use crate::version::ProtocolVersion::{self, *};

/// The extension's identifier, under `capabilities.extensions`.
pub const EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The `resultType` of a `CreateTaskResult`, reserved for it (TASKX-006).
pub const TASK_RESULT_TYPE: &str = "task";

/// The versions that have the extension.
const EXTENSION_VERSIONS: Versions = Versions::since(V2026_07_28);

/// Whether `capabilities` (a request's `clientCapabilities` or a server's
/// discovered ones) declare the extension.
pub fn declares_extension(capabilities: Option<&Value>) -> bool {
    capabilities
        .and_then(|c| c.get("extensions"))
        .and_then(|e| e.get(EXTENSION))
        .is_some_and(Value::is_object)
}

/// Whether `result` is a `CreateTaskResult`.
pub fn is_task_result(result: &Value) -> bool {
    result.get("resultType").and_then(Value::as_str) == Some(TASK_RESULT_TYPE)
}

static STATUS: Shape = Shape::Enum(&TaskStatus::NAMES);

/// The fields every task state carries at its top level: the
/// `CreateTaskResult`, a `tasks/get` answer, a `notifications/tasks`.
static TASK_FIELDS: [Field; 7] = [
    req("taskId", &STR),
    req("status", &STATUS),
    opt("statusMessage", &STR),
    req("createdAt", &STR),
    req("lastUpdatedAt", &STR),
    // Integer milliseconds from `createdAt`, or `null` for unlimited, as 2025-11-25's `ttl`.
    req("ttlMs", &TTL),
    opt("pollIntervalMs", &INT),
];

static TASK: Shape = Shape::Named(&Named {
    name: "Task",
    requirement: cite::TASKX_007,
    shape: Shape::Object(&TASK_FIELDS),
});

/// A `notifications/tasks` carries the whole task state (TASKX-033).
static NOTIFIED_TASK: Shape = Shape::Named(&Named {
    name: "TaskStatusNotificationParams",
    requirement: cite::TASKX_033,
    shape: Shape::Object(&TASK_FIELDS),
});

static CREATED: Shape = Shape::Named(&Named {
    name: "CreateTaskResult",
    requirement: cite::TASKX_007,
    shape: Shape::Object(&[
        req("resultType", &Shape::Const(TASK_RESULT_TYPE)),
        RESULT_META_FIELD,
    ]),
});

/// The JSON-RPC error a `failed` task holds.
static TASK_ERROR: Shape = Shape::Named(&Named {
    name: "Error",
    requirement: cite::TASKX_012,
    shape: Shape::Object(&[req("code", &INT), req("message", &STR)]),
});

static COMPLETE: Shape = Shape::Const("complete");

/// A `tasks/get` answer: the standard result of its request (TASKX-010).
static DETAILED: Shape = Shape::Named(&Named {
    name: "GetTaskResult",
    requirement: cite::TASKX_010,
    shape: Shape::Object(&[
        req("resultType", &COMPLETE),
        opt("inputRequests", &Shape::Map(&OBJECT)),
        opt("result", &OBJECT),
        opt("error", &TASK_ERROR),
        RESULT_META_FIELD,
    ]),
});

static UPDATE_ACK: Shape = Shape::Named(&Named {
    name: "UpdateTaskResult",
    requirement: cite::TASKX_016,
    shape: Shape::Object(&[req("resultType", &COMPLETE), RESULT_META_FIELD]),
});

static CANCEL_ACK: Shape = Shape::Named(&Named {
    name: "CancelTaskResult",
    requirement: cite::TASKX_022,
    shape: Shape::Object(&[req("resultType", &COMPLETE), RESULT_META_FIELD]),
});

static UPDATE_PARAMS: Shape = Shape::Object(&[
    req("taskId", &STR),
    req("inputResponses", &Shape::Map(&OBJECT)),
    REQUEST_META_FIELD,
]);

pub(super) static GET: MethodSpec = request(
    "tasks/get",
    Flow::ClientToServer,
    EXTENSION_VERSIONS,
    req("params", &TASK_ID_PARAMS),
    &DETAILED,
);

pub(super) static UPDATE: MethodSpec = request(
    "tasks/update",
    Flow::ClientToServer,
    EXTENSION_VERSIONS,
    req("params", &UPDATE_PARAMS),
    &UPDATE_ACK,
);

pub(super) static CANCEL: MethodSpec = request(
    "tasks/cancel",
    Flow::ClientToServer,
    EXTENSION_VERSIONS,
    req("params", &TASK_ID_PARAMS),
    &CANCEL_ACK,
);

/// Pushed on a listen stream whose filter lists the task (TASKX-032).
pub(super) static STATUS_NOTIFICATION: MethodSpec = notification(
    "notifications/tasks",
    Flow::ServerToClient,
    EXTENSION_VERSIONS,
    req("params", &NOTIFIED_TASK),
);

/// Every rule a `CreateTaskResult` breaks (TASKX-007).
pub fn check_created(result: &Value, version: ProtocolVersion) -> Vec<Violation> {
    let mut out = CREATED.check(result, version, "/result");
    out.extend(TASK.check(result, version, "/result"));
    out
}

/// Every rule the task state of a `tasks/get` answer breaks beyond its
/// result shape: the task fields (under TASKX-010, whose answer they are),
/// and the member its status needs: `inputRequests` while
/// `input_required`, `result` once `completed` (TASKX-010), `error` once
/// `failed` (TASKX-012).
pub fn check_detailed(result: &Value, version: ProtocolVersion) -> Vec<Violation> {
    let mut out: Vec<Violation> = TASK
        .check(result, version, "/result")
        .into_iter()
        .map(|v| Violation {
            requirement: cite::TASKX_010,
            ..v
        })
        .collect();
    if let Some((status, member)) = missing_member(result) {
        let requirement = match status {
            TaskStatus::Failed => cite::TASKX_012,
            _ => cite::TASKX_010,
        };
        let message = format!(
            "a {} task answered to tasks/get without `{member}`",
            status.name()
        );
        out.push(Violation::must(requirement, message).at("/result"));
    }
    out
}

/// What a `notifications/tasks` breaks beyond its shape: the complete
/// state carries the member its status needs, as `tasks/get` would
/// (TASKX-033, stated as fact: SHOULD).
pub fn check_notified(params: &Value) -> Option<Violation> {
    let (status, member) = missing_member(params)?;
    let message = format!(
        "notifications/tasks shows a {} task without `{member}`, which tasks/get would carry",
        status.name()
    );
    Some(Violation::new(cite::TASKX_033, Level::Should, message).at("/params"))
}

/// The status of a task state and the member that status needs
/// (`inputRequests`, `result` or `error`), when the state lacks it.
fn missing_member(task: &Value) -> Option<(TaskStatus, &'static str)> {
    let status = task
        .get("status")
        .and_then(Value::as_str)
        .and_then(TaskStatus::parse)?;
    let member = match status {
        TaskStatus::InputRequired => "inputRequests",
        TaskStatus::Completed => "result",
        TaskStatus::Failed => "error",
        _ => return None,
    };
    task.get(member).is_none().then_some((status, member))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::requirements::RequirementId;
    use serde_json::json;

    fn task(status: &str) -> Value {
        json!({"taskId": "t1", "status": status, "createdAt": "2026-07-28T10:30:00Z",
               "lastUpdatedAt": "2026-07-28T10:30:00Z", "ttlMs": null, "pollIntervalMs": 100})
    }

    fn ids(found: &[Violation]) -> Vec<RequirementId> {
        found.iter().map(|v| v.requirement).collect()
    }

    #[test]
    fn a_created_task_says_task_and_carries_the_fields_on_top() {
        let mut created = task("working");
        created["resultType"] = json!("task");
        assert_eq!(check_created(&created, V2026_07_28), []);
        created["ttl"] = created["ttlMs"].take();
        created.as_object_mut().unwrap().remove("ttlMs");
        assert_eq!(ids(&check_created(&created, V2026_07_28)), [cite::TASKX_007]);
        let nested = json!({"resultType": "task", "task": task("working")});
        assert!(check_created(&nested, V2026_07_28).len() >= 4);
        assert!(is_task_result(&json!({"resultType": "task"})));
        assert!(!is_task_result(&json!({"resultType": "complete"})));
    }

    #[test]
    fn a_polled_task_inlines_what_its_status_needs() {
        let mut completed = task("completed");
        completed["resultType"] = json!("complete");
        assert_eq!(ids(&check_detailed(&completed, V2026_07_28)), [cite::TASKX_010]);
        completed["result"] = json!({"content": []});
        assert_eq!(check_detailed(&completed, V2026_07_28), []);
        assert_eq!(GET.check_result(&completed, V2026_07_28), []);
        let mut failed = task("failed");
        failed["resultType"] = json!("complete");
        assert_eq!(ids(&check_detailed(&failed, V2026_07_28)), [cite::TASKX_012]);
        failed["error"] = json!({"code": "bad"});
        assert!(
            ids(&GET.check_result(&failed, V2026_07_28))
                .iter()
                .all(|r| *r == cite::TASKX_012)
        );
        let mut waiting = task("input_required");
        waiting["resultType"] = json!("task");
        assert_eq!(ids(&check_detailed(&waiting, V2026_07_28)), [cite::TASKX_010]);
        assert_eq!(
            ids(&GET.check_result(&waiting, V2026_07_28)),
            [cite::TASKX_010],
            "a tasks/get answer says complete, never task"
        );
    }

    #[test]
    fn update_and_cancel_are_acknowledged_complete() {
        let ack = json!({"resultType": "complete"});
        assert_eq!(UPDATE.check_result(&ack, V2026_07_28), []);
        assert_eq!(CANCEL.check_result(&ack, V2026_07_28), []);
        let as_task = json!({"resultType": "task"});
        assert_eq!(
            ids(&CANCEL.check_result(&as_task, V2026_07_28)),
            [cite::TASKX_022]
        );
        assert_eq!(
            ids(&UPDATE.check_result(&as_task, V2026_07_28)),
            [cite::TASKX_016]
        );
        assert!(declares_extension(Some(&json!({"extensions": {EXTENSION: {}}}))));
        assert!(!declares_extension(Some(&json!({"tasks": {}}))));
    }
}
