//! The stable, machine-readable vocabulary of mcp-conform results.
//!
//! Everything a release gate reads lives here: the [`Verdict`] of a check, the
//! [`Level`] of the requirement it enforces, the [`Report`] document and its
//! writers, one module per format, and the [`ExitCode`] every command of
//! mcp-conform ends with. The harness converts its outcomes into
//! these types; this crate never depends on the harness, so its format can be
//! versioned on its own.

mod exit_code;
pub mod html;
pub mod json;
pub mod junit;
pub mod markdown;
mod merge;
mod model;
pub mod provenance;
pub mod sanitize;
pub mod text;
mod verdict;

pub use exit_code::ExitCode;
pub use merge::merge;
pub use model::*;
pub use verdict::{Basis, Level, Verdict};
