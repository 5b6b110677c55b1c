//! The headers a 2026-07-28 POST mirrors from its body, so that
//! intermediaries can route without parsing it: `MCP-Protocol-Version`,
//! `Mcp-Method`, `Mcp-Name` (tools/call, resources/read, prompts/get), and
//! `Mcp-Param-{Name}` for tool parameters marked `x-mcp-header`. A header
//! that is missing, malformed or disagrees with the body is refused with
//! `HeaderMismatch` (-32020, HTTP 400; HTTP-021). Values that are not
//! header-safe travel as `=?base64?…?=` and are decoded before comparing.

use hyper::header::HeaderMap;
use serde_json::{Map, Value};

use mcp_conform_core::wire;
use mcp_conform_core::wire::headers::{METHOD, NAME, PARAM_PREFIX};

use crate::reference::era::PROTOCOL_VERSION;
use crate::reference::tools;
use mcp_conform_core::wire::jsonrpc::{RpcError, code};
use mcp_conform_core::wire::mirror::{decode, named_member, same_value};

fn mismatch(message: String) -> RpcError {
    RpcError::new(code::HEADER_MISMATCH, format!("Header mismatch: {message}"))
}

/// A header's value as the client meant it: decoded when it uses the
/// base64 sentinel. `Err` when absent, not visible ASCII, or badly encoded.
fn read(headers: &HeaderMap, name: &str) -> Result<String, RpcError> {
    let value = headers
        .get(name)
        .ok_or_else(|| mismatch(format!("the required {name} header is missing")))?;
    let text = value
        .to_str()
        .map_err(|_| mismatch(format!("{name} holds characters a header value may not carry")))?;
    decode(text).ok_or_else(|| mismatch(format!("{name} is not valid =?base64?…?= UTF-8")))
}

/// Compares a header with the body value it mirrors.
fn expect(headers: &HeaderMap, name: &str, body: &str) -> Result<(), RpcError> {
    let header = read(headers, name)?;
    if header != body {
        return Err(mismatch(format!(
            "{name} header value {header:?} does not match body value {body:?}"
        )));
    }
    Ok(())
}

/// Checks the mirrored headers of a request for `method` with `params`.
/// Body values that are missing or of the wrong type are left to the
/// request's own validation.
pub(super) fn check(headers: &HeaderMap, method: &str, params: &Map<String, Value>) -> Result<(), RpcError> {
    let version = params
        .get("_meta")
        .and_then(|meta| meta.get(PROTOCOL_VERSION))
        .and_then(Value::as_str);
    match version {
        Some(version) => expect(headers, wire::headers::PROTOCOL_VERSION, version)?,
        None => drop(read(headers, wire::headers::PROTOCOL_VERSION)?),
    }
    expect(headers, METHOD, method)?;
    if let Some(member) = named_member(method) {
        match params.get(member).and_then(Value::as_str) {
            Some(name) => expect(headers, NAME, name)?,
            None => drop(read(headers, NAME)?),
        }
    }
    if method == "tools/call" {
        check_parameters(headers, params)?;
    }
    Ok(())
}

/// `Mcp-Param-{Name}` for each parameter of the called tool marked
/// `x-mcp-header`: present exactly when the argument has a value, and equal to it.
fn check_parameters(headers: &HeaderMap, params: &Map<String, Value>) -> Result<(), RpcError> {
    let Some(tool) = params.get("name").and_then(Value::as_str) else {
        return Ok(());
    };
    let arguments = params.get("arguments").and_then(Value::as_object);
    for (header, parameter) in tools::header_parameters(tool) {
        let name = format!("{PARAM_PREFIX}{}", header.to_ascii_lowercase());
        let argument = arguments
            .and_then(|a| a.get(&parameter))
            .filter(|value| !value.is_null());
        match argument {
            Some(argument) => {
                let value = read(headers, &name)?;
                if !same_value(&value, argument) {
                    return Err(mismatch(format!(
                        "Mcp-Param-{header} header value {value:?} does not match argument `{parameter}` {argument}"
                    )));
                }
            }
            None if headers.contains_key(&name) => {
                return Err(mismatch(format!(
                    "Mcp-Param-{header} is sent, but argument `{parameter}` has no value"
                )));
            }
            None => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use hyper::header::HeaderValue;
    use serde_json::json;

    use super::*;
    use mcp_conform_core::wire::mirror::encode;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(
                hyper::header::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                HeaderValue::from_str(value).unwrap(),
            );
        }
        map
    }

    fn call(arguments: Value) -> Map<String, Value> {
        json!({
            "name": "region_echo",
            "arguments": arguments,
            "_meta": { PROTOCOL_VERSION: "2026-07-28" },
        })
        .as_object()
        .unwrap()
        .clone()
    }

    const BASE: [(&str, &str); 3] = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "region_echo"),
    ];

    fn with(extra: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut pairs = BASE.to_vec();
        pairs.extend_from_slice(extra);
        headers(&pairs)
    }

    #[test]
    fn matching_headers_pass_and_any_mismatch_is_32020() {
        let params = call(json!({ "region": "us-west1", "text": "hi" }));
        assert!(check(&with(&[("mcp-param-region", "us-west1")]), "tools/call", &params).is_ok());
        for broken in [
            vec![("mcp-param-region", "eu")],
            vec![],
            vec![("mcp-param-region", "us-west1"), ("mcp-method", "tools/list")],
            vec![("mcp-param-region", "us-west1"), ("mcp-name", "echo")],
            vec![
                ("mcp-param-region", "us-west1"),
                ("mcp-protocol-version", "2025-11-25"),
            ],
        ] {
            let error = check(&with(&broken), "tools/call", &params).unwrap_err();
            assert_eq!(error.code, -32020, "{broken:?}");
        }
        let no_region = call(json!({ "text": "hi" }));
        assert!(check(&with(&[]), "tools/call", &no_region).is_ok());
        assert!(check(&with(&[("mcp-param-region", "x")]), "tools/call", &no_region).is_err());
    }

    #[test]
    fn base64_values_are_decoded_before_comparing() {
        let params = call(json!({ "region": "Hello, 世界", "text": "hi" }));
        let encoded = encode("Hello, 世界");
        assert_eq!(encoded, "=?base64?SGVsbG8sIOS4lueVjA==?=");
        let sent = headers(&[
            BASE[0],
            BASE[1],
            ("mcp-name", "=?base64?cmVnaW9uX2VjaG8=?="),
            ("mcp-param-region", &encoded),
        ]);
        assert!(check(&sent, "tools/call", &params).is_ok());
        let garbled = with(&[("mcp-param-region", "=?base64?!!?=")]);
        assert_eq!(check(&garbled, "tools/call", &params).unwrap_err().code, -32020);
    }
}
