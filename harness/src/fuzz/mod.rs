//! `mcp-conform fuzz` (issue 22): calls generated from a server's own
//! declarations, judged by what the spec requires of every answer.
//!
//! - [`subject`]: what a case calls (tool, prompt, resource template,
//!   completion, unknown method) and the request it becomes.
//! - [`arguments`]: argument objects from a subject's schema, valid and
//!   near-valid, seeded.
//! - The oracle, what the spec lets a server answer to each and the
//!   requirement a wrong answer breaks, is the core's
//!   `judge::generated`: no verdict is decided outside the core.
//! - [`reproducer`]: the scenario file that replays a finding.
//! - [`run`]: the command's driver.
//! - [`client`]: `test-client --fuzz`, generated `role: client` scenarios.

pub mod arguments;
pub mod client;
pub mod reproducer;
pub mod run;
pub mod subject;
