//! Scenario files: the YAML format ([`file`]), its validated runnable form
//! ([`model`]), loading with located diagnostics, and the JSON Schema.

pub mod file;
pub mod model;
pub mod profile;

pub use model::Scenario;
