//! What the spec lets a server answer to one generated request (`mcp-conform
//! fuzz`: a tool call, a prompt, a resource read, a completion, an unknown
//! method, a malformed line), and the requirement a wrong answer breaks, at
//! its own level (a SHOULD is a non-strict finding, never a failure).
//!
//! What it deliberately accepts, so a correct server earns no finding:
//! arguments that break a tool's schema may be refused with a JSON-RPC
//! error (TOOL-004) or answered with an `isError` result (TOOL-005 from
//! 2025-11-25), and edge values the schema allows may fail either way, since
//! a tool may legitimately fail on them. A resource read or a completion of
//! generated text may fail with any error: the text may name nothing.

use serde_json::Value;

use crate::Verdict;
use crate::requirements::{RequirementId, id};
use crate::wire::jsonrpc::code;

/// What one generated request was, as far as the rules care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sent {
    /// `tools/call`; whether its arguments break the tool's `inputSchema`.
    ToolCall { breaks_schema: bool },
    /// `prompts/get`; a required argument left out, or another break of
    /// the request's schema (an argument that is not a string).
    PromptGet {
        missing_required: bool,
        breaks_schema: bool,
    },
    /// A request about generated text that may name nothing: a resource
    /// read, a completion.
    Lookup,
    /// A method no version of the spec defines.
    UnknownMethod,
    /// A line that is not JSON (`expects` -32700) or not a request (-32600).
    Malformed { expects: i64 },
}

/// What became of one generated request.
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

/// Judges `answer` to the request `sent`; `described` says what its
/// arguments were (for the finding's words).
pub fn judge(sent: Sent, described: &str, answer: &Answer) -> Option<Finding> {
    if let Sent::Malformed { expects } = sent {
        return judge_malformed(expects, answer);
    }
    // A tool's crash breaks the tool rule; any other request left without
    // its response breaks JSON-RPC's, as a scenario's silence does.
    let alive = match sent {
        Sent::ToolCall { .. } => id::TOOL_006,
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
        Answer::Response(frame) => judge_response(sent, described, frame),
    }
}

/// The answer to a malformed line that JSON-RPC gives `expects`: that
/// error, at RPC-009's or RPC-010's level, SHOULD, whatever else happened
/// (MCP forbids a client to write such lines on stdio, so even a server
/// that goes away on one breaks only the SHOULD to answer it).
fn judge_malformed(expects: i64, answer: &Answer) -> Option<Finding> {
    let requirement = match expects {
        code::PARSE_ERROR => id::RPC_009,
        _ => id::RPC_010,
    };
    let what = match answer {
        Answer::Response(frame) => {
            let got = error_code(frame);
            if got == Some(expects) {
                return None;
            }
            format!("earned {}", answered(got))
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
fn judge_response(sent: Sent, described: &str, frame: &Value) -> Option<Finding> {
    let got = error_code(frame);
    let breaks_schema = match sent {
        Sent::UnknownMethod => {
            return (got != Some(code::METHOD_NOT_FOUND)).then(|| {
                Finding::new(
                    id::RPC_011,
                    format!(
                        "a method no version defines earned {}, not {}",
                        answered(got),
                        code::METHOD_NOT_FOUND
                    ),
                )
            });
        }
        // A missing required prompt argument has a rule of its own:
        // -32602, never a prompt made without it.
        Sent::PromptGet {
            missing_required: true,
            ..
        } => {
            return (got != Some(code::INVALID_PARAMS)).then(|| {
                Finding::new(
                    id::PROM_003,
                    format!(
                        "a missing required argument earned {}, not {}",
                        answered(got),
                        code::INVALID_PARAMS
                    ),
                )
            });
        }
        Sent::ToolCall { breaks_schema } | Sent::PromptGet { breaks_schema, .. } => breaks_schema,
        Sent::Lookup | Sent::Malformed { .. } => false,
    };
    (breaks_schema && got == Some(code::INTERNAL_ERROR)).then(|| {
        Finding::new(
            id::RPC_012,
            format!(
                "arguments breaking the request's schema ({described}) earned {} (internal error), not {}",
                code::INTERNAL_ERROR,
                code::INVALID_PARAMS
            ),
        )
    })
}

fn error_code(frame: &Value) -> Option<i64> {
    frame.pointer("/error/code").and_then(Value::as_i64)
}

/// An answer's error code in words, or that it was a result.
fn answered(code: Option<i64>) -> String {
    code.map_or("a result".to_owned(), |code| format!("error {code}"))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const TOOL: Sent = Sent::ToolCall { breaks_schema: false };
    const BROKEN_TOOL: Sent = Sent::ToolCall { breaks_schema: true };

    fn error(code: i64) -> Answer {
        Answer::Response(json!({"jsonrpc": "2.0", "id": 1, "error": {"code": code, "message": "x"}}))
    }

    #[test]
    fn a_server_that_goes_away_on_a_tool_call_fails_tool_006() {
        let finding = judge(TOOL, "Huge", &Answer::PeerGone).unwrap();
        assert_eq!(
            (finding.requirement, finding.verdict),
            (id::TOOL_006, Verdict::Fail)
        );
    }

    #[test]
    fn a_stuck_server_fails_but_a_slow_tool_does_not() {
        let stuck = Answer::NoAnswer {
            still_answers_ping: false,
        };
        let slow = Answer::NoAnswer {
            still_answers_ping: true,
        };
        assert_eq!(judge(TOOL, "x", &stuck).unwrap().requirement, id::TOOL_006);
        assert_eq!(judge(TOOL, "x", &slow), None);
    }

    #[test]
    fn internal_error_for_a_schema_violation_is_non_strict() {
        let finding = judge(BROKEN_TOOL, "WrongType", &error(-32603)).unwrap();
        assert_eq!(
            (finding.requirement, finding.verdict),
            (id::RPC_012, Verdict::NonStrict)
        );
    }

    #[test]
    fn every_answer_the_spec_allows_passes() {
        let is_error = Answer::Response(json!({
            "jsonrpc": "2.0", "id": 1,
            "result": {"content": [], "isError": true}
        }));
        assert_eq!(judge(BROKEN_TOOL, "x", &error(-32602)), None);
        assert_eq!(judge(BROKEN_TOOL, "x", &is_error), None);
        // Edge values the schema allows may fail any way.
        assert_eq!(judge(TOOL, "x", &error(-32603)), None);
    }

    #[test]
    fn other_requests_that_go_silent_break_rpc_004() {
        let prompt = Sent::PromptGet {
            missing_required: false,
            breaks_schema: false,
        };
        let finding = judge(prompt, "x", &Answer::PeerGone).unwrap();
        assert_eq!(
            (finding.requirement, finding.verdict),
            (id::RPC_004, Verdict::Fail)
        );
    }

    #[test]
    fn a_missing_prompt_argument_earns_invalid_params_and_nothing_else() {
        let missing = Sent::PromptGet {
            missing_required: true,
            breaks_schema: true,
        };
        assert_eq!(judge(missing, "x", &error(-32602)), None);
        let made_anyway = Answer::Response(json!({"jsonrpc": "2.0", "id": 1, "result": {"messages": []}}));
        for answer in [error(-32603), error(0), made_anyway] {
            let finding = judge(missing, "x", &answer).unwrap();
            assert_eq!(
                (finding.requirement, finding.verdict),
                (id::PROM_003, Verdict::NonStrict)
            );
        }
    }

    #[test]
    fn lookups_of_generated_text_may_fail_any_way() {
        for code in [-32603, -32602, -32002] {
            assert_eq!(judge(Sent::Lookup, "x", &error(code)), None);
        }
    }

    #[test]
    fn an_unknown_method_earns_method_not_found_or_a_non_strict_finding() {
        assert_eq!(judge(Sent::UnknownMethod, "x", &error(-32601)), None);
        let wrong = judge(Sent::UnknownMethod, "x", &error(-32602)).unwrap();
        assert_eq!(
            (wrong.requirement, wrong.verdict),
            (id::RPC_011, Verdict::NonStrict)
        );
        let answered = Answer::Response(json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
        assert_eq!(
            judge(Sent::UnknownMethod, "x", &answered).unwrap().requirement,
            id::RPC_011
        );
    }

    #[test]
    fn a_malformed_frame_should_earn_its_error_whatever_else_happens() {
        let not_json = Sent::Malformed { expects: -32700 };
        assert_eq!(judge(not_json, "x", &error(-32700)), None);
        for answer in [error(-32600), Answer::Ignored, Answer::PeerGone] {
            let finding = judge(not_json, "x", &answer).unwrap();
            assert_eq!(
                (finding.requirement, finding.verdict),
                (id::RPC_009, Verdict::NonStrict)
            );
        }
        let not_a_request = Sent::Malformed { expects: -32600 };
        assert_eq!(judge(not_a_request, "x", &error(-32600)), None);
        assert_eq!(
            judge(not_a_request, "x", &error(-32700)).unwrap().requirement,
            id::RPC_010
        );
    }
}
