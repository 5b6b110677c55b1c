//! Custom request headers (`--header 'K: V'`) and the redaction of secret
//! values wherever headers are recorded.

use std::collections::BTreeMap;

pub(crate) use mcp_conform_core::wire::headers::REDACTED;
pub use mcp_conform_core::wire::headers::is_secret;
use mcp_conform_core::wire::headers::is_token_byte;

use super::super::TransportError;

/// The value as it may be recorded: itself, or [`REDACTED`].
pub fn redacted<'v>(name: &str, value: &'v str) -> &'v str {
    if is_secret(name) { REDACTED } else { value }
}

/// Headers as recorded in a frame: lower-case names, secret values redacted.
pub fn record<'h>(headers: impl IntoIterator<Item = (&'h str, &'h [u8])>) -> BTreeMap<String, String> {
    let mut recorded = BTreeMap::new();
    for (name, value) in headers {
        let name = name.to_ascii_lowercase();
        let value = String::from_utf8_lossy(value);
        let value = redacted(&name, &value).to_owned();
        recorded
            .entry(name)
            .and_modify(|existing: &mut String| {
                existing.push_str(", ");
                existing.push_str(&value);
            })
            .or_insert(value);
    }
    recorded
}

/// Reads `Name: value` as given to `--header`. The error never repeats a
/// secret value.
pub fn parse_header(text: &str) -> Result<(String, String), TransportError> {
    let Some((name, value)) = text.split_once(':') else {
        let shown = if is_secret(text) { REDACTED } else { text };
        return Err(TransportError::Header(format!("`{shown}` is not `Name: value`")));
    };
    let name = name.trim();
    let value = value.trim();
    if name.is_empty() || !name.bytes().all(is_token_byte) {
        return Err(TransportError::Header(format!(
            "`{name}` is not a valid header name"
        )));
    }
    if value.bytes().any(|b| b.is_ascii_control() && b != b'\t') {
        return Err(TransportError::Header(format!(
            "the value of `{name}` contains control characters"
        )));
    }
    Ok((name.to_owned(), value.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_names_are_recognised_in_any_case() {
        for name in [
            "Authorization",
            "proxy-authorization",
            "Cookie",
            "set-cookie",
            "X-Api-Key",
            "x-auth-token",
            "X-Client-Secret",
        ] {
            assert!(is_secret(name), "{name}");
            assert_eq!(redacted(name, "hunter2"), REDACTED);
        }
        for name in ["content-type", "mcp-session-id", "accept", "mcp-protocol-version"] {
            assert!(!is_secret(name), "{name}");
            assert_eq!(redacted(name, "v"), "v");
        }
    }

    #[test]
    fn recorded_headers_are_lower_case_and_redacted() {
        let headers = [
            ("Authorization", b"Bearer abc".as_slice()),
            ("Content-Type", b"application/json".as_slice()),
            ("Set-Cookie", b"a=1".as_slice()),
            ("set-cookie", b"b=2".as_slice()),
        ];
        let recorded = record(headers);
        assert_eq!(recorded["authorization"], REDACTED);
        assert_eq!(recorded["content-type"], "application/json");
        assert_eq!(recorded["set-cookie"], "<redacted>, <redacted>");
        assert!(!format!("{recorded:?}").contains("abc"));
    }

    #[test]
    fn header_arguments_are_parsed_and_errors_hide_secrets() {
        assert_eq!(
            parse_header("Authorization: Bearer x:y").unwrap(),
            ("Authorization".into(), "Bearer x:y".into())
        );
        assert_eq!(
            parse_header("X-Empty:").unwrap(),
            ("X-Empty".into(), String::new())
        );
        let error = parse_header("X-Api-Key=s3cr3t").unwrap_err().to_string();
        assert!(!error.contains("s3cr3t"), "{error}");
        assert!(parse_header("Bad Name: v").is_err());
        assert!(parse_header(": v").is_err());
        assert!(parse_header("X: a\nb").is_err());
    }
}
