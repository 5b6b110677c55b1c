//! A request of ours that got no response. Whatever a scenario expects of
//! the response's content, a request is always answered: silence, or an
//! answer under an id we never sent, is a MUST failure. It is judged under
//! the expectation's own requirement when that is a MUST, else under
//! RPC-004 (a response carries the id of the request it answers), never at
//! SHOULD. Raw text that may be no request at all (`send_raw`: not JSON, no
//! id) is not judged here: its silence stays at the expectation's level.
//! An answer under the request's id that is not valid JSON-RPC did come: it
//! breaks the envelope rule the frame checker names (RPC-001, RPC-005, ...),
//! whatever the expectation.

use serde_json::Value;

use super::Check;
use crate::Level;
use crate::protocol::cite;
use crate::protocol::envelope_requirement;
use crate::scenario::model::CheckTag;
use crate::span::Span;

/// No response to the request came; `message` says what came instead.
pub fn no_response(name: impl Into<String>, expected: &CheckTag, message: impl Into<String>) -> Check {
    match expected.level {
        Level::Must => Check::broken_for(name, expected, message),
        Level::Should | Level::May => Check::broken(name, cite::RPC_004, Level::Must, expected.span, message),
    }
}

/// The `answer` under the request's id is not JSON-RPC 2.0 (`message` says
/// why), under the envelope rule it breaks.
pub fn not_json_rpc(
    name: impl Into<String>,
    span: Span,
    answer: &Value,
    message: impl Into<String>,
) -> Check {
    Check::broken(name, envelope_requirement(answer), Level::Must, span, message)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::Verdict;

    fn tag(level: Level, requirement: &str) -> CheckTag {
        CheckTag {
            level,
            requirement: requirement.into(),
            span: Span::default(),
        }
    }

    #[test]
    fn silence_fails_at_must_whatever_the_expectation() {
        let should = no_response("response to tools/call", &tag(Level::Should, "TOOL-004"), "none");
        assert_eq!(
            (should.verdict, should.level, should.requirement.as_str()),
            (Verdict::Fail, Level::Must, "RPC-004")
        );
        let must = no_response("response to tools/list", &tag(Level::Must, "TOOL-001"), "none");
        assert_eq!(
            (must.verdict, must.level, must.requirement.as_str()),
            (Verdict::Fail, Level::Must, "TOOL-001")
        );
    }

    #[test]
    fn an_answer_that_is_not_json_rpc_breaks_the_envelope_rule_it_breaks() {
        let cited = |answer: Value| {
            let check = not_json_rpc("response to ping", Span::default(), &answer, "why");
            (check.requirement, check.level, check.verdict)
        };
        assert_eq!(
            cited(json!({"id": 1, "result": {}})),
            (cite::RPC_001.to_string(), Level::Must, Verdict::Fail)
        );
        assert_eq!(
            cited(json!({"jsonrpc": "2.0", "id": 1, "result": {}, "error": {}})),
            (cite::RPC_005.to_string(), Level::Must, Verdict::Fail)
        );
    }
}
