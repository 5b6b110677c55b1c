//! Validation against official MCP schema files a user supplies
//! (`--schema-dir DIR` holding `<version>/schema.json`), on top of our own
//! model. The files are read at run time and never shipped with the project.
//! Each file's own `$schema` dialect applies (draft-07 for older versions,
//! 2020-12 for newer ones).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use jsonschema::Validator;
use serde_json::{Value, json};

use crate::version::ProtocolVersion;

/// The official schemas found in a directory, one per version.
#[derive(Debug)]
pub struct OfficialSchemas {
    roots: BTreeMap<ProtocolVersion, Value>,
    compiled: Mutex<BTreeMap<(ProtocolVersion, String), Arc<Validator>>>,
}

/// A schema directory or file could not be used.
#[derive(Debug, thiserror::Error)]
#[error("{}: {reason}", path.display())]
pub struct SchemaLoadError {
    pub path: PathBuf,
    pub reason: String,
}

impl OfficialSchemas {
    /// Loads `<dir>/<version>/schema.json` for every version present; at
    /// least one must be.
    pub fn load_dir(dir: &Path) -> Result<OfficialSchemas, SchemaLoadError> {
        let mut roots = BTreeMap::new();
        for version in ProtocolVersion::ALL {
            let path = dir.join(version.as_str()).join("schema.json");
            if !path.exists() {
                continue;
            }
            let error = |reason: String| SchemaLoadError {
                path: path.clone(),
                reason,
            };
            let text = std::fs::read_to_string(&path).map_err(|e| error(e.to_string()))?;
            let root: Value = serde_json::from_str(&text).map_err(|e| error(format!("not JSON: {e}")))?;
            if definitions(&root).is_none() {
                return Err(error(
                    "no `definitions` or `$defs`: not an MCP schema file".into(),
                ));
            }
            roots.insert(version, root);
        }
        if roots.is_empty() {
            return Err(SchemaLoadError {
                path: dir.to_owned(),
                reason: "no <version>/schema.json inside (see `mcp-conform schemas fetch`)".into(),
            });
        }
        Ok(OfficialSchemas {
            roots,
            compiled: Mutex::new(BTreeMap::new()),
        })
    }

    /// The versions loaded.
    pub fn versions(&self) -> Vec<ProtocolVersion> {
        self.roots.keys().copied().collect()
    }

    /// Validates one JSON-RPC message; `None` when no schema of `version` is
    /// loaded. Requests and notifications are checked against the definition
    /// of their method, results (given the method they answer) against that
    /// method's result definition, everything against the message envelope.
    pub fn check(
        &self,
        version: ProtocolVersion,
        message: &Value,
        answers: Option<&str>,
    ) -> Option<Vec<String>> {
        let root = self.roots.get(&version)?;
        let defs = definitions(root)?;
        let mut targets: Vec<(String, &Value)> = Vec::new();
        if defs.contains_key("JSONRPCMessage") {
            targets.push(("JSONRPCMessage".into(), message));
        }
        if let Some(method) = message.get("method").and_then(Value::as_str) {
            targets.extend(definition_for(defs, method).map(|name| (name, message)));
        } else if let (Some(method), Some(result)) = (answers, message.get("result")) {
            let result_name = definition_for(defs, method)
                .and_then(|n| n.strip_suffix("Request").map(|b| format!("{b}Result")));
            targets.extend(
                result_name
                    .filter(|n| defs.contains_key(n))
                    .map(|name| (name, result)),
            );
        }
        let mut errors = Vec::new();
        for (name, instance) in targets {
            match self.validator(version, root, &name) {
                Ok(validator) => errors.extend(
                    validator
                        .iter_errors(instance)
                        .map(|e| format!("{name}: {e} (at `{}`)", e.instance_path())),
                ),
                Err(e) => errors.push(format!("{name}: the official schema does not compile: {e}")),
            }
        }
        Some(errors)
    }

    fn validator(
        &self,
        version: ProtocolVersion,
        root: &Value,
        name: &str,
    ) -> Result<Arc<Validator>, String> {
        let key = (version, name.to_owned());
        let mut cache = self
            .compiled
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(validator) = cache.get(&key) {
            return Ok(validator.clone());
        }
        let defs_key = if root.get("$defs").is_some() {
            "$defs"
        } else {
            "definitions"
        };
        let mut schema = json!({ "$ref": format!("#/{defs_key}/{name}") });
        schema[defs_key] = root[defs_key].clone();
        if let Some(dialect) = root.get("$schema") {
            schema["$schema"] = dialect.clone();
        }
        let validator = Arc::new(jsonschema::validator_for(&schema).map_err(|e| e.to_string())?);
        cache.insert(key, validator.clone());
        Ok(validator)
    }
}

fn definitions(root: &Value) -> Option<&serde_json::Map<String, Value>> {
    root.get("definitions")
        .or_else(|| root.get("$defs"))
        .and_then(Value::as_object)
}

/// The definition whose `method` is the constant `method`.
fn definition_for(defs: &serde_json::Map<String, Value>, method: &str) -> Option<String> {
    defs.iter()
        .find(|(_, def)| {
            let property = &def["properties"]["method"];
            property.get("const").and_then(Value::as_str) == Some(method)
                || property["enum"]
                    .as_array()
                    .is_some_and(|e| e.len() == 1 && e[0] == method)
        })
        .map(|(name, _)| name.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny schema in the official files' layout, written for this test.
    fn write_schema(dir: &Path, version: &str, dialect: &str, defs_key: &str) {
        let schema = json!({
            "$schema": dialect,
            defs_key: {
                "PingRequest": {
                    "type": "object",
                    "properties": {"method": {"const": "ping"}, "id": {"type": ["string", "integer"]}},
                    "required": ["method", "id"]
                },
                "PingResult": {"type": "object", "properties": {"_meta": {"type": "object"}}}
            }
        });
        std::fs::create_dir_all(dir.join(version)).unwrap();
        std::fs::write(dir.join(version).join("schema.json"), schema.to_string()).unwrap();
    }

    #[test]
    fn loads_each_dialect_and_picks_the_method_definition() {
        let dir = tempfile::tempdir().unwrap();
        write_schema(
            dir.path(),
            "2024-11-05",
            "http://json-schema.org/draft-07/schema#",
            "definitions",
        );
        write_schema(
            dir.path(),
            "2025-11-25",
            "https://json-schema.org/draft/2020-12/schema",
            "$defs",
        );
        let schemas = OfficialSchemas::load_dir(dir.path()).unwrap();
        assert_eq!(
            schemas.versions(),
            [ProtocolVersion::V2024_11_05, ProtocolVersion::V2025_11_25]
        );
        for version in schemas.versions() {
            let good = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
            assert_eq!(schemas.check(version, &good, None), Some(vec![]));
            let bad = json!({"jsonrpc": "2.0", "id": 1.5, "method": "ping"});
            assert_eq!(schemas.check(version, &bad, None).unwrap().len(), 1, "{version}");
            let result = json!({"jsonrpc": "2.0", "id": 1, "result": {"_meta": 3}});
            assert_eq!(schemas.check(version, &result, Some("ping")).unwrap().len(), 1);
        }
        assert_eq!(
            schemas.check(ProtocolVersion::V2025_06_18, &json!({}), None),
            None
        );
    }

    #[test]
    fn a_directory_without_schemas_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let error = OfficialSchemas::load_dir(dir.path()).unwrap_err();
        assert!(error.to_string().contains("no <version>/schema.json"));
    }
}
