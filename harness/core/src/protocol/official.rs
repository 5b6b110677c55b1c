//! Validation against official MCP schema files a user supplies
//! (`--schema-dir DIR` holding `<version>/schema.json`), on top of our own
//! model. The files are read at run time and never shipped with the project.
//! Each file's own `$schema` dialect applies (draft-07 for older versions,
//! 2020-12 for newer ones).
//!
//! A message is checked against its JSON-RPC envelope definition and against
//! the one member of its direction's union (`ClientRequest`, `ServerResult`,
//! ...) that fits it, picked by method, so errors name a concrete definition
//! instead of every branch of an `anyOf`.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use jsonschema::Validator;
use serde_json::{Map, Value};

use super::Violation;
use super::model::is_input_required;
use crate::protocol::cite;
use crate::version::ProtocolVersion;

/// The official schemas found in a directory, one per version.
#[derive(Debug)]
pub struct OfficialSchemas {
    documents: BTreeMap<ProtocolVersion, Document>,
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
    /// least one must be. Each file must be JSON with `definitions` (draft-07)
    /// or `$defs` (2020-12) and must compile.
    pub fn load_dir(dir: &Path) -> Result<OfficialSchemas, SchemaLoadError> {
        let mut documents = BTreeMap::new();
        for version in ProtocolVersion::ALL {
            let path = dir.join(version.as_str()).join("schema.json");
            if path.exists() {
                let document = Document::load(&path).map_err(|reason| SchemaLoadError {
                    path: path.clone(),
                    reason,
                })?;
                documents.insert(version, document);
            }
        }
        if documents.is_empty() {
            return Err(SchemaLoadError {
                path: dir.to_owned(),
                reason: "no <version>/schema.json inside (see `mcp-conform schemas fetch`)".into(),
            });
        }
        Ok(OfficialSchemas { documents })
    }

    /// The versions loaded, oldest first.
    pub fn versions(&self) -> Vec<ProtocolVersion> {
        self.documents.keys().copied().collect()
    }

    /// The violations of the official schemas [`check`](Self::check) found
    /// in the frame at `frame_index` (SCHEMA-002).
    pub fn violations(errors: Vec<String>, frame_index: usize) -> impl Iterator<Item = Violation> {
        errors.into_iter().map(move |error| {
            let mut violation = Violation::must(cite::SCHEMA_002, format!("official schema: {error}"));
            violation.frame_index = Some(frame_index);
            violation
        })
    }

    /// Validates one JSON-RPC message sent by the client (`from_client`) or
    /// the server; `None` when no schema of `version` is loaded. A result is
    /// checked against the result type of the request it answers when
    /// `result_of` names that request, else against the direction's result
    /// union. Each error names the definition and the instance path.
    pub fn check(
        &self,
        version: ProtocolVersion,
        message: &Value,
        from_client: bool,
        result_of: Option<Answering<'_>>,
    ) -> Option<Vec<String>> {
        let document = self.documents.get(&version)?;
        let side = if from_client { "Client" } else { "Server" };
        let kind = Kind::of(message);
        let mut errors = Vec::new();
        if let Some(envelope) = kind.envelope_names().iter().find(|name| document.has(name)) {
            errors.extend(document.validate(&document.pointer(envelope), &envelope_view(kind, message), ""));
        }
        match kind {
            Kind::Request(method) | Kind::Notification(method) => {
                let union = format!("{side}{}", kind.union_suffix());
                match document.member_for(&union, method) {
                    Ok(member) => errors.extend(document.validate(&member, message, "")),
                    Err(reason) => errors.push(format!("{union}: {reason} in the {version} schema")),
                }
            }
            Kind::Result => {
                let requester = if from_client { "Server" } else { "Client" };
                let specific = result_of
                    .and_then(|asked| {
                        document
                            .member_for(&format!("{requester}Request"), asked.method)
                            .ok()
                    })
                    .and_then(|request| Some(format!("{}Result", request.strip_suffix("Request")?)))
                    .filter(|pointer| document.resolve(pointer).is_some());
                // From 2026-07-28 a call may answer with an interim result,
                // which the schema defines on its own.
                let interim = is_input_required(&message["result"]) && document.has("InputRequiredResult");
                // A request augmented with a task is answered with the task.
                let task = result_of.is_some_and(|asked| asked.as_task) && document.has("CreateTaskResult");
                let target = match specific {
                    _ if interim => document.pointer("InputRequiredResult"),
                    _ if task => document.pointer("CreateTaskResult"),
                    Some(specific) => specific,
                    None => document.pointer(&format!("{side}Result")),
                };
                if document.resolve(&target).is_some() {
                    errors.extend(document.validate(&target, &message["result"], "/result"));
                }
            }
            Kind::Error | Kind::Other => {}
        }
        Some(errors)
    }
}

/// The request a result answers, as far as the result's shape depends on it.
#[derive(Debug, Clone, Copy)]
pub struct Answering<'a> {
    pub method: &'a str,
    /// The request was augmented with a task (2025-11-25 `params.task`),
    /// so it is answered with a `CreateTaskResult`.
    pub as_task: bool,
}

/// The message as its envelope is judged. JSON-RPC 2.0 requires a null
/// `id` on the error answering a request whose id could not be read (parse
/// error, invalid request); the official schemas allow no null id, so such an
/// error is judged as if its id were a valid one.
fn envelope_view<'a>(kind: Kind<'_>, message: &'a Value) -> Cow<'a, Value> {
    match kind {
        Kind::Error if message["id"].is_null() && message.get("id").is_some() => {
            let mut view = message.clone();
            view["id"] = Value::from(0);
            Cow::Owned(view)
        }
        _ => Cow::Borrowed(message),
    }
}

/// What a message is, by its members.
#[derive(Debug, Clone, Copy)]
enum Kind<'a> {
    Request(&'a str),
    Notification(&'a str),
    Result,
    Error,
    Other,
}

impl<'a> Kind<'a> {
    fn of(message: &'a Value) -> Kind<'a> {
        match message.get("method").and_then(Value::as_str) {
            Some(method) if message.get("id").is_some() => Kind::Request(method),
            Some(method) => Kind::Notification(method),
            None if message.get("result").is_some() => Kind::Result,
            None if message.get("error").is_some() => Kind::Error,
            None => Kind::Other,
        }
    }

    /// Envelope definitions for this kind, newest name first (the 2025-11-25
    /// schema renamed the response envelopes).
    fn envelope_names(self) -> &'static [&'static str] {
        match self {
            Kind::Request(_) => &["JSONRPCRequest"],
            Kind::Notification(_) => &["JSONRPCNotification"],
            Kind::Result => &["JSONRPCResultResponse", "JSONRPCResponse"],
            Kind::Error => &["JSONRPCErrorResponse", "JSONRPCError"],
            Kind::Other => &["JSONRPCMessage"],
        }
    }

    fn union_suffix(self) -> &'static str {
        match self {
            Kind::Notification(_) => "Notification",
            _ => "Request",
        }
    }
}

/// One version's schema file and the validators compiled from it so far.
#[derive(Debug)]
struct Document {
    root: Value,
    defs_key: &'static str,
    /// By JSON pointer (`#/$defs/InitializeRequest`).
    compiled: Mutex<BTreeMap<String, Arc<Validator>>>,
}

impl Document {
    fn load(path: &Path) -> Result<Document, String> {
        let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
        let root: Value = serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))?;
        let defs_key = ["$defs", "definitions"]
            .into_iter()
            .find(|key| root.get(key).is_some_and(Value::is_object))
            .ok_or("no `definitions` or `$defs`: not an MCP schema file")?;
        let document = Document {
            root,
            defs_key,
            compiled: Mutex::new(BTreeMap::new()),
        };
        // Compiling the envelope now reports a broken file at load, not per frame.
        let probe = ["JSONRPCMessage"]
            .into_iter()
            .find(|name| document.has(name))
            .map(|name| document.pointer(name));
        if let Some(pointer) = probe {
            document
                .validator(&pointer)
                .map_err(|e| format!("does not compile: {e}"))?;
        }
        Ok(document)
    }

    fn definitions(&self) -> &Map<String, Value> {
        self.root[self.defs_key].as_object().expect("checked at load")
    }

    fn has(&self, name: &str) -> bool {
        self.definitions().contains_key(name)
    }

    fn pointer(&self, name: &str) -> String {
        format!("#/{}/{name}", self.defs_key)
    }

    /// The schema a local `#/...` pointer designates.
    fn resolve(&self, pointer: &str) -> Option<&Value> {
        self.root.pointer(pointer.strip_prefix('#')?)
    }

    /// The member of `union` (a definition holding an `anyOf`, or a single
    /// definition) whose `method` is the constant `method`.
    fn member_for(&self, union: &str, method: &str) -> Result<String, String> {
        let pointer = self.pointer(union);
        let definition = self
            .resolve(&pointer)
            .ok_or_else(|| format!("no `{union}` definition"))?;
        let members: Vec<String> = match definition.get("anyOf").and_then(Value::as_array) {
            Some(branches) => (0..branches.len())
                .map(|i| match branches[i].get("$ref").and_then(Value::as_str) {
                    Some(reference) => reference.to_owned(),
                    None => format!("{pointer}/anyOf/{i}"),
                })
                .collect(),
            None => vec![pointer],
        };
        members
            .into_iter()
            .find(|member| self.resolve(member).is_some_and(|def| has_method(def, method)))
            .ok_or_else(|| format!("no member has method `{method}`"))
    }

    /// Errors of `instance` against the schema at `pointer`, with `prefix`
    /// before each instance path (the result is validated on its own).
    fn validate(&self, pointer: &str, instance: &Value, prefix: &str) -> Vec<String> {
        let name = pointer.rsplit('/').next().unwrap_or(pointer);
        match self.validator(pointer) {
            Ok(validator) => validator
                .iter_errors(instance)
                .map(|error| {
                    let path = format!("{prefix}{}", error.instance_path());
                    let at = if path.is_empty() { "/" } else { &path };
                    format!("{name}: at {at}: {error}")
                })
                .collect(),
            Err(e) => vec![format!("{name}: the official schema does not compile: {e}")],
        }
    }

    fn validator(&self, pointer: &str) -> Result<Arc<Validator>, String> {
        let mut cache = self
            .compiled
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(validator) = cache.get(pointer) {
            return Ok(validator.clone());
        }
        // The whole file with a root `$ref`, so its `$schema` and every
        // reference stay as written.
        let mut schema = self.root.clone();
        schema["$ref"] = Value::String(pointer.to_owned());
        // Formats are annotations for us: our own model does not check them either.
        let validator = jsonschema::options()
            .should_validate_formats(false)
            .build(&schema)
            .map_err(|e| e.to_string())?;
        let validator = Arc::new(validator);
        cache.insert(pointer.to_owned(), validator.clone());
        Ok(validator)
    }
}

/// Whether a definition's `method` property is the constant `method`.
fn has_method(definition: &Value, method: &str) -> bool {
    let property = &definition["properties"]["method"];
    property.get("const").and_then(Value::as_str) == Some(method)
        || property["enum"]
            .as_array()
            .is_some_and(|values| values.len() == 1 && values[0] == method)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const DRAFT_07: &str = "http://json-schema.org/draft-07/schema#";
    const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

    /// A tiny schema in the official files' layout, written for these tests.
    /// `params` of `ping` carries `dependentRequired`, a keyword 2020-12 has
    /// and draft-07 ignores, so the dialect shows in the verdicts.
    fn write_schema(dir: &Path, version: &str, dialect: &str) {
        let key = if dialect == DRAFT_07 {
            "definitions"
        } else {
            "$defs"
        };
        let r = |name: &str| json!({ "$ref": format!("#/{key}/{name}") });
        let schema = json!({
            "$schema": dialect,
            key: {
                "JSONRPCRequest": {
                    "type": "object",
                    "properties": {"jsonrpc": {"const": "2.0"}, "id": {"type": ["string", "integer"]}},
                    "required": ["jsonrpc", "id", "method"]
                },
                "JSONRPCResponse": {"type": "object", "required": ["jsonrpc", "id", "result"]},
                "JSONRPCError": {
                    "type": "object",
                    "properties": {"id": {"type": ["string", "integer"]}},
                    "required": ["jsonrpc", "id", "error"]
                },
                "JSONRPCMessage": {"anyOf": [r("JSONRPCRequest"), r("JSONRPCResponse")]},
                "PingRequest": {
                    "type": "object",
                    "properties": {
                        "method": {"const": "ping"},
                        "params": {"type": "object", "dependentRequired": {"a": ["b"]}}
                    },
                    "required": ["method"]
                },
                "ListToolsRequest": {
                    "type": "object",
                    "properties": {"method": {"const": "tools/list"}},
                    "required": ["method"]
                },
                "ListToolsResult": {
                    "type": "object",
                    "properties": {"tools": {"type": "array"}},
                    "required": ["tools"]
                },
                "CancelledNotification": {
                    "type": "object",
                    "properties": {"method": {"const": "notifications/cancelled"}, "params": {"type": "object"}},
                    "required": ["method", "params"]
                },
                "ClientRequest": {"anyOf": [r("PingRequest"), r("ListToolsRequest")]},
                "ServerRequest": {"anyOf": [r("PingRequest")]},
                "ClientNotification": {"anyOf": [r("CancelledNotification")]},
                "ServerResult": {"anyOf": [{"type": "object"}, r("ListToolsResult")]},
                "InputRequiredResult": {
                    "type": "object",
                    "properties": {"requestState": {"type": "string"}},
                    "required": ["resultType"]
                },
                "CreateTaskResult": {"type": "object", "required": ["task"]}
            }
        });
        std::fs::create_dir_all(dir.join(version)).unwrap();
        std::fs::write(dir.join(version).join("schema.json"), schema.to_string()).unwrap();
    }

    fn two_dialects() -> (tempfile::TempDir, OfficialSchemas) {
        let dir = tempfile::tempdir().unwrap();
        write_schema(dir.path(), "2024-11-05", DRAFT_07);
        write_schema(dir.path(), "2025-11-25", DRAFT_2020_12);
        let schemas = OfficialSchemas::load_dir(dir.path()).unwrap();
        (dir, schemas)
    }

    const LIST: Answering<'static> = Answering {
        method: "tools/list",
        as_task: false,
    };

    #[test]
    fn the_answer_to_a_task_augmented_request_is_judged_as_the_task() {
        let (_dir, schemas) = two_dialects();
        let version = ProtocolVersion::V2025_11_25;
        let created = json!({"jsonrpc": "2.0", "id": 1, "result": {"task": {"taskId": "t"}}});
        let as_task = Answering {
            method: "tools/list",
            as_task: true,
        };
        assert_eq!(
            schemas.check(version, &created, false, Some(as_task)),
            Some(vec![])
        );
        let plain = schemas.check(version, &created, false, Some(LIST)).unwrap();
        assert!(plain[0].starts_with("ListToolsResult"), "{plain:?}");
    }

    #[test]
    fn interim_results_are_judged_as_input_required_results() {
        let (_dir, schemas) = two_dialects();
        let version = ProtocolVersion::V2025_11_25;
        let interim = json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "requestState": "s"}});
        assert_eq!(schemas.check(version, &interim, false, Some(LIST)), Some(vec![]));
        let bad =
            json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "requestState": 1}});
        let errors = schemas.check(version, &bad, false, Some(LIST)).unwrap();
        assert!(
            errors[0].starts_with("InputRequiredResult: at /result/requestState"),
            "{errors:?}"
        );
        let complete = json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete"}});
        assert_eq!(
            schemas
                .check(version, &complete, false, Some(LIST))
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn loads_the_versions_present_and_none_for_others() {
        let (_dir, schemas) = two_dialects();
        assert_eq!(
            schemas.versions(),
            [ProtocolVersion::V2024_11_05, ProtocolVersion::V2025_11_25]
        );
        let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
        assert_eq!(
            schemas.check(ProtocolVersion::V2025_06_18, &ping, true, None),
            None
        );
    }

    #[test]
    fn each_file_keeps_its_dialect() {
        let (_dir, schemas) = two_dialects();
        let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"a": 1}});
        assert_eq!(
            schemas.check(ProtocolVersion::V2024_11_05, &ping, true, None),
            Some(vec![])
        );
        let errors = schemas
            .check(ProtocolVersion::V2025_11_25, &ping, true, None)
            .unwrap();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].starts_with("PingRequest: at /params:"), "{errors:?}");
    }

    #[test]
    fn requests_are_judged_by_the_definition_of_their_method_and_envelope() {
        let (_dir, schemas) = two_dialects();
        for version in schemas.versions() {
            let good = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
            assert_eq!(schemas.check(version, &good, true, None), Some(vec![]));
            let bad_id = json!({"jsonrpc": "2.0", "id": 1.5, "method": "ping"});
            let errors = schemas.check(version, &bad_id, true, None).unwrap();
            assert_eq!(errors.len(), 1, "{errors:?}");
            assert!(errors[0].starts_with("JSONRPCRequest: at /id:"), "{errors:?}");
        }
    }

    #[test]
    fn a_method_of_the_other_direction_is_reported_once() {
        let (_dir, schemas) = two_dialects();
        let version = ProtocolVersion::V2024_11_05;
        let from_server = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
        assert_eq!(
            schemas.check(version, &from_server, false, None),
            Some(vec![
                "ServerRequest: no member has method `tools/list` in the 2024-11-05 schema".to_owned()
            ])
        );
        let notification = json!({"jsonrpc": "2.0", "method": "notifications/cancelled"});
        let errors = schemas.check(version, &notification, false, None).unwrap();
        assert_eq!(
            errors,
            ["ServerNotification: no `ServerNotification` definition in the 2024-11-05 schema"]
        );
        let errors = schemas.check(version, &notification, true, None).unwrap();
        assert_eq!(errors.len(), 1, "params missing: {errors:?}");
        assert!(
            errors[0].starts_with("CancelledNotification: at /:"),
            "{errors:?}"
        );
    }

    #[test]
    fn results_use_the_result_type_of_the_answered_method() {
        let (_dir, schemas) = two_dialects();
        let version = ProtocolVersion::V2025_11_25;
        let result = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": 3}});
        let errors = schemas.check(version, &result, false, Some(LIST)).unwrap();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].starts_with("ListToolsResult: at /result/tools:"),
            "{errors:?}"
        );
        // Without the method, only the union applies, and it takes any object.
        assert_eq!(schemas.check(version, &result, false, None), Some(vec![]));
        let not_an_object = json!({"jsonrpc": "2.0", "id": 1, "result": 3});
        assert_eq!(
            schemas.check(version, &not_an_object, false, None).unwrap().len(),
            1
        );
    }

    #[test]
    fn an_error_with_a_null_id_is_accepted_as_json_rpc_requires() {
        let (_dir, schemas) = two_dialects();
        let version = ProtocolVersion::V2025_11_25;
        let parse_error = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "x"}});
        assert_eq!(schemas.check(version, &parse_error, false, None), Some(vec![]));
        let bad_id = json!({"jsonrpc": "2.0", "id": 1.5, "error": {"code": -32700, "message": "x"}});
        let errors = schemas.check(version, &bad_id, false, None).unwrap();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].starts_with("JSONRPCError: at /id:"), "{errors:?}");
    }

    #[test]
    fn a_directory_without_schemas_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let error = OfficialSchemas::load_dir(dir.path()).unwrap_err();
        assert_eq!(error.path, dir.path());
        assert!(error.to_string().contains("no <version>/schema.json"));
    }

    #[test]
    fn a_file_that_is_no_schema_is_an_error_with_its_path() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("2025-06-18")).unwrap();
        let path = dir.path().join("2025-06-18/schema.json");
        std::fs::write(&path, r#"{"type": "object"}"#).unwrap();
        let error = OfficialSchemas::load_dir(dir.path()).unwrap_err();
        assert_eq!(error.path, path);
        assert!(error.reason.contains("no `definitions` or `$defs`"), "{error}");
        std::fs::write(&path, "{not json").unwrap();
        let error = OfficialSchemas::load_dir(dir.path()).unwrap_err();
        assert!(error.reason.starts_with("not JSON"), "{error}");
    }

    /// The first request of each version: `initialize` in the stateful era,
    /// `server/discover` with the version in `_meta` in the stateless one.
    fn first_request(version: ProtocolVersion, protocol_version: Value) -> (Value, &'static str) {
        match version.era() {
            crate::version::Era::Stateful => (
                json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                    "protocolVersion": protocol_version,
                    "capabilities": {},
                    "clientInfo": {"name": "probe", "version": "1"}
                }}),
                "/params/protocolVersion",
            ),
            crate::version::Era::Stateless => (
                json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": {
                    "io.modelcontextprotocol/protocolVersion": protocol_version,
                    "io.modelcontextprotocol/clientCapabilities": {}
                }}}),
                "/params/_meta/io.modelcontextprotocol~1protocolVersion",
            ),
        }
    }

    #[test]
    fn calibration_against_the_official_schemas() {
        let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/spec");
        if !spec.is_dir() {
            println!("skipped: ../shared/spec not found (calibration only)");
            return;
        }
        let schemas = OfficialSchemas::load_dir(&spec).unwrap();
        assert_eq!(schemas.versions(), ProtocolVersion::ALL);
        for version in ProtocolVersion::ALL {
            let (good, _) = first_request(version, json!(version.as_str()));
            assert_eq!(
                schemas.check(version, &good, true, None),
                Some(vec![]),
                "{version}"
            );
            let (bad, path) = first_request(version, json!(5));
            let errors = schemas.check(version, &bad, true, None).unwrap();
            assert_eq!(errors.len(), 1, "{version}: {errors:?}");
            assert!(
                errors[0].contains(&format!("at {path}:")),
                "{version}: {errors:?}"
            );
            let parse_error =
                json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "x"}});
            assert_eq!(
                schemas.check(version, &parse_error, false, None),
                Some(vec![]),
                "{version}"
            );
        }
    }
}
