//! `mcp-conform fuzz` (issue 22): calls generated from a server's own
//! declarations, judged by what the spec requires of every answer.
//!
//! - [`subject`]: what a case calls (tool, prompt, resource template,
//!   completion, unknown method) and the request it becomes.
//! - [`arguments`]: argument objects from a subject's schema, valid and
//!   near-valid, seeded.
//! - [`oracle`]: what the spec lets a server answer to each, and the
//!   requirement a wrong answer breaks.
//! - [`reproducer`]: the scenario file that replays a finding.
//! - [`run`]: the command's driver.

pub mod arguments;
pub mod oracle;
pub mod reproducer;
pub mod run;
pub mod subject;
