//! The user's own requirement catalogue: the rules of their product, which
//! their scenarios cite like spec IDs (`ACME-001`). It is read from a
//! `requirements.yaml` beside their scenarios or from `--requirements FILE`,
//! checked with located diagnostics, and kept apart from the spec
//! catalogue: no spec coverage figure counts it.
//!
//! ```yaml
//! - id: ACME-001
//!   level: MUST
//!   summary: The booking tool refuses a date in the past.
//!   link: https://acme.example/specs/booking#dates   # optional
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;
use serde::Deserialize;

use super::catalogue;
use crate::Level;
use crate::diag::Diagnostic;
use crate::scenario::load::{parse_diagnostic, unreadable};
use crate::span::{Located, SourceFile};

/// A prefix, then dash-separated parts ending in a number: `ACME-001`,
/// `ACME-BOOK-12`. The prefix is what must not be the spec's.
static USER_ID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Z][A-Z0-9]*(-[A-Z0-9]+)*-[0-9]+$").expect("valid regex"));

/// What a product check citing no requirement cites. Reports show it with
/// the product checks, apart from the spec.
pub const NO_REQUIREMENT: &str = "";

/// One requirement of the user's catalogue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserRequirement {
    pub id: String,
    /// What an expectation citing it is judged at when its step names no level.
    pub level: Level,
    pub summary: String,
    /// Where the user's own documentation states it.
    pub link: Option<String>,
    /// The catalogue file and line it is listed at.
    pub file: PathBuf,
    pub line: u32,
}

/// The user's requirements, from every catalogue file of the run, in file
/// order. Empty when the run has none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserCatalogue {
    entries: Vec<UserRequirement>,
    by_id: BTreeMap<String, usize>,
}

/// An entry as written, before its ID and level are checked.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    id: Located<String>,
    level: Located<String>,
    summary: String,
    #[serde(default)]
    link: Option<String>,
}

impl UserCatalogue {
    /// The requirement with this ID, if the user's catalogue lists it.
    pub fn get(&self, id: &str) -> Option<&UserRequirement> {
        self.by_id.get(id).map(|i| &self.entries[*i])
    }

    /// Every requirement, in file order.
    pub fn iter(&self) -> impl Iterator<Item = &UserRequirement> {
        self.entries.iter()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Reads every catalogue file into one catalogue; every problem of every
    /// file is reported, each at its place.
    pub fn load(paths: &[PathBuf]) -> Result<UserCatalogue, Vec<Diagnostic>> {
        let mut catalogue = UserCatalogue::default();
        let mut diagnostics = Vec::new();
        for path in paths {
            match read(path) {
                Ok(source) => catalogue.add(&source, &mut diagnostics),
                Err(unreadable) => diagnostics.extend(unreadable),
            }
        }
        if diagnostics.is_empty() {
            Ok(catalogue)
        } else {
            Err(diagnostics)
        }
    }

    /// Parses one catalogue text read from `path`.
    pub fn parse(path: &Path, text: &str) -> Result<UserCatalogue, Vec<Diagnostic>> {
        let source = SourceFile {
            path: path.to_owned(),
            text: text.into(),
        };
        let mut catalogue = UserCatalogue::default();
        let mut diagnostics = Vec::new();
        catalogue.add(&source, &mut diagnostics);
        if diagnostics.is_empty() {
            Ok(catalogue)
        } else {
            Err(diagnostics)
        }
    }

    /// Adds the entries of `source`, or says why each one cannot be.
    fn add(&mut self, source: &SourceFile, diagnostics: &mut Vec<Diagnostic>) {
        let raw: Option<Vec<Located<RawEntry>>> = match serde_saphyr::from_str(&source.text) {
            Ok(raw) => raw,
            Err(error) => return diagnostics.push(parse_diagnostic(source, &error)),
        };
        for entry in raw.unwrap_or_default() {
            let RawEntry {
                id,
                level,
                summary,
                link,
            } = entry.value;
            let refused = self.refusal(source, &id);
            let level = parse_level(source, &level, diagnostics);
            let Some(level) = level.filter(|_| refused.is_none()) else {
                diagnostics.extend(refused);
                continue;
            };
            self.by_id.insert(id.value.clone(), self.entries.len());
            self.entries.push(UserRequirement {
                id: id.value,
                level,
                summary,
                link,
                file: source.path.clone(),
                line: entry.span.line,
            });
        }
    }

    /// Why `id` cannot be listed: it is malformed, the spec's, or listed already.
    fn refusal(&self, source: &SourceFile, id: &Located<String>) -> Option<Diagnostic> {
        let error = |message: String, label: &str, help: String| {
            Some(
                Diagnostic::error(source, id.span, message)
                    .with_label(label)
                    .with_help(help),
            )
        };
        if !USER_ID.is_match(&id.value) {
            return error(
                format!("`{}` is not a requirement ID", id.value),
                "not an ID",
                "an ID is an upper-case prefix of your own, a dash and a number: `ACME-001`".into(),
            );
        }
        let prefix = id.value.split('-').next().unwrap_or_default();
        if spec_prefixes().contains(prefix) {
            return error(
                format!(
                    "`{}` uses `{prefix}`, a prefix of the MCP spec catalogue",
                    id.value
                ),
                "a spec prefix",
                "give your requirements a prefix of your own (`ACME-001`); \
                 `mcp-conform list --requirements` lists the spec's"
                    .into(),
            );
        }
        let first = self.get(&id.value)?;
        error(
            format!("requirement `{}` is listed twice", id.value),
            "listed again here",
            format!(
                "first listed at {}:{}; an ID names one requirement",
                first.file.display(),
                first.line
            ),
        )
    }
}

/// `MUST`, `SHOULD` or `MAY`; anything else is a located diagnostic.
fn parse_level(
    source: &SourceFile,
    level: &Located<String>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Level> {
    match level.value.as_str() {
        "MUST" => Some(Level::Must),
        "SHOULD" => Some(Level::Should),
        "MAY" => Some(Level::May),
        other => {
            diagnostics.push(
                Diagnostic::error(source, level.span, format!("unknown level `{other}`"))
                    .with_label("not a level")
                    .with_help(
                        "a level is MUST, SHOULD or MAY (a MUST NOT is a MUST, a SHOULD NOT a SHOULD)",
                    ),
            );
            None
        }
    }
}

/// The prefixes of the spec catalogue's IDs (`TOOL` of `TOOL-002`).
fn spec_prefixes() -> &'static BTreeSet<String> {
    static PREFIXES: LazyLock<BTreeSet<String>> = LazyLock::new(|| {
        catalogue()
            .iter()
            .filter_map(|r| r.id.split('-').next())
            .map(str::to_owned)
            .collect()
    });
    &PREFIXES
}

fn read(path: &Path) -> Result<SourceFile, Vec<Diagnostic>> {
    let text = std::fs::read_to_string(path).map_err(|error| vec![unreadable(path, &error)])?;
    Ok(SourceFile {
        path: path.to_owned(),
        text: text.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Result<UserCatalogue, String> {
        UserCatalogue::parse(Path::new("requirements.yaml"), text)
            .map_err(|d| d.iter().map(|d| d.render(false)).collect())
    }

    #[test]
    fn entries_keep_their_level_summary_link_and_line() {
        let catalogue = parsed(
            "- id: ACME-001\n  level: SHOULD\n  summary: s\n  link: https://acme.example/a\n\
             - {id: ACME-BOOK-12, level: MAY, summary: t}\n",
        )
        .unwrap();
        let first = catalogue.get("ACME-001").unwrap();
        assert_eq!(
            (first.level, first.link.as_deref(), first.line),
            (Level::Should, Some("https://acme.example/a"), 1)
        );
        assert_eq!(catalogue.get("ACME-BOOK-12").unwrap().level, Level::May);
        assert!(parsed("").unwrap().is_empty());
    }

    #[test]
    fn every_broken_entry_is_reported() {
        let shown = parsed(
            "- {id: acme-1, level: MUST, summary: s}\n- {id: TOOL-900, level: MUST, summary: s}\n\
             - {id: ACME-001, level: MUSTNT, summary: s}\n",
        )
        .unwrap_err();
        assert!(shown.contains("`acme-1` is not a requirement ID"), "{shown}");
        assert!(shown.contains("`TOOL-900` uses `TOOL`"), "{shown}");
        assert!(shown.contains("unknown level `MUSTNT`"), "{shown}");
    }
}
