//! Our own versioned model of MCP messages, and the checks every frame goes
//! through.
//!
//! - [`check`]: the per-connection [`FrameChecker`]: envelope, id and
//!   sequence rules, and the shapes of the negotiated version.
//! - [`shapes`]: params and result shapes per method and version, written
//!   from the specification (a member says since which version it exists).
//! - [`official`]: optional validation against official schema files a user
//!   supplies (`--schema-dir`).

mod check;
pub mod official;
mod shapes;
mod violation;

pub use check::{FrameChecker, PeerRole};

/// Every requirement the frame checker cites (for coverage listings; a test
/// keeps it in step with the code).
pub const CHECKED_REQUIREMENTS: &[&str] = &[
    "ELIC-005",
    "LIFE-003",
    "LIFE-009",
    "LIFE-010",
    "LIST-002",
    "PROG-002",
    "PROG-003",
    "PROG-004",
    "RPC-001",
    "RPC-002",
    "RPC-003",
    "RPC-004",
    "RPC-005",
    "RPC-006",
    "RPC-014",
    "SAMP-002",
    "SAMP-003",
    "SCHEMA-001",
    "STDIO-001",
    "STDIO-006",
    "TOOL-002",
];
pub use violation::Violation;

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use regex::Regex;

    use super::CHECKED_REQUIREMENTS;
    use crate::requirements::catalogue;

    #[test]
    fn the_checked_list_matches_the_code_and_the_catalogue() {
        let id = Regex::new(r#""([A-Z]+-[0-9]{3})""#).unwrap();
        let code = [include_str!("check.rs"), include_str!("shapes.rs")].concat();
        let cited: BTreeSet<&str> = id
            .captures_iter(&code)
            .map(|c| c.get(1).unwrap().as_str())
            .collect();
        let listed: BTreeSet<&str> = CHECKED_REQUIREMENTS.iter().copied().collect();
        assert_eq!(cited, listed);
        assert!(listed.iter().all(|id| catalogue().get(id).is_some()));
    }
}
