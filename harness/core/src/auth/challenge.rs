//! A `WWW-Authenticate` value (RFC 9110 §11.6.1, RFC 6750 §3) as data the
//! matchers read: `{scheme, <param>: <value>...}` for its first challenge,
//! parameter names lower-cased, quoted values unescaped.

use serde_json::{Map, Value};

/// The first challenge of `header`, or `None` when it names no scheme.
/// A server offering several schemes lists Bearer first or alone in
/// practice; the parameters read are those up to the next scheme.
pub fn challenge(header: &str) -> Option<Value> {
    let mut rest = header.trim_start();
    let scheme_end = rest.find([' ', ',']).unwrap_or(rest.len());
    let scheme = &rest[..scheme_end];
    if scheme.is_empty() || scheme.contains('=') {
        return None;
    }
    let mut fields = Map::new();
    fields.insert("scheme".into(), Value::String(scheme.to_owned()));
    rest = &rest[scheme_end..];
    while let Some((name, value, after)) = parameter(rest) {
        fields
            .entry(name.to_ascii_lowercase())
            .or_insert(Value::String(value));
        rest = after;
    }
    Some(Value::Object(fields))
}

/// The `name=value` at the start of `text` (after separators) and what
/// follows it; `None` at the end or at the next challenge's scheme.
fn parameter(text: &str) -> Option<(String, String, &str)> {
    let text = text.trim_start_matches([' ', ',', '\t']);
    let equals = text.find('=')?;
    let name = text[..equals].trim();
    if name.is_empty() || name.contains([' ', ',', '"']) {
        return None;
    }
    let after = text[equals + 1..].trim_start();
    match after.strip_prefix('"') {
        Some(quoted) => {
            let mut value = String::new();
            let mut chars = quoted.char_indices();
            while let Some((at, c)) = chars.next() {
                match c {
                    '\\' => value.extend(chars.next().map(|(_, escaped)| escaped)),
                    '"' => return Some((name.to_owned(), value, &quoted[at + 1..])),
                    c => value.push(c),
                }
            }
            // An unterminated quote: the rest is its value.
            Some((name.to_owned(), value, ""))
        }
        None => {
            let end = after.find([',', ' ']).unwrap_or(after.len());
            Some((name.to_owned(), after[..end].to_owned(), &after[end..]))
        }
    }
}

#[cfg(test)]
mod tests;
