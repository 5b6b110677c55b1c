//! A request of ours that got no response. Whatever a scenario expects of
//! the response's content, a request is always answered: silence, or an
//! answer under an id we never sent, is a MUST failure. It is judged under
//! the expectation's own requirement when that is a MUST, else under
//! RPC-004 (a response carries the id of the request it answers), never at
//! SHOULD. Raw text that may be no request at all (`send_raw`: not JSON, no
//! id) is not judged here: its silence stays at the expectation's level.

use super::Check;
use crate::Level;
use crate::protocol::cite;
use crate::scenario::model::CheckTag;

/// No response to the request came; `message` says what came instead.
pub fn no_response(name: impl Into<String>, expected: &CheckTag, message: impl Into<String>) -> Check {
    match expected.level {
        Level::Must => Check::broken_for(name, expected, message),
        Level::Should | Level::May => Check::broken(name, cite::RPC_004, Level::Must, expected.span, message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Verdict;
    use crate::span::Span;

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
}
