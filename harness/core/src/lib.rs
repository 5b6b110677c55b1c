//! The I/O-free core of mcp-conform.
//!
//! - [`version`]: the MCP protocol versions and their eras.
//! - [`auth`]: token choices and `WWW-Authenticate` challenges (protected servers).
//! - [`wire`]: frames as seen on the wire and their JSON-RPC classification.
//! - [`evidence`]: what a transport saw a peer do beyond its messages.
//! - [`judge`]: the verdict type and the rules beyond the frame checker
//!   (handshake, discovery, a client's opening, default citations).
//! - [`protocol`]: our own versioned model of MCP message shapes, and the
//!   checks every frame goes through.
//! - [`redact`]: the user's secrets kept out of every output.
//! - [`requirements`]: the requirement catalogue whose IDs every check cites.
//! - [`matcher`]: the expected-side value language of scenarios.
//! - [`scenario`]: scenario files: parsing, validation and the runnable model.
//! - [`diag`]: located diagnostics and their rendering.
//! - [`span`]: source files and spans shared by the above.

pub mod auth;
pub mod diag;
pub mod evidence;
mod json;
pub mod judge;
pub mod matcher;
pub mod protocol;
pub mod redact;
pub mod requirements;
pub mod scenario;
pub mod span;
pub mod version;
pub mod wire;

pub use mcp_conform_report::{Basis, Level, Verdict};
