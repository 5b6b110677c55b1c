//! The tasks extension (`io.modelcontextprotocol/tasks`) in the stateless
//! server: a request that declares it may get a task for a tool that can
//! run as one (the same tools as 2025-11-25's tasks); one that does not
//! never does, and a tool that runs only as a task refuses it with
//! `-32021`. Tasks belong to the whole server, so any later request (another
//! HTTP POST) can poll them.

use mcp_conform_core::protocol::subscriptions::TASK_IDS;
use mcp_conform_core::protocol::tasks_extension::{EXTENSION, TASK_RESULT_TYPE};
use mcp_conform_core::wire::jsonrpc::{RpcError, code};
use serde_json::{Map, Value, json};

use super::input::need_of;
use super::meta::RequestMeta;
use super::results;
use crate::reference::tasks::{self, TaskStore};

/// The extension's requests.
pub(crate) const METHODS: [&str; 3] = ["tasks/get", "tasks/update", "tasks/cancel"];

/// The server's declaration under `capabilities.extensions`.
pub(crate) fn capability() -> Value {
    json!({ EXTENSION: {} })
}

/// `-32021` naming the extension (TASKX-003, TASKX-015).
fn missing(what: &str) -> RpcError {
    RpcError::new(
        code::MISSING_REQUIRED_CLIENT_CAPABILITY,
        format!("{what} needs the tasks extension, which this request did not declare"),
    )
    .with_data(json!({ "requiredCapabilities": { "extensions": { EXTENSION: {} } } }))
}

/// What a request must have declared before it is served: the extension,
/// for the extension's own requests (TASKX-015), for a listen stream that
/// follows tasks, and for a tool that runs only as a task (TASKX-003).
pub(crate) fn admit(method: &str, params: &Map<String, Value>, meta: &RequestMeta) -> Result<(), RpcError> {
    if meta.client.tasks_extension {
        return Ok(());
    }
    if METHODS.contains(&method) {
        return Err(missing(method));
    }
    let follows_tasks = params
        .get("notifications")
        .is_some_and(|filter| filter.get(TASK_IDS).is_some());
    if method == "subscriptions/listen" && follows_tasks {
        return Err(missing("a listen stream that follows tasks"));
    }
    let tool = params.get("name").and_then(Value::as_str);
    match tool.filter(|t| method == "tools/call" && tasks::support(t) == Some("required")) {
        Some(tool) => Err(missing(&format!("the {tool} tool"))),
        None => Ok(()),
    }
}

/// Whether this call becomes a task: the request opted in and the tool can
/// run as one, a tool of 2025-11-25's tasks or one that asks for input
/// (the task asks through `inputRequests`, [`super::task_input`]).
/// `params.task` (the 2025-11-25 opt-in) plays no part (TASKX-026).
pub(crate) fn runs_as_task(tool: &str, meta: &RequestMeta) -> bool {
    meta.client.tasks_extension && (tasks::support(tool).is_some() || need_of(tool).is_some())
}

/// The `CreateTaskResult` for a task just started (TASKX-007).
pub(crate) fn created(mut task: Value) -> Value {
    let mut result = results::complete(Value::Object(Map::new()));
    if let (Some(result), Some(task)) = (result.as_object_mut(), task.as_object_mut()) {
        result.append(task);
        result.insert("resultType".to_owned(), json!(TASK_RESULT_TYPE));
    }
    result
}

/// Serves `tasks/get`, `tasks/update` and `tasks/cancel` for `principal`:
/// another user's task is answered as an unknown one (TASKX-031), which
/// says nothing of whether it exists.
pub(crate) fn route(
    store: &TaskStore,
    method: &str,
    params: &Map<String, Value>,
    principal: Option<&str>,
) -> Result<Value, RpcError> {
    let id = params
        .get("taskId")
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::invalid_params("a string `taskId` is needed"))?;
    if store.belongs_to_another(id, principal) {
        return Err(RpcError::invalid_params("no such task"));
    }
    match method {
        "tasks/get" => store.get(id),
        "tasks/update" => {
            let responses = params
                .get("inputResponses")
                .and_then(Value::as_object)
                .ok_or_else(|| RpcError::invalid_params("an object `inputResponses` is needed"))?;
            store.update(id, responses).map(|()| json!({}))
        }
        _ => store.cancel_cooperatively(id).map(|()| json!({})),
    }
}
