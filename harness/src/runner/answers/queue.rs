//! Queued answers: within one step, several answers for one method (and no
//! `when`) serve that method's requests in the order written, the first
//! request getting the first answer. A lone answer keeps serving every
//! request of its method, as it always has.

use std::collections::{BTreeMap, BTreeSet};

use mcp_conform_core::Level;
use mcp_conform_core::scenario::model::ScriptedAnswer;

use super::super::outcome::Check;

/// Where the queues of the running step stand.
#[derive(Debug, Default)]
pub struct StepQueues {
    /// Requests of each queued method served so far in the step.
    taken: BTreeMap<String, usize>,
    /// The step's answers (by index) that served a request.
    used: BTreeSet<usize>,
    /// Requests that found their method's queue empty: the method, which
    /// request of the step it was (from 1), and its frame.
    overflow: Vec<(String, usize, usize)>,
}

/// What a step's answers offer a request of one method.
#[derive(Debug, PartialEq, Eq)]
pub enum Served {
    /// The answer at this index of the step's answers.
    Answer(usize),
    /// The method has a queue, and it is used up.
    Exhausted,
    /// The step has no unconditional answer for the method.
    Unscripted,
}

/// The indices of the step's answers that make up `method`'s queue: those
/// without `when`, in order.
fn queue(answers: &[ScriptedAnswer], method: &str) -> Vec<usize> {
    answers
        .iter()
        .enumerate()
        .filter(|(_, a)| a.method == method && a.when.is_none())
        .map(|(i, _)| i)
        .collect()
}

impl StepQueues {
    /// Starts a step: nothing taken, nothing used.
    pub fn reset(&mut self) {
        *self = StepQueues::default();
    }

    /// The unconditional answer for the next request of `method` (its
    /// frame at `frame`).
    pub fn take(&mut self, answers: &[ScriptedAnswer], method: &str, frame: usize) -> Served {
        let queue = queue(answers, method);
        match queue.as_slice() {
            [] => Served::Unscripted,
            [only] => Served::Answer(*only),
            queued => {
                let taken = self.taken.entry(method.to_owned()).or_default();
                *taken += 1;
                match queued.get(*taken - 1) {
                    Some(index) => Served::Answer(*index),
                    None => {
                        self.overflow.push((method.to_owned(), *taken, frame));
                        Served::Exhausted
                    }
                }
            }
        }
    }

    /// Records that the step's answer at `index` served a request.
    pub fn mark_used(&mut self, index: usize) {
        self.used.insert(index);
    }

    /// For an answer of a queue of two or more that served no request:
    /// why, in words. `None` for any other answer.
    pub fn left_unused(&self, answers: &[ScriptedAnswer], index: usize) -> Option<String> {
        let answer = &answers[index];
        let queued = queue(answers, &answer.method);
        let forbidden = answer.expect.as_ref().is_some_and(|e| e.forbidden);
        if forbidden || answer.when.is_some() || queued.len() < 2 || self.used.contains(&index) {
            return None;
        }
        let position = queued.iter().position(|&i| i == index).map_or(0, |p| p + 1);
        let asked = self.taken.get(&answer.method).copied().unwrap_or(0);
        Some(format!(
            "the {} answer of the step's queue for {} was never used: the peer asked {asked} time(s)",
            ordinal(position),
            answer.method
        ))
    }

    /// The findings for requests the step's queues had no answer for, each
    /// at the last answer of its queue and under its requirement.
    pub fn overflow_checks(&mut self, answers: &[ScriptedAnswer], fallback_requirement: &str) -> Vec<Check> {
        std::mem::take(&mut self.overflow)
            .into_iter()
            .filter_map(|(method, nth, frame)| {
                let queued = queue(answers, &method);
                let last = &answers[*queued.last()?];
                let (requirement, level) = last.expect.as_ref().map_or_else(
                    || (fallback_requirement.to_owned(), Level::Must),
                    |e| (e.tag.requirement.clone(), e.tag.level),
                );
                let message = format!(
                    "the peer sent {method} for the {} time in this step, and the step's queue holds {} answers for it",
                    ordinal(nth),
                    queued.len()
                );
                let name = format!("the peer asks for {method} no more than scripted");
                Some(Check::broken(name, &requirement, level, last.span, message).at_frame(Some(frame)))
            })
            .collect()
    }
}

/// `1st`, `2nd`, `3rd`, `4th`...
fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_conform_core::scenario::model::{AnswerKind, Reply};
    use mcp_conform_core::span::Span;
    use serde_json::json;

    fn answer(method: &str, tag: &str) -> ScriptedAnswer {
        ScriptedAnswer {
            kind: AnswerKind::Other,
            method: method.into(),
            when: None,
            expect: None,
            reply: Reply::Result(json!({ "tag": tag })),
            span: Span::default(),
        }
    }

    #[test]
    fn a_queue_serves_in_order_then_runs_dry() {
        let answers = [answer("a", "1"), answer("b", "x"), answer("a", "2")];
        let mut queues = StepQueues::default();
        assert_eq!(queues.take(&answers, "a", 3), Served::Answer(0));
        queues.mark_used(0);
        let unused = queues.left_unused(&answers, 2).unwrap();
        assert!(
            unused.contains("2nd answer") && unused.contains("asked 1 time"),
            "{unused}"
        );
        assert_eq!(queues.left_unused(&answers, 0), None);
        assert_eq!(queues.take(&answers, "b", 4), Served::Answer(1));
        assert_eq!(queues.take(&answers, "a", 5), Served::Answer(2));
        assert_eq!(queues.take(&answers, "a", 6), Served::Exhausted);
        assert_eq!(queues.take(&answers, "c", 7), Served::Unscripted);
        let checks = queues.overflow_checks(&answers, "ELIC-001");
        assert_eq!(checks.len(), 1);
        assert!(
            checks[0].message.as_deref().unwrap().contains("3rd time"),
            "{checks:?}"
        );
        assert!(queues.overflow_checks(&answers, "ELIC-001").is_empty());
    }

    #[test]
    fn a_lone_answer_serves_every_request_of_its_method() {
        let answers = [answer("b", "x")];
        let mut queues = StepQueues::default();
        for frame in 0..3 {
            assert_eq!(queues.take(&answers, "b", frame), Served::Answer(0));
        }
        assert_eq!(queues.left_unused(&answers, 0), None);
        assert!(queues.overflow_checks(&answers, "X").is_empty());
    }

    #[test]
    fn ordinals_read_as_english() {
        let words: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22].map(ordinal).to_vec();
        assert_eq!(
            words,
            ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd"]
        );
    }
}
