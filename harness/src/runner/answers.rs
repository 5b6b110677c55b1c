//! Answers the peer's own requests from the scenario's script, and judges
//! what the peer asked for.

mod queue;

use queue::Served;
pub use queue::StepQueues;

use mcp_conform_core::matcher::{MatchContext, render_template};
use mcp_conform_core::scenario::model::{Reply, ScriptedAnswer};
use mcp_mock_peers::session::{PeerRequest, RequestHandler, default_reply};
use serde_json::{Value, json};

use super::outcome::Check;
use super::verify::check_matcher;

/// Which scripted answer served a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswerSource {
    Step(usize),
    Scenario(usize),
}

/// The scripted answers in force at one moment: the running step's first,
/// then the scenario's. Records every use and every check it makes.
#[derive(Debug)]
pub struct ScriptHandler<'a> {
    pub step: &'a [ScriptedAnswer],
    pub scenario: &'a [ScriptedAnswer],
    pub vars: &'a mut MatchContext,
    /// Client capabilities we declared: what the fallback replies follow.
    pub declared: &'a Value,
    pub checks: Vec<Check>,
    pub used: Vec<AnswerSource>,
    /// Where the step's queues stand. `None`: the step's answers serve
    /// first-match, without queues (a gateway backend's script).
    pub queues: Option<&'a mut StepQueues>,
}

impl ScriptHandler<'_> {
    fn find(&mut self, request: &PeerRequest) -> Option<(AnswerSource, &ScriptedAnswer)> {
        let params = request.params.clone().unwrap_or_else(|| json!({}));
        let vars = &mut *self.vars;
        let mut serves = |a: &ScriptedAnswer| {
            a.method == request.method
                && a.when
                    .as_ref()
                    .is_none_or(|w| w.eval(Some(&params), vars).is_empty())
        };
        let in_step = match self.queues.as_deref_mut() {
            None => self.step.iter().position(&mut serves),
            // An answer picked by `when` first; else the method's queue.
            Some(queues) => match self.step.iter().position(|a| a.when.is_some() && serves(a)) {
                Some(i) => Some(i),
                None => match queues.take(self.step, &request.method, request.index) {
                    Served::Answer(i) => Some(i),
                    // Left to the fallback: the scenario's answers are not the step's queue.
                    Served::Exhausted => return None,
                    Served::Unscripted => None,
                },
            },
        };
        if let Some(i) = in_step {
            if let Some(queues) = self.queues.as_deref_mut() {
                queues.mark_used(i);
            }
            return Some((AnswerSource::Step(i), &self.step[i]));
        }
        let in_scenario = self.scenario.iter().position(serves);
        in_scenario.map(|i| (AnswerSource::Scenario(i), &self.scenario[i]))
    }
}

impl RequestHandler for ScriptHandler<'_> {
    fn answer(&mut self, request: &PeerRequest) -> Reply {
        let Some((source, answer)) = self.find(request) else {
            return fallback_reply(&request.method, self.declared);
        };
        let (reply, expect) = (answer.reply.clone(), answer.expect.clone());
        self.used.push(source);
        if let Some(asked) = expect.as_ref().filter(|asked| asked.forbidden) {
            let message = format!(
                "the peer sent {}, which the scenario forbids here",
                request.method
            );
            let check = Check::broken_for(forbidden_name(&request.method), &asked.tag, message);
            self.checks.push(check.at_frame(Some(request.index)));
        } else if let Some(asked) = expect
            && let Some(matcher) = &asked.params
        {
            let name = format!("what the peer asked for in {}", request.method);
            let params = request.params.clone().unwrap_or(Value::Null);
            let check = check_matcher(name, &asked.tag, matcher, Some(&params), self.vars);
            self.checks.push(check.at_frame(Some(request.index)));
        }
        match reply {
            Reply::Result(template) => match render_template(&template, &self.vars.vars) {
                Ok(result) => Reply::Result(result),
                Err(undefined) => Reply::Error {
                    code: -32603,
                    message: format!("scenario reply refers to an undefined variable: {undefined}"),
                    data: None,
                },
            },
            other => other,
        }
    }
}

/// The name of the check of an answer marked `forbidden`.
pub fn forbidden_name(method: &str) -> String {
    format!("the peer does not ask for {method}")
}

/// What we answer when nothing is scripted: like a real client that declared
/// the feature but whose user walked away (cancel, refusal, no roots), and
/// "method not found" for features we did not declare.
fn fallback_reply(method: &str, declared: &Value) -> Reply {
    let declared = |cap: &str| declared.get(cap).is_some_and(|c| !c.is_null());
    match method {
        "elicitation/create" if declared("elicitation") => Reply::Result(json!({"action": "cancel"})),
        "roots/list" if declared("roots") => Reply::Result(json!({"roots": []})),
        "sampling/createMessage" if declared("sampling") => Reply::Error {
            code: -1,
            message: "the user rejected the sampling request".into(),
            data: None,
        },
        other => default_reply(other),
    }
}
