//! Tasks of 2025-11-25: which tools may run as tasks, the capability that
//! says so, and the routing of a `tools/call` that asks for (or needs) one.
//! The tasks themselves live in [`store`].

mod store;

use std::sync::Arc;

use mcp_conform_core::version::ProtocolVersion;
use mcp_conform_core::wire::jsonrpc::{RpcError, code};
use serde_json::{Map, Value, json};

pub(crate) use store::{TaskInput, TaskStore};

use super::dispatch::Server;
use super::tools;

/// The only version with these tasks.
pub(crate) const VERSION: ProtocolVersion = ProtocolVersion::V2025_11_25;

/// The methods of tasks, served under [`VERSION`] only.
pub(crate) const METHODS: [&str; 4] = ["tasks/get", "tasks/result", "tasks/list", "tasks/cancel"];

/// How a tool may run as a task (`execution.taskSupport`); `None` is the
/// spec's default, forbidden. `slow`, `progress` and `fail` may; `report`
/// must.
pub(crate) fn support(tool: &str) -> Option<&'static str> {
    match tool {
        "slow" | "progress" | "fail" => Some("optional"),
        tools::REPORT => Some("required"),
        _ => None,
    }
}

/// The `tasks` capability: list, cancel, and task-augmented `tools/call`.
pub(crate) fn capability() -> Value {
    json!({ "list": {}, "cancel": {}, "requests": { "tools": { "call": {} } } })
}

/// A `tools/call` whose tool and `task` member decide between a task and
/// an error: a task is created when one is asked for and the tool allows
/// it; a tool that needs a task refuses a plain call, and one that allows
/// none refuses a task (both `-32601`, as the spec's tool-level rules say).
/// `None`: an ordinary call.
pub(crate) fn route_call(
    server: &Arc<Server>,
    params: &Map<String, Value>,
) -> Option<Result<Value, RpcError>> {
    let name = params.get("name").and_then(Value::as_str)?;
    let requested = params.get("task").and_then(Value::as_object);
    let refuse = |why: String| Some(Err(RpcError::new(code::METHOD_NOT_FOUND, why)));
    match (support(name), requested) {
        (Some("required"), None) => refuse(format!("tool {name} runs only as a task: add `task`")),
        (None, Some(_)) => refuse(format!("tool {name} does not run as a task")),
        (Some(_), Some(task)) => {
            let ttl = task.get("ttl").and_then(Value::as_u64);
            let mut call = params.clone();
            call.remove("task");
            let runner = Arc::clone(server);
            let run = async move { tools::call(&runner, &call).await };
            Some(Ok(json!({ "task": server.tasks.start(ttl, None, run) })))
        }
        _ => None,
    }
}

/// Serves one `tasks/*` request but `tasks/result`, which waits
/// ([`result`]).
pub(crate) fn route(store: &TaskStore, method: &str, params: &Map<String, Value>) -> Result<Value, RpcError> {
    match method {
        "tasks/get" => store.get(task_id(params)?),
        "tasks/list" => store.list(params),
        "tasks/cancel" => store.cancel(task_id(params)?),
        other => Err(RpcError::new(
            code::METHOD_NOT_FOUND,
            format!("method not found: {other}"),
        )),
    }
}

/// `tasks/result`: waits for the task to end, then answers what its call
/// answered, naming the task under the related-task key.
pub(crate) async fn result(server: Arc<Server>, params: Map<String, Value>) -> Result<Value, RpcError> {
    let id = task_id(&params)?.to_owned();
    server.tasks.outcome(&id).await
}

fn task_id(params: &Map<String, Value>) -> Result<&str, RpcError> {
    params
        .get("taskId")
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::invalid_params("a string `taskId` is needed"))
}
