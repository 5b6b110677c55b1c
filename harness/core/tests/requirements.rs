//! The built-in requirement catalogue: well-formed, covering every ID the
//! bundled scenarios cite, and calibrated against the upstream requirement
//! tables of the official spec (ignored with the reason where it is absent;
//! see `needs`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use mcp_conform_core::Level;
use mcp_conform_core::requirements::{CheckKind, catalogue};
use mcp_conform_core::version::VersionSet;
use needs::{Tests, official_spec};
use regex::Regex;

// The tests that need a tool outside the repository, shared with the
// harness crate's tests; this binary uses only the official spec of it.
#[allow(dead_code)]
#[path = "../../tests/common/needs.rs"]
mod needs;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn yaml_files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            yaml_files_under(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "yaml") {
            out.push(path);
        }
    }
}

fn ids_are_unique_and_well_formed() {
    let shape = Regex::new(r"^[A-Z]+-[0-9]{3}$").unwrap();
    let mut seen = BTreeSet::new();
    for req in catalogue().iter() {
        assert!(shape.is_match(&req.id), "malformed ID `{}`", req.id);
        assert!(seen.insert(req.id.as_str()), "{} listed twice", req.id);
        assert!(!req.versions.is_empty(), "{} binds no version", req.id);
        assert!(!req.summary.trim().is_empty(), "{} has no summary", req.id);
        assert!(!req.source.trim().is_empty(), "{} has no source", req.id);
        assert_eq!(
            req.check == CheckKind::Manual,
            req.manual_reason.is_some(),
            "{}: only manual entries carry a reason",
            req.id
        );
    }
    assert!(
        seen.len() > 100,
        "catalogue looks truncated: {} entries",
        seen.len()
    );
}

fn every_id_cited_by_a_bundled_scenario_is_catalogued() {
    let cited = Regex::new(r"\b[A-Z]+-[0-9]{3}\b").unwrap();
    let mut files = Vec::new();
    yaml_files_under(&repo_root().join("scenarios"), &mut files);
    assert!(!files.is_empty(), "no scenario files found");
    let missing: Vec<String> = files
        .iter()
        .flat_map(|file| {
            let text = std::fs::read_to_string(file).unwrap();
            cited
                .find_iter(&text)
                .filter(|m| catalogue().get(m.as_str()).is_none())
                .map(|m| format!("{}: {}", file.display(), m.as_str()))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(missing.is_empty(), "uncatalogued IDs:\n{}", missing.join("\n"));
}

/// One row of the upstream tables: ID, level, versions, role and check columns.
struct UpstreamRow {
    id: String,
    level: Level,
    versions: VersionSet,
    role: String,
    check: String,
}

fn upstream_rows(text: &str) -> Vec<UpstreamRow> {
    let row = Regex::new(r"^\|\s*([A-Z]+-[0-9]{3})\s*\|").unwrap();
    text.lines()
        .filter(|line| row.is_match(line))
        .map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            // cells[0] is the empty text before the first bar.
            let level = match cells[2] {
                "MUST" | "MUST NOT" => Level::Must,
                "SHOULD" | "SHOULD NOT" => Level::Should,
                "MAY" => Level::May,
                other => panic!("{}: unknown level `{other}`", cells[1]),
            };
            let versions = cells[3]
                .parse()
                .unwrap_or_else(|e| panic!("{}: versions `{}`: {e}", cells[1], cells[3]));
            UpstreamRow {
                id: cells[1].to_owned(),
                level,
                versions,
                role: cells[4].to_owned(),
                check: cells[7].to_owned(),
            }
        })
        .collect()
}

/// Upstream areas (and, where only part of one waits, the role of its
/// rows) the catalogue does not hold yet, and the work that adds them: their
/// missing rows are counted, not failed. A row of theirs that is catalogued
/// is compared like any other.
const AREAS_NOT_YET_CATALOGUED: &[(&str, Option<&str>, &str)] = &[];

fn calibrated_against_upstream_requirement_tables(spec: PathBuf) {
    let text = std::fs::read_to_string(spec.join("REQUIREMENTS.md")).unwrap();
    let rows = upstream_rows(&text);
    assert!(rows.len() > 100, "upstream tables not recognised");
    let mut problems = Vec::new();
    let mut deferred = std::collections::BTreeMap::<&str, usize>::new();
    for row in &rows {
        let automatable = row.check.starts_with('S') || row.check.starts_with('B');
        let area = row.id.split('-').next().unwrap_or_default();
        let not_yet = AREAS_NOT_YET_CATALOGUED
            .iter()
            .find(|(a, role, _)| *a == area && role.is_none_or(|r| r == row.role));
        match catalogue().get(&row.id) {
            None if not_yet.is_some() => *deferred.entry(area).or_default() += 1,
            None if automatable => problems.push(format!("{}: missing", row.id)),
            None => {}
            Some(req) => {
                // A level of our own needs its reason written in the catalogue.
                if req.level != row.level && req.reasoning.is_some() {
                    eprintln!(
                        "{}: level {} upstream, {} here, reasoned",
                        row.id, row.level, req.level
                    );
                } else if req.level != row.level {
                    problems.push(format!(
                        "{}: level {} upstream, {} here, with no `reasoning`",
                        row.id, row.level, req.level
                    ));
                }
                if req.versions != row.versions {
                    problems.push(format!(
                        "{}: versions {} upstream, {} here",
                        row.id, row.versions, req.versions
                    ));
                }
                // Manual where upstream would automate needs its reason
                // written in the catalogue, as a level of our own does.
                match (
                    &req.manual_reason,
                    automatable == (req.check == CheckKind::Manual),
                ) {
                    (_, false) => {}
                    (Some(why), true) if automatable => {
                        eprintln!(
                            "{}: check `{}` upstream, manual here, reasoned: {why}",
                            row.id, row.check
                        );
                    }
                    _ => problems.push(format!(
                        "{}: check `{}` upstream, {:?} here",
                        row.id, row.check, req.check
                    )),
                }
            }
        }
    }
    for (area, _, why) in AREAS_NOT_YET_CATALOGUED {
        eprintln!(
            "not yet catalogued: {} upstream {area} rows ({why})",
            deferred.get(area).copied().unwrap_or_default()
        );
    }
    assert!(
        problems.is_empty(),
        "{} mismatches:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

fn main() -> std::process::ExitCode {
    Tests::default()
        .test("ids_are_unique_and_well_formed", ids_are_unique_and_well_formed)
        .test(
            "every_id_cited_by_a_bundled_scenario_is_catalogued",
            every_id_cited_by_a_bundled_scenario_is_catalogued,
        )
        .needing(
            &official_spec(),
            "calibrated_against_upstream_requirement_tables",
            calibrated_against_upstream_requirement_tables,
        )
        .run()
}
