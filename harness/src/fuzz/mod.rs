//! `mcp-conform fuzz` (issue 22): calls generated from a server's own
//! declarations, judged by what the spec requires of every answer.
//!
//! - [`arguments`]: argument objects from a tool's `inputSchema`, valid
//!   and near-valid, seeded.
//! - [`oracle`]: what the spec lets a server answer to each, and the
//!   requirement a wrong answer breaks.
//! - [`reproducer`]: the scenario file that replays a finding.
//! - [`run`]: the command's driver.

pub mod arguments;
pub mod oracle;
pub mod reproducer;
pub mod run;
