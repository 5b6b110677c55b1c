//! `book`, the multi-turn tool: in one call it asks the user for a seat
//! (form elicitation), asks the client's model to summarise the trip
//! (sampling), then asks the user to confirm (form elicitation); its result
//! names all three answers. Before its first ask it places a hold, a side
//! effect that `bookings` counts, so that a server redoing it on every
//! input round of 2026-07-28 shows.
//!
//! The conversation is a pure function of the answers so far ([`next`]):
//! a legacy session asks each question as a request to the client, the
//! stateless era carries the answers in its sealed `requestState`.

use std::collections::BTreeMap;
use std::sync::Mutex;

use serde_json::{Value, json};

use super::args::{ArgError, Args};
use super::{error_result, text_result};

/// The name of the multi-turn tool.
pub(crate) const BOOK: &str = "book";

/// The name of the tool that counts the multi-turn tool's side effects.
pub(crate) const BOOKINGS: &str = "bookings";

/// Holds placed per destination since `bookings` last read them: kept
/// apart so that calls for other destinations (other scenarios on a shared
/// server) do not count.
static HOLDS: Mutex<BTreeMap<String, u64>> = Mutex::new(BTreeMap::new());

fn holds() -> std::sync::MutexGuard<'static, BTreeMap<String, u64>> {
    HOLDS.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The side effect `book` performs once per call, before its first ask.
pub(crate) fn place_hold(destination: &str) {
    *holds().entry(destination.to_owned()).or_default() += 1;
}

/// `bookings`: how many holds were placed for the destination since it
/// was last called for it.
pub(crate) fn bookings(args: Args<'_>) -> Result<Value, ArgError> {
    let destination = destination(args)?;
    let count = holds().remove(destination).unwrap_or(0);
    Ok(text_result(count.to_string()))
}

/// One question of the conversation: its key in `inputRequests`, and the
/// request (`{method, params}`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Question {
    pub key: &'static str,
    pub method: &'static str,
    pub params: Value,
}

impl Question {
    /// Its params; `modes`: elicitations name their mode (from 2025-11-25).
    pub fn params(&self, modes: bool) -> Value {
        let mut params = self.params.clone();
        if modes && self.method == "elicitation/create" {
            params["mode"] = json!("form");
        }
        params
    }

    /// As an entry of `inputRequests` (2026-07-28).
    pub fn as_input_request(&self) -> Value {
        json!({ "method": self.method, "params": self.params(true) })
    }
}

/// Where the conversation stands after the answers so far.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Turn {
    Ask(Question),
    Done(Value),
}

/// The destination a call books, from its arguments.
pub(crate) fn destination<'a>(args: Args<'a>) -> Result<&'a str, ArgError> {
    args.string("destination")
}

fn form(message: String, name: &str, property: Value) -> Value {
    json!({
        "message": message,
        "requestedSchema": { "type": "object", "properties": { name: property }, "required": [name] },
    })
}

fn seat_question(destination: &str) -> Question {
    let seat = json!({ "type": "string", "enum": ["window", "aisle"], "description": "Seat" });
    Question {
        key: "seat",
        method: "elicitation/create",
        params: form(format!("Which seat for the trip to {destination}?"), "seat", seat),
    }
}

fn summary_question(destination: &str, seat: &str) -> Question {
    let prompt = format!("Summarise a trip to {destination} in a {seat} seat in one sentence.");
    Question {
        key: "summary",
        method: "sampling/createMessage",
        params: json!({
            "messages": [{ "role": "user", "content": { "type": "text", "text": prompt } }],
            "maxTokens": 64,
        }),
    }
}

fn confirm_question(summary: &str) -> Question {
    let confirm = json!({ "type": "boolean", "description": "Book it" });
    Question {
        key: "confirm",
        method: "elicitation/create",
        params: form(format!("Book this trip? {summary}"), "confirm", confirm),
    }
}

/// The accepted content of an elicitation answer, or the result that ends
/// the call when the user did not accept (`at` names the question).
fn accepted<'a>(answer: &'a Value, at: &str) -> Result<&'a Value, Value> {
    match answer.get("action").and_then(Value::as_str) {
        Some("accept") => Ok(answer.get("content").unwrap_or(&Value::Null)),
        Some(action @ ("decline" | "cancel")) => Err(text_result(format!("action={action} at the {at}"))),
        _ => Err(error_result(format!(
            "the client's answer to the {at} has no valid action: {answer}"
        ))),
    }
}

/// The text of a sampling result (a block, or an array of blocks).
fn sampled_text(answer: &Value) -> Option<&str> {
    match answer.get("content")? {
        Value::Array(blocks) => blocks.iter().find_map(|b| b.get("text")?.as_str()),
        block => block.get("text")?.as_str(),
    }
}

/// The next turn after `answers`, the client's answers to the questions
/// asked so far, in order.
pub(crate) fn next(destination: &str, answers: &[Value]) -> Turn {
    let outcome = (|| {
        let Some(seat) = answers.first() else {
            return Err(Turn::Ask(seat_question(destination)));
        };
        let seat = accepted(seat, "seat").map_err(Turn::Done)?;
        let Some(seat) = seat.get("seat").and_then(Value::as_str) else {
            return Err(Turn::Done(error_result(format!(
                "the seat answer has no seat: {seat}"
            ))));
        };
        let Some(summary) = answers.get(1) else {
            return Err(Turn::Ask(summary_question(destination, seat)));
        };
        let Some(summary) = sampled_text(summary) else {
            let problem = format!("the client's sampling result has no text: {summary}");
            return Err(Turn::Done(error_result(problem)));
        };
        let Some(confirm) = answers.get(2) else {
            return Err(Turn::Ask(confirm_question(summary)));
        };
        let confirm = accepted(confirm, "confirmation").map_err(Turn::Done)?;
        let confirmed = confirm.get("confirm").and_then(Value::as_bool).unwrap_or(false);
        Ok(text_result(format!(
            "booked {destination}: seat={seat}; summary={summary}; confirmed={confirmed}"
        )))
    })();
    match outcome {
        Ok(result) => Turn::Done(result),
        Err(turn) => turn,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asked(turn: Turn) -> Question {
        match turn {
            Turn::Ask(question) => question,
            Turn::Done(result) => panic!("expected a question, got {result}"),
        }
    }

    fn done(turn: Turn) -> String {
        match turn {
            Turn::Done(result) => result["content"][0]["text"].as_str().unwrap().to_owned(),
            Turn::Ask(question) => panic!("expected a result, got {question:?}"),
        }
    }

    #[test]
    fn elicits_samples_and_elicits_again_then_names_every_answer() {
        let seat = json!({ "action": "accept", "content": { "seat": "aisle" } });
        let summary =
            json!({ "role": "assistant", "content": { "type": "text", "text": "Nice." }, "model": "m" });
        let confirm = json!({ "action": "accept", "content": { "confirm": true } });
        assert_eq!(asked(next("Lisbon", &[])).method, "elicitation/create");
        let sampling = asked(next("Lisbon", std::slice::from_ref(&seat)));
        assert_eq!(sampling.method, "sampling/createMessage");
        assert!(sampling.params.to_string().contains("aisle"));
        let confirmation = asked(next("Lisbon", &[seat.clone(), summary.clone()]));
        assert_eq!(confirmation.key, "confirm");
        assert!(confirmation.params["message"].as_str().unwrap().contains("Nice."));
        let text = done(next("Lisbon", &[seat, summary, confirm]));
        assert_eq!(text, "booked Lisbon: seat=aisle; summary=Nice.; confirmed=true");
    }

    #[test]
    fn a_refusal_ends_the_call_cleanly_where_it_happens() {
        let cancel = json!({ "action": "cancel" });
        assert_eq!(done(next("Oslo", &[cancel])), "action=cancel at the seat");
        let seat = json!({ "action": "accept", "content": { "seat": "window" } });
        let summary = json!({ "content": [{ "type": "text", "text": "Cold." }] });
        let decline = json!({ "action": "decline" });
        assert_eq!(
            done(next("Oslo", &[seat, summary, decline])),
            "action=decline at the confirmation"
        );
    }

    #[test]
    fn the_counter_reads_and_resets_per_destination() {
        let read = |destination: &str| {
            let args = json!({ "destination": destination }).as_object().unwrap().clone();
            bookings(Args(&args)).unwrap()["content"][0]["text"].clone()
        };
        place_hold("counter-test-a");
        place_hold("counter-test-a");
        place_hold("counter-test-b");
        assert_eq!(read("counter-test-a"), json!("2"));
        assert_eq!(read("counter-test-a"), json!("0"));
        assert_eq!(read("counter-test-b"), json!("1"));
    }
}
