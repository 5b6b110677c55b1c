//! Profiles bind the abstract triggers scenarios use ("a tool that elicits")
//! to one server's tools and arguments.
//!
//! ```yaml
//! name: reference
//! description: the bundled reference server
//! triggers:
//!   elicit_tool: { name: elicit, arguments: {} }
//! ```
//! A scenario that `requires.triggers: [elicit_tool]` reads it as
//! `${trigger.elicit_tool.name}` and `${trigger.elicit_tool.arguments}`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

/// A loaded profile.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    /// Trigger name → whatever the scenarios using it read (usually `name`
    /// and `arguments`, plus what the tool is known to send).
    #[serde(default)]
    pub triggers: BTreeMap<String, Value>,
}

/// The profile file could not be read or parsed.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct ProfileError {
    pub path: PathBuf,
    pub message: String,
}

impl Profile {
    /// Reads a profile from a YAML file.
    pub fn load(path: &Path) -> Result<Profile, ProfileError> {
        let error = |message: String| ProfileError {
            path: path.to_owned(),
            message,
        };
        let text = std::fs::read_to_string(path).map_err(|e| error(e.to_string()))?;
        Profile::parse(&text).map_err(error)
    }

    /// Parses profile YAML.
    pub fn parse(text: &str) -> Result<Profile, String> {
        serde_saphyr::from_str(text).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_triggers() {
        let p = Profile::parse("name: x\ntriggers:\n  t: {tool: elicit, arguments: {a: 1}}\n").unwrap();
        assert_eq!(p.triggers["t"]["tool"], "elicit");
        assert!(
            Profile::parse("name: x\nbogus: 1\n")
                .unwrap_err()
                .contains("bogus")
        );
    }
}
