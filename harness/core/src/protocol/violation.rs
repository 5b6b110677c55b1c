//! One broken rule found in a frame.

use crate::Level;

/// Which requirement, how strong, where.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    /// The requirement ID the rule belongs to (for example `TOOL-002`).
    pub requirement: &'static str,
    pub level: Level,
    pub message: String,
    /// A JSON Pointer into the frame (for example `/result/tools/0/name`).
    pub pointer: Option<String>,
    /// The index of the frame in the connection's transcript.
    pub frame_index: Option<usize>,
    /// The frame was sent by the harness: a scenario's deliberate input or
    /// our bug, never a finding about the peer.
    pub by_us: bool,
}

impl Violation {
    pub fn new(requirement: &'static str, level: Level, message: impl Into<String>) -> Violation {
        Violation {
            requirement,
            level,
            message: message.into(),
            pointer: None,
            frame_index: None,
            by_us: false,
        }
    }

    /// A MUST-level violation.
    pub fn must(requirement: &'static str, message: impl Into<String>) -> Violation {
        Violation::new(requirement, Level::Must, message)
    }

    /// The same violation located at `pointer`.
    pub fn at(mut self, pointer: impl Into<String>) -> Violation {
        self.pointer = Some(pointer.into());
        self
    }
}
