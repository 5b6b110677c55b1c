//! The stable, machine-readable vocabulary of mcp-conform results.
//!
//! Everything a release gate reads lives here: the [`Verdict`] of a check, the
//! [`Level`] of the requirement it enforces, and (later) the report documents
//! and their writers. The harness converts its outcomes into these types; this
//! crate never depends on the harness, so its format can be versioned on its own.

mod verdict;

pub use verdict::{Level, Verdict};
