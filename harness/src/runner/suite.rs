//! Many scenarios on worker threads. Each worker has its own single-threaded
//! runtime, and each scenario its own session and process: no shared state
//! but the queue and the event channel.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use mcp_conform_core::Verdict;
use mcp_conform_core::scenario::Scenario;

use super::RunConfig;
use super::outcome::ScenarioOutcome;
use super::scenario::run_scenario;

/// What a suite run reports while it runs, in the order things happen.
#[derive(Debug)]
pub enum RunEvent {
    /// A scenario started on a worker.
    Started { index: usize, id: String },
    /// A scenario finished.
    Finished {
        index: usize,
        outcome: Box<ScenarioOutcome>,
    },
}

/// How often a running scenario looks at the interrupt flag.
const INTERRUPT_POLL: Duration = Duration::from_millis(50);

/// Runs `scenarios` with up to `jobs` at a time, calling `on_event` on the
/// caller's thread. Returns the outcomes in the scenarios' order. When
/// `interrupted` becomes true, running scenarios stop (their peers are
/// killed) with an error verdict and queued ones are not started.
pub fn run_suite(
    scenarios: &[Scenario],
    config: &RunConfig,
    jobs: usize,
    interrupted: &Arc<AtomicBool>,
    mut on_event: impl FnMut(&RunEvent),
) -> Vec<ScenarioOutcome> {
    let next = AtomicUsize::new(0);
    let (events, received) = mpsc::channel::<RunEvent>();
    let mut outcomes: Vec<Option<ScenarioOutcome>> = vec![None; scenarios.len()];
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, scenarios.len().max(1)) {
            let events = events.clone();
            let next = &next;
            scope.spawn(move || worker(scenarios, config, next, interrupted, &events));
        }
        drop(events);
        for event in received {
            on_event(&event);
            if let RunEvent::Finished { index, outcome } = event {
                outcomes[index] = Some(*outcome);
            }
        }
    });
    outcomes.into_iter().flatten().collect()
}

fn worker(
    scenarios: &[Scenario],
    config: &RunConfig,
    next: &AtomicUsize,
    interrupted: &AtomicBool,
    events: &mpsc::Sender<RunEvent>,
) {
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            // Without a runtime this worker can only report what it would have run.
            while let Some(index) = claim(next, scenarios.len()) {
                let note = format!("could not start a runtime: {error}");
                let outcome = ScenarioOutcome::unrun(&scenarios[index], Verdict::Error, note);
                let _ = events.send(RunEvent::Finished {
                    index,
                    outcome: Box::new(outcome),
                });
            }
            return;
        }
    };
    while let Some(index) = claim(next, scenarios.len()) {
        let scenario = &scenarios[index];
        if interrupted.load(Ordering::SeqCst) {
            let outcome =
                ScenarioOutcome::unrun(scenario, Verdict::Error, "interrupted before it started".into());
            let _ = events.send(RunEvent::Finished {
                index,
                outcome: Box::new(outcome),
            });
            continue;
        }
        let _ = events.send(RunEvent::Started {
            index,
            id: scenario.id.clone(),
        });
        let outcome = runtime.block_on(async {
            tokio::select! {
                outcome = run_scenario(scenario, config) => outcome,
                () = wait_for(interrupted) => {
                    ScenarioOutcome::unrun(scenario, Verdict::Error, "interrupted (its peer was stopped)".into())
                }
            }
        });
        let _ = events.send(RunEvent::Finished {
            index,
            outcome: Box::new(outcome),
        });
    }
}

fn claim(next: &AtomicUsize, len: usize) -> Option<usize> {
    let index = next.fetch_add(1, Ordering::SeqCst);
    (index < len).then_some(index)
}

async fn wait_for(flag: &AtomicBool) {
    while !flag.load(Ordering::SeqCst) {
        tokio::time::sleep(INTERRUPT_POLL).await;
    }
}
