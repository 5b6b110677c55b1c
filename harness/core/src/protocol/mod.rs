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
pub use violation::Violation;
