//! Every MCP method of every modelled version: who sends it, which
//! capability gates it, and the shapes of its params and result.
//!
//! A method whose direction changed between versions has one entry per
//! range of versions; [`method_in`] picks the entry for a version. Only the
//! stateful versions (2024-11-05 to 2025-11-25) are modelled so far; shared
//! shapes in `common` already carry some 2026-07-28 members.

mod common;
mod completion;
mod elicitation;
mod lifecycle;
mod logging;
mod prompts;
mod resources;
mod roots;
mod sampling;
mod tools;
mod utilities;

use serde_json::Value;

use super::shape::{Field, Shape, Versions};
use super::violation::Violation;
use crate::version::{ProtocolVersion, VersionSet};

/// A party of an MCP connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PeerRole {
    Server,
    Client,
}

impl PeerRole {
    /// The other party.
    pub fn other(self) -> PeerRole {
        match self {
            PeerRole::Server => PeerRole::Client,
            PeerRole::Client => PeerRole::Server,
        }
    }
}

/// Whether a method expects a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MethodKind {
    Request,
    Notification,
}

/// Who may send a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    ClientToServer,
    ServerToClient,
    Both,
}

impl Flow {
    /// Whether `sender` may send a method with this flow.
    pub fn allows(self, sender: PeerRole) -> bool {
        matches!(
            (self, sender),
            (Flow::Both, _)
                | (Flow::ClientToServer, PeerRole::Client)
                | (Flow::ServerToClient, PeerRole::Server)
        )
    }
}

/// Whose capabilities hold a gate.
pub type Side = PeerRole;

/// The capability a party must have declared before the other may use a
/// method (for example the server's `resources.subscribe`).
#[derive(Debug, Clone, Copy)]
pub struct Gate {
    /// Whose declared capabilities must hold `path`.
    pub holder: Side,
    /// A dotted path into the capabilities object.
    pub path: &'static str,
    /// The versions in which the gate applies.
    pub versions: Versions,
    /// The requirement broken by using the method ungated.
    pub requirement: &'static str,
}

impl Gate {
    /// Whether `capabilities` (the holder's declared object) open the gate:
    /// every segment of the path is present.
    pub fn is_open(&self, capabilities: &Value) -> bool {
        self.path
            .split('.')
            .try_fold(capabilities, |value, segment| value.get(segment))
            .is_some_and(|value| !value.is_null() && value != &Value::Bool(false))
    }
}

/// A params member that needs a capability of its own, beyond the gate of
/// its method (for example sampling `tools`, which needs `sampling.tools`).
#[derive(Debug)]
pub struct MemberGate {
    pub method: &'static str,
    /// A top-level member of `params`.
    pub member: &'static str,
    /// The values of the member the gate applies to; any value when empty.
    pub values: &'static [&'static str],
    pub gate: Gate,
}

impl MemberGate {
    /// Whether `params` use the gated member.
    pub fn applies_to(&self, params: &Value) -> bool {
        params.get(self.member).is_some_and(|value| {
            self.values.is_empty() || value.as_str().is_some_and(|v| self.values.contains(&v))
        })
    }
}

/// One method as defined in a range of versions.
#[derive(Debug)]
pub struct MethodSpec {
    pub name: &'static str,
    pub kind: MethodKind,
    pub direction: Flow,
    pub versions: Versions,
    pub gate: Option<Gate>,
    /// The `params` member, with its shape and where it is required.
    pub params: Field,
    /// The result shape; `None` for notifications.
    pub result: Option<&'static Shape>,
}

impl MethodSpec {
    /// The versions defining this entry, as a set.
    pub fn version_set(&self) -> VersionSet {
        self.versions.set()
    }

    /// Violations of the params shape in `version`; `params` is `None` when
    /// the member is absent. Pointers start at `/params`.
    pub fn check_params(&self, params: Option<&Value>, version: ProtocolVersion) -> Vec<Violation> {
        match params {
            Some(value) => self.params.shape.check(value, version, "/params"),
            None if self.params.required.is_some_and(|r| r.contains(version)) => {
                vec![
                    Violation::must(
                        super::shape::SCHEMA_001,
                        format!("`{}` requires `params`", self.name),
                    )
                    .at(""),
                ]
            }
            None => Vec::new(),
        }
    }

    /// Violations of the result shape in `version`. Pointers start at `/result`.
    pub fn check_result(&self, result: &Value, version: ProtocolVersion) -> Vec<Violation> {
        self.result
            .map(|shape| shape.check(result, version, "/result"))
            .unwrap_or_default()
    }
}

/// A request or notification entry with params shape `params`, required or not.
const fn entry(
    name: &'static str,
    kind: MethodKind,
    direction: Flow,
    versions: Versions,
    params: Field,
    result: Option<&'static Shape>,
) -> MethodSpec {
    MethodSpec {
        name,
        kind,
        direction,
        versions,
        gate: None,
        params,
        result,
    }
}

/// A request entry with no gate.
const fn request(
    name: &'static str,
    direction: Flow,
    versions: Versions,
    params: Field,
    result: &'static Shape,
) -> MethodSpec {
    entry(
        name,
        MethodKind::Request,
        direction,
        versions,
        params,
        Some(result),
    )
}

/// A notification entry with no gate.
const fn notification(name: &'static str, direction: Flow, versions: Versions, params: Field) -> MethodSpec {
    entry(name, MethodKind::Notification, direction, versions, params, None)
}

impl MethodSpec {
    /// The same entry behind `gate`.
    const fn gated(
        self,
        holder: Side,
        path: &'static str,
        versions: Versions,
        requirement: &'static str,
    ) -> Self {
        MethodSpec {
            gate: Some(Gate {
                holder,
                path,
                versions,
                requirement,
            }),
            ..self
        }
    }
}

static METHODS: &[&MethodSpec] = &[
    &lifecycle::INITIALIZE,
    &lifecycle::INITIALIZED,
    &lifecycle::PING,
    &tools::LIST,
    &tools::CALL,
    &tools::LIST_CHANGED,
    &resources::LIST,
    &resources::TEMPLATES_LIST,
    &resources::READ,
    &resources::SUBSCRIBE,
    &resources::UNSUBSCRIBE,
    &resources::LIST_CHANGED,
    &resources::UPDATED,
    &prompts::LIST,
    &prompts::GET,
    &prompts::LIST_CHANGED,
    &sampling::CREATE_MESSAGE,
    &elicitation::CREATE,
    &elicitation::COMPLETE,
    &roots::LIST,
    &roots::LIST_CHANGED,
    &logging::SET_LEVEL,
    &logging::MESSAGE,
    &completion::COMPLETE,
    &utilities::PROGRESS,
    &utilities::CANCELLED,
];

static MEMBER_GATES: &[&[MemberGate]] = &[sampling::MEMBER_GATES, elicitation::MEMBER_GATES];

/// The member gates of `name`.
pub fn member_gates(name: &str) -> impl Iterator<Item = &'static MemberGate> {
    MEMBER_GATES
        .iter()
        .flat_map(|gates| gates.iter())
        .filter(move |g| g.method == name)
}

/// Every method entry of the model.
pub fn methods() -> impl Iterator<Item = &'static MethodSpec> {
    METHODS.iter().copied()
}

/// The entry for `name` in its newest version (see [`method_in`] for a
/// given version).
pub fn method(name: &str) -> Option<&'static MethodSpec> {
    methods().filter(|m| m.name == name).max_by_key(|m| m.versions.to)
}

/// The entry for `name` as `version` defines it.
pub fn method_in(name: &str, version: ProtocolVersion) -> Option<&'static MethodSpec> {
    methods().find(|m| m.name == name && m.versions.contains(version))
}
