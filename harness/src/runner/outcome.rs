//! What a scenario run produces: pure data, read by reporters and snapshots.

use std::path::PathBuf;
use std::time::Duration;

pub use mcp_conform_core::judge::Check;
use mcp_conform_core::scenario::Scenario;
use mcp_conform_core::version::ProtocolVersion;
use mcp_conform_core::wire::{Direction, Frame};
use mcp_conform_core::{Verdict, requirements};

/// Everything known about one scenario run.
#[derive(Debug, Clone)]
pub struct ScenarioOutcome {
    pub id: String,
    pub title: String,
    pub path: PathBuf,
    /// The worst verdict of the checks, or the reason nothing was checked.
    pub verdict: Verdict,
    /// Why the scenario as a whole is not-applicable, not-observed or error.
    pub note: Option<String>,
    pub checks: Vec<Check>,
    /// Findings that do not count toward the verdict: SHOULD- and MAY-level
    /// frame rules outside the scenario's own requirements. The scenario
    /// that cites such a requirement judges it; here it is only mentioned,
    /// so one habit of a peer does not turn every scenario non-strict.
    pub remarks: Vec<Check>,
    pub transcript: Vec<Frame>,
    /// The version the run spoke (negotiated, or the one offered).
    pub version: Option<ProtocolVersion>,
    /// The tail of the peer's stderr (over HTTP: the transport's incidents
    /// first), kept when something went wrong.
    pub stderr_tail: Option<String>,
    pub duration: Duration,
    /// How long the peer's process took from its start to its first frame,
    /// when the case started it and spoke to it over stdio.
    pub startup: Option<Duration>,
    /// Whether the peer said anything usable (see [`heard`](super::failfast::heard));
    /// `None` when no peer was reached (the case did not apply or did not start).
    pub heard: Option<bool>,
}

impl ScenarioOutcome {
    /// The verdict from the checks: the worst of them, each first bounded
    /// by what its requirement's level rests on (a check on prose or on our
    /// inference never fails). A scenario that checked nothing is
    /// not-observed, never a pass.
    pub fn settle(&mut self) {
        for check in &mut self.checks {
            check.verdict = requirements::bounded(&check.requirement, check.verdict);
        }
        let worst = self.checks.iter().map(|c| c.verdict).max();
        self.verdict = match worst {
            Some(verdict) => verdict.max(self.verdict),
            None if self.verdict == Verdict::Pass => {
                self.note
                    .get_or_insert_with(|| "the scenario checked nothing".into());
                Verdict::NotObserved
            }
            None => self.verdict,
        };
    }
}

impl ScenarioOutcome {
    /// An outcome with nothing checked yet.
    pub fn new(scenario: &Scenario) -> ScenarioOutcome {
        ScenarioOutcome {
            id: scenario.id.clone(),
            title: scenario.title.clone(),
            path: scenario.source.path.clone(),
            verdict: Verdict::Pass,
            note: None,
            checks: Vec::new(),
            remarks: Vec::new(),
            transcript: Vec::new(),
            version: None,
            stderr_tail: None,
            duration: Duration::ZERO,
            startup: None,
            heard: None,
        }
    }

    /// The outcome of a scenario that did not run (or was cut short).
    pub fn unrun(scenario: &Scenario, verdict: Verdict, note: String) -> ScenarioOutcome {
        ScenarioOutcome {
            verdict,
            note: Some(note),
            ..ScenarioOutcome::new(scenario)
        }
    }
}

/// The time of the peer's first frame in `transcript`: over stdio, frame
/// times count from the process's start, so this is what starting it cost
/// (its answer to `initialize`, or a client's first request).
pub fn first_heard(transcript: &[Frame]) -> Option<Duration> {
    transcript
        .iter()
        .find(|frame| frame.direction == Direction::Received)
        .map(|frame| frame.at)
}
