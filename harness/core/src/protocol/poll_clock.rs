//! How a requester polls its tasks, for the poll rules of both task eras
//! (TASK-010 on 2025-11-25, TASKX-028 with the extension): when it last
//! polled or heard of each task, the latest interval the receiver
//! suggested, and whether an answer showed the task terminal.

use std::collections::HashMap;
use std::hash::Hash;
use std::time::Duration;

use super::model::tasks::TaskStatus;

/// Slack for the poll rules: frames are stamped when we read them, so a
/// poll sent on time may look early by the delay of the one before it. A
/// poll is too soon only below three quarters of the interval, less this.
const POLL_SLACK: Duration = Duration::from_millis(25);

/// The polling of each task, by a key the caller chooses.
#[derive(Debug)]
pub(super) struct PollClocks<K> {
    clocks: HashMap<K, Clock>,
}

impl<K> Default for PollClocks<K> {
    fn default() -> Self {
        PollClocks {
            clocks: HashMap::new(),
        }
    }
}

#[derive(Debug)]
struct Clock {
    /// When the requester last polled the task, or heard of it.
    last: Duration,
    /// The latest interval (ms) the receiver suggested.
    interval: Option<u64>,
    /// The terminal status an answer showed, once one did.
    ended: Option<TaskStatus>,
}

/// How a poll broke the rule.
#[derive(Debug, PartialEq)]
pub(super) enum Slip {
    /// Sooner than the interval allows after the last poll.
    TooSoon { gap: Duration, interval: u64 },
    /// After an answer showed the task terminal.
    PastEnd(TaskStatus),
}

impl Slip {
    pub fn describe(&self, task: &str, interval_name: &str) -> String {
        match self {
            Slip::TooSoon { gap, interval } => format!(
                "task {task:?} was polled {} ms after the last poll; the receiver's {interval_name} is {interval} ms",
                gap.as_millis()
            ),
            Slip::PastEnd(status) => format!(
                "task {task:?} was polled again after an answer showed it {}, a status that never changes",
                status.name()
            ),
        }
    }
}

impl<K: Eq + Hash> PollClocks<K> {
    /// The requester heard of `task` at `at` (the answer that created it).
    pub fn started(&mut self, task: K, at: Duration) {
        let clock = Clock {
            last: at,
            interval: None,
            ended: None,
        };
        self.clocks.insert(task, clock);
    }

    /// An answer about `task` suggested `interval` (ms) and showed `status`.
    pub fn told(&mut self, task: &K, interval: Option<u64>, status: Option<TaskStatus>) {
        let Some(clock) = self.clocks.get_mut(task) else {
            return;
        };
        if interval.is_some() {
            clock.interval = interval;
        }
        if let Some(status) = status.filter(|s| s.is_terminal()) {
            clock.ended.get_or_insert(status);
        }
    }

    /// The requester polled `task` at `at`: how the poll broke the rule.
    pub fn polled(&mut self, task: K, at: Duration) -> Vec<Slip> {
        let clock = self.clocks.entry(task).or_insert(Clock {
            last: at,
            interval: None,
            ended: None,
        });
        let gap = at.saturating_sub(clock.last);
        clock.last = at;
        let too_soon = clock
            .interval
            .filter(|&interval| gap + POLL_SLACK < Duration::from_millis(interval) * 3 / 4)
            .map(|interval| Slip::TooSoon { gap, interval });
        clock
            .ended
            .map(Slip::PastEnd)
            .into_iter()
            .chain(too_soon)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn a_poll_is_too_soon_only_beyond_the_slack() {
        let mut clocks = PollClocks::default();
        clocks.started("t", ms(0));
        assert_eq!(clocks.polled("t", ms(10)), [], "no interval suggested yet");
        clocks.told(&"t", Some(400), None);
        // Three quarters of 400 ms less 25 ms: 275 ms.
        assert_eq!(clocks.polled("t", ms(285)), []);
        assert_eq!(
            clocks.polled("t", ms(555)),
            [Slip::TooSoon {
                gap: ms(270),
                interval: 400
            }]
        );
        clocks.told(&"t", None, Some(TaskStatus::Completed));
        assert_eq!(
            clocks.polled("t", ms(2000)),
            [Slip::PastEnd(TaskStatus::Completed)]
        );
        assert_eq!(clocks.polled("other", ms(2000)), [], "a task never heard of");
    }
}
