//! What of a recorded value would differ on the next run, and how the
//! scenario says it instead: a value the server makes up each time (a
//! timestamp, a UUID, an opaque token, a cursor) is matched by its type,
//! or by a regex when it sits inside longer text; one the client sends back
//! later is captured and sent back as the variable. Every kind replaced is
//! noted, so the file's header comment can name it.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use mcp_conform_core::redact::Secrets;
use mcp_conform_core::wire::headers::{REDACTED, is_secret};
use regex::Regex;
use serde_json::{Map, Value, json};

/// Members whose values are the server's own bookkeeping, whatever they look like.
const OPAQUE_MEMBERS: [(&str, &str); 4] = [
    ("nextCursor", "cursors"),
    ("cursor", "cursors"),
    ("requestState", "request states"),
    ("sessionId", "session ids"),
];

/// Shorter strings are too likely to be words to call them random.
const TOKEN_MIN_CHARS: usize = 16;

static TIMESTAMP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?")
        .expect("valid regex")
});
static UUID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
        .expect("valid regex")
});
static TOKEN: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[A-Za-z0-9_\-+/=.]+$").expect("valid regex"));

/// What was generalized, in words, for the header comment.
pub type Notes = BTreeSet<&'static str>;

/// Why a whole string would differ next time, if it would.
fn volatile(member: Option<&str>, text: &str) -> Option<&'static str> {
    if let Some((_, kind)) = OPAQUE_MEMBERS.iter().find(|(name, _)| Some(*name) == member) {
        return Some(kind);
    }
    let whole = |re: &Regex| re.find(text).is_some_and(|m| m.len() == text.len());
    if whole(&TIMESTAMP) {
        return Some("timestamps");
    }
    if whole(&UUID) {
        return Some("UUIDs");
    }
    let mixed = text.chars().any(|c| c.is_ascii_digit()) && text.chars().any(|c| c.is_ascii_alphabetic());
    (text.len() >= TOKEN_MIN_CHARS && mixed && TOKEN.is_match(text)).then_some("random tokens")
}

/// A regex for text holding timestamps or UUIDs among fixed words, when it does.
fn embedded(text: &str) -> Option<String> {
    let mut spans: Vec<(usize, usize, &str)> = TIMESTAMP
        .find_iter(text)
        .map(|m| {
            (
                m.start(),
                m.end(),
                r"\d{4}-\d{2}-\d{2}[T ][0-9:.]+(Z|[+-][0-9:]+)?",
            )
        })
        .chain(
            UUID.find_iter(text)
                .map(|m| (m.start(), m.end(), "[0-9a-fA-F-]{36}")),
        )
        .collect();
    if spans.is_empty() {
        return None;
    }
    spans.sort();
    let mut pattern = String::from("^");
    let mut at = 0;
    for (start, end, wildcard) in spans {
        if start < at {
            continue;
        }
        pattern.push_str(&regex::escape(&text[at..start]));
        pattern.push_str(wildcard);
        at = end;
    }
    pattern.push_str(&regex::escape(&text[at..]));
    pattern.push('$');
    Some(pattern)
}

/// Literal text in a template: `${` written so it stays text.
pub fn literal(text: &str) -> String {
    text.replace("${", "$${")
}

/// The expectation for a recorded answer: the value itself, with what would
/// differ next time as wildcards, secrets as wildcards, and literal `$`
/// members and `${` escaped.
pub fn pattern(value: &Value, secrets: &Secrets, notes: &mut Notes) -> Value {
    pattern_of(None, value, &Known::new(), secrets, notes)
}

/// Strings a replay sends verbatim, so that they come back the same.
pub type Known = BTreeSet<String>;

/// [`pattern`], with the strings in `known` (those the replay itself
/// sends, such as the cursors a scripted server hands out) kept literal.
pub fn pattern_knowing(value: &Value, known: &Known, secrets: &Secrets, notes: &mut Notes) -> Value {
    pattern_of(None, value, known, secrets, notes)
}

fn pattern_of(
    member: Option<&str>,
    value: &Value,
    known: &Known,
    secrets: &Secrets,
    notes: &mut Notes,
) -> Value {
    match value {
        Value::String(text) if known.contains(text) => Value::String(literal(text)),
        Value::String(text) => {
            let secret = member.is_some_and(is_secret) || secrets.redact(text) != text.as_str();
            if secret {
                notes.insert("secrets");
                return json!({"$type": "string"});
            }
            if let Some(kind) = volatile(member, text) {
                notes.insert(kind);
                return json!({"$type": "string"});
            }
            match embedded(text) {
                Some(regex) => {
                    notes.insert("timestamps and UUIDs inside text");
                    json!({"$regex": regex})
                }
                None => Value::String(literal(text)),
            }
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| pattern_of(None, item, known, secrets, notes))
                .collect(),
        ),
        Value::Object(members) => {
            let mut out = Map::new();
            for (name, value) in members {
                let key = match name.starts_with('$') {
                    true => format!("${name}"),
                    false => name.clone(),
                };
                out.insert(key, pattern_of(Some(name), value, known, secrets, notes));
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

/// What the client sends, as a template: secrets redacted (secret-named
/// members and the user's `--secret` values), `${` escaped.
pub fn sent(value: &Value, secrets: &Secrets, notes: &mut Notes) -> Value {
    sent_of(None, value, secrets, notes)
}

fn sent_of(member: Option<&str>, value: &Value, secrets: &Secrets, notes: &mut Notes) -> Value {
    match value {
        Value::String(text) => {
            let redacted = match member.is_some_and(is_secret) {
                true => REDACTED.to_owned(),
                false => secrets.redact(text).into_owned(),
            };
            if redacted != *text {
                notes.insert("secrets");
            }
            Value::String(literal(&redacted))
        }
        Value::Array(items) => Value::Array(items.iter().map(|i| sent_of(None, i, secrets, notes)).collect()),
        Value::Object(members) => Value::Object(
            members
                .iter()
                .map(|(name, value)| (name.clone(), sent_of(Some(name), value, secrets, notes)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The strings of an answer that would differ next time, each with the
/// JSONPath that reaches it from the response (`$.result.nextCursor`).
pub fn volatile_strings(result: &Value) -> Vec<(String, String)> {
    let mut found = Vec::new();
    walk(None, result, "$.result".to_owned(), &mut found);
    found
}

fn walk(member: Option<&str>, value: &Value, path: String, found: &mut Vec<(String, String)>) {
    match value {
        Value::String(text) if volatile(member, text).is_some() => found.push((text.clone(), path)),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                walk(None, item, format!("{path}[{i}]"), found);
            }
        }
        Value::Object(members) => {
            for (name, value) in members {
                let plain = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                let step = match plain {
                    true => format!("{path}.{name}"),
                    false => format!("{path}['{}']", name.replace('\\', "\\\\").replace('\'', "\\'")),
                };
                walk(Some(name), value, step, found);
            }
        }
        _ => {}
    }
}

/// Whether `value` holds the string `text` anywhere.
pub fn contains(value: &Value, text: &str) -> bool {
    match value {
        Value::String(s) => s == text,
        Value::Array(items) => items.iter().any(|i| contains(i, text)),
        Value::Object(members) => members.values().any(|v| contains(v, text)),
        _ => false,
    }
}

/// `value` with every string equal to `text` replaced by `reference`.
pub fn substitute(value: &mut Value, text: &str, reference: &str) {
    match value {
        Value::String(s) if s == text => *s = reference.to_owned(),
        Value::Array(items) => items.iter_mut().for_each(|i| substitute(i, text, reference)),
        Value::Object(members) => members.values_mut().for_each(|v| substitute(v, text, reference)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_server_makes_up_becomes_a_wildcard() {
        let mut notes = Notes::new();
        let recorded = json!({
            "nextCursor": "2",
            "at": "2026-11-27T00:41:05.123Z",
            "id": "0b6f2c5e-8a4e-4c1e-9d3a-2f6b1c9e7a10",
            "token": "x",
            "etag": "a81bc81b7d3e4f2a9c",
            "text": "Hello at 2026-11-27 00:41:05 (ok)",
            "name": "echo-tool-for-everyone",
            "$schema": "${x}",
        });
        assert_eq!(
            pattern(&recorded, &Secrets::default(), &mut notes),
            json!({
                "nextCursor": {"$type": "string"},
                "at": {"$type": "string"},
                "id": {"$type": "string"},
                "token": {"$type": "string"},
                "etag": {"$type": "string"},
                "text": {"$regex": r"^Hello at \d{4}-\d{2}-\d{2}[T ][0-9:.]+(Z|[+-][0-9:]+)? \(ok\)$"},
                "name": "echo-tool-for-everyone",
                "$$schema": "$${x}",
            })
        );
        assert_eq!(
            notes.into_iter().collect::<Vec<_>>(),
            [
                "UUIDs",
                "cursors",
                "random tokens",
                "secrets",
                "timestamps",
                "timestamps and UUIDs inside text"
            ]
        );
    }

    #[test]
    fn secrets_are_redacted_in_what_is_sent() {
        let mut secrets = Secrets::default();
        secrets.add("hunter2-very-secret");
        let mut notes = Notes::new();
        let sent = sent(
            &json!({"apiKey": "abc", "text": "pw hunter2-very-secret", "n": 1}),
            &secrets,
            &mut notes,
        );
        assert_eq!(
            sent,
            json!({"apiKey": REDACTED, "text": format!("pw {REDACTED}"), "n": 1})
        );
        assert!(notes.contains("secrets"));
    }

    #[test]
    fn volatile_strings_are_found_with_their_paths() {
        let result = json!({"tools": [{"name": "a"}], "nextCursor": "c1", "_meta": {"a/b": "0b6f2c5e-8a4e-4c1e-9d3a-2f6b1c9e7a10"}});
        assert_eq!(
            volatile_strings(&result),
            vec![
                ("c1".to_owned(), "$.result.nextCursor".to_owned()),
                (
                    "0b6f2c5e-8a4e-4c1e-9d3a-2f6b1c9e7a10".to_owned(),
                    "$.result._meta['a/b']".to_owned()
                ),
            ]
        );
        let mut params = json!({"cursor": "c1", "other": ["c1", "c2"]});
        assert!(contains(&params, "c1"));
        substitute(&mut params, "c1", "${cursor_1}");
        assert!(!contains(&params, "c1"));
        assert_eq!(
            params,
            json!({"cursor": "${cursor_1}", "other": ["${cursor_1}", "c2"]})
        );
    }
}
