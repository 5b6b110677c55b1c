//! Peer text made safe to show. A peer under test writes most of what the
//! outputs show (results, error messages, stderr), and a terminal acts on
//! escape sequences (hyperlinks, clearing the screen, the window title), a
//! Markdown renderer on links, images and HTML, an XML parser refuses
//! control characters, and bidirectional overrides make text read other
//! than it is. Every human-facing writer passes peer text through here;
//! `report.json` keeps it as it came (JSON escapes what it must) and the
//! HTML page escapes it itself.

use std::borrow::Cow;
use std::fmt::Write as _;

use serde_json::Value;

/// How many characters of one line of a check message are kept.
pub const LINE_CHARS: usize = 500;
/// How many bytes of a check message are kept in all.
pub const MESSAGE_BYTES: usize = 4000;

/// Whether `c` acts on what displays it instead of showing: C0 controls
/// but tab and newline, DEL, C1 controls (U+009B starts a sequence on some
/// terminals), and the bidirectional marks, embeddings, overrides and
/// isolates.
fn acts(c: char) -> bool {
    matches!(
        c,
        '\0'..='\x08'
            | '\x0b'..='\x1f'
            | '\x7f'..='\u{9f}'
            | '\u{061c}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
    )
}

/// `text` with every control character shown escaped (`\x1b`, `\u{202e}`);
/// tabs and newlines stay.
pub fn controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(acts) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            c if !acts(c) => shown.push(c),
            c if u32::from(c) < 0x80 => write!(shown, "\\x{:02x}", u32::from(c)).expect("String"),
            c => write!(shown, "\\u{{{:x}}}", u32::from(c)).expect("String"),
        }
    }
    Cow::Owned(shown)
}

/// `text` as inert Markdown inline text: controls escaped, HTML (tags,
/// entities, autolinks) escaped, and brackets escaped so that no link or
/// image (`[…](…)`, `![…](…)`, `[…][ref]`) can form.
pub fn markdown(text: &str) -> String {
    let mut shown = String::with_capacity(text.len());
    for c in controls(text).chars() {
        match c {
            '&' => shown.push_str("&amp;"),
            '<' => shown.push_str("&lt;"),
            '>' => shown.push_str("&gt;"),
            '[' | ']' => {
                shown.push('\\');
                shown.push(c);
            }
            c => shown.push(c),
        }
    }
    shown
}

/// `text` cut after `limit` characters, saying how much was left out.
pub fn capped(text: &str, limit: usize) -> Cow<'_, str> {
    match text.char_indices().nth(limit) {
        None => Cow::Borrowed(text),
        Some((cut, _)) => Cow::Owned(format!("{}… ({} more bytes)", &text[..cut], text.len() - cut)),
    }
}

/// A check message that quotes peer text, bounded: each line at most
/// [`LINE_CHARS`] characters, the whole about [`MESSAGE_BYTES`].
pub fn capped_message(message: &str) -> Cow<'_, str> {
    let fits = message.len() <= MESSAGE_BYTES && message.lines().all(|l| l.chars().nth(LINE_CHARS).is_none());
    if fits {
        return Cow::Borrowed(message);
    }
    let mut out = String::new();
    let mut rest = message;
    while !rest.is_empty() {
        if out.len() >= MESSAGE_BYTES {
            write!(out, "… ({} more bytes)", rest.len()).expect("String");
            break;
        }
        let (line, next) = rest.split_once('\n').map_or((rest, ""), |(l, n)| (l, n));
        out.push_str(&capped(line, LINE_CHARS));
        if rest.len() > line.len() {
            out.push('\n');
        }
        rest = next;
    }
    Cow::Owned(out)
}

/// Caps every string in `value` (a peer's answer shown beside what was
/// expected) at [`LINE_CHARS`] characters.
pub fn cap_strings(value: &mut Value) {
    match value {
        Value::String(text) => {
            if let Cow::Owned(short) = capped(text, LINE_CHARS) {
                *text = short;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(cap_strings),
        Value::Object(members) => members.values_mut().for_each(cap_strings),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_and_bidi_controls_are_shown_escaped() {
        let hostile = "a\x1b]8;;http://x\x1b\\b\x1b[2J\x1b]0;title\x07\0\x08\u{9b}c\u{202e}d\u{2066}";
        assert_eq!(
            controls(hostile),
            "a\\x1b]8;;http://x\\x1b\\b\\x1b[2J\\x1b]0;title\\x07\\x00\\x08\\u{9b}c\\u{202e}d\\u{2066}"
        );
        assert!(matches!(controls("plain\ttext\nnext"), Cow::Borrowed(_)));
        assert_eq!(controls("a\r\nb"), "a\\x0d\nb");
    }

    #[test]
    fn markdown_links_images_and_html_are_inert() {
        assert_eq!(
            markdown("![x](http://evil/p.png) [c](javascript:alert(1)) <img src=x> &amp; \x1b[31m"),
            "!\\[x\\](http://evil/p.png) \\[c\\](javascript:alert(1)) &lt;img src=x&gt; &amp;amp; \\x1b\\[31m"
        );
    }

    #[test]
    fn long_peer_text_is_capped_with_what_was_cut() {
        assert_eq!(capped("abcdef", 4), "abcd… (2 more bytes)");
        assert_eq!(capped("abc", 4), "abc");
        assert_eq!(capped("ééé", 1), "é… (4 more bytes)");
        let long_line = format!("got {}\nnext", "x".repeat(70_000));
        let message = capped_message(&long_line);
        assert!(message.len() < LINE_CHARS + 40, "{}", message.len());
        assert!(message.ends_with("(69504 more bytes)\nnext"), "{message}");
        let many_lines = "y\n".repeat(10_000);
        let message = capped_message(&many_lines);
        assert!(message.len() < MESSAGE_BYTES + 40, "{}", message.len());
        assert!(
            message.ends_with(&format!("… ({} more bytes)", 20_000 - MESSAGE_BYTES)),
            "{message}"
        );
        assert!(matches!(capped_message("short\nmessage"), Cow::Borrowed(_)));
        let mut actual = serde_json::json!({"text": "z".repeat(600), "n": [1, "ok"]});
        cap_strings(&mut actual);
        assert_eq!(
            actual["text"],
            format!("{}… (100 more bytes)", "z".repeat(LINE_CHARS))
        );
        assert_eq!(actual["n"], serde_json::json!([1, "ok"]));
    }
}
