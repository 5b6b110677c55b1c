//! The requirement a check cites when the scenario does not name one.

use crate::Level;
use crate::protocol::cite;
use crate::requirements::NO_REQUIREMENT;
use crate::scenario::Scenario;
use crate::scenario::model::CheckTag;
use crate::span::Span;

/// What a step's checks cite when the step names no requirement: the
/// scenario's first; a scenario of the user's citing none makes them
/// product checks.
pub fn step_requirement(scenario: &Scenario) -> String {
    scenario
        .requirements
        .first()
        .map_or_else(|| NO_REQUIREMENT.to_owned(), Clone::clone)
}

/// A server that leaves while the harness only waits (for silence) broke
/// the step's own rule (it did not ignore what it was sent), except in the
/// stateless era, where leaving after a request was served means it still
/// wanted a handshake: state carried between requests (MODN-004).
pub fn departure_tag(step: &CheckTag, stateless: bool) -> CheckTag {
    match stateless {
        true => CheckTag {
            level: Level::Must,
            requirement: cite::MODN_004.into(),
            span: step.span,
        },
        false => step.clone(),
    }
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
