use mcp_conform_report::Level;

use crate::requirements::RequirementId;

/// One broken rule found in a frame: which requirement, how strong, where.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    /// The requirement ID the rule belongs to (for example `TOOL-002`).
    pub requirement: RequirementId,
    pub level: Level,
    pub message: String,
    /// A JSON Pointer into the frame (for example `/params/tools/0/name`).
    pub pointer: Option<String>,
    /// The index of the frame in the connection's transcript, when known.
    pub frame_index: Option<usize>,
    /// The frame was sent by the harness: the violation is a harness or
    /// scenario bug, not a finding about the peer under test.
    pub by_us: bool,
}

impl Violation {
    /// A violation with no location yet.
    pub fn new(requirement: RequirementId, level: Level, message: impl Into<String>) -> Self {
        Violation {
            requirement,
            level,
            message: message.into(),
            pointer: None,
            frame_index: None,
            by_us: false,
        }
    }

    /// A MUST-level violation: every shape rule is one.
    pub fn must(requirement: RequirementId, message: impl Into<String>) -> Self {
        Violation::new(requirement, Level::Must, message)
    }

    /// The same violation located at `pointer`.
    pub fn at(mut self, pointer: impl Into<String>) -> Self {
        self.pointer = Some(pointer.into());
        self
    }
}
