//! Reading scenario files: YAML parsing with located errors, then
//! validation; and discovery of scenario files under directories.

use std::path::{Path, PathBuf};

use serde_saphyr::budget::BudgetBreach;

use super::Scenario;
use super::file::ScenarioFile;
pub use super::validate::Origin;
use super::validate::validate;
use crate::diag::Diagnostic;
use crate::requirements::UserCatalogue;
use crate::span::{Located, SourceFile, Span};

/// Parses and validates a bundled scenario (or one a test writes) from its
/// text: it cites spec requirements.
pub fn load_str(path: &Path, text: &str) -> Result<Scenario, Vec<Diagnostic>> {
    load_text(path, text, Origin::Bundled)
}

/// Parses and validates a scenario from its text, citing what `origin` allows.
pub fn load_text(path: &Path, text: &str, origin: Origin<'_>) -> Result<Scenario, Vec<Diagnostic>> {
    let source = SourceFile {
        path: path.to_owned(),
        text: text.into(),
    };
    let parsed: Located<ScenarioFile> =
        serde_saphyr::from_str(text).map_err(|e| vec![parse_diagnostic(&source, &e)])?;
    validate(&source, parsed.span, parsed.value, origin)
}

/// Reads, parses and validates a scenario file of the user's, which may
/// cite `catalogue` or nothing.
pub fn load_file(path: &Path, catalogue: &UserCatalogue) -> Result<Scenario, Vec<Diagnostic>> {
    match std::fs::read_to_string(path) {
        Ok(text) => load_text(path, &text, Origin::User(catalogue)),
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

/// How deep [`discover`] descends below a directory it is given.
pub const MAX_DEPTH: usize = 32;
/// How many scenario files [`discover`] accepts in one run.
pub const MAX_FILES: usize = 10_000;

/// What the user's paths hold: scenario files and their requirement catalogues.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Discovered {
    pub scenarios: Vec<PathBuf>,
    /// The `requirements.yaml` files: in a directory walked, beside a file
    /// given, or given themselves.
    pub catalogues: Vec<PathBuf>,
}

/// The scenario files under `paths` (files as given; directories searched
/// recursively for `*.yaml`/`*.yml`, skipping `profiles/` and files starting
/// with `_`), sorted, each once however many links lead to it; and the
/// user's requirement catalogues among and beside them. A symlink back into
/// a directory being walked, a tree deeper than [`MAX_DEPTH`] or more than
/// [`MAX_FILES`] files is a located diagnostic, not a hang.
pub fn discover(paths: &[PathBuf]) -> Result<Discovered, Vec<Diagnostic>> {
    let mut walk = Walk::default();
    for path in paths {
        if path.is_dir() {
            walk.dir(path)?;
        } else if path.exists() {
            walk.file(path)?;
            let beside = path.parent().map(|dir| dir.join(CATALOGUE_NAMES[0]));
            if let Some(catalogue) = beside.filter(|c| c.is_file()) {
                walk.file(&catalogue)?;
            }
        } else {
            let missing = std::io::Error::from(std::io::ErrorKind::NotFound);
            return Err(vec![unreadable(path, &missing)]);
        }
    }
    let sorted = |found: std::collections::BTreeMap<PathBuf, PathBuf>| {
        let mut found: Vec<PathBuf> = found.into_values().collect();
        found.sort();
        found
    };
    Ok(Discovered {
        scenarios: sorted(walk.found),
        catalogues: sorted(walk.catalogues),
    })
}

/// The names of a user's requirement catalogue among their scenarios.
pub const CATALOGUE_NAMES: [&str; 2] = ["requirements.yaml", "requirements.yml"];

/// A directory walk: the directories on the way down (by their real path,
/// to see a cycle) and the files found (by real path, to take each once).
#[derive(Default)]
struct Walk {
    ancestors: Vec<PathBuf>,
    found: std::collections::BTreeMap<PathBuf, PathBuf>,
    catalogues: std::collections::BTreeMap<PathBuf, PathBuf>,
}

impl Walk {
    fn dir(&mut self, dir: &Path) -> Result<(), Vec<Diagnostic>> {
        let real = std::fs::canonicalize(dir).map_err(|e| vec![unreadable(dir, &e)])?;
        if let Some(ancestor) = self.ancestors.iter().find(|a| **a == real) {
            let message = format!(
                "symlink cycle: {} leads back to {}",
                dir.display(),
                ancestor.display()
            );
            return Err(vec![at_path(
                dir,
                message,
                "remove the link or point it outside the tree",
            )]);
        }
        if self.ancestors.len() > MAX_DEPTH {
            let message = format!("scenario directories nested more than {MAX_DEPTH} deep");
            return Err(vec![at_path(
                dir,
                message,
                "give a directory closer to the scenarios",
            )]);
        }
        let mut entries = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(|e| vec![unreadable(dir, &e)])? {
            entries.push(entry.map_err(|e| vec![unreadable(dir, &e)])?.path());
        }
        entries.sort();
        self.ancestors.push(real);
        for path in entries {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if path.is_dir() {
                if name != "profiles" {
                    self.dir(&path)?;
                }
            } else if !name.starts_with('_') && (name.ends_with(".yaml") || name.ends_with(".yml")) {
                self.file(&path)?;
            }
        }
        self.ancestors.pop();
        Ok(())
    }

    fn file(&mut self, path: &Path) -> Result<(), Vec<Diagnostic>> {
        let real = std::fs::canonicalize(path).map_err(|e| vec![unreadable(path, &e)])?;
        let catalogue = path
            .file_name()
            .is_some_and(|name| CATALOGUE_NAMES.iter().any(|c| name == *c));
        if catalogue {
            self.catalogues.entry(real).or_insert_with(|| path.to_owned());
            return Ok(());
        }
        self.found.entry(real).or_insert_with(|| path.to_owned());
        if self.found.len() > MAX_FILES {
            let message = format!("more than {MAX_FILES} scenario files");
            return Err(vec![at_path(
                path,
                message,
                "give the directories of the scenarios to run",
            )]);
        }
        Ok(())
    }
}

/// Two scenarios with the same id (the id names a scenario in reports,
/// baselines and filters): one diagnostic per repeat, at the repeat,
/// naming the first.
pub fn duplicate_ids(scenarios: &[Scenario]) -> Vec<Diagnostic> {
    let mut first: std::collections::HashMap<&str, &Scenario> = std::collections::HashMap::new();
    let mut diagnostics = Vec::new();
    for scenario in scenarios {
        match first.get(scenario.id.as_str()) {
            Some(earlier) => diagnostics.push(
                Diagnostic::error(
                    &scenario.source,
                    scenario.span,
                    format!("scenario id `{}` is used twice", scenario.id),
                )
                .with_label("second use")
                .with_help(format!(
                    "first used in {}:{}; ids must be unique",
                    earlier.source.path.display(),
                    earlier.span.line
                )),
            ),
            None => {
                first.insert(&scenario.id, scenario);
            }
        }
    }
    diagnostics
}

/// A diagnostic about a path itself, not a place in its text.
fn at_path(path: &Path, message: String, help: &str) -> Diagnostic {
    let source = SourceFile {
        path: path.to_owned(),
        text: "".into(),
    };
    Diagnostic::error(&source, Span::default(), message).with_help(help)
}

/// A file that could not be read, as a diagnostic at its path.
pub(crate) fn unreadable(path: &Path, error: &std::io::Error) -> Diagnostic {
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
    if let Some(breach) = budget_breach(error) {
        return Diagnostic::error(source, span, too_large(breach))
            .with_label("the loader stopped here")
            .with_help("each alias counts once per use; a scenario file is far below these limits");
    }
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

/// The loader limit behind `error`, through the alias and snippet wrappers.
fn budget_breach(mut error: &serde_saphyr::Error) -> Option<&BudgetBreach> {
    loop {
        match error {
            serde_saphyr::Error::Budget { breach, .. } => return Some(breach),
            serde_saphyr::Error::AliasError { error: inner, .. }
            | serde_saphyr::Error::WithSnippet { error: inner, .. } => error = inner,
            _ => return None,
        }
    }
}

/// What limit of the YAML loader a file broke, in words (serde-saphyr's
/// own text is the Rust debug form of its breach).
fn too_large(breach: &BudgetBreach) -> String {
    let what = match breach {
        BudgetBreach::Events { events } => format!("{events} YAML events"),
        BudgetBreach::Aliases { aliases } => format!("{aliases} alias uses"),
        BudgetBreach::Anchors { anchors } => format!("{anchors} anchors"),
        BudgetBreach::Depth { depth } => format!("nesting {depth} levels deep"),
        BudgetBreach::Documents { documents } => format!("{documents} YAML documents"),
        BudgetBreach::Nodes { nodes } => format!("{nodes} nodes once aliases are expanded"),
        BudgetBreach::ScalarBytes { total_scalar_bytes } => format!("{total_scalar_bytes} bytes of scalars"),
        BudgetBreach::InputBytes { input_bytes } => format!("{input_bytes} bytes"),
        BudgetBreach::AliasAnchorRatio { aliases, anchors } => {
            format!("{aliases} alias uses of {anchors} anchors")
        }
        _ => "more than the loader allows".to_owned(),
    };
    format!("the file is too large to load: {what}")
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
