//! Scenario files: the YAML format ([`file`]), its validated runnable form
//! ([`model`]), loading with located diagnostics ([`load`], [`validate`]),
//! the JSON Schema ([`schema`]) and profiles ([`profile`]).

pub mod file;
pub mod load;
pub mod model;
pub mod profile;
pub mod schema;
pub mod validate;

pub use model::Scenario;
