//! The scenarios and profiles shipped inside the binary (see `build.rs`).

use std::path::PathBuf;

include!(concat!(env!("OUT_DIR"), "/bundled.rs"));

/// The bundled scenario files, as (path, text), sorted by path.
pub fn scenario_files() -> Vec<(PathBuf, &'static str)> {
    FILES
        .iter()
        .filter(|(path, _)| !path.contains("/profiles/") && !file_name(path).starts_with('_'))
        .map(|(path, text)| (PathBuf::from(path), *text))
        .collect()
}

/// A bundled profile by name (`reference` is `scenarios/profiles/reference.yaml`).
pub fn profile(name: &str) -> Option<(PathBuf, &'static str)> {
    FILES
        .iter()
        .find(|(path, _)| path.contains("/profiles/") && file_name(path).split('.').next() == Some(name))
        .map(|(path, text)| (PathBuf::from(path), *text))
}

/// The names of the bundled profiles.
pub fn profile_names() -> Vec<&'static str> {
    FILES
        .iter()
        .filter(|(path, _)| path.contains("/profiles/"))
        .filter_map(|(path, _)| file_name(path).split('.').next())
        .collect()
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}
