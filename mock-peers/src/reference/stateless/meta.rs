//! The per-request protocol fields of 2026-07-28: every request names its
//! version and the client's capabilities in `params._meta`, and may set a
//! log level. Each request is read on its own; nothing carries over from an
//! earlier one (MODN-004).

use mcp_conform_core::version::{Era, ProtocolVersion};
use serde_json::{Map, Value, json};

use crate::reference::era::{CLIENT_CAPABILITIES, LOG_LEVEL, PROTOCOL_VERSION};
use crate::reference::session::{self, ClientCapabilities};
use mcp_conform_core::wire::jsonrpc::{RpcError, code};

/// The version this server serves statelessly.
pub(crate) const MODERN: ProtocolVersion = ProtocolVersion::V2026_07_28;

/// Every version this server speaks, newest first: the stateless one, and
/// the legacy ones an `initialize` opens.
pub(crate) fn supported_versions() -> Vec<&'static str> {
    ProtocolVersion::ALL.iter().rev().map(|v| v.as_str()).collect()
}

/// What one request declared about itself.
#[derive(Debug, Clone)]
pub(crate) struct RequestMeta {
    pub version: ProtocolVersion,
    pub client: ClientCapabilities,
    /// The rank of the lowest log level to send for this request; `None`
    /// when it set no level, and gets no log messages at all (LOG-006).
    pub log_rank: Option<usize>,
}

impl RequestMeta {
    /// Reads the protocol fields of a request's params: both required keys
    /// present (-32602 otherwise, MODN-002), a version this server serves
    /// statelessly (-32022, MODN-005), a known log level (-32602, LOG-004).
    pub fn read(params: &Map<String, Value>) -> Result<RequestMeta, RpcError> {
        let meta = params.get("_meta").and_then(Value::as_object);
        let requested = meta.and_then(|m| m.get(PROTOCOL_VERSION));
        let capabilities = meta.and_then(|m| m.get(CLIENT_CAPABILITIES));
        let (Some(requested), Some(capabilities)) = (requested, capabilities) else {
            return Err(RpcError::invalid_params(format!(
                "every request carries params._meta[\"{PROTOCOL_VERSION}\"] and params._meta[\"{CLIENT_CAPABILITIES}\"]"
            )));
        };
        let Some(requested) = requested.as_str() else {
            return Err(RpcError::invalid_params(format!(
                "params._meta[\"{PROTOCOL_VERSION}\"] must be a string"
            )));
        };
        let Some(capabilities) = capabilities.as_object() else {
            return Err(RpcError::invalid_params(format!(
                "params._meta[\"{CLIENT_CAPABILITIES}\"] must be an object"
            )));
        };
        let version = stateless_version(requested)?;
        let log_rank = match meta.and_then(|m| m.get(LOG_LEVEL)) {
            None => None,
            Some(level) => Some(level.as_str().and_then(session::log_rank).ok_or_else(|| {
                RpcError::invalid_params(format!(
                    "unknown log level {level}; expected one of {:?}",
                    session::LOG_LEVELS
                ))
            })?),
        };
        Ok(RequestMeta {
            version,
            client: ClientCapabilities::from_json(capabilities),
            log_rank,
        })
    }
}

/// The stateless version named `requested`, or `UnsupportedProtocolVersion`.
fn stateless_version(requested: &str) -> Result<ProtocolVersion, RpcError> {
    let known = requested.parse::<ProtocolVersion>().ok();
    if known == Some(MODERN) && requested == MODERN.as_str() {
        return Ok(MODERN);
    }
    let message = match known {
        Some(legacy) if legacy.era() == Era::Stateful => {
            format!("protocol version {requested} is served after an initialize handshake, not per request")
        }
        _ => format!("unsupported protocol version {requested:?}"),
    };
    Err(RpcError::new(code::UNSUPPORTED_PROTOCOL_VERSION, message)
        .with_data(json!({ "supported": supported_versions(), "requested": requested })))
}

/// A client capability some request needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Need {
    ElicitationForm,
    ElicitationUrl,
    Sampling,
    Roots,
}

impl Need {
    /// Whether `client` declared it.
    pub fn declared_by(self, client: &ClientCapabilities) -> bool {
        match self {
            Need::ElicitationForm => client.elicitation_form,
            Need::ElicitationUrl => client.elicitation_url,
            Need::Sampling => client.sampling,
            Need::Roots => client.roots,
        }
    }

    /// The capability as `requiredCapabilities` spells it.
    fn as_capabilities(self) -> Value {
        match self {
            Need::ElicitationForm => json!({ "elicitation": { "form": {} } }),
            Need::ElicitationUrl => json!({ "elicitation": { "url": {} } }),
            Need::Sampling => json!({ "sampling": {} }),
            Need::Roots => json!({ "roots": {} }),
        }
    }

    /// `MissingRequiredClientCapability` (-32021) for a request that did
    /// not declare this capability (MODN-008).
    pub fn missing(self, what: &str) -> RpcError {
        RpcError::new(
            code::MISSING_REQUIRED_CLIENT_CAPABILITY,
            format!("{what} needs a client capability this request did not declare"),
        )
        .with_data(json!({ "requiredCapabilities": self.as_capabilities() }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(meta: Value) -> Map<String, Value> {
        json!({ "_meta": meta }).as_object().unwrap().clone()
    }

    #[test]
    fn both_required_keys_or_invalid_params() {
        for meta in [
            json!({}),
            json!({ PROTOCOL_VERSION: "2026-07-28" }),
            json!({ CLIENT_CAPABILITIES: {} }),
            json!({ PROTOCOL_VERSION: 2026, CLIENT_CAPABILITIES: {} }),
        ] {
            assert_eq!(RequestMeta::read(&params(meta)).unwrap_err().code, -32602);
        }
        assert_eq!(RequestMeta::read(&Map::new()).unwrap_err().code, -32602);
        let ok = RequestMeta::read(&params(
            json!({ PROTOCOL_VERSION: "2026-07-28", CLIENT_CAPABILITIES: { "sampling": {} } }),
        ))
        .unwrap();
        assert!(ok.client.sampling && ok.log_rank.is_none());
    }

    #[test]
    fn other_versions_are_unsupported_with_the_list() {
        for requested in ["2099-01-01", "2025-11-25", "draft"] {
            let error = RequestMeta::read(&params(
                json!({ PROTOCOL_VERSION: requested, CLIENT_CAPABILITIES: {} }),
            ))
            .unwrap_err();
            assert_eq!(error.code, -32022);
            let data = error.data.unwrap();
            assert_eq!(data["requested"], json!(requested));
            assert_eq!(data["supported"][0], json!("2026-07-28"));
        }
    }

    #[test]
    fn log_levels_must_be_known() {
        let with = |level: Value| {
            RequestMeta::read(&params(
                json!({ PROTOCOL_VERSION: "2026-07-28", CLIENT_CAPABILITIES: {}, LOG_LEVEL: level }),
            ))
        };
        assert_eq!(with(json!("warning")).unwrap().log_rank, Some(3));
        assert_eq!(with(json!("loud")).unwrap_err().code, -32602);
        assert_eq!(with(json!(3)).unwrap_err().code, -32602);
    }

    #[test]
    fn a_missing_capability_names_itself() {
        let error = Need::Roots.missing("the roots tool");
        assert_eq!(error.code, -32021);
        assert_eq!(
            error.data.unwrap(),
            json!({ "requiredCapabilities": { "roots": {} } })
        );
    }
}
