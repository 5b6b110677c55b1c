//! Reading scenario files: YAML parsing with located errors, then
//! validation; and discovery of scenario files under directories.

use std::path::{Path, PathBuf};

use super::Scenario;
use super::file::ScenarioFile;
use super::validate::validate;
use crate::diag::Diagnostic;
use crate::span::{SourceFile, Span};

/// Parses and validates a scenario from its text.
pub fn load_str(path: &Path, text: &str) -> Result<Scenario, Vec<Diagnostic>> {
    let source = SourceFile {
        path: path.to_owned(),
        text: text.into(),
    };
    let parsed: ScenarioFile =
        serde_saphyr::from_str(text).map_err(|e| vec![parse_diagnostic(&source, &e)])?;
    validate(&source, parsed)
}

/// Reads, parses and validates a scenario file.
pub fn load_file(path: &Path) -> Result<Scenario, Vec<Diagnostic>> {
    match std::fs::read_to_string(path) {
        Ok(text) => load_str(path, &text),
        Err(error) => {
            let source = SourceFile {
                path: path.to_owned(),
                text: "".into(),
            };
            Err(vec![Diagnostic::error(
                &source,
                Span::default(),
                format!("cannot read {}: {error}", path.display()),
            )])
        }
    }
}

/// The scenario files under `paths` (files as given; directories searched
/// recursively for `*.yaml`/`*.yml`, skipping `profiles/` and files starting
/// with `_`), sorted.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Vec<Diagnostic>> {
    let mut found = Vec::new();
    for path in paths {
        if path.is_dir() {
            walk(path, &mut found).map_err(|e| vec![unreadable(path, &e)])?;
        } else if path.exists() {
            found.push(path.clone());
        } else {
            let missing = std::io::Error::from(std::io::ErrorKind::NotFound);
            return Err(vec![unreadable(path, &missing)]);
        }
    }
    found.sort();
    found.dedup();
    Ok(found)
}

fn walk(dir: &Path, found: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if path.is_dir() {
            if name != "profiles" {
                walk(&path, found)?;
            }
        } else if !name.starts_with('_') && (name.ends_with(".yaml") || name.ends_with(".yml")) {
            found.push(path);
        }
    }
    Ok(())
}

fn unreadable(path: &Path, error: &std::io::Error) -> Diagnostic {
    let source = SourceFile {
        path: path.to_owned(),
        text: "".into(),
    };
    Diagnostic::error(
        &source,
        Span::default(),
        format!("cannot read {}: {error}", path.display()),
    )
}

/// A YAML or shape error as a located diagnostic. serde's "unknown field"
/// message becomes "unknown key" with the valid keys as help.
pub fn parse_diagnostic(source: &SourceFile, error: &serde_saphyr::Error) -> Diagnostic {
    let span = error.location().map_or_else(Span::default, |location| {
        let span = location.span();
        Span {
            line: u32::try_from(location.line()).unwrap_or(u32::MAX),
            column: u32::try_from(location.column()).unwrap_or(u32::MAX),
            offset: span.byte_offset().and_then(|o| usize::try_from(o).ok()),
            len: span.byte_len().and_then(|l| usize::try_from(l).ok()),
        }
    });
    let message = plain_message(error);
    if let Some((unknown, expected)) = split_expected(&message) {
        let kind = if message.starts_with("unknown variant") {
            "kind"
        } else {
            "key"
        };
        return Diagnostic::error(source, span, format!("unknown {kind} {unknown}"))
            .with_label(format!("not a valid {kind} here"))
            .with_help(format!("valid {kind}s here: {expected}"));
    }
    Diagnostic::error(source, span, message).with_label("here")
}

/// The error's message without serde-saphyr's own location suffix or snippet.
fn plain_message(error: &serde_saphyr::Error) -> String {
    let text = error.without_snippet().to_string();
    let first = text.lines().next().unwrap_or_default();
    let first = first.split(" at line ").next().unwrap_or(first);
    first.trim_end_matches('.').to_owned()
}

/// `unknown field `x`, expected one of `a`, `b`` → (`x`, "`a`, `b`").
fn split_expected(message: &str) -> Option<(&str, String)> {
    let rest = message
        .strip_prefix("unknown field ")
        .or_else(|| message.strip_prefix("unknown variant "))?;
    let (unknown, expected) = rest.split_once(", expected ")?;
    let expected = expected.strip_prefix("one of ").unwrap_or(expected);
    Some((unknown, expected.to_owned()))
}
