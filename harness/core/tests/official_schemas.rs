//! The message corpus in `fixtures/messages` judged twice: by our model
//! (always) and, to calibrate the model, by the official MCP schemas when
//! `../shared/spec` holds them (skipped visibly otherwise).

use std::path::{Path, PathBuf};

use jsonschema::Validator;
use mcp_conform_core::protocol::{PeerRole, Violation, check_message};
use mcp_conform_core::version::{Era, ProtocolVersion};
use serde_json::Value;

/// One corpus file.
struct Case {
    path: PathBuf,
    version: ProtocolVersion,
    valid: bool,
    doc: Value,
}

impl Case {
    fn sender(&self) -> PeerRole {
        match self.doc["direction"].as_str() {
            Some("client-to-server") => PeerRole::Client,
            Some("server-to-client") => PeerRole::Server,
            other => panic!("{}: bad direction {other:?}", self.path.display()),
        }
    }

    fn kind(&self) -> &str {
        self.doc["kind"].as_str().unwrap_or_default()
    }

    fn method(&self) -> &str {
        self.doc["method"].as_str().unwrap_or_default()
    }

    fn message(&self) -> &Value {
        &self.doc["message"]
    }

    /// What our model finds wrong with the message.
    fn judge(&self) -> Vec<Violation> {
        let answering = (self.kind() == "result").then(|| self.method());
        check_message(self.version, self.sender(), self.message(), answering)
    }

    /// Whether the official schema, alone, should accept the message: valid
    /// messages, and invalid ones whose rule lives only in the spec's text.
    fn schema_should_accept(&self) -> bool {
        self.valid || self.doc.get("schemaAccepts").is_some()
    }

    fn name(&self) -> String {
        let file = self.path.file_name().unwrap_or_default().to_string_lossy();
        format!(
            "{}/{}/{file}",
            self.version,
            if self.valid { "valid" } else { "invalid" }
        )
    }
}

fn workspace_path(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

fn stateful_versions() -> impl Iterator<Item = ProtocolVersion> {
    ProtocolVersion::ALL
        .into_iter()
        .filter(|v| v.era() == Era::Stateful)
}

/// Every case of every stateful version, sorted by path.
fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for version in stateful_versions() {
        for (folder, valid) in [("valid", true), ("invalid", false)] {
            let dir = workspace_path("../../fixtures/messages")
                .join(version.as_str())
                .join(folder);
            let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
            for entry in entries {
                let path = entry.expect("corpus entry").path();
                let text = std::fs::read_to_string(&path).expect("corpus file");
                let doc = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                out.push(Case {
                    path,
                    version,
                    valid,
                    doc,
                });
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

#[test]
fn every_stateful_version_has_a_corpus() {
    let all = cases();
    for version in stateful_versions() {
        let count = |valid| {
            all.iter()
                .filter(|c| c.version == version && c.valid == valid)
                .count()
        };
        assert!(
            count(true) >= 8 && count(false) >= 8,
            "{version}: {} valid, {} invalid",
            count(true),
            count(false)
        );
    }
}

#[test]
fn the_model_accepts_valid_and_rejects_invalid_messages() {
    let wrong: Vec<String> = cases()
        .iter()
        .filter_map(|case| {
            let found = case.judge();
            (case.valid != found.is_empty()).then(|| format!("{}: {found:?}", case.name()))
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "{} disagreements:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// One version's official schema document.
struct Official {
    document: Value,
}

impl Official {
    fn load(spec: &Path, version: ProtocolVersion) -> Official {
        let path = spec.join(version.as_str()).join("schema.json");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        Official {
            document: serde_json::from_str(&text).expect("schema.json is JSON"),
        }
    }

    /// The definitions member: `definitions` (draft-07) or `$defs` (2020-12).
    fn definitions_key(&self) -> &'static str {
        if self.document.get("$defs").is_some() {
            "$defs"
        } else {
            "definitions"
        }
    }

    fn has(&self, name: &str) -> bool {
        self.document[self.definitions_key()].get(name).is_some()
    }

    /// A validator for one named definition: the whole document with a root `$ref`.
    fn validator(&self, name: &str) -> Validator {
        let mut schema = self.document.clone();
        let reference = format!("#/{}/{name}", self.definitions_key());
        schema["$ref"] = Value::String(reference);
        // Formats are annotations for us: our model does not check them either.
        jsonschema::options()
            .should_validate_formats(false)
            .build(&schema)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    /// The request definition whose `method` is `method`.
    fn request_definition(&self, method: &str) -> String {
        let definitions = self.document[self.definitions_key()]
            .as_object()
            .expect("definitions object");
        definitions
            .iter()
            .find(|(name, def)| name.ends_with("Request") && def["properties"]["method"]["const"] == method)
            .map(|(name, _)| name.clone())
            .unwrap_or_else(|| panic!("no request definition for {method}"))
    }

    /// Whether the schema accepts the case's message.
    fn accepts(&self, case: &Case) -> bool {
        let side = match case.sender() {
            PeerRole::Client => "Client",
            PeerRole::Server => "Server",
        };
        match case.kind() {
            "request" => self.validator(&format!("{side}Request")).is_valid(case.message()),
            "notification" => self
                .validator(&format!("{side}Notification"))
                .is_valid(case.message()),
            "result" => {
                let request = self.request_definition(case.method());
                let specific = format!("{}Result", request.trim_end_matches("Request"));
                let name = if self.has(&specific) {
                    specific
                } else {
                    "Result".to_owned()
                };
                self.validator(&name).is_valid(&case.message()["result"])
            }
            other => panic!("{}: unknown kind {other}", case.name()),
        }
    }
}

#[test]
fn the_official_schemas_agree_with_the_corpus() {
    let spec = workspace_path("../../../shared/spec");
    if !spec.is_dir() {
        println!("skipped: ../shared/spec not found (calibration only)");
        return;
    }
    let mut wrong = Vec::new();
    for version in stateful_versions() {
        let official = Official::load(&spec, version);
        for case in cases().iter().filter(|c| c.version == version) {
            let accepted = official.accepts(case);
            if accepted != case.schema_should_accept() {
                wrong.push(format!("{}: official schema accepted = {accepted}", case.name()));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} disagreements:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
