//! The oracle: what the spec lets a server answer to one generated
//! `tools/call`, and the requirement a wrong answer breaks, at its own level
//! (a SHOULD is a non-strict finding, never a failure).
//!
//! What it deliberately accepts, so a correct server earns no finding:
//! arguments that break the tool's schema may be refused with a JSON-RPC
//! error (TOOL-004) or answered with an `isError` result (TOOL-005 from
//! 2025-11-25), and edge values the schema allows may fail either way, since
//! a tool may legitimately fail on them.

use mcp_conform_core::requirements::{RequirementId, id};
use mcp_conform_report::Verdict;
use serde_json::Value;

use super::arguments::Flaw;

/// JSON-RPC "internal error": meant for failures the receiver did not foresee.
const INTERNAL_ERROR: i64 = -32603;
/// JSON-RPC "invalid params".
const INVALID_PARAMS: i64 = -32602;

/// What became of one generated call.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// The response frame (already matched to the request by id).
    Response(Value),
    /// No response before the deadline; whether a `ping` sent afterwards
    /// was still answered tells a slow tool from a server that is stuck.
    NoAnswer { still_answers_ping: bool },
    /// The server's process exited or its connection closed.
    PeerGone,
}

/// A broken requirement, and what the server did.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub requirement: RequirementId,
    pub verdict: Verdict,
    pub what: String,
}

impl Finding {
    fn new(requirement: RequirementId, what: String) -> Self {
        Finding {
            verdict: requirement.requirement().level.verdict_when_broken(),
            requirement,
            what,
        }
    }
}

/// Judges the answer to a call whose arguments carry `flaw` (`None`: valid
/// arguments).
pub fn judge_tool_call(flaw: Option<Flaw>, answer: &Answer) -> Option<Finding> {
    let described = flaw.map_or("valid arguments".to_owned(), |flaw| format!("{flaw:?}"));
    match answer {
        Answer::PeerGone => Some(Finding::new(
            id::TOOL_006,
            format!("the server went away on a call with {described}"),
        )),
        Answer::NoAnswer {
            still_answers_ping: false,
        } => Some(Finding::new(
            id::TOOL_006,
            format!("the server stopped answering (even ping) after a call with {described}"),
        )),
        Answer::NoAnswer {
            still_answers_ping: true,
        } => None,
        Answer::Response(frame) => {
            let code = frame.pointer("/error/code").and_then(Value::as_i64)?;
            let breaks_schema = flaw.is_some_and(Flaw::breaks_schema);
            (breaks_schema && code == INTERNAL_ERROR).then(|| {
                Finding::new(
                    id::RPC_012,
                    format!(
                        "arguments breaking the tool's schema ({described}) earned \
                         {INTERNAL_ERROR} (internal error), not {INVALID_PARAMS}"
                    ),
                )
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn error(code: i64) -> Answer {
        Answer::Response(json!({"jsonrpc": "2.0", "id": 1, "error": {"code": code, "message": "x"}}))
    }

    #[test]
    fn a_server_that_goes_away_fails_tool_006() {
        let finding = judge_tool_call(Some(Flaw::Huge), &Answer::PeerGone).unwrap();
        assert_eq!(finding.requirement, id::TOOL_006);
        assert_eq!(finding.verdict, Verdict::Fail);
    }

    #[test]
    fn a_stuck_server_fails_but_a_slow_tool_does_not() {
        let stuck = Answer::NoAnswer {
            still_answers_ping: false,
        };
        let slow = Answer::NoAnswer {
            still_answers_ping: true,
        };
        assert_eq!(judge_tool_call(None, &stuck).unwrap().requirement, id::TOOL_006);
        assert_eq!(judge_tool_call(None, &slow), None);
    }

    #[test]
    fn internal_error_for_a_schema_violation_is_non_strict() {
        let finding = judge_tool_call(Some(Flaw::WrongType), &error(-32603)).unwrap();
        assert_eq!(finding.requirement, id::RPC_012);
        assert_eq!(finding.verdict, Verdict::NonStrict);
    }

    #[test]
    fn every_answer_the_spec_allows_passes() {
        let is_error = Answer::Response(json!({
            "jsonrpc": "2.0", "id": 1,
            "result": {"content": [], "isError": true}
        }));
        for flaw in [Flaw::Missing, Flaw::WrongType, Flaw::OutOfRange] {
            assert_eq!(judge_tool_call(Some(flaw), &error(-32602)), None);
            assert_eq!(judge_tool_call(Some(flaw), &is_error), None);
        }
        for flaw in [None, Some(Flaw::Huge), Some(Flaw::Unicode)] {
            assert_eq!(judge_tool_call(flaw, &error(-32603)), None);
        }
    }
}
