//! A JWT shown to a reader: its header and claims decoded, its signature
//! left out, so a report can say which token a step presented without
//! giving away a token that works.

use serde_json::Value;

use crate::wire::base64;

/// `<JWT alg=ES256 kid=… | aud=… exp=… iss=… | signature elided>`, or
/// `None` when `token` is no JWT with a JSON header and claims. No quote
/// or backslash is kept, so the text can stand inside a JSON string where
/// the token stood.
pub fn readable(token: &str) -> Option<String> {
    let mut parts = token.split('.');
    let (header, claims) = (parts.next()?, parts.next()?);
    parts.next()?;
    let members = |part: &str| -> Option<String> {
        let value: Value = serde_json::from_slice(&base64url(part)?).ok()?;
        let shown: Vec<String> = value
            .as_object()?
            .iter()
            .map(|(name, member)| {
                let text = member.as_str().map_or_else(|| member.to_string(), str::to_owned);
                format!("{name}={text}").replace(['"', '\\'], "")
            })
            .collect();
        Some(shown.join(" "))
    };
    Some(format!(
        "<JWT {} | {} | signature elided>",
        members(header)?,
        members(claims)?
    ))
}

/// Decodes unpadded base64url (RFC 7515 §2) by way of the padded
/// standard alphabet.
fn base64url(part: &str) -> Option<Vec<u8>> {
    let mut standard = part.replace('-', "+").replace('_', "/");
    while !standard.len().is_multiple_of(4) {
        standard.push('=');
    }
    base64::decode(&standard)
}

#[cfg(test)]
mod tests {
    use super::readable;

    #[test]
    fn a_jwt_reads_as_its_header_and_claims_without_the_signature() {
        // {"alg":"none"} . {"scope":"a"} . signature
        let token = "eyJhbGciOiJub25lIn0.eyJzY29wZSI6ImEifQ.c2lnbmF0dXJl";
        assert_eq!(
            readable(token).as_deref(),
            Some("<JWT alg=none | scope=a | signature elided>")
        );
        assert!(!readable(token).unwrap().contains("c2lnbmF0dXJl"));
    }

    #[test]
    fn what_is_no_jwt_has_no_reading() {
        assert_eq!(readable("mcp-conform-garbage-token"), None);
        assert_eq!(readable("a.b.c"), None);
    }
}
