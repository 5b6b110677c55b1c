//! Plain-text pieces every human-facing format shares: the transcript and
//! the diff of a divergence (the one diff of mcp-conform: the terminal,
//! JUnit and HTML all show this one).

use std::fmt::Write as _;

use serde_json::Value;
use similar::{ChangeTag, TextDiff};

use crate::model::{Case, Direction, WireFrame};

/// `→` for what mcp-conform sent, `←` for what the peer sent.
pub fn arrow(direction: Direction) -> &'static str {
    match direction {
        Direction::Sent => "→",
        Direction::Received => "←",
    }
}

/// One frame as a line: `#3 ← {…}  (answers #2)`.
pub fn frame_line(frame: &WireFrame) -> String {
    let mut line = format!(
        "#{} {} {}",
        frame.index,
        arrow(frame.direction),
        frame.text.trim_end()
    );
    if let Some(request) = frame.answers {
        write!(line, "  (answers #{request})").expect("writing to a String");
    }
    line
}

/// The transcript, one line per frame (and what a flood's left out), with
/// the stderr tail after it.
pub fn transcript(case: &Case) -> String {
    let mut out = String::new();
    for frame in &case.transcript {
        out.push_str(&frame_line(frame));
        out.push('\n');
    }
    if let Some(cut) = &case.transcript_cut {
        out.push_str(&cut.note());
        out.push('\n');
    }
    if let Some(tail) = &case.stderr_tail {
        out.push_str("--- stderr of the peer (last lines) ---\n");
        out.push_str(tail);
        if !tail.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// A line of a diff: `-` expected, `+` actual, ` ` both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffLine {
    pub tag: char,
    pub text: String,
}

/// The line diff of two values pretty-printed, with three lines of context.
pub fn diff(expected: &Value, actual: &Value) -> Vec<DiffLine> {
    let expected = serde_json::to_string_pretty(expected).unwrap_or_default() + "\n";
    let actual = serde_json::to_string_pretty(actual).unwrap_or_default() + "\n";
    let diff = TextDiff::from_lines(&expected, &actual);
    let mut lines = Vec::new();
    for hunk in diff.unified_diff().context_radius(3).iter_hunks() {
        for change in hunk.iter_changes() {
            let tag = match change.tag() {
                ChangeTag::Delete => '-',
                ChangeTag::Insert => '+',
                ChangeTag::Equal => ' ',
            };
            lines.push(DiffLine {
                tag,
                text: change.value().trim_end_matches('\n').to_owned(),
            });
        }
    }
    lines
}

/// The diff as text under a `diff (- expected, + actual):` heading, each
/// line `tag text` after `indent`.
pub fn diff_text(expected: &Value, actual: &Value, indent: &str) -> String {
    let mut out = format!("{indent}diff (- expected, + actual):\n");
    for line in diff(expected, actual) {
        writeln!(out, "{indent}{}{}", line.tag, line.text).expect("writing to a String");
    }
    out
}
