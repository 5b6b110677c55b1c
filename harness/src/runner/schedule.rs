//! The order in which workers start a run's cases. A run's wall is at least
//! its longest case, and more when that case starts last: so within each
//! version, the cases that hold the longest fixed waits start first, once
//! the peer has answered. Until then cases start in the plan's order: on a
//! peer that never answers, a scenario with long waits (a manual handshake
//! and a ping, each waiting its timeout) would only make fail-fast later.
//! The order changes only when a case runs, never its verdict nor where it
//! is reported (cases keep their index).

use std::cmp::Reverse;
use std::sync::Mutex;
use std::time::Duration;

use mcp_conform_core::scenario::Scenario;
use mcp_conform_core::scenario::model::{ResponseCheck, Step, StepKind};
use mcp_conform_core::scenario::profile::{Profile, unbound};
use mcp_conform_core::version::Era;

/// What a task step is counted as: its length is the server's work, unknown
/// before the run, and it is polled at the server's interval; a task is the
/// protocol's shape for long work, so it counts as long.
const TASK_WAIT: Duration = Duration::from_secs(1);

/// The waits in `scenario` that last as long whatever the peer does: pauses,
/// silence windows, and waits for a response that may rightly never come.
/// None for a scenario missing a trigger in `profile` (on `era`): it stops
/// after the handshake, and first would only delay the cases that show
/// fail-fast an unusable peer.
pub fn fixed_wait(scenario: &Scenario, profile: Option<&Profile>, era: Era) -> Duration {
    match unbound(&scenario.requires.triggers, profile, era).is_empty() {
        true => steps_wait(&scenario.steps),
        false => Duration::ZERO,
    }
}

fn steps_wait(steps: &[Step]) -> Duration {
    steps.iter().map(|step| step_wait(&step.kind)).sum()
}

fn step_wait(kind: &StepKind) -> Duration {
    match kind {
        StepKind::Sleep(pause) => *pause,
        StepKind::ExpectSilence { within, .. } => *within,
        StepKind::Await { expect, timeout, .. } => silence_wait(expect.as_ref(), *timeout),
        StepKind::Request(request) => silence_wait(request.expect.as_ref(), request.timeout),
        StepKind::Task(_) => TASK_WAIT,
        StepKind::ForEach { steps, .. } => steps_wait(steps),
        _ => Duration::ZERO,
    }
}

/// `timeout` when `expect` admits no response: a correct peer lets it run out.
fn silence_wait(expect: Option<&ResponseCheck>, timeout: Duration) -> Duration {
    match expect {
        Some(check) if check.expect.admits_silence() => timeout,
        _ => Duration::ZERO,
    }
}

/// The indexes of `cases` in the order to start them: by `block` (the
/// version a case runs on, so cases running at once stay different
/// scenarios as far as the plan keeps them so), and within a block the
/// longest fixed wait first; ties keep the plan's order.
pub fn start_order(cases: &[(usize, Duration)]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..cases.len()).collect();
    order.sort_by_key(|&index| {
        let (block, wait) = cases[index];
        (block, Reverse(wait))
    });
    order
}

/// The cases not yet started, handed to the workers one at a time.
#[derive(Debug)]
pub struct Queue {
    state: Mutex<QueueState>,
}

#[derive(Debug)]
struct QueueState {
    started: Vec<bool>,
    /// The next case in the plan's order.
    planned: usize,
    /// The cases longest first ([`start_order`]), and the next of them.
    order: Vec<usize>,
    ordered: usize,
}

impl Queue {
    /// A queue of the cases `order` lists (every index once).
    pub fn new(order: Vec<usize>) -> Queue {
        let state = QueueState {
            started: vec![false; order.len()],
            planned: 0,
            order,
            ordered: 0,
        };
        Queue {
            state: Mutex::new(state),
        }
    }

    /// The next case to start: in `order` once `peer_usable`, else the
    /// first of the plan's order not started yet.
    pub fn next(&self, peer_usable: bool) -> Option<usize> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let state = &mut *state;
        let next = match peer_usable {
            true => {
                let skipped = state.order[state.ordered..]
                    .iter()
                    .take_while(|&&i| state.started[i])
                    .count();
                state.ordered += skipped;
                state.order.get(state.ordered).copied()
            }
            false => {
                let skipped = state.started[state.planned..].iter().take_while(|&&s| s).count();
                state.planned += skipped;
                (state.planned < state.started.len()).then_some(state.planned)
            }
        }?;
        state.started[next] = true;
        Some(next)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use mcp_conform_core::scenario::load::load_str;

    use super::*;

    fn scenario(steps: &str) -> Scenario {
        let text = format!(
            "id: s\ntitle: t\nrequirements: [RPC-011]\nversions: all\nrequires: {{ triggers: [slow_tool] }}\nsteps:\n{steps}"
        );
        load_str(Path::new("s.yaml"), &text).expect("a valid scenario")
    }

    fn slow_tool_profile() -> Profile {
        Profile::parse("name: p\ntriggers:\n  slow_tool: { name: slow }\n").expect("a valid profile")
    }

    #[test]
    fn pauses_silence_and_waits_for_no_response_count_and_answers_do_not() {
        let profile = slow_tool_profile();
        let wait = |scenario: &Scenario| fixed_wait(scenario, Some(&profile), Era::Stateful);
        let held = scenario(
            "  - request: { method: tools/call, name: slow, wait: false }\n  - sleep: 300\n  - await: { request: slow, timeout_ms: 3000, expect: { none: true } }\n  - request: { method: ping, timeout_ms: 9000, expect: { result: {} } }\n",
        );
        assert_eq!(wait(&held), Duration::from_millis(3300));
        let answered = scenario("  - request: { method: ping, timeout_ms: 9000 }\n");
        assert_eq!(wait(&answered), Duration::ZERO);
        // Missing its trigger, it stops after the handshake.
        assert_eq!(fixed_wait(&held, None, Era::Stateful), Duration::ZERO);
    }

    #[test]
    fn the_longest_wait_starts_first_within_its_version() {
        let ms = Duration::from_millis;
        let cases = [(0, ms(0)), (0, ms(300)), (0, ms(0)), (1, ms(3000)), (0, ms(3000))];
        assert_eq!(start_order(&cases), [4, 1, 0, 2, 3]);
    }

    #[test]
    fn the_plans_order_holds_until_the_peer_is_usable_and_no_case_starts_twice() {
        let queue = Queue::new(vec![3, 1, 0, 2]);
        assert_eq!(queue.next(false), Some(0));
        assert_eq!(queue.next(true), Some(3));
        assert_eq!(queue.next(false), Some(1));
        assert_eq!(queue.next(true), Some(2));
        assert_eq!(queue.next(true), None);
        assert_eq!(queue.next(false), None);
    }
}
