//! The faults of 2025-11-25 tasks: each rewrites one answer about a task.

use mcp_conform_core::protocol::meta_key::RELATED_TASK;
use mcp_conform_core::wire::jsonrpc::code;
use serde_json::{Value, json};

use super::{Fault, FaultLayer};
use crate::reference::tasks;

impl FaultLayer {
    /// Rewrites the server's answer to a task request or a `tools/call`.
    pub(super) fn tasks_response(&self, method: &str, params: &Value, frame: &mut Value) {
        let error_code = frame.pointer("/error/code").and_then(Value::as_i64);
        let tool = params.get("name").and_then(Value::as_str).unwrap_or_default();
        let as_task = params.get("task").is_some();
        match (self.fault, method, error_code) {
            (Fault::TaskCreatedFlat, "tools/call", None) if as_task => {
                let task = frame["result"]["task"].take();
                frame["result"] = task;
            }
            (Fault::TaskReusedId, "tools/call", None) if as_task => {
                let id = frame["result"]["task"]["taskId"].clone();
                let first = self.state().first_task.get_or_insert(id).clone();
                frame["result"]["task"]["taskId"] = first;
            }
            (Fault::TaskRevives, "tasks/get", None) if frame["result"]["status"] == "cancelled" => {
                frame["result"]["status"] = json!("working");
            }
            (Fault::CancelAnswersWorking, "tasks/cancel", None) => {
                frame["result"]["status"] = json!("working");
            }
            (Fault::ResultWithoutRelatedTask, "tasks/result", None) => {
                if let Some(meta) = frame["result"]["_meta"].as_object_mut() {
                    meta.remove(RELATED_TASK);
                }
            }
            (Fault::TaskUnknownIdCode, _, Some(code::INVALID_PARAMS)) if method.starts_with("tasks/") => {
                frame["error"]["code"] = json!(code::INTERNAL_ERROR);
            }
            (Fault::RequiredToolServedPlain, "tools/call", Some(code::METHOD_NOT_FOUND))
                if tasks::support(tool) == Some("required") =>
            {
                *frame = json!({ "jsonrpc": "2.0", "id": frame["id"], "result": {
                    "content": [{ "type": "text", "text": "reported without a task" }], "isError": false } });
            }
            (Fault::ForbiddenToolServedAsTask, "tools/call", Some(code::METHOD_NOT_FOUND))
                if as_task && tasks::support(tool).is_none() =>
            {
                *frame = json!({ "jsonrpc": "2.0", "id": frame["id"], "result": {
                    "content": [{ "type": "text", "text": "served as an ordinary call" }], "isError": false } });
            }
            _ => {}
        }
    }
}
