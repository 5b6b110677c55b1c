//! How much one session takes in from its peer before it calls it a flood.
//!
//! A peer that writes messages (or garbage) faster than we judge them would
//! otherwise grow the transcript, and every report that carries it, without
//! end. Past the budget the session stops reading and ends the peer; what it
//! kept is the first part of the flood, which is enough to show it.

use mcp_conform_core::wire::Frame;

use crate::transport::PeerExit;

/// Frames from the peer one session keeps at most. No scenario needs
/// anywhere near as many; a flood reaches it in well under a second.
pub const MAX_RECEIVED_FRAMES: usize = 10_000;
/// Bytes from the peer one session keeps at most.
pub const MAX_RECEIVED_BYTES: usize = 64 * 1024 * 1024;

/// What the peer has sent so far in this session.
#[derive(Debug, Default)]
pub struct Budget {
    frames: usize,
    bytes: usize,
}

impl Budget {
    /// Whether the peer sent more than the budget.
    pub fn exceeded(&self) -> bool {
        self.frames > MAX_RECEIVED_FRAMES || self.bytes > MAX_RECEIVED_BYTES
    }

    /// Whether the peer sent more than half the budget: a driver that sends
    /// many requests on purpose (the fuzzer) opens a fresh session then,
    /// rather than have a correct peer's answers ended as a flood.
    pub fn half_spent(&self) -> bool {
        self.frames > MAX_RECEIVED_FRAMES / 2 || self.bytes > MAX_RECEIVED_BYTES / 2
    }

    /// Counts `frame`; past the budget, how the session ends.
    pub fn take(&mut self, frame: &Frame) -> Option<PeerExit> {
        self.frames += 1;
        self.bytes += frame.raw.len();
        self.exceeded().then(|| PeerExit {
            code: None,
            signal: None,
            description: format!(
                "it flooded the session: more than {MAX_RECEIVED_FRAMES} messages or {} MiB \
                 ({} messages, {} bytes kept); we stopped reading and ended it",
                MAX_RECEIVED_BYTES / (1024 * 1024),
                self.frames - 1,
                self.bytes - frame.raw.len(),
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use mcp_conform_core::wire::Direction;

    use super::*;

    fn frame(bytes: usize) -> Frame {
        Frame::new(Direction::Received, vec![b'x'; bytes], Duration::ZERO)
    }

    #[test]
    fn the_frame_past_the_count_ends_the_session() {
        let mut budget = Budget::default();
        for _ in 0..MAX_RECEIVED_FRAMES {
            assert!(budget.take(&frame(1)).is_none());
        }
        assert!(!budget.exceeded() && budget.half_spent());
        let exit = budget.take(&frame(1)).expect("a flood");
        assert!(budget.exceeded());
        assert!(
            exit.description.contains("10000 messages, 10000 bytes kept"),
            "{}",
            exit.description
        );
    }

    #[test]
    fn the_frame_past_the_bytes_ends_the_session() {
        let mut budget = Budget::default();
        assert!(budget.take(&frame(MAX_RECEIVED_BYTES)).is_none());
        assert!(budget.take(&frame(1)).is_some());
    }
}
