//! A request of ours that got no response. Whatever a scenario expects of
//! the response's content (even at SHOULD), a request is always answered:
//! silence, or an answer under an id we never sent, breaks RPC-004 (a
//! response carries the id of the request it answers) at MUST.

use super::Check;
use crate::Level;
use crate::protocol::cite;
use crate::span::Span;

/// No response to the request came; `message` says what came instead.
pub fn no_response(name: impl Into<String>, span: Span, message: impl Into<String>) -> Check {
    Check::broken(name, cite::RPC_004, Level::Must, span, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Verdict;

    #[test]
    fn silence_fails_at_must_whatever_the_expectation() {
        let check = no_response("response to tools/call", Span::default(), "none within 5000 ms");
        assert_eq!(check.verdict, Verdict::Fail);
        assert_eq!(check.level, Level::Must);
        assert_eq!(check.requirement, "RPC-004");
    }
}
