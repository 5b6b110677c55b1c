//! The oracle: what the spec lets a server answer to one generated request
//! (a tool call, a prompt, a resource read, a completion, an unknown
//! method), and the requirement a wrong answer breaks, at its own level (a
//! SHOULD is a non-strict finding, never a failure).
//!
//! What it deliberately accepts, so a correct server earns no finding:
//! arguments that break the tool's schema may be refused with a JSON-RPC
//! error (TOOL-004) or answered with an `isError` result (TOOL-005 from
//! 2025-11-25), and edge values the schema allows may fail either way, since
//! a tool may legitimately fail on them. A resource read or a completion of
//! generated text may fail with any error: the text may name nothing.

use mcp_conform_core::requirements::{RequirementId, id};
use mcp_conform_core::wire::jsonrpc::code;
use mcp_conform_report::Verdict;
use serde_json::Value;

use super::arguments::Flaw;
use super::subject::{Kind, Subject, raw_frame};

/// JSON-RPC "internal error": meant for failures the receiver did not foresee.
const INTERNAL_ERROR: i64 = -32603;
/// JSON-RPC "invalid params".
const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC "method not found".
const METHOD_NOT_FOUND: i64 = -32601;

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
    /// Malformed input met no answer, though the `ping` after it did.
    Ignored,
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

/// Judges the answer to a request to `subject` made of `arguments`, which
/// carry `flaw` (`None`: valid arguments).
pub fn judge(subject: &Subject, arguments: &Value, flaw: Option<Flaw>, answer: &Answer) -> Option<Finding> {
    let described = flaw.map_or("valid arguments".to_owned(), |flaw| format!("{flaw:?}"));
    if *subject == Subject::Frame {
        return judge_frame(raw_frame(arguments).1, answer);
    }
    // A tool's crash breaks the tool rule; any other request left without
    // its response breaks JSON-RPC's, as a scenario's silence does.
    let alive = match subject.kind() {
        Kind::Tools => id::TOOL_006,
        _ => id::RPC_004,
    };
    match answer {
        Answer::PeerGone => Some(Finding::new(
            alive,
            format!("the server went away on a request with {described}"),
        )),
        Answer::NoAnswer {
            still_answers_ping: false,
        } => Some(Finding::new(
            alive,
            format!("the server stopped answering (even ping) after a request with {described}"),
        )),
        Answer::NoAnswer {
            still_answers_ping: true,
        }
        | Answer::Ignored => None,
        Answer::Response(frame) => judge_response(subject, flaw, &described, frame),
    }
}

/// The answer to a malformed frame that JSON-RPC gives `expects`: that
/// error, at RPC-009's or RPC-010's level, SHOULD, whatever else happened
/// (MCP forbids a client to write such lines on stdio, so even a server
/// that goes away on one breaks only the SHOULD to answer it).
fn judge_frame(expects: i64, answer: &Answer) -> Option<Finding> {
    let requirement = match expects {
        code::PARSE_ERROR => id::RPC_009,
        _ => id::RPC_010,
    };
    let what = match answer {
        Answer::Response(frame) => {
            let code = frame.pointer("/error/code").and_then(Value::as_i64);
            if code == Some(expects) {
                return None;
            }
            format!("earned {}", answered(code))
        }
        Answer::Ignored => "met no answer (the ping after it did)".to_owned(),
        Answer::NoAnswer { .. } => "left the server answering nothing, not even ping".to_owned(),
        Answer::PeerGone => "made the server go away".to_owned(),
    };
    Some(Finding::new(
        requirement,
        format!("a malformed frame {what}, not error {expects}"),
    ))
}

/// The error code (if any) of a response, judged.
fn judge_response(subject: &Subject, flaw: Option<Flaw>, described: &str, frame: &Value) -> Option<Finding> {
    let code = frame.pointer("/error/code").and_then(Value::as_i64);
    if *subject == Subject::UnknownMethod {
        return (code != Some(METHOD_NOT_FOUND)).then(|| {
            Finding::new(
                id::RPC_011,
                format!(
                    "a method no version defines earned {}, not {METHOD_NOT_FOUND}",
                    answered(code)
                ),
            )
        });
    }
    // A missing required prompt argument has a rule of its own: -32602,
    // never a prompt made without it.
    if matches!(subject, Subject::Prompt { .. }) && flaw == Some(Flaw::Missing) {
        return (code != Some(INVALID_PARAMS)).then(|| {
            Finding::new(
                id::PROM_003,
                format!(
                    "a missing required argument earned {}, not {INVALID_PARAMS}",
                    answered(code)
                ),
            )
        });
    }
    (code == Some(INTERNAL_ERROR) && subject.breaks_request(flaw)).then(|| {
        Finding::new(
            id::RPC_012,
            format!(
                "arguments breaking the request's schema ({described}) earned \
                 {INTERNAL_ERROR} (internal error), not {INVALID_PARAMS}"
            ),
        )
    })
}

/// An answer's error code in words, or that it was a result.
fn answered(code: Option<i64>) -> String {
    code.map_or("a result".to_owned(), |code| format!("error {code}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool() -> Subject {
        Subject::Tool {
            name: "echo".into(),
            schema: json!({}),
        }
    }

    fn error(code: i64) -> Answer {
        Answer::Response(json!({"jsonrpc": "2.0", "id": 1, "error": {"code": code, "message": "x"}}))
    }

    #[test]
    fn a_server_that_goes_away_fails_tool_006() {
        let finding = judge(&tool(), &json!({}), Some(Flaw::Huge), &Answer::PeerGone).unwrap();
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
        assert_eq!(
            judge(&tool(), &json!({}), None, &stuck).unwrap().requirement,
            id::TOOL_006
        );
        assert_eq!(judge(&tool(), &json!({}), None, &slow), None);
    }

    #[test]
    fn internal_error_for_a_schema_violation_is_non_strict() {
        let finding = judge(&tool(), &json!({}), Some(Flaw::WrongType), &error(-32603)).unwrap();
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
            assert_eq!(judge(&tool(), &json!({}), Some(flaw), &error(-32602)), None);
            assert_eq!(judge(&tool(), &json!({}), Some(flaw), &is_error), None);
        }
        for flaw in [None, Some(Flaw::Huge), Some(Flaw::Unicode)] {
            assert_eq!(judge(&tool(), &json!({}), flaw, &error(-32603)), None);
        }
    }

    #[test]
    fn other_subjects_that_go_silent_break_rpc_004() {
        let prompt = Subject::Prompt {
            name: "greet".into(),
            schema: json!({}),
        };
        let finding = judge(&prompt, &json!({}), None, &Answer::PeerGone).unwrap();
        assert_eq!(
            (finding.requirement, finding.verdict),
            (id::RPC_004, Verdict::Fail)
        );
        let missing = judge(&prompt, &json!({}), Some(Flaw::Missing), &error(-32603)).unwrap();
        assert_eq!(
            (missing.requirement, missing.verdict),
            (id::PROM_003, Verdict::NonStrict)
        );
        assert_eq!(
            judge(&prompt, &json!({}), Some(Flaw::Missing), &error(-32602)),
            None
        );
        let made_anyway = Answer::Response(json!({"jsonrpc": "2.0", "id": 1, "result": {"messages": []}}));
        assert_eq!(
            judge(&prompt, &json!({}), Some(Flaw::Missing), &made_anyway)
                .unwrap()
                .requirement,
            id::PROM_003
        );
        assert_eq!(
            judge(&prompt, &json!({}), Some(Flaw::Missing), &error(0))
                .unwrap()
                .requirement,
            id::PROM_003
        );
    }

    #[test]
    fn resource_reads_and_completions_may_fail_any_way() {
        let template = Subject::Template {
            template: "item://{id}".into(),
            schema: json!({}),
        };
        for code in [-32603, -32602, -32002] {
            assert_eq!(
                judge(&template, &json!({}), Some(Flaw::WrongType), &error(code)),
                None
            );
        }
    }

    #[test]
    fn an_unknown_method_earns_method_not_found_or_a_non_strict_finding() {
        assert_eq!(
            judge(&Subject::UnknownMethod, &json!({}), None, &error(-32601)),
            None
        );
        let wrong = judge(&Subject::UnknownMethod, &json!({}), None, &error(-32602)).unwrap();
        assert_eq!(
            (wrong.requirement, wrong.verdict),
            (id::RPC_011, Verdict::NonStrict)
        );
        let answered = Answer::Response(json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
        assert_eq!(
            judge(&Subject::UnknownMethod, &json!({}), None, &answered)
                .unwrap()
                .requirement,
            id::RPC_011
        );
    }

    #[test]
    fn a_malformed_frame_should_earn_its_error_whatever_else_happens() {
        let frame = json!({"raw": "{", "expects": -32700});
        assert_eq!(judge(&Subject::Frame, &frame, None, &error(-32700)), None);
        for answer in [error(-32600), Answer::Ignored, Answer::PeerGone] {
            let finding = judge(&Subject::Frame, &frame, None, &answer).unwrap();
            assert_eq!(
                (finding.requirement, finding.verdict),
                (id::RPC_009, Verdict::NonStrict)
            );
        }
        let request = json!({"raw": "7", "expects": -32600});
        assert_eq!(judge(&Subject::Frame, &request, None, &error(-32600)), None);
        assert_eq!(
            judge(&Subject::Frame, &request, None, &error(-32700))
                .unwrap()
                .requirement,
            id::RPC_010
        );
    }
}
