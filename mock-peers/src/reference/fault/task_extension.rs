//! The faults of the tasks extension (2026-07-28): each rewrites one answer
//! about a task, once the connection speaks the stateless revision.

use mcp_conform_core::protocol::meta_key::{CLIENT_CAPABILITIES, SUBSCRIPTION_ID};
use mcp_conform_core::protocol::tasks_extension::{EXTENSION, is_task_result};
use mcp_conform_core::wire::jsonrpc::{code, id_key};
use serde_json::{Value, json};

use super::{Around, Fault, FaultLayer};

/// The code copies of the extension from before 2026-08-19 gave for a
/// missing client capability (TASKX-003).
const OLD_MISSING_CAPABILITY: i64 = -32003;

/// Whether the request's own `clientCapabilities` declare the extension.
fn opted_in(params: &Value) -> bool {
    params
        .pointer(&format!("/_meta/{}", CLIENT_CAPABILITIES.replace('/', "~1")))
        .and_then(|c| c.get("extensions"))
        .and_then(|e| e.get(EXTENSION))
        .is_some()
}

impl FaultLayer {
    /// A notifications/cancelled naming a call answered with a task: from
    /// now on the task shows as cancelled.
    pub(super) fn cancel_task_of(&self, params: &Value) {
        let call = params.get("requestId").map(id_key).unwrap_or_default();
        let mut state = self.state();
        if let Some(task_id) = state.task_calls.get(&call).cloned() {
            state.cancelled_tasks.insert(task_id);
        }
    }

    /// Keeps the input requests of a task that asks; the first poll after
    /// it moved on shows it asking again under the same keys, each for a
    /// different question.
    fn reuse_input_key(&self, frame: &mut Value) {
        let task_id = frame["result"]["taskId"].to_string();
        let mut state = self.state();
        if frame["result"]["status"] == "input_required" {
            state
                .task_inputs
                .insert(task_id, frame["result"]["inputRequests"].clone());
            return;
        }
        let Some(Value::Object(mut requests)) = state.task_inputs.remove(&task_id) else {
            return;
        };
        for request in requests.values_mut() {
            request["params"]["message"] = json!("mcp-conform: a second question under the same key");
        }
        frame["result"]["status"] = json!("input_required");
        frame["result"]["inputRequests"] = Value::Object(requests);
        frame["result"].as_object_mut().map(|r| r.remove("result"));
    }

    /// Rewrites a `notifications/tasks` the server pushes on a listen stream.
    pub(super) fn task_extension_message(&self, frame: &mut Value, around: &mut Around) {
        if !self.acts_stateless() || frame["method"] != "notifications/tasks" {
            return;
        }
        let params = &mut frame["params"];
        match self.fault {
            Fault::ModernTaskNotificationPartial if params["status"] == "completed" => {
                params.as_object_mut().map(|p| p.remove("result"));
            }
            Fault::ModernTaskProgressOnListen => {
                let task = params["taskId"].as_str().unwrap_or_default();
                if let Some(token) = self.state().task_tokens.get(task).cloned() {
                    let stream = params["_meta"][SUBSCRIPTION_ID].clone();
                    around
                        .before
                        .push(json!({ "jsonrpc": "2.0", "method": "notifications/progress",
                        "params": { "progressToken": token, "progress": 1,
                                    "_meta": { SUBSCRIPTION_ID: stream } } }));
                }
            }
            _ => {}
        }
    }

    /// Rewrites the server's answer to a task request or a `tools/call`.
    pub(super) fn task_extension_response(&self, method: &str, params: &Value, frame: &mut Value) {
        if !self.acts_stateless() {
            return;
        }
        let error_code = frame.pointer("/error/code").and_then(Value::as_i64);
        let result = frame.get("result").cloned().unwrap_or(Value::Null);
        let status = result.get("status").and_then(Value::as_str).unwrap_or_default();
        match (self.fault, method, error_code) {
            (Fault::ModernTaskOldOptIn, "tools/call", None)
                if params.get("task").is_some() && !opted_in(params) =>
            {
                frame["result"] = json!({ "resultType": "task", "taskId": "mcp-conform-old-opt-in",
                    "status": "completed", "createdAt": "2026-07-28T00:00:00Z",
                    "lastUpdatedAt": "2026-07-28T00:00:00Z", "ttlMs": null });
            }
            (Fault::ModernTaskProgressOnListen, "tools/call", None) if is_task_result(&result) => {
                self.note_task_token(result["taskId"].as_str(), params);
            }
            (Fault::ModernTaskCreatedNested, "tools/call", None) if is_task_result(&result) => {
                let mut task = result;
                task.as_object_mut().map(|t| t.remove("resultType"));
                frame["result"] = json!({ "resultType": "task", "task": task });
            }
            (Fault::ModernTaskNotStoredYet, "tools/call", None) if is_task_result(&result) => {
                self.state().unpolled_tasks.insert(result["taskId"].to_string());
            }
            (Fault::ModernTaskNotStoredYet, "tasks/get", None)
                if self.state().unpolled_tasks.remove(&params["taskId"].to_string()) =>
            {
                *frame = json!({ "jsonrpc": "2.0", "id": frame["id"],
                    "error": { "code": code::INVALID_PARAMS, "message": "no such task" } });
            }
            (Fault::ModernTaskNoInlinedResult, "tasks/get", None) if status == "completed" => {
                frame["result"].as_object_mut().map(|r| r.remove("result"));
            }
            (Fault::ModernTaskToolErrorFails, "tasks/get", None)
                if status == "completed" && result.pointer("/result/isError") == Some(&json!(true)) =>
            {
                let tool_error = frame["result"].as_object_mut().and_then(|r| r.remove("result"));
                frame["result"]["status"] = json!("failed");
                frame["result"]["error"] = json!({ "code": code::INTERNAL_ERROR,
                    "message": "the tool reported an error", "data": tool_error });
            }
            (Fault::ModernTaskUnknownIdCode, "tasks/get", Some(code::INVALID_PARAMS)) => {
                frame["error"]["code"] = json!(code::INTERNAL_ERROR);
            }
            (
                Fault::ModernTaskGetUndeclaredServed,
                "tasks/get" | "tasks/update" | "tasks/cancel",
                Some(code::MISSING_REQUIRED_CLIENT_CAPABILITY),
            ) => {
                *frame =
                    json!({ "jsonrpc": "2.0", "id": frame["id"], "result": { "resultType": "complete" } });
            }
            (
                Fault::ModernTaskRequiredOldCode,
                "tools/call",
                Some(code::MISSING_REQUIRED_CLIENT_CAPABILITY),
            ) => {
                frame["error"]["code"] = json!(OLD_MISSING_CAPABILITY);
            }
            (Fault::ModernTaskResultServed, "tasks/result", Some(code::METHOD_NOT_FOUND)) => {
                *frame = json!({ "jsonrpc": "2.0", "id": frame["id"],
                    "result": { "resultType": "complete", "content": [] } });
            }
            (Fault::ModernTaskInputKeyReused, "tasks/get", None) => self.reuse_input_key(frame),
            (Fault::ModernTaskCancelledByNotification, "tools/call", None) if is_task_result(&result) => {
                let task_id = result["taskId"].as_str().unwrap_or_default().to_owned();
                self.state().task_calls.insert(id_key(&frame["id"]), task_id);
            }
            (Fault::ModernTaskCancelledByNotification, "tasks/get", None)
                if self
                    .state()
                    .cancelled_tasks
                    .contains(result["taskId"].as_str().unwrap_or_default()) =>
            {
                frame["result"]["status"] = json!("cancelled");
                frame["result"].as_object_mut().map(|r| r.remove("result"));
            }
            (Fault::ModernTaskCreatedMidRound, "tools/call", None) if is_task_result(&result) => {
                if let (Some(state), Some(responses)) =
                    (params.get("requestState"), params.get("inputResponses"))
                {
                    frame["result"]["requestState"] = state.clone();
                    frame["result"]["inputRequests"] = responses.clone();
                }
            }
            (Fault::ModernTaskCancelAsTask, "tasks/cancel", None) => {
                frame["result"]["resultType"] = json!("task");
            }
            _ => {}
        }
    }
}
