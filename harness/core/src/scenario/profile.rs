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
//!
//! A trigger may say what changes in the stateless era (2026-07-28+) under
//! `modern`: members to use instead, or `null` when nothing of the server
//! does it in that era (`elicit_tool: { name: ask, modern: { name: ask_v2 } }`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::version::Era;

/// The member of a trigger that overrides it in the stateless era.
const MODERN: &str = "modern";

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

    /// The triggers as a run in `era` reads them: with the `modern`
    /// overrides applied in the stateless era, without them otherwise.
    pub fn triggers_for(&self, era: Era) -> BTreeMap<String, Value> {
        self.triggers
            .iter()
            .filter_map(|(name, trigger)| {
                let mut trigger = trigger.clone();
                let modern = trigger.as_object_mut().and_then(|t| t.remove(MODERN));
                match (era, modern) {
                    (Era::Stateless, Some(Value::Null)) => return None,
                    (Era::Stateless, Some(Value::Object(overrides))) => {
                        if let Some(fields) = trigger.as_object_mut() {
                            fields.extend(overrides);
                        }
                    }
                    _ => {}
                }
                // A trigger bound only in the other era is unbound here.
                let empty = trigger.as_object().is_some_and(serde_json::Map::is_empty);
                (!empty).then(|| (name.clone(), trigger))
            })
            .collect()
    }

    /// Whether a run in `era` finds `trigger` bound: a trigger's name, or a
    /// field of one (`sample_tool.model_preferences`), present and not null.
    pub fn binds(&self, trigger: &str, era: Era) -> bool {
        let mut path = trigger.split('.');
        let triggers = self.triggers_for(era);
        triggers
            .get(path.next().unwrap_or_default())
            .and_then(|t| path.try_fold(t, |v, key| v.get(key)))
            .is_some_and(|v| !v.is_null())
    }
}

/// Which of `wanted` a run in `era` with `profile` (or none) finds unbound.
pub fn unbound<'w>(wanted: &'w [String], profile: Option<&Profile>, era: Era) -> Vec<&'w str> {
    wanted
        .iter()
        .map(String::as_str)
        .filter(|name| !profile.is_some_and(|p| p.binds(name, era)))
        .collect()
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

    #[test]
    fn modern_overrides_apply_in_the_stateless_era_only() {
        let p = Profile::parse(
            "name: x\ntriggers:\n  a: {name: ask, arguments: {}, modern: {name: ask2}}\n  b: {name: log, modern: null}\n  c: {modern: {name: roots}}\n",
        )
        .unwrap();
        let legacy = p.triggers_for(Era::Stateful);
        assert_eq!(legacy["a"], serde_json::json!({"name": "ask", "arguments": {}}));
        assert!(legacy.contains_key("b"));
        assert!(!legacy.contains_key("c"));
        let modern = p.triggers_for(Era::Stateless);
        assert_eq!(modern["a"], serde_json::json!({"name": "ask2", "arguments": {}}));
        assert!(!modern.contains_key("b"));
        assert_eq!(modern["c"], serde_json::json!({"name": "roots"}));
    }

    #[test]
    fn a_trigger_or_a_field_of_one_is_unbound_when_missing_or_null() {
        let p = Profile::parse(
            "name: x\ntriggers:\n  sample: {name: s, model_preferences: null}\n  log: {name: l, modern: null}\n",
        )
        .unwrap();
        let wanted = [
            "sample".to_owned(),
            "sample.model_preferences".into(),
            "log".into(),
            "ask".into(),
        ];
        assert_eq!(
            unbound(&wanted, Some(&p), Era::Stateful),
            ["sample.model_preferences", "ask"]
        );
        assert_eq!(
            unbound(&wanted, Some(&p), Era::Stateless),
            ["sample.model_preferences", "log", "ask"]
        );
        assert_eq!(unbound(&wanted, None, Era::Stateful), wanted);
    }
}
