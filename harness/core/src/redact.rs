//! Secret values kept out of every output. The user's secrets (values of
//! secret-looking `--header`s, `--secret`, `MCP_CONFORM_SECRETS`) are
//! replaced by [`REDACTED`] wherever they appear, also when a peer echoes
//! them: verbatim, inside a JSON string (escaped, or spelled with `\u`
//! escapes), percent-encoded, base64-encoded at any alignment, or cut
//! short where a message shortens what it shows (`…`). Redacting
//! the report model where a case enters it (`harness::report`) covers every
//! output written from it.

use std::borrow::Cow;

use serde_json::Value;

use crate::wire::base64;
pub use crate::wire::headers::REDACTED;
use crate::wire::headers::is_secret;

/// Values shorter than this are not searched for: they would turn ordinary
/// words of every output into `<redacted>`. (Their headers are still
/// recorded redacted by name.)
pub const MIN_SECRET_CHARS: usize = 6;

/// The secrets of a run and every spelling of them that is searched for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Secrets {
    /// Each spelling and what replaces it, longest first, so that a
    /// spelling containing another goes whole.
    forms: Vec<(String, String)>,
}

impl Secrets {
    /// Whether there is nothing to redact.
    pub fn is_empty(&self) -> bool {
        self.forms.is_empty()
    }

    /// A value given as secret (`--secret`).
    pub fn add(&mut self, value: &str) {
        self.add_shown_as(value, REDACTED);
    }

    /// A secret whose verbatim spelling is replaced by `shown`, a
    /// description that gives nothing away (a minted token decoded without
    /// its signature, `core::auth::readable`); its other spellings are
    /// replaced by [`REDACTED`].
    pub fn add_shown_as(&mut self, value: &str, shown: &str) {
        let value = value.trim();
        if value.chars().count() < MIN_SECRET_CHARS {
            return;
        }
        for form in spellings(value) {
            if !self.forms.iter().any(|(known, _)| *known == form) {
                let replacement = if form == value { shown } else { REDACTED };
                self.forms.push((form, replacement.to_owned()));
            }
        }
        self.forms
            .sort_by(|(a, _), (b, _)| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    }

    /// A header sent to the peer: a secret-looking one's value, and the parts
    /// of it a server may echo alone (the credential after an
    /// authorization scheme, a Basic credential decoded and its password,
    /// each cookie's value).
    pub fn add_header(&mut self, name: &str, value: &str) {
        if !is_secret(name) {
            return;
        }
        self.add(value);
        if let Some((_scheme, credential)) = value.trim().split_once(' ') {
            self.add(credential);
            if let Some(decoded) = base64::decode(credential.trim()).and_then(|b| String::from_utf8(b).ok()) {
                self.add(&decoded);
                if let Some((_user, password)) = decoded.split_once(':') {
                    self.add(password);
                }
            }
        }
        for cookie in value.split(';') {
            if let Some((_name, cookie_value)) = cookie.split_once('=') {
                self.add(cookie_value);
            }
        }
    }

    /// `text` with every secret replaced by [`REDACTED`]; a JSON text whose
    /// strings still hold a secret once decoded is written again, redacted.
    pub fn redact<'t>(&self, text: &'t str) -> Cow<'t, str> {
        if self.is_empty() {
            return Cow::Borrowed(text);
        }
        let mut redacted = Cow::Borrowed(text);
        for (form, replacement) in &self.forms {
            if redacted.contains(form.as_str()) {
                redacted = Cow::Owned(redacted.replace(form.as_str(), replacement));
            }
        }
        if let Some(uncut) = self.redact_cut_short(&redacted) {
            redacted = Cow::Owned(uncut);
        }
        if looks_like_json(&redacted)
            && let Ok(mut value) = serde_json::from_str::<Value>(&redacted)
            && self.redact_value(&mut value)
        {
            return Cow::Owned(value.to_string());
        }
        redacted
    }

    /// Redacts every string and key of `value`; whether anything changed.
    pub fn redact_value(&self, value: &mut Value) -> bool {
        match value {
            Value::String(text) => match self.redact(text) {
                Cow::Owned(redacted) => {
                    *text = redacted;
                    true
                }
                Cow::Borrowed(_) => false,
            },
            Value::Array(items) => {
                let mut changed = false;
                for item in items {
                    changed |= self.redact_value(item);
                }
                changed
            }
            Value::Object(members) => {
                let mut changed = false;
                *members = std::mem::take(members)
                    .into_iter()
                    .map(|(key, mut member)| {
                        changed |= self.redact_value(&mut member);
                        let redacted = self.redact(&key).into_owned();
                        changed |= redacted != key;
                        (redacted, member)
                    })
                    .collect();
                changed
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => false,
        }
    }

    /// `text` with the beginning of a secret that ends where the text was
    /// cut short ([`CUT`], as the matcher shortens the values it shows)
    /// replaced by [`REDACTED`]; `None` when there is none. A beginning
    /// shorter than [`MIN_SECRET_CHARS`] is left, as a short secret is.
    fn redact_cut_short(&self, text: &str) -> Option<String> {
        if !text.contains(CUT) {
            return None;
        }
        let mut uncut = String::with_capacity(text.len());
        let mut changed = false;
        let mut pieces = text.split(CUT).peekable();
        while let Some(piece) = pieces.next() {
            let cut_here = pieces.peek().is_some();
            let secret = self
                .forms
                .iter()
                .filter(|_| cut_here)
                .filter_map(|(form, _)| beginning_at_end(piece, form))
                .max()
                .unwrap_or(0);
            uncut.push_str(&piece[..piece.len() - secret]);
            if secret > 0 {
                uncut.push_str(REDACTED);
                changed = true;
            }
            if cut_here {
                uncut.push(CUT);
            }
        }
        changed.then_some(uncut)
    }
}

/// What marks a text cut short.
const CUT: char = '\u{2026}';

/// The length of the longest beginning of `form` (at least
/// [`MIN_SECRET_CHARS`] long) that `text` ends with.
fn beginning_at_end(text: &str, form: &str) -> Option<usize> {
    let head: String = form.chars().take(MIN_SECRET_CHARS).collect();
    text.match_indices(&head)
        .map(|(at, _)| &text[at..])
        .find(|tail| form.starts_with(tail))
        .map(str::len)
}

fn looks_like_json(text: &str) -> bool {
    matches!(text.trim_start().as_bytes().first(), Some(b'{' | b'[' | b'"'))
}

/// Every spelling of `secret` searched for: itself, JSON-escaped,
/// percent-encoded (either hex case, space as `+` too) and base64 at each
/// of the three alignments (standard and URL-safe alphabets).
fn spellings(secret: &str) -> Vec<String> {
    let mut forms = vec![secret.to_owned()];
    let escaped = serde_json::to_string(secret).expect("a string serializes");
    forms.push(escaped[1..escaped.len() - 1].to_owned());
    let percent = percent_encoded(secret, HexCase::Upper);
    forms.push(percent.replace("%20", "+"));
    forms.push(percent);
    forms.push(percent_encoded(secret, HexCase::Lower));
    if secret.len() >= MIN_SECRET_CHARS {
        for stable in base64_cores(secret.as_bytes()) {
            forms.push(stable.replace('+', "-").replace('/', "_"));
            forms.push(stable);
        }
    }
    forms.retain(|f| f.chars().count() >= MIN_SECRET_CHARS);
    forms.sort();
    forms.dedup();
    forms
}

/// How the hex digits of a percent-encoding are written.
enum HexCase {
    Upper,
    Lower,
}

/// Every byte but RFC 3986's unreserved ones as `%XX`.
fn percent_encoded(text: &str, case: HexCase) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            match case {
                HexCase::Upper => out.push_str(&format!("%{byte:02X}")),
                HexCase::Lower => out.push_str(&format!("%{byte:02x}")),
            }
        }
    }
    out
}

/// The part of the base64 of `secret` that is the same whatever bytes
/// surround it, for the secret starting at each offset modulo 3.
fn base64_cores(secret: &[u8]) -> Vec<String> {
    (0..3)
        .map(|offset| {
            let mut bytes = vec![0; offset];
            bytes.extend_from_slice(secret);
            let encoded = base64::encode(&bytes);
            // Characters mixing bits of the bytes before or after are not the secret's alone.
            let first = (offset * 8).div_ceil(6);
            let end = (bytes.len() * 8) / 6;
            encoded[first..end].to_owned()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_shown_as_a_description_keeps_it_verbatim_and_redacts_other_spellings() {
        let mut secrets = Secrets::default();
        secrets.add_shown_as("tok+en/secret", "<a token>");
        assert_eq!(secrets.redact("Bearer tok+en/secret"), "Bearer <a token>");
        assert_eq!(secrets.redact("?t=tok%2Ben%2Fsecret"), format!("?t={REDACTED}"));
        let json = r#"{"a":"tok+en/secret"}"#;
        assert_eq!(secrets.redact(json), r#"{"a":"<a token>"}"#);
    }

    fn secrets(values: &[&str]) -> Secrets {
        let mut secrets = Secrets::default();
        for value in values {
            secrets.add(value);
        }
        secrets
    }

    #[test]
    fn every_echo_of_a_secret_is_redacted() {
        let secrets = secrets(&["s3cr3t/value key"]);
        for echo in [
            "s3cr3t/value key",
            "s3cr3t%2Fvalue%20key",
            "s3cr3t%2fvalue%20key",
            "s3cr3t%2Fvalue+key",
            &base64::encode(b"s3cr3t/value key"),
            &base64::encode(b"x:s3cr3t/value key"),
            &base64::encode(b"xy:s3cr3t/value key!"),
            &base64::encode(b"s3cr3t/value key")
                .replace('+', "-")
                .replace('/', "_"),
        ] {
            let text = format!("before {echo} after");
            let redacted = secrets.redact(&text);
            assert!(redacted.contains(REDACTED), "{echo}: {redacted}");
            assert!(!redacted.contains("s3cr3t"), "{echo}: {redacted}");
        }
        assert_eq!(secrets.redact("nothing here"), "nothing here");
    }

    #[test]
    fn a_secret_cut_short_is_redacted_up_to_the_cut() {
        let secrets = secrets(&["eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl"]);
        assert_eq!(
            secrets.redact("got \"you sent eyJhbGciOi.eyJzd…: no match"),
            format!("got \"you sent {REDACTED}…: no match")
        );
        assert_eq!(
            secrets.redact("ends eyJhb…"),
            "ends eyJhb…",
            "shorter than a secret"
        );
        assert_eq!(
            secrets.redact("eyJhbGciOi.eyJzd, uncut"),
            "eyJhbGciOi.eyJzd, uncut"
        );
    }

    #[test]
    fn json_escapes_do_not_hide_a_secret() {
        let secrets = secrets(&["tok\"en-1234"]);
        let escaped = r#"{"a":"tok\"en-1234"}"#;
        assert_eq!(secrets.redact(escaped), r#"{"a":"<redacted>"}"#);
        let spelled = r#"{"a":"\u0074ok\"en-1234 and more","k":1}"#;
        assert_eq!(secrets.redact(spelled), r#"{"a":"<redacted> and more","k":1}"#);
        let nested = Value::String(r#"{"inner":"\u0074ok\"en-1234"}"#.into());
        let mut outer = serde_json::json!({"text": nested, "tok\"en-1234": 1});
        assert!(secrets.redact_value(&mut outer));
        assert_eq!(
            outer,
            serde_json::json!({"text": r#"{"inner":"<redacted>"}"#, "<redacted>": 1})
        );
    }

    #[test]
    fn header_credentials_are_secret_in_their_parts_too() {
        let mut secrets = Secrets::default();
        secrets.add_header("Content-Type", "application/json");
        assert!(secrets.is_empty());
        secrets.add_header("Authorization", "Bearer abcd-efgh-ijkl");
        secrets.add_header(
            "Proxy-Authorization",
            &format!("Basic {}", base64::encode(b"user:hunter22")),
        );
        secrets.add_header("Cookie", "theme=dark; session=0123456789");
        for leak in ["abcd-efgh-ijkl", "user:hunter22", "hunter22", "0123456789"] {
            assert_eq!(secrets.redact(&format!("[{leak}]")), "[<redacted>]", "{leak}");
        }
        assert_eq!(
            secrets.redact("dark"),
            "dark",
            "a short value is not searched for"
        );
    }
}
