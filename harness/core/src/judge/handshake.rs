//! The `initialize` handshake: whether it was answered, whether the answer
//! is JSON-RPC at all (RPC-001, RPC-005), how it reads (LIFE-003, LIFE-005), and the
//! expectation `initialized` is sent under (LIFE-007).

use serde_json::Value;

use super::describe::summarize;
use super::{Check, unanswered};
use crate::Level;
use crate::protocol::cite;
use crate::scenario::model::CheckTag;
use crate::span::Span;
use crate::version::{ProtocolVersion, VersionSet};
use crate::wire::Invalid;

/// How the server's answer to `initialize` reads.
#[derive(Debug)]
pub enum InitializeAnswer<'a> {
    /// A result naming a version the scenario applies to.
    Negotiated {
        version: ProtocolVersion,
        result: &'a Value,
        /// The `protocolVersion` as the server wrote it.
        answered: &'a str,
    },
    /// A version the scenario does not apply to; says which.
    OutOfScope(String),
    /// A broken MUST: the scenario cannot go on.
    Broken(Box<Check>),
}

/// No answer to `initialize` came (`message` says what happened instead).
pub fn unanswered(span: Span, message: String) -> Check {
    Check::broken("answer to initialize", cite::LIFE_003, Level::Must, span, message)
}

/// The answer to `initialize` came under its id but is no JSON-RPC 2.0
/// response (`invalid` says why): the server answered, wrongly.
pub fn not_json_rpc(span: Span, answer: &Value, invalid: &Invalid) -> Check {
    let message =
        format!("the server answered initialize with a message that is not JSON-RPC 2.0: {invalid}");
    unanswered::not_json_rpc("answer to initialize", span, answer, message)
}

/// Reads the answer to `initialize` of a scenario that applies to `versions`.
pub fn initialize_answer(response: &Value, versions: VersionSet, span: Span) -> InitializeAnswer<'_> {
    let Some(result) = response.get("result") else {
        let message = format!("initialize was answered with {}", summarize(response));
        return InitializeAnswer::Broken(Box::new(Check::broken(
            "answer to initialize",
            cite::LIFE_005,
            Level::Must,
            span,
            message,
        )));
    };
    let answered = result
        .get("protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or_default();
    match answered.parse::<ProtocolVersion>() {
        Ok(version) if versions.contains(version) => InitializeAnswer::Negotiated {
            version,
            result,
            answered,
        },
        Ok(version) => InitializeAnswer::OutOfScope(format!(
            "the server negotiated {version}; the scenario applies to {versions}"
        )),
        Err(_) => {
            let message =
                format!("the server answered protocolVersion {answered:?}, which is no MCP version");
            InitializeAnswer::Broken(Box::new(Check::broken(
                "negotiated version",
                cite::LIFE_005,
                Level::Must,
                span,
                message,
            )))
        }
    }
}

/// The expectation `notifications/initialized` is sent under (LIFE-007).
pub fn initialized_tag(span: Span) -> CheckTag {
    CheckTag {
        level: Level::Must,
        requirement: cite::LIFE_007.into(),
        span,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::Verdict;

    #[test]
    fn the_answer_names_a_version_the_scenario_applies_to() {
        let versions: VersionSet = "2025-06-18+".parse().unwrap();
        let answer = json!({"result": {"protocolVersion": "2025-06-18"}});
        let read = initialize_answer(&answer, versions, Span::default());
        assert!(matches!(
            read,
            InitializeAnswer::Negotiated {
                answered: "2025-06-18",
                ..
            }
        ));
        let older = json!({"result": {"protocolVersion": "2024-11-05"}});
        let read = initialize_answer(&older, versions, Span::default());
        assert!(matches!(read, InitializeAnswer::OutOfScope(_)));
        for broken in [
            json!({"error": {"code": -32603}}),
            json!({"result": {"protocolVersion": "v1"}}),
        ] {
            let InitializeAnswer::Broken(check) = initialize_answer(&broken, versions, Span::default())
            else {
                panic!("{broken} is a broken answer");
            };
            assert_eq!(
                (check.requirement.as_str(), check.verdict),
                ("LIFE-005", Verdict::Fail)
            );
        }
    }
}
