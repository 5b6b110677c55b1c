//! The per-connection frame checker: every frame, in both directions, in
//! order. It keeps what the rules need to know: the negotiated version,
//! both sides' capabilities, the requests still waiting for an answer, and
//! the ids each side has used.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::shapes::{self, Part};
use super::violation::Violation;
use crate::Level;
use crate::version::ProtocolVersion;
use crate::wire::{Classified, Direction, Frame, Invalid, RequestId, classify};

/// A party of an MCP connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PeerRole {
    Server,
    Client,
}

/// Checks the frames of one connection.
#[derive(Debug)]
pub struct FrameChecker {
    us: PeerRole,
    version: ProtocolVersion,
    /// Requests waiting for a response, by sender: id → method.
    pending: BTreeMap<(bool, String), String>,
    /// Ids each side has used (true: ours).
    used_ids: BTreeSet<(bool, String)>,
    /// Responses already seen, so a second answer is caught.
    answered: BTreeSet<(bool, String)>,
    server_capabilities: Option<Value>,
    /// The client has sent `notifications/initialized`.
    initialized: bool,
    /// Progress tokens of requests still in flight, with the sender's request
    /// key and the last progress seen.
    tokens: BTreeMap<String, ((bool, String), Option<f64>)>,
    /// Tokens whose request has been answered.
    finished_tokens: BTreeSet<String>,
    frames: usize,
}

impl FrameChecker {
    /// A checker for a connection on which the harness plays `us`.
    pub fn new(us: PeerRole) -> FrameChecker {
        FrameChecker {
            us,
            version: ProtocolVersion::V2025_11_25,
            pending: BTreeMap::new(),
            used_ids: BTreeSet::new(),
            answered: BTreeSet::new(),
            server_capabilities: None,
            initialized: false,
            tokens: BTreeMap::new(),
            finished_tokens: BTreeSet::new(),
            frames: 0,
        }
    }

    /// The version whose rules apply (the negotiated one).
    pub fn set_version(&mut self, version: ProtocolVersion) {
        self.version = version;
    }

    /// Every rule the next frame breaks.
    pub fn check(&mut self, frame: &Frame) -> Vec<Violation> {
        let index = self.frames;
        self.frames += 1;
        let ours = frame.direction == Direction::Sent;
        let mut found = Vec::new();
        match classify(&frame.raw) {
            Classified::Batch(items) => {
                if self.version != ProtocolVersion::V2025_03_26 {
                    let requirement = if self.version >= ProtocolVersion::V2025_06_18 {
                        "STDIO-006"
                    } else {
                        "RPC-014"
                    };
                    found.push(Violation::must(
                        requirement,
                        format!("a JSON-RPC batch on {}, which has none", self.version),
                    ));
                }
                for item in items {
                    self.message(item, ours, &mut found);
                }
            }
            other => self.message(other, ours, &mut found),
        }
        for violation in &mut found {
            violation.frame_index = Some(index);
            violation.by_us = ours;
        }
        found
    }

    fn message(&mut self, message: Classified, ours: bool, found: &mut Vec<Violation>) {
        let sender_is_server = (self.us == PeerRole::Server) == ours;
        match message {
            Classified::Invalid(invalid) => found.push(invalid_violation(&invalid)),
            Classified::Batch(_) => found.push(Violation::must("RPC-001", "a batch inside a batch")),
            Classified::Request { id, method, params } => {
                let key = (ours, id_key(&id));
                if !self.used_ids.insert(key.clone()) {
                    found.push(
                        Violation::must(
                            "RPC-003",
                            format!("request id {} is used a second time", id_key(&id)),
                        )
                        .at("/id"),
                    );
                }
                if sender_is_server && !self.initialized && method != "ping" {
                    found.push(Violation::new(
                        "LIFE-009",
                        Level::Should,
                        format!("{method} sent before the client's notifications/initialized"),
                    ));
                }
                found.extend(shapes::check(
                    &method,
                    Part::Params,
                    params.as_ref(),
                    self.version,
                ));
                if let Some(token) = params.as_ref().and_then(|p| p.pointer("/_meta/progressToken")) {
                    self.tokens.insert(token.to_string(), (key.clone(), None));
                }
                self.pending.insert(key, method);
            }
            Classified::Notification { method, params } => {
                if !sender_is_server && method == "notifications/initialized" {
                    self.initialized = true;
                }
                if sender_is_server {
                    found.extend(self.list_changed_gate(&method));
                }
                if method == "notifications/progress" {
                    found.extend(self.progress(ours, params.as_ref()));
                }
                found.extend(shapes::check(
                    &method,
                    Part::Params,
                    params.as_ref(),
                    self.version,
                ));
            }
            Classified::Result { id, result } => {
                if let Some(method) = self.answer(ours, &id, found) {
                    if method == "initialize" {
                        self.server_capabilities = result.get("capabilities").cloned();
                        if let Some(version) = result
                            .get("protocolVersion")
                            .and_then(Value::as_str)
                            .and_then(|v| v.parse().ok())
                        {
                            self.version = version;
                        }
                    }
                    found.extend(shapes::check(&method, Part::Result, Some(&result), self.version));
                }
            }
            Classified::Error { id: Some(id), .. } => {
                self.answer(ours, &id, found);
            }
            // An error without id answers a request that could not be read.
            Classified::Error { id: None, .. } => {}
        }
    }

    /// Progress names a token of a request of the other side still in
    /// flight, and increases (PROG-002, PROG-003, PROG-004).
    fn progress(&mut self, ours: bool, params: Option<&Value>) -> Option<Violation> {
        let params = params?;
        let token = params.get("progressToken")?.to_string();
        let progress = params.get("progress").and_then(Value::as_f64)?;
        let Some(((requester_is_us, _), last)) = self.tokens.get_mut(&token) else {
            let message = if self.finished_tokens.contains(&token) {
                return Some(Violation::must(
                    "PROG-004",
                    format!("progress for token {token} after its response"),
                ));
            } else {
                format!("progress for token {token}, which no request in flight carries")
            };
            return Some(Violation::must("PROG-003", message));
        };
        if *requester_is_us == ours {
            return Some(Violation::must(
                "PROG-003",
                format!("progress for token {token} sent by its own requester"),
            ));
        }
        let previous = last.replace(progress);
        previous.filter(|p| progress <= *p).map(|p| {
            Violation::must(
                "PROG-002",
                format!("progress for token {token} went from {p} to {progress}"),
            )
        })
    }

    /// Files a response; returns the method it answers.
    fn answer(&mut self, ours: bool, id: &RequestId, found: &mut Vec<Violation>) -> Option<String> {
        let key = (!ours, id_key(id));
        match self.pending.remove(&key) {
            Some(method) => {
                let done: Vec<String> = self
                    .tokens
                    .iter()
                    .filter(|(_, (k, _))| *k == key)
                    .map(|(t, _)| t.clone())
                    .collect();
                for token in done {
                    self.tokens.remove(&token);
                    self.finished_tokens.insert(token);
                }
                self.answered.insert(key);
                Some(method)
            }
            None if self.answered.contains(&key) => {
                found.push(
                    Violation::must("RPC-004", format!("a second response to request {}", key.1)).at("/id"),
                );
                None
            }
            None => {
                found.push(
                    Violation::must(
                        "RPC-004",
                        format!("a response to {}, which no request used", key.1),
                    )
                    .at("/id"),
                );
                None
            }
        }
    }

    /// `*/list_changed` only when the matching `listChanged` was declared.
    fn list_changed_gate(&self, method: &str) -> Option<Violation> {
        let capability = match method {
            "notifications/tools/list_changed" => "tools",
            "notifications/prompts/list_changed" => "prompts",
            "notifications/resources/list_changed" => "resources",
            _ => return None,
        };
        let declared = self
            .server_capabilities
            .as_ref()
            .and_then(|c| c.get(capability))
            .and_then(|c| c.get("listChanged"))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        if declared || self.server_capabilities.is_none() {
            return None;
        }
        let (requirement, level) = if self.version >= ProtocolVersion::V2025_06_18 {
            ("LIST-002", Level::Must)
        } else {
            ("LIFE-010", Level::Should)
        };
        Some(Violation::new(
            requirement,
            level,
            format!("{method} without `{capability}.listChanged` declared"),
        ))
    }
}

fn id_key(id: &RequestId) -> String {
    id.to_value().to_string()
}

fn invalid_violation(invalid: &Invalid) -> Violation {
    let requirement = match invalid {
        Invalid::NotUtf8 { .. } | Invalid::NotJson { .. } => "STDIO-001",
        Invalid::NotAnObject { .. } => "RPC-001",
        Invalid::Envelope { reason } if reason.contains("jsonrpc") => "RPC-001",
        Invalid::Envelope { reason } if reason.contains("`id`") => "RPC-002",
        Invalid::Envelope { reason } if reason.contains("`error` is") => "RPC-006",
        Invalid::Envelope { reason } if reason.contains("`result`") || reason.contains("neither") => {
            "RPC-005"
        }
        Invalid::Envelope { .. } => "RPC-001",
    };
    Violation::must(requirement, invalid.to_string())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn frames(checker: &mut FrameChecker, lines: &[(Direction, &str)]) -> Vec<Violation> {
        lines
            .iter()
            .flat_map(|(direction, text)| {
                checker.check(&Frame::new(*direction, text.as_bytes().to_vec(), Duration::ZERO))
            })
            .collect()
    }

    const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#;
    const INIT_OK: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}"#;

    #[test]
    fn a_clean_exchange_has_no_violations() {
        let mut checker = FrameChecker::new(PeerRole::Client);
        let found = frames(
            &mut checker,
            &[
                (Direction::Sent, INIT),
                (Direction::Received, INIT_OK),
                (
                    Direction::Sent,
                    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                ),
            ],
        );
        assert_eq!(found, []);
    }

    #[test]
    fn envelope_id_and_sequence_rules() {
        let mut checker = FrameChecker::new(PeerRole::Client);
        let found = frames(
            &mut checker,
            &[
                (Direction::Sent, INIT),
                (Direction::Received, INIT_OK),
                (Direction::Received, INIT_OK),
                (Direction::Received, r#"{"jsonrpc":"1.0","id":2,"result":{}}"#),
                (Direction::Received, "hello"),
                (
                    Direction::Received,
                    r#"{"jsonrpc":"2.0","id":9,"method":"roots/list"}"#,
                ),
                (
                    Direction::Received,
                    r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#,
                ),
                (
                    Direction::Received,
                    r#"[{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"loud","data":1}}]"#,
                ),
            ],
        );
        let ids: Vec<_> = found
            .iter()
            .map(|v| (v.requirement, v.frame_index.unwrap()))
            .collect();
        assert_eq!(
            ids,
            [
                ("RPC-004", 2),
                ("RPC-001", 3),
                ("STDIO-001", 4),
                ("LIFE-009", 5),
                ("LIST-002", 6),
                ("STDIO-006", 7),
                ("SCHEMA-001", 7)
            ]
        );
        assert!(found.iter().all(|v| !v.by_us));
    }

    #[test]
    fn progress_names_a_live_token_and_increases() {
        let mut checker = FrameChecker::new(PeerRole::Client);
        let progress = |p: u32| {
            format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"t","progress":{p}}}}}"#
            )
        };
        let found = frames(
            &mut checker,
            &[
                (Direction::Sent, INIT),
                (Direction::Received, INIT_OK),
                (
                    Direction::Sent,
                    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                ),
                (Direction::Received, &progress(1)),
                (
                    Direction::Sent,
                    r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":"t"}}}"#,
                ),
                (Direction::Received, &progress(1)),
                (Direction::Received, &progress(2)),
                (Direction::Received, &progress(2)),
                (
                    Direction::Received,
                    r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#,
                ),
                (Direction::Received, &progress(3)),
            ],
        );
        let ids: Vec<_> = found
            .iter()
            .map(|v| (v.requirement, v.frame_index.unwrap()))
            .collect();
        assert_eq!(ids, [("PROG-003", 3), ("PROG-002", 7), ("PROG-004", 9)]);
    }

    #[test]
    fn our_own_frames_are_marked() {
        let mut checker = FrameChecker::new(PeerRole::Client);
        let found = frames(&mut checker, &[(Direction::Sent, "{not json")]);
        assert!(found[0].by_us);
    }
}
