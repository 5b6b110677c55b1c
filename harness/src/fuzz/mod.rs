//! `mcp-conform fuzz` (issue 22): calls generated from a server's own
//! declarations, judged by what the spec requires of every answer.
//!
//! - [`arguments`]: argument objects from a tool's `inputSchema` (or a
//!   prompt's argument list), valid and near-valid, seeded.

pub mod arguments;
