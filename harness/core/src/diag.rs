//! Located diagnostics for scenario and profile authors, rendered like a
//! compiler's: `error: message`, `--> path:line:col`, the source line with a
//! caret, and a help line saying what would be valid.

use std::fmt;

use annotate_snippets::{AnnotationKind, Level, Renderer, Snippet};

use crate::span::{SourceFile, Span};

/// One problem in a source file.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostic {
    pub message: String,
    pub file: SourceFile,
    pub span: Span,
    /// Says what is wrong at the caret.
    pub label: String,
    /// What would be valid.
    pub help: Option<String>,
}

impl Diagnostic {
    /// An error at `span` of `file`.
    pub fn error(file: &SourceFile, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            message: message.into(),
            file: file.clone(),
            span,
            label: String::new(),
            help: None,
        }
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = label.into();
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    /// The diagnostic as text; `color` adds ANSI styles.
    pub fn render(&self, color: bool) -> String {
        let renderer = if color {
            Renderer::styled()
        } else {
            Renderer::plain()
        };
        let path = self.file.path.display().to_string();
        let text: &str = &self.file.text;
        let range = self.byte_range(text);
        let snippet = Snippet::source(text)
            .path(path.clone())
            .annotation(AnnotationKind::Primary.span(range).label(self.label.as_str()));
        let mut group = Level::ERROR.primary_title(self.message.as_str()).element(snippet);
        if let Some(help) = &self.help {
            group = group.element(Level::HELP.message(help.as_str()));
        }
        renderer.render(&[group])
    }

    /// The byte range the caret underlines: the node when known, else the
    /// character at line:column, else the start of the file.
    fn byte_range(&self, text: &str) -> std::ops::Range<usize> {
        let start = self
            .span
            .offset
            .filter(|o| *o <= text.len())
            .unwrap_or_else(|| line_column_offset(text, self.span));
        let start = (0..=start).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0);
        let len = self.span.len.unwrap_or(1).max(1);
        // Underline at most the rest of the first line.
        let line_end = text[start..].find('\n').map_or(text.len(), |n| start + n);
        let end = (start + len).min(line_end).max((start + 1).min(text.len()));
        // A span counted in bytes may end inside a character: widen it to
        // the character's end (the renderer slices the text there).
        let end = (end..=text.len())
            .find(|i| text.is_char_boundary(*i))
            .unwrap_or(text.len());
        start..end
    }
}

/// The byte offset of a 1-based line and column.
fn line_column_offset(text: &str, span: Span) -> usize {
    let line = span.line.max(1) as usize;
    let line_start = text
        .split_inclusive('\n')
        .take(line - 1)
        .map(str::len)
        .sum::<usize>()
        .min(text.len());
    let column_bytes: usize = text[line_start..]
        .chars()
        .take(span.column.max(1) as usize - 1)
        .map(char::len_utf8)
        .sum();
    (line_start + column_bytes).min(text.len())
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(false))
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn renders_path_line_column_caret_and_help() {
        let file = SourceFile {
            path: PathBuf::from("s.yaml"),
            text: "id: x\nstepz: []\n".into(),
        };
        let span = Span {
            line: 2,
            column: 1,
            offset: None,
            len: Some(5),
        };
        let text = Diagnostic::error(&file, span, "unknown key `stepz`")
            .with_label("not a scenario key")
            .with_help("valid keys: id, steps")
            .render(false);
        assert!(text.contains("error: unknown key `stepz`"), "{text}");
        assert!(text.contains("--> s.yaml:2:1"), "{text}");
        assert!(text.contains("^^^^^ not a scenario key"), "{text}");
        assert!(text.contains("help: valid keys: id, steps"), "{text}");
    }

    #[test]
    fn a_span_ending_inside_a_character_underlines_the_whole_character() {
        // Found by the loader fuzzer: one byte into a three-byte character.
        let file = SourceFile {
            path: PathBuf::from("s.yaml"),
            text: "ids: \u{aae1}x\n".into(),
        };
        let span = Span {
            line: 1,
            column: 6,
            offset: Some(5),
            len: Some(1),
        };
        let text = Diagnostic::error(&file, span, "bad").render(false);
        assert!(text.contains("--> s.yaml:1:6"), "{text}");
        assert!(text.contains('^'), "{text}");
    }
}
