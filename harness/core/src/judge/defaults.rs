//! The requirement a check cites when the scenario does not name one.

use crate::Level;
use crate::protocol::cite;
use crate::scenario::Scenario;
use crate::scenario::model::CheckTag;
use crate::span::Span;

/// What a step's checks cite when the step names no requirement: the
/// scenario's first, else that a request gets its response (RPC-004).
pub fn step_requirement(scenario: &Scenario) -> String {
    scenario
        .requirements
        .first()
        .cloned()
        .unwrap_or_else(|| cite::RPC_004.into())
}

/// A request with no `expect` of its own is judged on getting a response
/// (RPC-004).
pub fn response_tag(span: Span) -> CheckTag {
    CheckTag {
        level: Level::Must,
        requirement: cite::RPC_004.into(),
        span,
    }
}

/// A listen step's stream is judged on its acknowledgement (SUBS-001), at
/// the step's own level and place.
pub fn listen_tag(step: &CheckTag) -> CheckTag {
    CheckTag {
        requirement: cite::SUBS_001.into(),
        ..step.clone()
    }
}

/// A listen request refused as unknown (-32601) by a server whose
/// capabilities promised a stream: its capabilities overstate what it
/// serves (SUBS-006). That rests on our inference, so it never fails a run.
pub fn listen_refused_tag(step: &CheckTag) -> CheckTag {
    CheckTag {
        requirement: cite::SUBS_006.into(),
        level: Level::Should,
        ..step.clone()
    }
}
