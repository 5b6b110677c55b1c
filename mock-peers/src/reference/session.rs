//! Lifecycle state of one connection: the handshake, the negotiated version,
//! what the client declared, and per-session settings.

use std::collections::BTreeSet;
use std::sync::Mutex;

pub(crate) use mcp_conform_core::protocol::LOG_LEVELS;
use mcp_conform_core::protocol::tasks_extension::EXTENSION;
use mcp_conform_core::version::ProtocolVersion;
use serde_json::{Map, Value};

/// The versions this server speaks, oldest first.
pub(crate) const SUPPORTED: [ProtocolVersion; 4] = [
    ProtocolVersion::V2024_11_05,
    ProtocolVersion::V2025_03_26,
    ProtocolVersion::V2025_06_18,
    ProtocolVersion::V2025_11_25,
];

/// What the server answers when the client asks for a version it does not speak.
pub(crate) const PREFERRED: ProtocolVersion = ProtocolVersion::V2025_11_25;

/// Picks the version to answer `initialize` with: the requested one when
/// supported, else the newest this server speaks.
pub(crate) fn negotiate(requested: &str) -> ProtocolVersion {
    SUPPORTED
        .into_iter()
        .find(|v| v.as_str() == requested)
        .unwrap_or(PREFERRED)
}

/// Client capabilities the server acts on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ClientCapabilities {
    pub sampling: bool,
    pub roots: bool,
    /// Form-mode elicitation (an empty `elicitation` object means form only).
    pub elicitation_form: bool,
    /// URL-mode elicitation (2025-11-25).
    pub elicitation_url: bool,
    /// The tasks extension, under `extensions` (2026-07-28+, per request).
    pub tasks_extension: bool,
}

impl ClientCapabilities {
    pub fn from_json(capabilities: &Map<String, Value>) -> Self {
        let declared = |name: &str| capabilities.get(name).is_some_and(Value::is_object);
        let modes = capabilities.get("elicitation").and_then(Value::as_object);
        let mode = |name: &str| modes.is_some_and(|m| m.get(name).is_some_and(Value::is_object));
        ClientCapabilities {
            sampling: declared("sampling"),
            roots: declared("roots"),
            elicitation_form: modes.is_some_and(Map::is_empty) || mode("form"),
            elicitation_url: mode("url"),
            tasks_extension: capabilities
                .get("extensions")
                .and_then(|extensions| extensions.get(EXTENSION))
                .is_some_and(Value::is_object),
        }
    }
}

/// What `initialize` settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Negotiated {
    pub version: ProtocolVersion,
    pub client: ClientCapabilities,
}

/// Where the connection is in its lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    /// No `initialize` yet: only `initialize` and `ping` are served.
    AwaitingInitialize,
    /// `initialize` answered, `notifications/initialized` not yet received.
    Initializing(Negotiated),
    /// Normal operation.
    Operating(Negotiated),
}

/// The rank of a level name, or `None` when it is not a level.
pub(crate) fn log_rank(level: &str) -> Option<usize> {
    LOG_LEVELS.iter().position(|l| *l == level)
}

/// Mutable per-connection state; every lock is held only briefly and never
/// across an await.
#[derive(Debug)]
pub(crate) struct Session {
    phase: Mutex<Phase>,
    /// Minimum rank of `notifications/message` to send; everything until `logging/setLevel`.
    min_log_rank: Mutex<usize>,
    subscriptions: Mutex<BTreeSet<String>>,
    dynamic_tools: Mutex<Vec<String>>,
}

impl Session {
    pub fn new() -> Self {
        Session {
            phase: Mutex::new(Phase::AwaitingInitialize),
            min_log_rank: Mutex::new(0),
            subscriptions: Mutex::new(BTreeSet::new()),
            dynamic_tools: Mutex::new(Vec::new()),
        }
    }

    pub fn phase(&self) -> Phase {
        *self.phase.lock().expect("session lock")
    }

    /// The negotiated parameters once `initialize` was answered.
    pub fn negotiated(&self) -> Option<Negotiated> {
        match self.phase() {
            Phase::AwaitingInitialize => None,
            Phase::Initializing(n) | Phase::Operating(n) => Some(n),
        }
    }

    /// The negotiated version; the preferred one before the handshake.
    pub fn version(&self) -> ProtocolVersion {
        self.negotiated().map_or(PREFERRED, |n| n.version)
    }

    /// Records a successful `initialize`; false when one already happened.
    pub fn begin(&self, negotiated: Negotiated) -> bool {
        let mut phase = self.phase.lock().expect("session lock");
        if *phase != Phase::AwaitingInitialize {
            return false;
        }
        *phase = Phase::Initializing(negotiated);
        true
    }

    /// Handles `notifications/initialized`; false when it came out of order.
    pub fn confirm(&self) -> bool {
        let mut phase = self.phase.lock().expect("session lock");
        match *phase {
            Phase::Initializing(n) => {
                *phase = Phase::Operating(n);
                true
            }
            _ => false,
        }
    }

    /// Batches exist only in 2025-03-26.
    pub fn batches_allowed(&self) -> bool {
        self.negotiated()
            .is_some_and(|n| n.version == ProtocolVersion::V2025_03_26)
    }

    pub fn set_min_log_rank(&self, rank: usize) {
        *self.min_log_rank.lock().expect("session lock") = rank;
    }

    pub fn log_enabled(&self, rank: usize) -> bool {
        rank >= *self.min_log_rank.lock().expect("session lock")
    }

    pub fn subscribe(&self, uri: &str) {
        self.subscriptions
            .lock()
            .expect("session lock")
            .insert(uri.to_owned());
    }

    pub fn unsubscribe(&self, uri: &str) {
        self.subscriptions.lock().expect("session lock").remove(uri);
    }

    pub fn is_subscribed(&self, uri: &str) -> bool {
        self.subscriptions.lock().expect("session lock").contains(uri)
    }

    /// Adds a dynamic tool; false when a dynamic tool has that name already.
    pub fn add_dynamic_tool(&self, name: &str) -> bool {
        let mut tools = self.dynamic_tools.lock().expect("session lock");
        if tools.iter().any(|t| t == name) {
            return false;
        }
        tools.push(name.to_owned());
        true
    }

    pub fn dynamic_tools(&self) -> Vec<String> {
        self.dynamic_tools.lock().expect("session lock").clone()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn negotiation_echoes_supported_versions_and_falls_back_to_the_newest() {
        assert_eq!(negotiate("2025-03-26"), ProtocolVersion::V2025_03_26);
        assert_eq!(negotiate("2024-11-05"), ProtocolVersion::V2024_11_05);
        assert_eq!(negotiate("2026-07-28"), ProtocolVersion::V2025_11_25);
        assert_eq!(negotiate("1999-01-01"), ProtocolVersion::V2025_11_25);
    }

    #[test]
    fn elicitation_capability_means_form_unless_only_url_is_declared() {
        let caps = |v: Value| ClientCapabilities::from_json(v.as_object().unwrap());
        assert!(caps(json!({"elicitation": {}})).elicitation_form);
        assert!(caps(json!({"elicitation": {"form": {}, "url": {}}})).elicitation_form);
        assert!(!caps(json!({"elicitation": {"url": {}}})).elicitation_form);
        assert!(!caps(json!({"sampling": {}})).elicitation_form);
        assert!(caps(json!({"sampling": {}})).sampling);
    }

    #[test]
    fn lifecycle_moves_forward_once() {
        let session = Session::new();
        let negotiated = Negotiated {
            version: ProtocolVersion::V2025_03_26,
            client: Default::default(),
        };
        assert!(!session.confirm());
        assert!(session.begin(negotiated));
        assert!(!session.begin(negotiated));
        assert!(session.batches_allowed());
        assert!(session.confirm());
        assert_eq!(session.phase(), Phase::Operating(negotiated));
    }
}
