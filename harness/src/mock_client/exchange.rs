//! What one mock-client exchange gave: the judged run, with the tool's
//! result and the findings read out of it.

use mcp_conform_core::Verdict;
use mcp_conform_core::wire::{Direction, Frame};
use serde_json::Value;

use crate::runner::{Check, ScenarioOutcome};

/// The outcome of [`super::MockClient::call_tool`].
#[derive(Debug, Clone)]
pub struct Exchange {
    /// The run as the engine judged it (checks, transcript, verdict, note).
    pub outcome: ScenarioOutcome,
}

impl Exchange {
    pub(super) fn new(outcome: ScenarioOutcome) -> Exchange {
        Exchange { outcome }
    }

    /// The final answer to the call: the last response the server sent
    /// (on 2026-07-28, the answer to the last retry).
    pub fn response(&self) -> Option<Value> {
        self.outcome
            .transcript
            .iter()
            .rev()
            .filter(|frame| frame.direction == Direction::Received)
            .filter_map(|frame| serde_json::from_slice::<Value>(&frame.raw).ok())
            .find(|message| message.get("method").is_none() && message.get("id").is_some())
    }

    /// The tool's result, when the call got one (not a JSON-RPC error).
    pub fn result(&self) -> Option<Value> {
        self.response()?.get("result").cloned()
    }

    /// The text blocks of the result's content, joined by newlines.
    pub fn text(&self) -> String {
        let result = self.result().unwrap_or(Value::Null);
        let blocks = result["content"].as_array().cloned().unwrap_or_default();
        let texts: Vec<&str> = blocks.iter().filter_map(|b| b["text"].as_str()).collect();
        texts.join("\n")
    }

    /// Every frame, both ways, in order.
    pub fn transcript(&self) -> &[Frame] {
        &self.outcome.transcript
    }

    /// The worst verdict of the checks, or why nothing was judged.
    pub fn verdict(&self) -> Verdict {
        self.outcome.verdict
    }

    /// The checks that did not pass.
    pub fn findings(&self) -> Vec<&Check> {
        let checks = self.outcome.checks.iter();
        checks.filter(|check| check.verdict != Verdict::Pass).collect()
    }

    /// Whether the exchange was judged and every check passed.
    pub fn is_conformant(&self) -> bool {
        self.verdict() == Verdict::Pass
    }

    /// The verdict, the note and each finding, one per line.
    pub fn findings_report(&self) -> String {
        let mut lines = vec![format!("verdict: {}", self.verdict())];
        lines.extend(self.outcome.note.iter().map(|note| format!("note: {note}")));
        lines.extend(self.findings().iter().map(|check| {
            let message = check.message.as_deref().unwrap_or_default();
            format!(
                "{} {} {}: {message}",
                check.verdict, check.requirement, check.name
            )
        }));
        lines.join("\n")
    }
}
