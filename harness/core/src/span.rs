//! Source files and spans: every item parsed from a scenario or profile keeps
//! where it came from, so any failure can be rendered as `path:line:col`.

use std::fmt;
use std::ops::Deref;
use std::path::PathBuf;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};

/// A loaded text file, shared by every span that points into it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    /// The path as the user gave it (shown in diagnostics).
    pub path: PathBuf,
    pub text: Arc<str>,
}

/// A position in a source file: 1-based line and column, and the byte offset
/// and length of the node where known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Span {
    pub line: u32,
    pub column: u32,
    pub offset: Option<usize>,
    pub len: Option<usize>,
}

impl Span {
    /// Whether the parser gave us a real position.
    pub fn is_known(&self) -> bool {
        self.line > 0
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// A value together with the span of the YAML node it was read from.
///
/// Deserializes through `serde_saphyr::Spanned`; its JSON Schema is the one of
/// `T`, so the generated scenario schema stays free of span plumbing.
#[derive(Debug, Clone, PartialEq)]
pub struct Located<T> {
    pub value: T,
    pub span: Span,
}

impl<T> Located<T> {
    pub fn new(value: T, span: Span) -> Self {
        Located { value, span }
    }

    /// A value made by the program rather than read from a file.
    pub fn unlocated(value: T) -> Self {
        Located {
            value,
            span: Span::default(),
        }
    }

    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Located<U> {
        Located {
            value: f(self.value),
            span: self.span,
        }
    }
}

impl<T> Deref for Located<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.value
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Located<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let spanned = serde_saphyr::Spanned::<T>::deserialize(deserializer)?;
        let loc = spanned.referenced;
        let span = loc.span();
        Ok(Located {
            value: spanned.value,
            span: Span {
                line: u32::try_from(loc.line()).unwrap_or(u32::MAX),
                column: u32::try_from(loc.column()).unwrap_or(u32::MAX),
                offset: span.byte_offset().and_then(|o| usize::try_from(o).ok()),
                len: span.byte_len().and_then(|l| usize::try_from(l).ok()),
            },
        })
    }
}

impl<T: JsonSchema> JsonSchema for Located<T> {
    fn inline_schema() -> bool {
        T::inline_schema()
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        T::schema_name()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        T::schema_id()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        T::json_schema(generator)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    struct Doc {
        #[expect(dead_code, reason = "only the span is inspected")]
        first: u32,
        second: Located<String>,
    }

    #[test]
    fn located_values_carry_line_and_column() {
        let doc: Doc = serde_saphyr::from_str("first: 1\nsecond:   hello\n").unwrap();
        assert_eq!(doc.second.value, "hello");
        assert_eq!((doc.second.span.line, doc.second.span.column), (2, 11));
        assert_eq!(doc.second.span.offset, Some(19));
    }
}
