//! A tool that needs input (elicitation, sampling, roots), run as a task of
//! the extension: rather than answering with an `InputRequiredResult`, the
//! task moves to `input_required` with the same questions as its
//! `inputRequests`, and resumes once `tasks/update` answered them. The
//! multi round-trip runs in-process: the task keeps the `requestState` and
//! hands the responses back as a retry would, so each key is asked once
//! and never again once answered (TASKX-018).

use serde_json::{Map, Value};

use super::input::{self, Turn};
use crate::reference::tasks::TaskInput;
use crate::reference::tools::args::ArgError;
use mcp_conform_core::wire::jsonrpc::{RpcError, code};

/// Runs the interactive `tool` with the whole `tools/call` params for
/// `principal`, asking through `task` until it has its outcome.
pub(crate) async fn run(
    tool: &str,
    params: &Map<String, Value>,
    arguments: &Map<String, Value>,
    principal: Option<&str>,
    task: TaskInput,
) -> Result<Result<Value, ArgError>, RpcError> {
    let mut retry = params.clone();
    loop {
        let interim = match input::call(tool, &retry, arguments, principal)? {
            Turn::Answer(outcome) => return Ok(outcome),
            Turn::Ask(interim) => interim,
        };
        let requests = interim["inputRequests"].as_object().cloned().unwrap_or_default();
        let responses = task.ask(requests).await;
        if responses.is_empty() {
            // Only a task that ended meanwhile gets no answers.
            return Err(RpcError::new(
                code::INTERNAL_ERROR,
                "the task ended before its input came",
            ));
        }
        retry.insert("requestState".to_owned(), interim["requestState"].clone());
        retry.insert("inputResponses".to_owned(), Value::Object(responses));
    }
}
