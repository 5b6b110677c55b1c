//! The requirement a check cites when the scenario does not name one.

use crate::Level;
use crate::protocol::cite;
use crate::requirements::{NO_REQUIREMENT, id};
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

/// What a server that leaves while the harness only waits (for silence)
/// broke. In the stateless era, leaving after a request was served means it
/// still wanted a handshake: state carried between requests (MODN-004).
/// Before it, a step whose rule forbids an answer (RPC-008) was not broken by
/// leaving, which sends none: leaving itself is the finding (RPC-020, an
/// inference). Any other step's rule asks the server to cope with what it was
/// sent (a late cancellation, a stale response), and leaving breaks that rule.
pub fn departure_tag(step: &CheckTag, stateless: bool) -> CheckTag {
    if stateless {
        CheckTag {
            level: Level::Must,
            requirement: cite::MODN_004.into(),
            span: step.span,
        }
    } else if step.requirement == id::RPC_008.as_str() {
        CheckTag {
            level: Level::Should,
            requirement: cite::RPC_020.into(),
            span: step.span,
        }
    } else {
        step.clone()
    }
}

/// What a departure during a liveness check cites. One that asks whether
/// the server is still there after a silence window (RPC-020) is judged as a
/// departure during that window: whether the server left just before the
/// window closed or just after is timing, not behaviour. Any other liveness
/// check keeps its own rule.
pub fn liveness_departure_tag(step: &CheckTag, stateless: bool) -> CheckTag {
    if step.requirement == cite::RPC_020.as_str() {
        departure_tag(step, stateless)
    } else {
        step.clone()
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

/// What a list walk's paging problems cite: a cursor that comes back, an
/// item on two pages, or the server refusing a cursor it handed out break
/// stable cursors (PAGE-005, a SHOULD), whatever rule the walk's step
/// cites: that rule judges the listed items, not how they are paged. A step
/// written at MAY is not made stronger.
pub fn paging_tag(step: &CheckTag) -> CheckTag {
    CheckTag {
        requirement: cite::PAGE_005.into(),
        level: step.level.max(Level::Should),
        span: step.span,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Verdict;
    use crate::requirements::bounded;

    /// What a departure during a silence step whose rule is `requirement`
    /// cites, and at which level.
    fn departure(requirement: &str, stateless: bool) -> (String, Level) {
        let step = CheckTag {
            level: Level::Must,
            requirement: requirement.into(),
            span: Span::default(),
        };
        let tag = departure_tag(&step, stateless);
        (tag.requirement, tag.level)
    }

    /// An older server that exits on an unknown notification sent no
    /// response: not RPC-008's breach, and never a failure of the run.
    #[test]
    fn leaving_where_the_rule_forbids_an_answer_is_the_liveness_inference() {
        assert_eq!(departure("RPC-008", false), ("RPC-020".into(), Level::Should));
        assert_eq!(bounded("RPC-020", Verdict::Fail), Verdict::NonStrict);
    }

    #[test]
    fn leaving_where_the_rule_asks_to_cope_breaks_that_rule() {
        assert_eq!(departure("RPC-013", false), ("RPC-013".into(), Level::Must));
    }

    #[test]
    fn leaving_in_the_stateless_era_is_state_carried_between_requests() {
        assert_eq!(departure("RPC-008", true), ("MODN-004".into(), Level::Must));
    }

    /// A walk's paging problems cite stable cursors at its level (SHOULD),
    /// not the listing scenario's MUST; a MAY step stays a MAY.
    #[test]
    fn paging_problems_cite_stable_cursors_at_most_at_should() {
        let step = |level| CheckTag {
            level,
            requirement: "TOOL-002".into(),
            span: Span::default(),
        };
        let cited = |level| {
            let tag = paging_tag(&step(level));
            (tag.requirement, tag.level)
        };
        assert_eq!(cited(Level::Must), ("PAGE-005".into(), Level::Should));
        assert_eq!(cited(Level::May), ("PAGE-005".into(), Level::May));
    }

    /// A server seen gone by the liveness check after a silence window is
    /// cited as if it had left during the window.
    #[test]
    fn leaving_before_the_liveness_check_is_judged_like_leaving_in_the_window() {
        let tag = |requirement: &str| CheckTag {
            level: Level::Should,
            requirement: requirement.into(),
            span: Span::default(),
        };
        let cited = |requirement: &str, stateless: bool| {
            let cited = liveness_departure_tag(&tag(requirement), stateless);
            (cited.requirement, cited.level)
        };
        assert_eq!(cited("RPC-020", true), ("MODN-004".into(), Level::Must));
        assert_eq!(cited("RPC-020", false), ("RPC-020".into(), Level::Should));
        assert_eq!(cited("RPC-006", true), ("RPC-006".into(), Level::Should));
    }
}
