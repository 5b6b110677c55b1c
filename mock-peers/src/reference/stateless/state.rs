//! `requestState`: what an interim `InputRequiredResult` hands the client to
//! echo on its retry. The client is not trusted with it (MRTR-005): the
//! state is sealed with a tag keyed by a secret of this process, and names
//! the request it belongs to, the user it was issued to (on a protected
//! server) and when it lapses, so that a changed, foreign, another user's
//! or stale state is refused.
//!
//! The tag is SipHash under the process's random keys (std's `RandomState`),
//! twice with different domain bytes for 128 bits: enough for a reference
//! server whose states live minutes, without a cryptography dependency.

use std::hash::{BuildHasher, Hasher};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use crate::base64;

/// How long a state stays good.
const LIFETIME: Duration = Duration::from_secs(600);

/// The process's secret key.
fn key() -> &'static std::collections::hash_map::RandomState {
    static KEY: OnceLock<std::collections::hash_map::RandomState> = OnceLock::new();
    KEY.get_or_init(std::collections::hash_map::RandomState::new)
}

fn tag(payload: &[u8]) -> String {
    (0u8..2)
        .map(|domain| {
            let mut hasher = key().build_hasher();
            hasher.write_u8(domain);
            hasher.write(payload);
            format!("{:016x}", hasher.finish())
        })
        .collect()
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// What a request must match for its state to be accepted: the method and
/// the name or URI of its target, a digest of its salient arguments, and
/// the user whose token it came with (none on an open server).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Origin {
    pub method: String,
    pub target: String,
    pub arguments: String,
    pub principal: Option<String>,
}

impl Origin {
    pub fn new(method: &str, target: &str, arguments: &Value) -> Origin {
        Origin {
            method: method.to_owned(),
            target: target.to_owned(),
            arguments: tag(arguments.to_string().as_bytes()),
            principal: None,
        }
    }

    /// The same origin, for the request of `principal` (AUTH-022: a state
    /// handle is bound to the user it was issued to).
    pub fn of_principal(self, principal: Option<&str>) -> Origin {
        Origin {
            principal: principal.map(str::to_owned),
            ..self
        }
    }
}

/// Seals `data` (what the server needs on the retry) for a retry of `origin`.
pub(crate) fn seal(origin: &Origin, data: Value) -> String {
    let payload = json!({
        "method": origin.method,
        "target": origin.target,
        "arguments": origin.arguments,
        "principal": origin.principal,
        "expires": now() + LIFETIME.as_secs(),
        "data": data,
    })
    .to_string();
    format!(
        "{}.{}",
        base64::encode(payload.as_bytes()),
        tag(payload.as_bytes())
    )
}

/// Why a state was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Changed, or never issued by this process.
    Forged,
    /// Issued for another request.
    Foreign,
    /// Issued to another user.
    OtherPrincipal,
    Expired,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Refused::Forged => "requestState failed its integrity check",
            Refused::Foreign => "requestState was issued for another request",
            Refused::OtherPrincipal => "requestState was issued to another user",
            Refused::Expired => "requestState has expired; send the request again without it",
        })
    }
}

/// The data sealed in `state`, if it is intact, for `origin`, and current.
pub(crate) fn open(state: &str, origin: &Origin) -> Result<Value, Refused> {
    let (encoded, given) = state.rsplit_once('.').ok_or(Refused::Forged)?;
    let payload = base64::decode(encoded).ok_or(Refused::Forged)?;
    if tag(&payload) != given {
        return Err(Refused::Forged);
    }
    let mut payload: Value = serde_json::from_slice(&payload).map_err(|_| Refused::Forged)?;
    let matches = payload["method"] == json!(origin.method)
        && payload["target"] == json!(origin.target)
        && payload["arguments"] == json!(origin.arguments);
    if !matches {
        return Err(Refused::Foreign);
    }
    if payload["principal"] != json!(origin.principal) {
        return Err(Refused::OtherPrincipal);
    }
    if payload["expires"].as_u64().is_none_or(|expires| expires < now()) {
        return Err(Refused::Expired);
    }
    Ok(payload["data"].take())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin(arguments: Value) -> Origin {
        Origin::new("tools/call", "elicit", &arguments)
    }

    #[test]
    fn a_sealed_state_opens_for_its_own_request_only() {
        let sealed = seal(&origin(json!({})), json!({"asked": ["k"]}));
        assert_eq!(open(&sealed, &origin(json!({}))), Ok(json!({"asked": ["k"]})));
        assert_eq!(
            open(&sealed, &origin(json!({"message": "x"}))),
            Err(Refused::Foreign)
        );
        assert_eq!(
            open(&sealed, &Origin::new("prompts/get", "elicit", &json!({}))),
            Err(Refused::Foreign)
        );
    }

    #[test]
    fn a_state_opens_for_the_user_it_was_issued_to_only() {
        let of = |user: Option<&str>| origin(json!({})).of_principal(user);
        let sealed = seal(&of(Some("alice")), json!({"asked": ["k"]}));
        assert_eq!(open(&sealed, &of(Some("alice"))), Ok(json!({"asked": ["k"]})));
        assert_eq!(open(&sealed, &of(Some("bob"))), Err(Refused::OtherPrincipal));
        assert_eq!(open(&sealed, &of(None)), Err(Refused::OtherPrincipal));
    }

    #[test]
    fn any_change_breaks_the_seal() {
        let sealed = seal(&origin(json!({})), json!({"asked": ["k"]}));
        let (encoded, tag) = sealed.rsplit_once('.').unwrap();
        let payload = String::from_utf8(base64::decode(encoded).unwrap()).unwrap();
        let forged = payload.replace("[\"k\"]", "[\"x\"]");
        let resealed = format!("{}.{tag}", base64::encode(forged.as_bytes()));
        assert_eq!(open(&resealed, &origin(json!({}))), Err(Refused::Forged));
        assert_eq!(open("garbage", &origin(json!({}))), Err(Refused::Forged));
        let flipped = format!("{encoded}.{}", "0".repeat(32));
        assert_eq!(open(&flipped, &origin(json!({}))), Err(Refused::Forged));
    }
}
