//! mcp-conform: runs YAML scenarios against MCP peers and judges every frame.
//!
//! - [`runner`]: scenario execution, producing outcomes and events.
//! - [`select`]: which scenarios and profile a run uses; [`bundled`]: the
//!   suite shipped in the binary.
//! - [`output`]: the terminal reporter; [`snapshot`]: normalized transcripts.
//! - [`libtest`]: the `cargo test` entry point; [`cli`]: the command line.
//! - [`schemas`]: fetching official schema files; [`coverage`]: which
//!   requirements the suite checks.

pub mod bundled;
pub mod cli;
pub mod coverage;
pub mod libtest;
pub mod output;
pub mod runner;
pub mod schemas;
pub mod select;
pub mod snapshot;
