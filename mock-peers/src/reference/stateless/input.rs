//! The tools that need the client (elicitation, sampling, roots) under
//! 2026-07-28: no request goes to the client. The first call answers with
//! an `InputRequiredResult` holding the question and a sealed
//! `requestState`; the retry carries the answer in `inputResponses` and the
//! state echoed, and gets the final result (MRTR).

use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Map, Value, json};

use super::meta::Need;
use super::results;
use super::state::{self, Origin};
use crate::reference::tools::answers::{
    self, connection_outcome, elicitation_outcome, roots_outcome, sampling_outcome,
};
use crate::reference::tools::args::{ArgError, Args};
use crate::reference::tools::multi_turn::BOOK;
use mcp_conform_core::wire::jsonrpc::RpcError;

/// The client capability an interactive tool cannot do without, if `tool` is one.
pub(crate) fn need_of(tool: &str) -> Option<Need> {
    match tool {
        "elicit" => Some(Need::ElicitationForm),
        "connect" => Some(Need::ElicitationUrl),
        "sample" => Some(Need::Sampling),
        "roots" => Some(Need::Roots),
        _ => None,
    }
}

/// Every client capability `tool` cannot do without.
pub(crate) fn needs_of(tool: &str) -> Vec<Need> {
    match tool {
        BOOK => vec![Need::ElicitationForm, Need::Sampling],
        super::confirm_first::TOOL => vec![Need::ElicitationForm],
        other => need_of(other).into_iter().collect(),
    }
}

/// Visits of the `connect` URL, told apart for the life of the process.
static NEXT_VISIT: AtomicU64 = AtomicU64::new(1);

/// What `tool` asks the client: its key in `inputRequests`, and the request.
fn question(tool: &str, args: Args<'_>) -> Result<(&'static str, Value), ArgError> {
    Ok(match tool {
        "elicit" => {
            let message = args
                .optional_string("message")?
                .unwrap_or(answers::ELICIT_MESSAGE);
            let params =
                json!({ "mode": "form", "message": message, "requestedSchema": answers::requested_schema() });
            (
                "profile",
                json!({ "method": "elicitation/create", "params": params }),
            )
        }
        "connect" => {
            let visit = format!("visit-{}", NEXT_VISIT.fetch_add(1, Ordering::Relaxed));
            let params = json!({ "mode": "url", "message": answers::CONNECT_MESSAGE, "url": answers::connect_url(&visit) });
            (
                "connection",
                json!({ "method": "elicitation/create", "params": params }),
            )
        }
        "sample" => {
            let params = answers::sampling_params(args.string("prompt")?);
            (
                "completion",
                json!({ "method": "sampling/createMessage", "params": params }),
            )
        }
        _ => ("roots", json!({ "method": "roots/list" })),
    })
}

/// The final result of `tool` for the client's `answer`.
fn outcome(tool: &str, answer: &Value) -> Value {
    match tool {
        "elicit" => elicitation_outcome(answer),
        "connect" => connection_outcome(answer),
        "sample" => sampling_outcome(answer),
        _ => roots_outcome(answer),
    }
}

/// One turn of an interactive tool.
#[derive(Debug)]
pub(crate) enum Turn {
    /// An `InputRequiredResult`: the client answers and retries.
    Ask(Value),
    /// The tool's outcome, final.
    Answer(Result<Value, ArgError>),
}

/// Calls the interactive `tool` with `params` (the whole `tools/call`
/// params, `inputResponses` and `requestState` included) for `principal`.
pub(crate) fn call(
    tool: &str,
    params: &Map<String, Value>,
    arguments: &Map<String, Value>,
    principal: Option<&str>,
) -> Result<Turn, RpcError> {
    let (key, request) = match question(tool, Args(arguments)) {
        Ok(question) => question,
        Err(invalid) => return Ok(Turn::Answer(Err(invalid))),
    };
    let origin = Origin::new("tools/call", tool, &Value::Object(arguments.clone())).of_principal(principal);
    let ask = || {
        let state = state::seal(&origin, json!({ "asked": key }));
        let requests = Map::from_iter([(key.to_owned(), request.clone())]);
        Ok(Turn::Ask(results::input_required(requests, state)))
    };
    let Some(data) = opened_state(params, &origin)? else {
        // A first call; input responses without a state answer nothing we asked.
        return ask();
    };
    match answer_to(params, &data)? {
        Some(answer) => Ok(Turn::Answer(Ok(outcome(tool, answer)))),
        // Still missing: ask again rather than fail (MRTR-007).
        None => ask(),
    }
}

/// What the retry's `requestState` holds, once it passed its checks
/// (MRTR-005); `None` on a first call, which has none.
pub(crate) fn opened_state(params: &Map<String, Value>, origin: &Origin) -> Result<Option<Value>, RpcError> {
    let Some(state) = params.get("requestState") else {
        return Ok(None);
    };
    let state = state
        .as_str()
        .ok_or_else(|| RpcError::invalid_params("`requestState` must be a string"))?;
    state::open(state, origin)
        .map(Some)
        .map_err(|refused| RpcError::invalid_params(refused.to_string()))
}

/// The retry's input response to the question the state says was `asked`.
pub(crate) fn answer_to<'p>(
    params: &'p Map<String, Value>,
    state: &Value,
) -> Result<Option<&'p Value>, RpcError> {
    let asked = state["asked"].as_str().unwrap_or_default();
    match params.get("inputResponses") {
        None => Ok(None),
        Some(Value::Object(responses)) => Ok(responses.get(asked)),
        Some(_) => Err(RpcError::invalid_params("`inputResponses` must be an object")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    fn asked(turn: Turn) -> Value {
        match turn {
            Turn::Ask(interim) => interim,
            Turn::Answer(outcome) => panic!("expected a question, got {outcome:?}"),
        }
    }

    fn answered(turn: Turn) -> Value {
        match turn {
            Turn::Answer(Ok(result)) => result,
            other => panic!("expected a result, got {other:?}"),
        }
    }

    #[test]
    fn asks_first_then_finishes_on_the_retry() {
        let first = asked(call("elicit", &Map::new(), &Map::new(), None).unwrap());
        assert_eq!(first["resultType"], json!("input_required"));
        assert_eq!(
            first["inputRequests"]["profile"]["method"],
            json!("elicitation/create")
        );
        let state = first["requestState"].clone();
        let retry = map(json!({
            "requestState": state,
            "inputResponses": { "profile": { "action": "accept", "content": { "name": "Ada" } } },
        }));
        let done = answered(call("elicit", &retry, &Map::new(), None).unwrap());
        assert!(done["content"][0]["text"].as_str().unwrap().contains("Ada"));
        let missing = asked(
            call(
                "elicit",
                &map(json!({ "requestState": state })),
                &Map::new(),
                None,
            )
            .unwrap(),
        );
        assert_eq!(missing["resultType"], json!("input_required"));
    }

    #[test]
    fn a_changed_or_foreign_state_is_refused() {
        let first = asked(call("roots", &Map::new(), &Map::new(), None).unwrap());
        let state = first["requestState"].as_str().unwrap();
        let tampered = map(json!({ "requestState": format!("x{state}"), "inputResponses": {} }));
        assert_eq!(
            call("roots", &tampered, &Map::new(), None).unwrap_err().code,
            -32602
        );
        let foreign = map(json!({ "requestState": state, "inputResponses": {} }));
        assert_eq!(
            call("elicit", &foreign, &Map::new(), None).unwrap_err().code,
            -32602
        );
    }

    #[test]
    fn arguments_are_checked_before_asking() {
        let turn = call("sample", &Map::new(), &Map::new(), None).unwrap();
        assert!(matches!(turn, Turn::Answer(Err(_))), "{turn:?}");
    }
}
