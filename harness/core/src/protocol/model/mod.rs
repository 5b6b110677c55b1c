//! Every MCP method of every modelled version: who sends it, which
//! capability gates it, and the shapes of its params and result.
//!
//! A method whose direction or kind changed between versions has one entry
//! per range of versions; [`method_in`] picks the entry for a version. In
//! the stateless 2026-07-28 revision, what a server asks of a client
//! (sampling, elicitation, roots) is no JSON-RPC request but an input
//! request inside an `InputRequiredResult` ([`MethodKind::InputRequest`]);
//! [`errors`] holds the error codes with a defined meaning.

use crate::protocol::cite;
use crate::requirements::RequirementId;

mod common;
mod completion;
mod discover;
mod elicitation;
pub mod errors;
mod lifecycle;
mod logging;
mod mrtr;
mod prompts;
mod resources;
mod roots;
mod sampling;
pub mod subscriptions;
pub mod tasks;
pub mod tasks_extension;
mod tools;
mod utilities;

use serde_json::Value;

pub use common::LOG_LEVELS;
pub use mrtr::{INPUT_REQUIRED, input_requests, is_input_required};

use super::shape::{Field, Shape, Versions};
use super::violation::Violation;
use crate::version::{Era, ProtocolVersion, VersionSet};

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

/// Whether a method expects a response, and how it travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MethodKind {
    Request,
    Notification,
    /// Travels only inside an `InputRequiredResult` (2026-07-28+): its
    /// answer comes back in the retried request's `inputResponses`.
    InputRequest,
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
    pub requirement: RequirementId,
}

impl Gate {
    /// Whether `capabilities` (the holder's declared object) open the gate:
    /// every segment of the path is present.
    pub fn is_open(&self, capabilities: &Value) -> bool {
        capability_declared(capabilities, self.path)
    }
}

/// Whether `capabilities` declare the dotted `path`: every segment is
/// present, and the last is neither `null` nor `false`.
pub fn capability_declared(capabilities: &Value, path: &str) -> bool {
    path.split('.')
        .try_fold(capabilities, |value, segment| value.get(segment))
        .is_some_and(|value| !value.is_null() && value != &Value::Bool(false))
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
    /// The result shape; `None` for notifications. For an input request,
    /// the shape of its input response.
    pub result: Option<&'static Shape>,
    /// The versions in which the method may answer with an
    /// `InputRequiredResult` instead of its result (MRTR-001).
    pub input_required: Option<Versions>,
    /// The versions in which its complete results carry the caching
    /// fields `ttlMs` and `cacheScope` (CACHE-001).
    pub cacheable: Option<Versions>,
}

impl MethodSpec {
    /// The versions defining this entry, as a set.
    pub fn version_set(&self) -> VersionSet {
        self.versions.set()
    }

    /// Violations of the params shape in `version`; `params` is `None` when
    /// the member is absent. Pointers start at `/params`.
    pub fn check_params(&self, params: Option<&Value>, version: ProtocolVersion) -> Vec<Violation> {
        self.check_params_at(params, version, "/params")
    }

    /// [`Self::check_params`] for params found at `pointer` (an input
    /// request's params sit inside a result).
    pub fn check_params_at(
        &self,
        params: Option<&Value>,
        version: ProtocolVersion,
        pointer: &str,
    ) -> Vec<Violation> {
        match params {
            Some(value) => self.params.shape.check(value, version, pointer),
            None if self.params.required.is_some_and(|r| r.contains(version)) => {
                // From 2026-07-28 every request needs `params` for its `_meta`.
                let requirement = match (version.era(), self.kind) {
                    (Era::Stateless, MethodKind::Request) => cite::MODN_001,
                    _ => super::shape::SCHEMA_001,
                };
                let at = pointer.strip_suffix("/params").unwrap_or_default();
                vec![Violation::must(requirement, format!("`{}` requires `params`", self.name)).at(at)]
            }
            None => Vec::new(),
        }
    }

    /// Whether the method may answer with an `InputRequiredResult` in `version`.
    pub fn may_require_input_in(&self, version: ProtocolVersion) -> bool {
        self.input_required.is_some_and(|v| v.contains(version))
    }

    /// Violations of the result shape in `version`, an `InputRequiredResult`
    /// included (MRTR-001..003). Pointers start at `/result`.
    pub fn check_result(&self, result: &Value, version: ProtocolVersion) -> Vec<Violation> {
        if version.era() == Era::Stateless && mrtr::is_input_required(result) {
            if !self.may_require_input_in(version) {
                let message = format!(
                    "`{}` answered with an InputRequiredResult, which only tools/call, prompts/get and resources/read may return",
                    self.name
                );
                return vec![Violation::must(cite::MRTR_001, message).at("/result/resultType")];
            }
            return mrtr::check_input_required(result, version);
        }
        let mut out = self
            .result
            .map(|shape| shape.check(result, version, "/result"))
            .unwrap_or_default();
        if self.kind == MethodKind::Request && version.era() == Era::Stateless {
            check_stateless_members(self, result, version, &mut out);
        }
        out
    }

    /// Whether the complete results of the method carry the caching fields in `version`.
    pub fn is_cacheable_in(&self, version: ProtocolVersion) -> bool {
        self.cacheable.is_some_and(|v| v.contains(version))
    }
}

/// Members every stateless result needs: `resultType` (RPC-015), and on
/// cacheable results `ttlMs` and `cacheScope` (CACHE-001).
fn check_stateless_members(
    spec: &MethodSpec,
    result: &Value,
    version: ProtocolVersion,
    out: &mut Vec<Violation>,
) {
    let Some(members) = result.as_object() else {
        return;
    };
    let mut required = vec![("resultType", cite::RPC_015)];
    if spec.is_cacheable_in(version) {
        required.extend([("ttlMs", cite::CACHE_001), ("cacheScope", cite::CACHE_001)]);
    }
    for (member, requirement) in required.into_iter().filter(|(m, _)| !members.contains_key(*m)) {
        let message = format!("the `{}` result has no `{member}`", spec.name);
        out.push(Violation::must(requirement, message).at("/result"));
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
        input_required: None,
        cacheable: None,
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

/// What a server asks of a client inside an `InputRequiredResult`
/// (2026-07-28+), with the shape of the client's input response.
const fn input_request(name: &'static str, params: Field, response: &'static Shape) -> MethodSpec {
    entry(
        name,
        MethodKind::InputRequest,
        Flow::ServerToClient,
        Versions::since(ProtocolVersion::V2026_07_28),
        params,
        Some(response),
    )
}

impl MethodSpec {
    /// The same entry behind `gate`.
    const fn gated(
        self,
        holder: Side,
        path: &'static str,
        versions: Versions,
        requirement: RequirementId,
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

    /// The same entry, which may answer with an `InputRequiredResult` from
    /// 2026-07-28 on.
    const fn may_require_input(self) -> Self {
        MethodSpec {
            input_required: Some(Versions::since(ProtocolVersion::V2026_07_28)),
            ..self
        }
    }

    /// The same entry, whose results are cacheable from 2026-07-28 on.
    const fn cacheable(self) -> Self {
        MethodSpec {
            cacheable: Some(Versions::since(ProtocolVersion::V2026_07_28)),
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
    &discover::DISCOVER,
    &subscriptions::LISTEN,
    &subscriptions::ACKNOWLEDGED,
    &sampling::CREATE_MESSAGE_INPUT,
    &elicitation::CREATE_INPUT,
    &roots::LIST_INPUT,
    &tasks::GET,
    &tasks::RESULT,
    &tasks::LIST,
    &tasks::CANCEL,
    &tasks::STATUS_NOTIFICATION,
    &tasks_extension::GET,
    &tasks_extension::UPDATE,
    &tasks_extension::CANCEL,
    &tasks_extension::STATUS_NOTIFICATION,
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

/// Every method `version` defines, input requests included.
pub fn methods_in(version: ProtocolVersion) -> impl Iterator<Item = &'static MethodSpec> {
    methods().filter(move |m| m.versions.contains(version))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ProtocolVersion::*;

    fn names(version: ProtocolVersion, kind: MethodKind) -> Vec<&'static str> {
        let mut names: Vec<_> = methods_in(version)
            .filter(|m| m.kind == kind)
            .map(|m| m.name)
            .collect();
        names.sort_unstable();
        names
    }

    #[test]
    fn the_stateless_method_table() {
        assert_eq!(
            names(V2026_07_28, MethodKind::Request),
            [
                "completion/complete",
                "prompts/get",
                "prompts/list",
                "resources/list",
                "resources/read",
                "resources/templates/list",
                "server/discover",
                "subscriptions/listen",
                "tasks/cancel",
                "tasks/get",
                "tasks/update",
                "tools/call",
                "tools/list",
            ]
        );
        assert_eq!(
            names(V2026_07_28, MethodKind::InputRequest),
            ["elicitation/create", "roots/list", "sampling/createMessage"]
        );
        assert!(
            methods_in(V2026_07_28)
                .filter(|m| m.kind == MethodKind::Request)
                .all(|m| m.direction == Flow::ClientToServer),
            "servers send no requests"
        );
        for gone in [
            "initialize",
            "ping",
            "logging/setLevel",
            "resources/subscribe",
            "notifications/initialized",
        ] {
            assert!(method_in(gone, V2026_07_28).is_none(), "{gone}");
            assert!(method_in(gone, V2025_11_25).is_some(), "{gone}");
        }
        let interim: Vec<_> = methods_in(V2026_07_28)
            .filter(|m| m.may_require_input_in(V2026_07_28))
            .map(|m| m.name)
            .collect();
        assert_eq!(interim, ["tools/call", "resources/read", "prompts/get"]);
        let cacheable = methods_in(V2026_07_28)
            .filter(|m| m.is_cacheable_in(V2026_07_28))
            .count();
        assert_eq!(cacheable, 6);
        assert!(
            !method_in("tools/list", V2025_11_25)
                .unwrap()
                .is_cacheable_in(V2025_11_25)
        );
    }

    #[test]
    fn input_required_results_follow_mrtr() {
        let call = method_in("tools/call", V2026_07_28).unwrap();
        let interim = serde_json::json!({"resultType": "input_required", "requestState": "s"});
        assert_eq!(call.check_result(&interim, V2026_07_28), []);
        let list = method_in("tools/list", V2026_07_28).unwrap();
        assert_eq!(
            list.check_result(&interim, V2026_07_28)[0].requirement,
            cite::MRTR_001
        );
        // Before 2026-07-28 `resultType` is an unknown member and the shape rules apply.
        let legacy = method_in("tools/call", V2025_11_25).unwrap();
        assert!(!legacy.check_result(&interim, V2025_11_25).is_empty());
    }
}
