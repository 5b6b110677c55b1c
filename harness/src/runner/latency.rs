//! How long a `request` step whose scenario names no `timeout_ms` waits for
//! its response: a multiple of the slowest round trip the peer has answered
//! in this session, within `--timeout-floor` and `--timeout-ceiling`. Only
//! a wait for a response that must come is fitted: cut short, it could
//! only fail a slow peer (the floor, by default the scenario language's
//! 5 s, guards against that), never pass a peer that sent what it must not.

use std::collections::HashMap;
use std::time::Duration;

use mcp_conform_core::scenario::validate::{SCENARIO_TIMEOUT, STEP_TIMEOUT};
use mcp_conform_core::wire::{Classified, Direction, Frame, RequestId, classify};

/// Round trips a fitted wait allows: room for a peer whose answers vary.
pub const LATENCY_MULTIPLE: u32 = 20;

/// The bounds of a fitted wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeoutBounds {
    pub floor: Duration,
    pub ceiling: Duration,
}

impl Default for TimeoutBounds {
    /// Never shorter than the scenario language's default; at most a
    /// whole scenario's budget.
    fn default() -> Self {
        TimeoutBounds {
            floor: STEP_TIMEOUT,
            ceiling: SCENARIO_TIMEOUT,
        }
    }
}

impl TimeoutBounds {
    /// The wait for a response: `default` (the scenario language's) until a
    /// round trip has been measured, then `LATENCY_MULTIPLE` times the
    /// slowest; either kept within the bounds.
    pub fn fit(self, default: Duration, slowest: Option<Duration>) -> Duration {
        let wanted = slowest.map_or(default, |rtt| rtt * LATENCY_MULTIPLE);
        wanted.min(self.ceiling).max(self.floor)
    }
}

/// The slowest round trip of a request of ours that the peer answered in
/// `transcript`, leaving out `initialize`: over stdio its round trip
/// includes starting the process.
pub fn slowest_round_trip(transcript: &[Frame]) -> Option<Duration> {
    let mut asked: HashMap<RequestId, Duration> = HashMap::new();
    let mut slowest = None;
    for frame in transcript {
        match (classify(&frame.raw), frame.direction) {
            (Classified::Request { id, method, .. }, Direction::Sent) if method != "initialize" => {
                asked.insert(id, frame.at);
            }
            (Classified::Result { id, .. }, Direction::Received)
            | (Classified::Error { id: Some(id), .. }, Direction::Received) => {
                if let Some(sent) = asked.remove(&id) {
                    let trip = frame.at.saturating_sub(sent);
                    slowest = slowest.max(Some(trip));
                }
            }
            _ => {}
        }
    }
    slowest
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use mcp_conform_core::wire::{Direction, Frame};

    use super::{TimeoutBounds, slowest_round_trip};

    const fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// Our request `method` under `id`, sent at `at` ms.
    fn asked(at: u64, id: u64, method: &str) -> Frame {
        let text = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}"}}"#);
        Frame::new(Direction::Sent, text.into_bytes(), ms(at))
    }

    /// The peer's answer to `id` at `at` ms: `member` is `result` or `error`.
    fn answered(at: u64, id: u64, member: &str) -> Frame {
        let value = match member {
            "error" => r#"{"code":1,"message":"no"}"#,
            _ => "{}",
        };
        let text = format!(r#"{{"jsonrpc":"2.0","id":{id},"{member}":{value}}}"#);
        Frame::new(Direction::Received, text.into_bytes(), ms(at))
    }

    #[test]
    fn a_fitted_wait_is_a_multiple_of_the_slowest_trip_within_the_bounds() {
        let bounds = TimeoutBounds {
            floor: ms(500),
            ceiling: ms(4000),
        };
        assert_eq!(bounds.fit(ms(5000), None), ms(4000));
        assert_eq!(bounds.fit(ms(5000), Some(ms(10))), ms(500));
        assert_eq!(bounds.fit(ms(5000), Some(ms(100))), ms(2000));
        assert_eq!(bounds.fit(ms(5000), Some(ms(1000))), ms(4000));
    }

    #[test]
    fn by_default_no_wait_is_shorter_than_the_language_default() {
        let bounds = TimeoutBounds::default();
        assert_eq!(bounds.fit(ms(5000), None), ms(5000));
        assert_eq!(bounds.fit(ms(5000), Some(ms(1))), ms(5000));
        assert_eq!(bounds.fit(ms(5000), Some(ms(500))), ms(10_000));
    }

    #[test]
    fn the_slowest_answered_trip_counts_and_initialize_does_not() {
        let transcript = [
            asked(0, 1, "initialize"),
            answered(900, 1, "result"),
            asked(1000, 2, "ping"),
            answered(1030, 2, "result"),
            asked(1100, 3, "tools/list"),
            answered(1180, 3, "error"),
            asked(1200, 4, "tools/call"),
        ];
        assert_eq!(slowest_round_trip(&transcript[..2]), None);
        assert_eq!(slowest_round_trip(&transcript), Some(ms(80)));
    }
}
