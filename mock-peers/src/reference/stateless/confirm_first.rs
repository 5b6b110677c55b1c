//! `confirm_then_elicit` under 2026-07-28: a tool that needs input before
//! it becomes a task. The call first asks for a confirmation through a
//! multi round-trip (an `InputRequiredResult`), and only the retry that
//! brings it is answered with the `CreateTaskResult` (TASKX-009). The task
//! then asks the `elicit` form through its `inputRequests`, under the same
//! key as the confirmation: the two phases' keys are independent, so the
//! task waits for its own answer rather than taking the call's.

use serde_json::{Map, Value, json};

use super::input::{answer_to, opened_state};
use super::results;
use super::state::{self, Origin};
use crate::reference::tools::text_result;
use mcp_conform_core::wire::jsonrpc::RpcError;

/// The tool's name.
pub(crate) const TOOL: &str = "confirm_then_elicit";

/// The tool the task runs once confirmed.
pub(crate) const TASK_TOOL: &str = "elicit";

/// The key of the confirmation: the one the task's question uses too.
const KEY: &str = "profile";

/// Where the call stands after one round.
#[derive(Debug)]
pub(crate) enum Phase {
    /// An `InputRequiredResult` asking for the confirmation.
    Ask(Value),
    /// Confirmed: the work may start.
    Confirmed,
    /// Declined or cancelled: the final result, nothing started.
    Refused(Value),
}

fn confirmation() -> Value {
    let schema = json!({ "type": "object", "properties": { "confirm": { "type": "boolean" } } });
    json!({ "method": "elicitation/create",
            "params": { "mode": "form", "message": "Start the job?", "requestedSchema": schema } })
}

/// One round of the call (the whole `tools/call` params of `principal`).
pub(crate) fn confirm(
    params: &Map<String, Value>,
    arguments: &Map<String, Value>,
    principal: Option<&str>,
) -> Result<Phase, RpcError> {
    let origin = Origin::new("tools/call", TOOL, &Value::Object(arguments.clone())).of_principal(principal);
    let ask = || {
        let state = state::seal(&origin, json!({ "asked": KEY }));
        let requests = Map::from_iter([(KEY.to_owned(), confirmation())]);
        Phase::Ask(results::input_required(requests, state))
    };
    let Some(data) = opened_state(params, &origin)? else {
        return Ok(ask());
    };
    Ok(match answer_to(params, &data)? {
        // Still missing: ask again rather than fail (MRTR-007).
        None => ask(),
        Some(answer) if answer.get("action") == Some(&json!("accept")) => Phase::Confirmed,
        Some(_) => Phase::Refused(text_result("not confirmed: nothing was started")),
    })
}

/// The params the task runs with: the call's, without the round's members,
/// whose key and state are not the task's.
pub(crate) fn task_call(params: &Map<String, Value>) -> Map<String, Value> {
    let mut call = params.clone();
    call.remove("requestState");
    call.remove("inputResponses");
    call.insert("name".to_owned(), json!(TASK_TOOL));
    call
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(params: Value) -> Phase {
        confirm(params.as_object().unwrap(), &Map::new(), None).unwrap()
    }

    #[test]
    fn the_confirmation_comes_first_and_its_round_is_left_out_of_the_task() {
        let Phase::Ask(first) = round(json!({ "name": TOOL })) else {
            panic!("the first call asks");
        };
        assert_eq!(first["resultType"], json!("input_required"));
        let state = first["requestState"].clone();
        let accept = json!({ "name": TOOL, "requestState": state,
                             "inputResponses": { KEY: { "action": "accept", "content": { "confirm": true } } } });
        assert!(matches!(round(accept.clone()), Phase::Confirmed));
        let decline = json!({ "name": TOOL, "requestState": state, "inputResponses": { KEY: { "action": "decline" } } });
        assert!(matches!(round(decline), Phase::Refused(_)));
        assert!(matches!(
            round(json!({ "name": TOOL, "requestState": state })),
            Phase::Ask(_)
        ));
        let task = task_call(accept.as_object().unwrap());
        assert_eq!(Value::Object(task), json!({ "name": TASK_TOOL }));
    }
}
