//! The OpenTelemetry keys reserved in `_meta` from 2026-07-28 hold values
//! in the W3C Trace Context (`traceparent`, `tracestate`) and Baggage
//! formats (META-002).

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value};

use super::violation::Violation;
use crate::json::pointer_member;
use crate::protocol::cite;

/// Reports every reserved trace key of `meta` (at `pointer`) whose value
/// breaks its format.
pub(super) fn check_trace_keys(meta: &Map<String, Value>, pointer: &str, out: &mut Vec<Violation>) {
    let rules: [(&str, Validator, &str); 3] = [
        (
            "traceparent",
            is_traceparent,
            "W3C traceparent (version-traceid-parentid-flags)",
        ),
        (
            "tracestate",
            is_tracestate,
            "W3C tracestate (at most 32 key=value members)",
        ),
        (
            "baggage",
            is_baggage,
            "W3C baggage (key=value members with properties)",
        ),
    ];
    for (key, valid, format) in rules {
        let Some(value) = meta.get(key) else { continue };
        if !value.as_str().is_some_and(valid) {
            let message = format!("`_meta.{key}` is {value}, not a {format} value");
            out.push(Violation::must(cite::META_002, message).at(pointer_member(pointer, key)));
        }
    }
}

/// Whether a text is a valid value of one key.
type Validator = fn(&str) -> bool;

fn is_traceparent(text: &str) -> bool {
    let Some(parts) = TRACEPARENT.captures(text) else {
        return false;
    };
    let version = &parts[1];
    let zero = |s: &str| s.bytes().all(|b| b == b'0');
    version != "ff" && !zero(&parts[2]) && !zero(&parts[3]) && (version != "00" || parts.get(4).is_none())
}

fn is_tracestate(text: &str) -> bool {
    let members: Vec<&str> = text
        .split(',')
        .map(|m| m.trim_matches([' ', '\t']))
        .filter(|m| !m.is_empty())
        .collect();
    members.len() <= 32 && members.iter().all(|m| TRACESTATE_MEMBER.is_match(m))
}

fn is_baggage(text: &str) -> bool {
    text.split(',').all(|member| {
        let mut parts = member.split(';');
        let pair = parts.next().unwrap_or_default();
        BAGGAGE_PAIR.is_match(pair) && parts.all(|property| BAGGAGE_PROPERTY.is_match(property))
    })
}

static TRACEPARENT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}(-.*)?$").unwrap());

/// A simple or multi-tenant key, `=`, and a value of printable ASCII but
/// `,` and `=` that does not end in a space.
static TRACESTATE_MEMBER: LazyLock<Regex> = LazyLock::new(|| {
    let simple = r"[a-z][_0-9a-z*/-]{0,255}";
    let tenant = r"[a-z0-9][_0-9a-z*/-]{0,240}@[a-z][_0-9a-z*/-]{0,13}";
    let value = r"[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]";
    Regex::new(&format!("^(?:{simple}|{tenant})={value}$")).unwrap()
});

const TOKEN: &str = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const BAGGAGE_VALUE: &str = r"[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*";

static BAGGAGE_PAIR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"^[ \t]*{TOKEN}[ \t]*=[ \t]*{BAGGAGE_VALUE}[ \t]*$")).unwrap());

static BAGGAGE_PROPERTY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"^[ \t]*{TOKEN}[ \t]*(?:=[ \t]*{BAGGAGE_VALUE}[ \t]*)?$"
    ))
    .unwrap()
});

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn trace_context_values_follow_the_w3c_formats() {
        assert!(is_traceparent(
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        ));
        assert!(!is_traceparent(
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01"
        ));
        assert!(!is_traceparent(
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        ));
        assert!(!is_traceparent(
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"
        ));
        assert!(is_tracestate("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"));
        assert!(is_tracestate("tenant@vendor=x"));
        assert!(!is_tracestate("Rojo=1"));
        assert!(!is_tracestate("rojo=a=b"));
        assert!(is_baggage(
            "userId=alice,serverNode=DF%2028,isProduction=false;prop"
        ));
        assert!(!is_baggage("no value here"));
        assert!(!is_baggage("key=has space"));
    }

    #[test]
    fn bad_values_are_reported_at_their_key() {
        let meta = json!({"traceparent": 7, "baggage": "a=1", "other": "x"});
        let mut out = Vec::new();
        check_trace_keys(meta.as_object().unwrap(), "/params/_meta", &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].requirement, cite::META_002);
        assert_eq!(out[0].pointer.as_deref(), Some("/params/_meta/traceparent"));
    }
}
