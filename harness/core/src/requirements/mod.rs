//! The requirement catalogue: every requirement a check can cite, with its
//! level, the versions it binds, the party it binds, where the spec says it
//! and what its level rests on (its [`Basis`]).
//!
//! The entries live in `catalogue.yaml` next to this file, embedded at build
//! time and parsed once on first use. A user's own requirements, which no
//! spec figure counts, are in [`user`].

use std::collections::BTreeMap;
use std::sync::LazyLock;

use serde::Deserialize;

use crate::version::{ProtocolVersion, VersionSet};
use crate::{Basis, Level, Verdict};

pub mod user;

pub use user::{NO_REQUIREMENT, UserCatalogue, UserRequirement};

/// A requirement's stable ID as code cites it: always one of the [`id`]
/// constants, which are generated from the catalogue (only they build one).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RequirementId(&'static str);

impl RequirementId {
    /// The ID as the catalogue writes it (`"RPC-009"`).
    pub const fn as_str(self) -> &'static str {
        self.0
    }

    /// Its catalogue entry.
    pub fn requirement(self) -> &'static Requirement {
        catalogue()
            .get(self.0)
            .expect("the ID constants are generated from the catalogue")
    }
}

impl std::fmt::Display for RequirementId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl std::fmt::Debug for RequirementId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl AsRef<str> for RequirementId {
    fn as_ref(&self) -> &str {
        self.0
    }
}

impl From<RequirementId> for String {
    fn from(id: RequirementId) -> String {
        id.0.to_owned()
    }
}

impl PartialEq<str> for RequirementId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for RequirementId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl PartialEq<String> for RequirementId {
    fn eq(&self, other: &String) -> bool {
        self.0 == other
    }
}

/// One constant per catalogue entry (`id::RPC_009` reads `RPC-009`), generated
/// by the crate's build script: citing an ID the catalogue lacks does not
/// compile.
pub mod id {
    use super::RequirementId;

    include!(concat!(env!("OUT_DIR"), "/requirement_ids.rs"));

    /// Whether `candidate` is a catalogue ID; usable in constants, so that
    /// an ID written as a string (a fault's declaration) is checked at
    /// compile time too.
    pub const fn is_catalogued(candidate: &str) -> bool {
        let mut i = 0;
        while i < ALL.len() {
            if same(ALL[i].0.as_bytes(), candidate.as_bytes()) {
                return true;
            }
            i += 1;
        }
        false
    }

    const fn same(a: &[u8], b: &[u8]) -> bool {
        if a.len() != b.len() {
            return false;
        }
        let mut i = 0;
        while i < a.len() {
            if a[i] != b[i] {
                return false;
            }
            i += 1;
        }
        true
    }
}

/// Which party a requirement binds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Only the server.
    Server,
    /// Only the client.
    Client,
    /// Whichever party sends (or receives) the message in question.
    Both,
    /// A gateway (proxy, aggregator) between clients and servers: a server
    /// to its clients and a client to its servers.
    Gateway,
}

/// How the harness verifies a requirement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckKind {
    /// Shape checks against the protocol model or the official schema.
    Schema,
    /// Sequence or behaviour logic in the runner.
    Behaviour,
    /// Both a shape check and behaviour logic.
    Both,
    /// Not automatable; listed for completeness only.
    Manual,
}

/// One requirement of the catalogue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    /// Stable identifier such as `LIFE-003`.
    pub id: String,
    /// Normative strength, negations folded in.
    pub level: Level,
    /// The protocol versions the requirement binds.
    pub versions: VersionSet,
    /// The party the requirement binds.
    pub role: Role,
    /// One-sentence paraphrase in the project's own words.
    pub summary: String,
    /// Spec page and section that states the rule.
    pub source: String,
    /// What the level rests on: the spec's keyword, its prose, our
    /// inference, or the harness's own rule.
    pub basis: Basis,
    /// Why the level is what it is, where the basis alone does not say
    /// (an inference's reasoning, a level below the sentence's keyword).
    pub reasoning: Option<String>,
    /// How the harness verifies it.
    pub check: CheckKind,
    /// Why a manual requirement cannot be automated (`None` for the others).
    pub manual_reason: Option<String>,
    /// For an automatable requirement nothing checks yet, what stands in the
    /// way, when the catalogue says so.
    pub pending: Option<String>,
}

impl Requirement {
    /// Whether the requirement binds peers speaking `version`.
    pub fn applies_to(&self, version: ProtocolVersion) -> bool {
        self.versions.contains(version)
    }
}

/// What the level of `requirement` rests on; an ID the catalogue lacks (a
/// user's scenario may cite its own) is taken at its word.
pub fn basis_of(requirement: &str) -> Basis {
    catalogue().get(requirement).map_or(Basis::Keyword, |r| r.basis)
}

/// Whether `requirement` is the spec's (or mcp-conform's own rule), as
/// opposed to a product check's: the user's own ID, or none.
pub fn is_spec(requirement: &str) -> bool {
    catalogue().get(requirement).is_some()
}

/// `verdict` as a check citing `requirement` may stand: one resting on
/// prose or on our inference is non-strict at most.
pub fn bounded(requirement: &str, verdict: Verdict) -> Verdict {
    basis_of(requirement).bounded(verdict)
}

/// The parsed catalogue, in file order.
#[derive(Debug)]
pub struct Catalogue {
    entries: Vec<Requirement>,
    by_id: BTreeMap<String, usize>,
}

impl Catalogue {
    /// The requirement with this ID, if the catalogue has it.
    pub fn get(&self, id: &str) -> Option<&Requirement> {
        self.by_id.get(id).map(|i| &self.entries[*i])
    }

    /// Every requirement, in catalogue order.
    pub fn iter(&self) -> impl Iterator<Item = &Requirement> {
        self.entries.iter()
    }

    /// The requirements that bind peers speaking `version`.
    pub fn applying_to(&self, version: ProtocolVersion) -> impl Iterator<Item = &Requirement> {
        self.iter().filter(move |r| r.applies_to(version))
    }

    /// Number of requirements.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the catalogue has no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// The catalogue text as shipped with the crate.
const CATALOGUE_YAML: &str = include_str!("catalogue.yaml");

static CATALOGUE: LazyLock<Catalogue> =
    LazyLock::new(|| parse(CATALOGUE_YAML).unwrap_or_else(|e| panic!("built-in requirement catalogue: {e}")));

/// The built-in requirement catalogue.
pub fn catalogue() -> &'static Catalogue {
    &CATALOGUE
}

/// A catalogue entry as written in the YAML, before its version set and
/// manual-entry fields are checked.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    id: String,
    level: Level,
    versions: String,
    role: Role,
    summary: String,
    source: String,
    basis: Basis,
    reasoning: Option<String>,
    check: CheckKind,
    automatable: Option<bool>,
    reason: Option<String>,
    pending: Option<String>,
}

/// Why a catalogue text was rejected.
#[derive(Debug, thiserror::Error)]
enum CatalogueError {
    #[error("not a list of requirement entries: {0}")]
    Yaml(String),
    #[error("{id}: {source}")]
    Versions {
        id: String,
        source: crate::version::UnknownVersion,
    },
    #[error("{0}: listed twice")]
    Duplicate(String),
    #[error("{0}: `check: manual` goes with `automatable: false` and a `reason`, and only with them")]
    ManualMarking(String),
}

fn parse(text: &str) -> Result<Catalogue, CatalogueError> {
    let raw: Vec<RawEntry> = serde_saphyr::from_str(text).map_err(|e| CatalogueError::Yaml(e.to_string()))?;
    let mut by_id = BTreeMap::new();
    let mut entries = Vec::with_capacity(raw.len());
    for entry in raw {
        let manual = entry.check == CheckKind::Manual;
        let marked_manual = entry.automatable == Some(false) && entry.reason.is_some();
        let unmarked = entry.automatable.is_none() && entry.reason.is_none();
        if (manual && !marked_manual) || (!manual && !unmarked) {
            return Err(CatalogueError::ManualMarking(entry.id));
        }
        let versions = entry
            .versions
            .parse()
            .map_err(|source| CatalogueError::Versions {
                id: entry.id.clone(),
                source,
            })?;
        if by_id.insert(entry.id.clone(), entries.len()).is_some() {
            return Err(CatalogueError::Duplicate(entry.id));
        }
        entries.push(Requirement {
            id: entry.id,
            level: entry.level,
            versions,
            role: entry.role,
            summary: entry.summary,
            source: entry.source,
            basis: entry.basis,
            reasoning: entry.reasoning,
            check: entry.check,
            manual_reason: entry.reason,
            pending: entry.pending,
        });
    }
    Ok(Catalogue { entries, by_id })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_catalogue_parses_and_finds_harness_entries() {
        let schema = catalogue()
            .get(id::SCHEMA_002.as_str())
            .expect("SCHEMA-002 is catalogued");
        assert_eq!(schema.level, Level::Must);
        assert_eq!(schema.versions, VersionSet::ALL);
        assert_eq!(schema.check, CheckKind::Schema);
        assert!(catalogue().get("NOPE-999").is_none());
    }

    #[test]
    fn the_constants_are_the_catalogue_ids() {
        let catalogued: Vec<&str> = catalogue().iter().map(|r| r.id.as_str()).collect();
        assert_eq!(id::ALL, catalogued);
        assert_eq!(id::RPC_009, "RPC-009");
    }

    #[test]
    fn duplicates_are_rejected() {
        let one = "- {id: A-001, level: MUST, versions: all, role: both, summary: s, source: x, basis: keyword, check: schema}\n";
        let err = parse(&one.repeat(2)).unwrap_err();
        assert!(matches!(err, CatalogueError::Duplicate(id) if id == "A-001"));
    }

    #[test]
    fn bad_versions_name_the_entry() {
        let text = "- {id: A-001, level: MAY, versions: 2099-01-01, role: server, summary: s, source: x, basis: keyword, check: behaviour}\n";
        let err = parse(text).unwrap_err();
        assert!(err.to_string().starts_with("A-001: unknown protocol version"));
    }

    #[test]
    fn an_entry_without_its_basis_is_refused() {
        let text =
            "- {id: A-001, level: MUST, versions: all, role: server, summary: s, source: x, check: schema}\n";
        let err = parse(text).unwrap_err();
        assert!(err.to_string().contains("basis"), "{err}");
    }

    #[test]
    fn no_fail_rests_on_prose_or_inference() {
        for requirement in catalogue().iter() {
            let bounded = bounded(&requirement.id, requirement.level.verdict_when_broken());
            match requirement.basis {
                Basis::Prose | Basis::Inference => assert_ne!(bounded, Verdict::Fail, "{}", requirement.id),
                Basis::Keyword | Basis::Harness => {
                    assert_eq!(
                        bounded,
                        requirement.level.verdict_when_broken(),
                        "{}",
                        requirement.id
                    )
                }
            }
        }
        assert_eq!(bounded("USER-001", Verdict::Fail), Verdict::Fail);
    }

    #[test]
    fn manual_entries_must_say_why() {
        let text = "- {id: A-001, level: SHOULD, versions: all, role: client, summary: s, source: x, basis: keyword, check: manual}\n";
        assert!(matches!(parse(text), Err(CatalogueError::ManualMarking(_))));
        let text = "- {id: A-001, level: SHOULD, versions: all, role: client, summary: s, source: x, basis: keyword, check: manual, \
                    automatable: false, reason: a person has to look}\n";
        let cat = parse(text).unwrap();
        assert_eq!(
            cat.get("A-001").unwrap().manual_reason.as_deref(),
            Some("a person has to look")
        );
    }

    #[test]
    fn applying_to_filters_by_version() {
        let text = "- {id: A-001, level: MUST, versions: legacy, role: server, summary: s, source: x, basis: keyword, check: schema}\n\
                    - {id: A-002, level: MUST, versions: modern, role: server, summary: s, source: x, basis: keyword, check: schema}\n";
        let cat = parse(text).unwrap();
        let ids: Vec<&str> = cat
            .applying_to(ProtocolVersion::V2026_07_28)
            .map(|r| r.id.as_str())
            .collect();
        assert_eq!(ids, ["A-002"]);
    }
}
