//! Many scenarios on worker threads. Each worker has its own single-threaded
//! runtime, and each scenario its own session and process: no shared state
//! but the queue and the event channel.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use mcp_conform_core::Verdict;
use mcp_conform_core::scenario::Scenario;
use mcp_conform_core::version::ProtocolVersion;

use super::RunConfig;
use super::failfast::Tripwire;
use super::outcome::ScenarioOutcome;
use super::scenario::run_scenario;
use super::schedule::{self, Queue};
use crate::auth::Protection;

/// What a suite run reports while it runs, in the order things happen.
#[derive(Debug)]
pub enum RunEvent {
    /// A case started on a worker; `id` is the scenario's (with `@version`
    /// when the run has several versions).
    Started { index: usize, id: String },
    /// A scenario finished.
    Finished {
        index: usize,
        outcome: Box<ScenarioOutcome>,
    },
}

/// How often a running scenario looks whether it is to stop.
const STOP_POLL: Duration = Duration::from_millis(50);

/// One case of a run: a scenario on a version, or a scenario that none of
/// the run's versions applies to.
#[derive(Debug, Clone)]
enum Planned {
    Run {
        scenario: usize,
        version: ProtocolVersion,
    },
    Unrun {
        scenario: usize,
        note: String,
    },
}

impl Planned {
    fn scenario(&self) -> usize {
        match self {
            Planned::Run { scenario, .. } | Planned::Unrun { scenario, .. } => *scenario,
        }
    }
}

/// The cases of a run on `versions`. On one version every scenario runs on
/// it, in the scenarios' order (and says itself why it does not apply). On
/// several, each scenario runs once per version it applies to, one version
/// after another (so that cases running at once are different scenarios, as
/// in a run on one version: a server shared by them sees nothing new), and
/// a scenario that applies to none is one not-applicable case at the end.
fn plan(scenarios: &[Scenario], versions: &[ProtocolVersion]) -> Vec<Planned> {
    if let [version] = versions {
        return (0..scenarios.len())
            .map(|scenario| Planned::Run {
                scenario,
                version: *version,
            })
            .collect();
    }
    let mut cases: Vec<Planned> = versions
        .iter()
        .flat_map(|version| {
            scenarios
                .iter()
                .enumerate()
                .filter(|(_, s)| s.versions.contains(*version))
                .map(|(scenario, _)| Planned::Run {
                    scenario,
                    version: *version,
                })
        })
        .collect();
    let spoken: Vec<&str> = versions.iter().map(|v| v.as_str()).collect();
    for (scenario, s) in scenarios.iter().enumerate() {
        if !versions.iter().any(|v| s.versions.contains(*v)) {
            let note = format!(
                "applies to {}; the server speaks {}",
                s.versions,
                spoken.join(",")
            );
            cases.push(Planned::Unrun { scenario, note });
        }
    }
    cases
}

/// How many cases a run of `scenarios` on `versions` has.
pub fn case_count(scenarios: &[Scenario], versions: &[ProtocolVersion]) -> usize {
    plan(scenarios, versions).len()
}

/// Runs `scenarios` on the configuration's version with up to `jobs` at a
/// time (those with the longest fixed waits first, see [`schedule`]), calling `on_event` on the caller's thread. Returns the outcomes in
/// the scenarios' order. When `interrupted` becomes true, running scenarios
/// stop (their peers are killed) with an error verdict and queued ones are
/// not started; with `config.fail_fast`, the same once the peer has proved
/// unusable (see [`failfast`](super::failfast)).
pub fn run_suite(
    scenarios: &[Scenario],
    config: &RunConfig,
    jobs: usize,
    interrupted: &Arc<AtomicBool>,
    on_event: impl FnMut(&RunEvent),
) -> Vec<ScenarioOutcome> {
    run_matrix(scenarios, config, &[config.protocol], jobs, interrupted, on_event)
}

/// [`run_suite`] on each of `versions`: the outcomes are the cases, in the
/// order [`plan`] gives them.
pub fn run_matrix(
    scenarios: &[Scenario],
    config: &RunConfig,
    versions: &[ProtocolVersion],
    jobs: usize,
    interrupted: &Arc<AtomicBool>,
    mut on_event: impl FnMut(&RunEvent),
) -> Vec<ScenarioOutcome> {
    let mut outcomes: Vec<Option<ScenarioOutcome>> = vec![None; case_count(scenarios, versions)];
    stream_matrix(scenarios, config, versions, jobs, interrupted, |event| {
        on_event(&event);
        if let RunEvent::Finished { index, outcome } = event {
            outcomes[index] = Some(*outcome);
        }
    });
    outcomes.into_iter().flatten().collect()
}

/// [`run_matrix`] handing each event over and keeping nothing: a run that
/// converts each case as it ends holds one flood's transcript per job, not
/// one per case.
pub fn stream_matrix(
    scenarios: &[Scenario],
    config: &RunConfig,
    versions: &[ProtocolVersion],
    jobs: usize,
    interrupted: &Arc<AtomicBool>,
    mut on_event: impl FnMut(RunEvent),
) {
    let cases = plan(scenarios, versions);
    let named = versions.len() > 1;
    let (events, received) = mpsc::channel::<RunEvent>();
    let tripwire = Tripwire::default();
    if let Some(auth) = &config.auth
        && let Protection::Silent(why) = &auth.protection
    {
        tripwire.trip(why);
    }
    let queue = Queue::new(start_order(&cases, scenarios, config, versions));
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, cases.len().max(1)) {
            let events = events.clone();
            let worker_of = Worker {
                scenarios,
                cases: &cases,
                config,
                named,
                queue: &queue,
                interrupted,
                tripwire: config.fail_fast.then_some(&tripwire),
            };
            scope.spawn(move || worker_of.work(&events));
        }
        drop(events);
        for event in received {
            on_event(event);
        }
    });
}

/// What every worker thread shares.
#[derive(Clone, Copy)]
struct Worker<'a> {
    scenarios: &'a [Scenario],
    cases: &'a [Planned],
    config: &'a RunConfig,
    /// Whether cases are named with their version (`id@version`).
    named: bool,
    queue: &'a Queue,
    interrupted: &'a AtomicBool,
    /// With fail-fast: stops starting cases once the peer proved unusable.
    tripwire: Option<&'a Tripwire>,
}

impl Worker<'_> {
    fn work(self, events: &mpsc::Sender<RunEvent>) {
        let finished = |index: usize, outcome: ScenarioOutcome| {
            let _ = events.send(RunEvent::Finished {
                index,
                outcome: Box::new(outcome),
            });
        };
        let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
            Ok(runtime) => runtime,
            Err(error) => {
                // Without a runtime this worker can only report what it would have run.
                while let Some(index) = self.claim() {
                    let scenario = &self.scenarios[self.cases[index].scenario()];
                    let note = format!("could not start a runtime: {error}");
                    finished(index, ScenarioOutcome::unrun(scenario, Verdict::Error, note));
                }
                return;
            }
        };
        while let Some(index) = self.claim() {
            let scenario = &self.scenarios[self.cases[index].scenario()];
            let version = match &self.cases[index] {
                Planned::Run { version, .. } => *version,
                Planned::Unrun { note, .. } => {
                    finished(
                        index,
                        ScenarioOutcome::unrun(scenario, Verdict::NotApplicable, note.clone()),
                    );
                    continue;
                }
            };
            if let Some((verdict, note)) = self.stop_reason("interrupted before it started") {
                let outcome = ScenarioOutcome {
                    version: Some(version),
                    ..ScenarioOutcome::unrun(scenario, verdict, note)
                };
                finished(index, outcome);
                continue;
            }
            let id = match self.named {
                true => format!("{}@{version}", scenario.id),
                false => scenario.id.clone(),
            };
            let _ = events.send(RunEvent::Started { index, id });
            let config = RunConfig {
                protocol: version,
                ..self.config.clone()
            };
            let outcome = runtime.block_on(async {
                tokio::select! {
                    outcome = run_scenario(scenario, &config) => outcome,
                    (verdict, note) = self.stopped("interrupted (its peer was stopped)") => ScenarioOutcome {
                        version: Some(version),
                        ..ScenarioOutcome::unrun(scenario, verdict, note)
                    },
                }
            });
            if let Some(tripwire) = self.tripwire {
                tripwire.observe(&outcome);
            }
            finished(index, outcome);
        }
    }

    /// The next case to start: longest first once the peer is known to be
    /// usable (always, without fail-fast), see [`Queue::next`].
    fn claim(&self) -> Option<usize> {
        self.queue.next(self.tripwire.is_none_or(Tripwire::disarmed))
    }

    /// Why cases stop now: Ctrl-C (`interrupted` says so), or the peer
    /// proved unusable (fail-fast).
    fn stop_reason(&self, interrupted: &str) -> Option<(Verdict, String)> {
        match self.interrupted.load(Ordering::SeqCst) {
            true => Some((Verdict::Error, interrupted.to_owned())),
            false => self.tripwire.and_then(Tripwire::tripped),
        }
    }

    /// Resolves once a running case is to stop, with its verdict and the reason.
    async fn stopped(&self, interrupted: &str) -> (Verdict, String) {
        loop {
            if let Some(stop) = self.stop_reason(interrupted) {
                return stop;
            }
            tokio::time::sleep(STOP_POLL).await;
        }
    }
}

/// [`schedule::start_order`] of `cases`: blocks are versions, in the run's
/// order, and cases that run on none come last.
fn start_order(
    cases: &[Planned],
    scenarios: &[Scenario],
    config: &RunConfig,
    versions: &[ProtocolVersion],
) -> Vec<usize> {
    let keyed: Vec<(usize, Duration)> = cases
        .iter()
        .map(|case| match case {
            Planned::Run { scenario, version } => (
                versions.iter().position(|v| v == version).unwrap_or_default(),
                schedule::fixed_wait(&scenarios[*scenario], config.profile.as_ref(), version.era()),
            ),
            Planned::Unrun { .. } => (versions.len(), Duration::ZERO),
        })
        .collect();
    schedule::start_order(&keyed)
}

#[cfg(test)]
mod tests {
    use mcp_conform_core::scenario::load::load_str;

    use super::*;

    fn scenario(id: &str, versions: &str) -> Scenario {
        let text = format!(
            "id: {id}\ntitle: t\nrequirements: [RPC-011]\nversions: {versions}\nsteps:\n  - alive: {{}}\n"
        );
        load_str(std::path::Path::new("s.yaml"), &text).expect("a valid scenario")
    }

    fn cases(planned: &[Planned]) -> Vec<String> {
        planned
            .iter()
            .map(|case| match case {
                Planned::Run { scenario, version } => format!("{scenario}@{version}"),
                Planned::Unrun { scenario, .. } => format!("{scenario} n/a"),
            })
            .collect()
    }

    #[test]
    fn each_scenario_runs_once_per_version_it_applies_to() {
        use ProtocolVersion::*;
        let scenarios = [
            scenario("a", "all"),
            scenario("b", "legacy"),
            scenario("c", "2024-11-05"),
        ];
        let both = plan(&scenarios, &[V2025_11_25, V2026_07_28]);
        assert_eq!(
            cases(&both),
            ["0@2025-11-25", "1@2025-11-25", "0@2026-07-28", "2 n/a"]
        );
        let Planned::Unrun { note, .. } = &both[3] else {
            unreachable!()
        };
        assert_eq!(
            note,
            "applies to 2024-11-05; the server speaks 2025-11-25,2026-07-28"
        );
        // One version: every scenario is a case, and judges its versions itself.
        assert_eq!(
            cases(&plan(&scenarios, &[V2026_07_28])),
            ["0@2026-07-28", "1@2026-07-28", "2@2026-07-28"]
        );
    }
}
