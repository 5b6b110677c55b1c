//! The message corpus in `fixtures/messages` judged twice: by our model
//! (always) and, to calibrate the model, by the official MCP schemas when
//! `../shared/spec` holds them (ignored with the reason otherwise; see
//! `needs`).
//!
//! A corpus file may say which requirement an invalid message breaks
//! (`requirement`), which frames of its conversation come before it
//! (`before`, each with a `direction`), that it travels over stdio
//! (`transport`), which official definition judges it (`definition`), and
//! that the tasks extension's own schema holds that definition (`schema:
//! "ext-tasks"`, `ext-tasks/schema/draft/schema.json` in the spec).

use std::path::{Path, PathBuf};
use std::time::Duration;

use jsonschema::Validator;
use mcp_conform_core::protocol::{FrameChecker, PeerRole, Violation, check_message};
use mcp_conform_core::requirements::catalogue;
use mcp_conform_core::version::{Era, ProtocolVersion};
use mcp_conform_core::wire::{Direction, Frame};
use needs::{Tests, official_spec};
use serde_json::Value;

// The tests that need a tool outside the repository, shared with the
// harness crate's tests; this binary uses only the official spec of it.
#[allow(dead_code)]
#[path = "../../tests/common/needs.rs"]
mod needs;

/// One corpus file.
struct Case {
    path: PathBuf,
    version: ProtocolVersion,
    valid: bool,
    doc: Value,
}

/// Who sends a message going in `direction`.
fn sender_of(direction: &Value, case: &Path) -> PeerRole {
    match direction.as_str() {
        Some("client-to-server") => PeerRole::Client,
        Some("server-to-client") => PeerRole::Server,
        other => panic!("{}: bad direction {other:?}", case.display()),
    }
}

impl Case {
    fn sender(&self) -> PeerRole {
        sender_of(&self.doc["direction"], &self.path)
    }

    /// The requirement an invalid message must be caught under, if named.
    fn requirement(&self) -> Option<&str> {
        self.doc["requirement"].as_str()
    }

    /// The frames of the conversation before the message.
    fn before(&self) -> &[Value] {
        self.doc["before"].as_array().map_or(&[], Vec::as_slice)
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

    /// What our model finds wrong with the message: alone, or as the last
    /// frame of its conversation, whose earlier frames must break nothing.
    fn judge(&self) -> Vec<Violation> {
        let stdio = self.doc["transport"] == "stdio";
        if self.before().is_empty() && !stdio {
            let answering = matches!(self.kind(), "result" | "error").then(|| self.method());
            return check_message(self.version, self.sender(), self.message(), answering);
        }
        let us = self.sender().other();
        let mut checker = FrameChecker::new(us);
        if stdio {
            checker = checker.on_stdio();
        }
        checker.set_version(self.version);
        let frame = |sender: PeerRole, message: &Value| {
            let direction = if sender == us {
                Direction::Sent
            } else {
                Direction::Received
            };
            Frame::new(direction, serde_json::to_vec(message).unwrap(), Duration::ZERO)
        };
        for earlier in self.before() {
            let found = checker.check(&frame(
                sender_of(&earlier["direction"], &self.path),
                &earlier["message"],
            ));
            assert!(
                found.is_empty(),
                "{}: an earlier frame breaks {found:?}",
                self.name()
            );
        }
        checker.check(&frame(self.sender(), self.message()))
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

/// Every case of every version, sorted by path.
fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for version in ProtocolVersion::ALL {
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

/// How many valid and invalid messages each version's corpus holds.
fn every_version_has_a_corpus() {
    let all = cases();
    let counts: Vec<String> = ProtocolVersion::ALL
        .iter()
        .map(|version| {
            let count = |valid| {
                all.iter()
                    .filter(|c| c.version == *version && c.valid == valid)
                    .count()
            };
            format!("{version}: {} valid, {} invalid", count(true), count(false))
        })
        .collect();
    insta::assert_snapshot!(counts.join("\n"));
}

fn the_model_accepts_valid_and_rejects_invalid_messages() {
    let wrong: Vec<String> = cases()
        .iter()
        .filter_map(|case| {
            let found = case.judge();
            // Caught under the named requirement, at the level the catalogue gives it.
            let caught = case.requirement().is_none_or(|id| {
                let level = catalogue().get(id).map(|r| r.level);
                found
                    .iter()
                    .any(|v| v.requirement == id && Some(v.level) == level)
            });
            (case.valid != found.is_empty() || !caught).then(|| format!("{}: {found:?}", case.name()))
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "{} disagreements:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// Every rule the stateless revision brought has a message that breaks it,
/// caught under its ID (checked by the test above).
fn every_stateless_rule_has_a_failing_message() {
    const RULES: [&str; 33] = [
        "CANC-006",
        "PROG-006",
        "MODN-012",
        "CACHE-001",
        "CACHE-002",
        "LIST-003",
        "LOG-006",
        "META-002",
        "MODN-001",
        "MODN-003",
        "MODN-005",
        "MODN-007",
        "MODN-008",
        "MRTR-001",
        "MRTR-002",
        "MRTR-003",
        "MRTR-004",
        "MRTR-006",
        "PING-002",
        "PROG-001",
        "RES-005",
        "RES-008",
        "RPC-015",
        "RPC-017",
        "RPC-018",
        "STDIO-007",
        "SUBS-001",
        "SUBS-002",
        "SUBS-003",
        "CANC-001",
        "COMP-002",
        "LOG-002",
        "ELIC-005",
    ];
    let all = cases();
    let stateless: Vec<&Case> = all
        .iter()
        .filter(|c| c.version.era() == Era::Stateless && !c.valid)
        .collect();
    let unnamed: Vec<String> = stateless
        .iter()
        .filter(|c| c.requirement().is_none())
        .map(|c| c.name())
        .collect();
    assert!(
        unnamed.is_empty(),
        "invalid messages that name no requirement: {unnamed:?}"
    );
    let missing: Vec<&str> = RULES
        .into_iter()
        .filter(|id| !stateless.iter().any(|c| c.requirement() == Some(*id)))
        .collect();
    assert!(missing.is_empty(), "no failing message for {missing:?}");
}

/// One version's official schema document.
struct Official {
    document: Value,
}

impl Official {
    fn load(spec: &Path, version: ProtocolVersion) -> Official {
        Official::at(&spec.join(version.as_str()).join("schema.json"))
    }

    /// The tasks extension's schema, versioned apart from the protocol.
    fn tasks_extension(spec: &Path) -> Official {
        Official::at(&spec.join("ext-tasks/schema/draft/schema.json"))
    }

    fn at(path: &Path) -> Official {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
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

    /// The request definition whose `method` is `method`, if the version has one.
    fn request_definition(&self, method: &str) -> Option<String> {
        let definitions = self.document[self.definitions_key()]
            .as_object()
            .expect("definitions object");
        definitions
            .iter()
            .find(|(name, def)| name.ends_with("Request") && def["properties"]["method"]["const"] == method)
            .map(|(name, _)| name.clone())
    }

    /// Whether the schema accepts the case's message.
    fn accepts(&self, case: &Case) -> bool {
        if let Some(definition) = case.doc["definition"].as_str() {
            // A result definition (a CreateTaskResult, which the method
            // alone does not name) judges the result; others the message.
            let instance = match case.kind() {
                "result" => &case.message()["result"],
                _ => case.message(),
            };
            return self.validator(definition).is_valid(instance);
        }
        let side = match case.sender() {
            PeerRole::Client => "Client",
            PeerRole::Server => "Server",
        };
        match case.kind() {
            "request" | "notification" => {
                let kind = if case.kind() == "request" {
                    "Request"
                } else {
                    "Notification"
                };
                let union = format!("{side}{kind}");
                // 2026-07-28 has no ServerRequest: servers send none.
                let name = if self.has(&union) {
                    union
                } else {
                    format!("JSONRPC{kind}")
                };
                self.validator(&name).is_valid(case.message())
            }
            "result" => {
                let result = &case.message()["result"];
                // The open InputRequiredResult would admit any result: it
                // judges interim results only.
                let specific = match result["resultType"].as_str() {
                    Some("input_required") => Some("InputRequiredResult".to_owned()),
                    _ => self
                        .request_definition(case.method())
                        .map(|request| format!("{}Result", request.trim_end_matches("Request"))),
                };
                let name = specific
                    .filter(|specific| self.has(specific))
                    .unwrap_or_else(|| "Result".to_owned());
                self.validator(&name).is_valid(result)
            }
            other => panic!("{}: unknown kind {other}", case.name()),
        }
    }
}

fn the_official_schemas_agree_with_the_corpus(spec: PathBuf) {
    let mut wrong = Vec::new();
    let extension = Official::tasks_extension(&spec);
    for version in ProtocolVersion::ALL {
        let official = Official::load(&spec, version);
        for case in cases().iter().filter(|c| c.version == version) {
            let schema = match case.doc["schema"].as_str() {
                Some("ext-tasks") => &extension,
                Some(other) => panic!("{}: unknown schema {other}", case.name()),
                None => &official,
            };
            let accepted = schema.accepts(case);
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

fn main() -> std::process::ExitCode {
    Tests::default()
        .test("every_version_has_a_corpus", every_version_has_a_corpus)
        .test(
            "the_model_accepts_valid_and_rejects_invalid_messages",
            the_model_accepts_valid_and_rejects_invalid_messages,
        )
        .test(
            "every_stateless_rule_has_a_failing_message",
            every_stateless_rule_has_a_failing_message,
        )
        .needing(
            &official_spec(),
            "the_official_schemas_agree_with_the_corpus",
            the_official_schemas_agree_with_the_corpus,
        )
        .run()
}
