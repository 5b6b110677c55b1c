//! The faults of 2025-11-25 tasks: each rewrites one answer about a task.

use mcp_conform_core::protocol::meta_key::RELATED_TASK;
use mcp_conform_core::wire::jsonrpc::code;
use serde_json::{Value, json};

use super::{Fault, FaultLayer};
use crate::reference::tasks;

impl FaultLayer {
    /// Rewrites the server's answer to a task request or a `tools/call`;
    /// `after` frames follow it.
    pub(super) fn tasks_response(
        &self,
        method: &str,
        params: &Value,
        frame: &mut Value,
        after: &mut Vec<Value>,
    ) {
        let error_code = frame.pointer("/error/code").and_then(Value::as_i64);
        let tool = params.get("name").and_then(Value::as_str).unwrap_or_default();
        let as_task = params.get("task").is_some();
        match (self.fault, method, error_code) {
            (Fault::TaskProgressAfterEnd, "tools/call", None) if as_task => {
                self.note_task_token(frame["result"]["task"]["taskId"].as_str(), params);
            }
            (Fault::TaskProgressAfterEnd, "tasks/get", None) if frame["result"]["status"] == "completed" => {
                let task = frame["result"]["taskId"].as_str().unwrap_or_default();
                if let Some(token) = self.state().task_tokens.remove(task) {
                    after.push(json!({ "jsonrpc": "2.0", "method": "notifications/progress",
                        "params": { "progressToken": token, "progress": 1000 } }));
                }
            }
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

    /// Remembers the progress token of the call that created `task`.
    pub(super) fn note_task_token(&self, task: Option<&str>, call: &Value) {
        if let (Some(task), Some(token)) = (task, call.pointer("/_meta/progressToken")) {
            self.state().task_tokens.insert(task.to_owned(), token.clone());
        }
    }
}
