//! Our own versioned model of MCP messages, and the checks every frame goes
//! through.
//!
//! - [`shape`]: the shape language, with versions on every field and variant.
//! - [`model`]: every method of every version, its direction, capability
//!   gate, params and result shapes.
//! - [`check`]: the per-connection [`FrameChecker`].
//! - [`official`]: optional validation against official schema files a user
//!   supplies (`--schema-dir`).

mod check;
mod content;
pub mod meta_key;
mod model;
pub mod official;
pub mod shape;
mod stateless;
mod trace;
mod violation;

pub use check::{FrameChecker, check_message};
pub use model::{
    Flow, Gate, INPUT_REQUIRED, LOG_LEVELS, MemberGate, MethodKind, MethodSpec, PeerRole, Side,
    capability_declared, errors, input_requests, is_input_required, member_gates, method, method_in, methods,
    methods_in, subscriptions,
};
pub use stateless::REMOVED_METHODS;
pub use violation::Violation;

/// Every requirement the frame checker cites (for coverage listings; a test
/// keeps it in step with the code).
pub const CHECKED_REQUIREMENTS: &[&str] = &[
    "CACHE-001",
    "CACHE-002",
    "CANC-001",
    "CANC-006",
    "COMP-001",
    "COMP-002",
    "COMP-003",
    "ELIC-001",
    "ELIC-002",
    "ELIC-005",
    "ELIC-006",
    "ELIC-008",
    "ELIC-012",
    "ELIC-014",
    "ELIC-015",
    "JSCH-002",
    "LIFE-002",
    "LIFE-003",
    "LIFE-009",
    "LIFE-010",
    "LIFE-011",
    "LIST-002",
    "LIST-003",
    "LIST-006",
    "LOG-001",
    "LOG-002",
    "LOG-006",
    "META-001",
    "META-002",
    "MODN-001",
    "MODN-003",
    "MODN-005",
    "MODN-007",
    "MODN-008",
    "MODN-012",
    "MRTR-001",
    "MRTR-002",
    "MRTR-003",
    "MRTR-004",
    "MRTR-006",
    "PING-001",
    "PING-002",
    "PROG-001",
    "PROG-002",
    "PROG-003",
    "PROG-004",
    "PROG-006",
    "PROM-001",
    "PROM-004",
    "RES-001",
    "RES-002",
    "RES-003",
    "RES-005",
    "RES-007",
    "RES-008",
    "RES-009",
    "ROOT-001",
    "ROOT-002",
    "RPC-001",
    "RPC-002",
    "RPC-003",
    "RPC-004",
    "RPC-005",
    "RPC-006",
    "RPC-007",
    "RPC-014",
    "RPC-015",
    "RPC-017",
    "RPC-018",
    "SAMP-001",
    "SAMP-002",
    "SAMP-003",
    "SAMP-006",
    "SAMP-007",
    "SAMP-009",
    "SCHEMA-001",
    "STDIO-001",
    "STDIO-002",
    "STDIO-003",
    "STDIO-006",
    "STDIO-007",
    "SUBS-001",
    "SUBS-002",
    "SUBS-003",
    "TOOL-001",
    "TOOL-002",
    "TOOL-003",
    "TOOL-007",
    "TOOL-009",
];

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use regex::Regex;

    use super::CHECKED_REQUIREMENTS;
    use crate::requirements::catalogue;

    #[test]
    fn the_checked_list_matches_the_code_and_the_catalogue() {
        let id = Regex::new(r#""([A-Z]+-[0-9]{3})""#).unwrap();
        let code = [
            include_str!("check.rs"),
            include_str!("content.rs"),
            include_str!("shape.rs"),
            include_str!("stateless.rs"),
            include_str!("trace.rs"),
            include_str!("model/mod.rs"),
            include_str!("model/common.rs"),
            include_str!("model/completion.rs"),
            include_str!("model/discover.rs"),
            include_str!("model/elicitation.rs"),
            include_str!("model/errors.rs"),
            include_str!("model/lifecycle.rs"),
            include_str!("model/logging.rs"),
            include_str!("model/mrtr.rs"),
            include_str!("model/prompts.rs"),
            include_str!("model/resources.rs"),
            include_str!("model/roots.rs"),
            include_str!("model/sampling.rs"),
            include_str!("model/subscriptions.rs"),
            include_str!("model/tools.rs"),
            include_str!("model/utilities.rs"),
        ]
        // Only the code: test modules cite made-up IDs.
        .map(|file| file.split("#[cfg(test)]").next().unwrap_or_default())
        .concat();
        let cited: BTreeSet<&str> = id
            .captures_iter(&code)
            .map(|c| c.get(1).unwrap().as_str())
            .collect();
        let listed: BTreeSet<&str> = CHECKED_REQUIREMENTS.iter().copied().collect();
        assert_eq!(cited, listed);
        assert!(listed.iter().all(|id| catalogue().get(id).is_some()));
    }
}
