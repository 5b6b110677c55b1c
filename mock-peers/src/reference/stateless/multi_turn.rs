//! `book` under 2026-07-28: each question of the conversation is an input
//! round. The answers so far travel in the sealed `requestState`, so a
//! retry resumes where the last round stopped; the hold is placed on the
//! first call only, never again on a retry.

use serde_json::{Map, Value, json};

use super::input::{Turn, answer_to, opened_state};
use super::results;
use super::state::{self, Origin};
use crate::reference::tools::args::Args;
use crate::reference::tools::multi_turn::{self, BOOK};
use mcp_conform_core::wire::jsonrpc::RpcError;

/// One round of `book`, for the whole `tools/call` params of `principal`.
pub(crate) fn call(
    params: &Map<String, Value>,
    arguments: &Map<String, Value>,
    principal: Option<&str>,
) -> Result<Turn, RpcError> {
    let destination = match multi_turn::destination(Args(arguments)) {
        Ok(destination) => destination,
        Err(invalid) => return Ok(Turn::Answer(Err(invalid))),
    };
    let origin = Origin::new("tools/call", BOOK, &Value::Object(arguments.clone())).of_principal(principal);
    let answers = match opened_state(params, &origin)? {
        None => {
            multi_turn::place_hold(destination);
            Vec::new()
        }
        Some(data) => {
            let mut answers = data["answers"].as_array().cloned().unwrap_or_default();
            // Without the answer asked for, the same question comes again (MRTR-007).
            answers.extend(answer_to(params, &data)?.cloned());
            answers
        }
    };
    Ok(match multi_turn::next(destination, &answers) {
        multi_turn::Turn::Done(result) => Turn::Answer(Ok(result)),
        multi_turn::Turn::Ask(question) => {
            let state = state::seal(&origin, json!({ "asked": question.key, "answers": answers }));
            let requests = Map::from_iter([(question.key.to_owned(), question.as_input_request())]);
            Turn::Ask(results::input_required(requests, state))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(params: Value) -> Value {
        let params = params.as_object().unwrap().clone();
        let arguments = json!({ "destination": "Rome" }).as_object().unwrap().clone();
        match call(&params, &arguments, None).unwrap() {
            Turn::Ask(interim) | Turn::Answer(Ok(interim)) => interim,
            Turn::Answer(Err(invalid)) => panic!("{invalid:?}"),
        }
    }

    #[test]
    fn three_rounds_resume_from_the_state_and_a_missing_answer_is_asked_again() {
        let first = round(json!({}));
        assert_eq!(first["inputRequests"]["seat"]["params"]["mode"], json!("form"));
        let seat = json!({ "seat": { "action": "accept", "content": { "seat": "window" } } });
        let second = round(json!({ "requestState": first["requestState"], "inputResponses": seat }));
        assert_eq!(
            second["inputRequests"]["summary"]["method"],
            json!("sampling/createMessage")
        );
        let again = round(json!({ "requestState": second["requestState"], "inputResponses": {} }));
        assert!(again["inputRequests"]["summary"].is_object(), "{again}");
        let summary = json!({ "summary": { "role": "assistant", "content": { "type": "text", "text": "Sunny." }, "model": "m" } });
        let third = round(json!({ "requestState": again["requestState"], "inputResponses": summary }));
        let confirm = json!({ "confirm": { "action": "accept", "content": { "confirm": true } } });
        let done = round(json!({ "requestState": third["requestState"], "inputResponses": confirm }));
        assert_eq!(
            done["content"][0]["text"],
            json!("booked Rome: seat=window; summary=Sunny.; confirmed=true")
        );
    }
}
