//! The correct reference peers on the whole bundled suite of their role,
//! in this process: the verdict of every case, for a snapshot.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use mcp_conform::runner::{RunConfig, run_matrix};
use mcp_conform_core::scenario::model::Role;
use mcp_conform_core::version::ProtocolVersion;

use crate::faults;

/// Cases run at once: a client or gateway case mostly waits (on its peer's
/// start, on the mock server's linger), so more than the cores.
const JOBS: usize = 8;

/// One line per case, in the run's order: scenario, version, verdict.
pub fn verdict_table(role: Role, config: &RunConfig, versions: &[ProtocolVersion]) -> String {
    let scenarios = faults::bundled(role);
    let outcomes = run_matrix(
        &scenarios,
        config,
        versions,
        JOBS,
        &Arc::new(AtomicBool::new(false)),
        |_| {},
    );
    outcomes
        .iter()
        .map(|o| {
            let version = o.version.map_or("-", ProtocolVersion::as_str);
            format!("{:<44} {:<11} {}", o.id, version, o.verdict)
        })
        .collect::<Vec<_>>()
        .join("\n")
}
