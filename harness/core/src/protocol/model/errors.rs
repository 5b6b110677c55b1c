//! Error codes with a meaning the spec defines, and the rules on the error
//! responses that carry them.
//!
//! From 2026-07-28, `-32000..=-32019` are left to implementations and
//! `-32020..=-32099` are reserved for codes the spec defines (RPC-018).

use std::ops::RangeInclusive;

use serde_json::Value;

use super::PeerRole;
use super::common::{CLIENT_CAPABILITIES, STR, STR_ARRAY};
use crate::protocol::cite;
use crate::protocol::shape::{Named, Shape, req};
use crate::protocol::violation::Violation;
use crate::version::{Era, ProtocolVersion};

pub use crate::wire::jsonrpc::code::{
    HEADER_MISMATCH, INVALID_PARAMS, LEGACY_RESOURCE_NOT_FOUND, METHOD_NOT_FOUND,
    MISSING_REQUIRED_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION, URL_ELICITATION_REQUIRED,
};

/// Codes only the spec may define, from 2026-07-28.
pub const RESERVED: RangeInclusive<i64> = -32099..=-32020;

/// The codes of the reserved range that 2026-07-28 defines.
pub const DEFINED: [i64; 3] = [
    HEADER_MISMATCH,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    UNSUPPORTED_PROTOCOL_VERSION,
];

static MISSING_CAPABILITY_DATA: Shape = Shape::Named(&Named {
    name: "MissingRequiredClientCapabilityError.data",
    requirement: cite::MODN_008,
    shape: Shape::Object(&[req("requiredCapabilities", &CLIENT_CAPABILITIES)]),
});

static UNSUPPORTED_VERSION_DATA: Shape = Shape::Named(&Named {
    name: "UnsupportedProtocolVersionError.data",
    requirement: cite::MODN_005,
    shape: Shape::Object(&[req("supported", &STR_ARRAY), req("requested", &STR)]),
});

/// An error response as the rules need it.
#[derive(Debug, Clone, Copy)]
pub struct ErrorAnswer<'a> {
    pub code: i64,
    pub data: Option<&'a Value>,
    /// Who sent the error.
    pub sender: PeerRole,
    /// The method of the request it answers, when known.
    pub answering: Option<&'a str>,
    /// The protocol version that request asked for, when known.
    pub requested_version: Option<&'a str>,
}

/// Every rule a stateless-era error response breaks: codes of the reserved
/// range only with their defined meaning (RPC-018), the data the defined
/// codes carry (MODN-005, MODN-008), and no legacy codes from servers
/// (RPC-018; RES-005 for a missing resource). Nothing before 2026-07-28.
pub fn check_error(answer: &ErrorAnswer<'_>, version: ProtocolVersion) -> Vec<Violation> {
    if version.era() != Era::Stateless {
        return Vec::new();
    }
    let code = answer.code;
    let data_shape = match code {
        MISSING_REQUIRED_CLIENT_CAPABILITY => Some(&MISSING_CAPABILITY_DATA),
        UNSUPPORTED_PROTOCOL_VERSION => Some(&UNSUPPORTED_VERSION_DATA),
        _ => None,
    };
    let mut out = Vec::new();
    if let Some(shape) = data_shape {
        out.extend(shape.check(answer.data.unwrap_or(&Value::Null), version, "/error/data"));
        let echoed = answer
            .data
            .and_then(|d| d.get("requested"))
            .and_then(Value::as_str);
        if let (Some(echoed), Some(requested)) = (echoed, answer.requested_version)
            && code == UNSUPPORTED_PROTOCOL_VERSION
            && echoed != requested
        {
            let message = format!("`data.requested` is {echoed:?}, but the request asked for {requested:?}");
            out.push(Violation::must(cite::MODN_005, message).at("/error/data/requested"));
        }
    }
    let server = answer.sender == PeerRole::Server;
    match code {
        LEGACY_RESOURCE_NOT_FOUND if server && answer.answering == Some("resources/read") => {
            let message = "a missing resource is error -32602 from 2026-07-28, not -32002";
            out.push(Violation::must(cite::RES_005, message).at("/error/code"));
        }
        LEGACY_RESOURCE_NOT_FOUND | URL_ELICITATION_REQUIRED if server => {
            let message = format!("a 2026-07-28 server never sends error {code}");
            out.push(Violation::must(cite::RPC_018, message).at("/error/code"));
        }
        _ if RESERVED.contains(&code) && !DEFINED.contains(&code) => {
            let message = format!(
                "error {code} is in the range reserved for codes the spec defines, and it defines no such code"
            );
            out.push(Violation::must(cite::RPC_018, message).at("/error/code"));
        }
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::requirements::RequirementId;
    use ProtocolVersion::*;
    use serde_json::json;

    fn answer(code: i64, data: Option<&Value>) -> ErrorAnswer<'_> {
        ErrorAnswer {
            code,
            data,
            sender: PeerRole::Server,
            answering: Some("tools/call"),
            requested_version: Some("2099-01-01"),
        }
    }

    fn ids(found: &[Violation]) -> Vec<RequirementId> {
        found.iter().map(|v| v.requirement).collect()
    }

    #[test]
    fn defined_codes_carry_their_data() {
        let good = json!({"supported": ["2026-07-28"], "requested": "2099-01-01"});
        assert_eq!(check_error(&answer(-32022, Some(&good)), V2026_07_28), []);
        let wrong_echo = json!({"supported": ["2026-07-28"], "requested": "2026-07-28"});
        assert_eq!(
            ids(&check_error(&answer(-32022, Some(&wrong_echo)), V2026_07_28)),
            [cite::MODN_005]
        );
        assert_eq!(
            ids(&check_error(&answer(-32022, None), V2026_07_28)),
            [cite::MODN_005]
        );
        let caps = json!({"requiredCapabilities": {"elicitation": {}}});
        assert_eq!(check_error(&answer(-32021, Some(&caps)), V2026_07_28), []);
        assert_eq!(
            ids(&check_error(&answer(-32021, Some(&json!({}))), V2026_07_28)),
            [cite::MODN_008]
        );
        assert_eq!(check_error(&answer(-32020, None), V2026_07_28), []);
    }

    #[test]
    fn reserved_and_legacy_codes() {
        assert_eq!(
            ids(&check_error(&answer(-32050, None), V2026_07_28)),
            [cite::RPC_018]
        );
        assert_eq!(check_error(&answer(-32010, None), V2026_07_28), []);
        assert_eq!(
            ids(&check_error(&answer(-32042, None), V2026_07_28)),
            [cite::RPC_018]
        );
        let read = ErrorAnswer {
            answering: Some("resources/read"),
            ..answer(-32002, None)
        };
        assert_eq!(ids(&check_error(&read, V2026_07_28)), [cite::RES_005]);
        assert_eq!(check_error(&read, V2025_11_25), []);
    }
}
