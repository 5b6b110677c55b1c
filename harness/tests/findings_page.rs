//! `docs/findings.md` is generated: every non-pass verdict of the real-peer
//! runs, from the `*_findings` snapshots those runs keep, with the
//! catalogue's wording of the requirement behind it and, where the
//! catalogue's summary is not enough, a note from `docs/findings-notes.yaml`.
//! The page is a plain file people read, accepted like a snapshot
//! (`INSTA_UPDATE=always`, see `common::golden`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use common::findings::{Finding, RunFindings, normalise};
use common::golden;
use mcp_conform_core::requirements::catalogue;
use mcp_conform_report::Verdict;
use serde::Deserialize;

mod common;

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// `docs/findings-notes.yaml`: which snapshot is which peer, in page order,
/// and the notes that say why a verdict stands.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Notes {
    peers: Vec<Peer>,
    /// Keyed by `scenario REQUIREMENT` (every peer with that finding) or
    /// `snapshot scenario REQUIREMENT` (that run alone).
    notes: BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Peer {
    /// The snapshot's name without `_findings.snap`: `real_peers__python_stdio`.
    snapshot: String,
    /// The heading: which peer, which version of it, how it was run.
    title: String,
}

/// One line of the page: a finding and every version it was seen on.
struct Row<'a> {
    finding: &'a Finding,
    versions: Vec<&'a str>,
}

const SNAPSHOTS: &str = "harness/tests/snapshots";
const NOTES: &str = "docs/findings-notes.yaml";
const PAGE: &str = "docs/findings.md";

fn read_notes() -> Notes {
    let text = std::fs::read_to_string(repo().join(NOTES)).unwrap();
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{NOTES}: {e}"))
}

/// The findings snapshot `name`, without insta's header.
fn read_findings(name: &str) -> RunFindings {
    let path = repo().join(SNAPSHOTS).join(format!("{name}_findings.snap"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let body = text.splitn(3, "---\n").nth(2).unwrap_or_default();
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The snapshot names with a findings snapshot, sorted.
fn findings_snapshots() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(repo().join(SNAPSHOTS))
        .unwrap()
        .filter_map(|entry| {
            let name = entry.unwrap().file_name().into_string().ok()?;
            Some(name.strip_suffix("_findings.snap")?.to_owned())
        })
        .collect();
    names.sort();
    names
}

/// The findings of one run, one row per finding seen alike on several
/// versions (`--protocol all` runs repeat most findings on each).
fn rows(run: &RunFindings) -> Vec<Row<'_>> {
    let mut rows: Vec<Row> = Vec::new();
    for finding in &run.findings {
        let same = |row: &&mut Row| {
            let seen = row.finding;
            (
                &seen.scenario,
                &seen.requirement,
                seen.verdict,
                &seen.check,
                &seen.evidence,
            ) == (
                &finding.scenario,
                &finding.requirement,
                finding.verdict,
                &finding.check,
                &finding.evidence,
            )
        };
        let version = finding.protocol_version.as_deref();
        match rows.iter_mut().find(same) {
            Some(row) => row.versions.extend(version),
            None => rows.push(Row {
                finding,
                versions: version.into_iter().collect(),
            }),
        }
    }
    rows
}

/// The note for `finding` of the run `snapshot`, the run's own first.
fn note<'a>(notes: &'a Notes, snapshot: &str, finding: &Finding) -> Option<&'a str> {
    let key = format!(
        "{} {}",
        finding.scenario,
        finding.requirement.as_deref().unwrap_or("-")
    );
    notes
        .notes
        .get(&format!("{snapshot} {key}"))
        .or_else(|| notes.notes.get(&key))
        .map(String::as_str)
}

/// Inline code that survives backticks in the text.
fn code(text: &str) -> String {
    format!("`` {} ``", text.replace("``", "` `"))
}

/// The heading of a group of rows: the case, its verdict, the rule with
/// its wording, and the note that says why.
fn write_heading(page: &mut String, notes: &Notes, snapshot: &str, row: &Row) {
    let finding = row.finding;
    let verdict = finding.verdict.as_str().to_uppercase();
    let mut case = format!("**{}**", finding.scenario);
    if !row.versions.is_empty() {
        write!(case, " on {}", row.versions.join(", ")).unwrap();
    }
    match &finding.requirement {
        Some(id) => {
            let level = finding.level.map(|l| l.to_string()).unwrap_or_default();
            let basis = finding.basis.map(|b| b.to_string()).unwrap_or_default();
            writeln!(page, "- {case}: {verdict}, `{id}` {level} ({basis})").unwrap();
            if let Some(requirement) = catalogue().get(id) {
                writeln!(page, "  - rule: {} ({})", requirement.summary, requirement.source).unwrap();
                if let Some(reasoning) = &requirement.reasoning {
                    writeln!(page, "  - level: {reasoning}").unwrap();
                }
            }
        }
        None => writeln!(page, "- {case}: {verdict}").unwrap(),
    }
    if let Some(note) = note(notes, snapshot, finding) {
        writeln!(page, "  - why: {note}").unwrap();
    }
}

fn write_evidence(page: &mut String, finding: &Finding) {
    let check = finding.check.as_deref().unwrap_or("the case");
    writeln!(page, "  - evidence ({check}): {}", code(&finding.evidence)).unwrap();
    if let Some(frame) = &finding.frame {
        writeln!(page, "  - frame: {}", code(frame)).unwrap();
    }
}

/// Whether two rows share a heading: several checks of one case under one
/// requirement are one finding with several lines of evidence.
fn same_heading(a: &Row, b: &Row) -> bool {
    (
        &a.finding.scenario,
        &a.finding.requirement,
        a.finding.verdict,
        &a.versions,
    ) == (
        &b.finding.scenario,
        &b.finding.requirement,
        b.finding.verdict,
        &b.versions,
    )
}

fn write_run(page: &mut String, notes: &Notes, peer: &Peer, run: &RunFindings) {
    writeln!(page, "## {}\n", peer.title).unwrap();
    let counts: Vec<String> = run
        .counts
        .iter()
        .map(|(verdict, count)| format!("{count} {verdict}"))
        .collect();
    writeln!(
        page,
        "{} on {}: {}. Snapshot `{}`.\n",
        run.transport,
        run.protocol_versions.join(", "),
        counts.join(", "),
        peer.snapshot
    )
    .unwrap();
    if !run.not_observed.is_empty() {
        writeln!(
            page,
            "Not observed (the peer never did what the scenario needs to see): {}.\n",
            run.not_observed.join(", ")
        )
        .unwrap();
    }
    let rows = rows(run);
    for verdict in [Verdict::Error, Verdict::Fail, Verdict::NonStrict] {
        let mut previous: Option<&Row> = None;
        for row in rows.iter().filter(|row| row.finding.verdict == verdict) {
            if !previous.is_some_and(|previous| same_heading(previous, row)) {
                write_heading(page, notes, &peer.snapshot, row);
            }
            write_evidence(page, row.finding);
            previous = Some(row);
        }
    }
    if rows.is_empty() {
        writeln!(page, "No finding.").unwrap();
    }
    page.push('\n');
}

const PREAMBLE: &str = "\
# Findings on real peers

Every verdict other than pass, not-applicable and not-observed that mcp-conform gives the real peers of
its test tier (`cargo nextest run --workspace --profile real-peers`; the peers come from
`scripts/install-peers.sh`). Each finding names the requirement, its level and what the level rests on
(`keyword`: the spec's upper-case keyword; `prose`: lower-case wording; `inference`: our reading, never
more than non-strict; `harness`: a rule of our own), the catalogue's wording with the spec page and
section to read, and the line of evidence the report shows. A `why` says what the summary does not.
FAIL is a broken MUST on the spec's keyword; NON-STRICT a broken SHOULD, or a rule on prose or
inference; ERROR a case that could not be judged.

This page is generated from the `*_findings.snap` snapshots the real-peer tests write and from
`docs/findings-notes.yaml`; `cargo nextest run -p mcp-conform --test findings_page` fails when it is
stale and says how to rewrite it.

";

fn page() -> String {
    let notes = read_notes();
    let mut page = PREAMBLE.to_owned();
    for peer in &notes.peers {
        write_run(&mut page, &notes, peer, &read_findings(&peer.snapshot));
    }
    page.trim_end().to_owned() + "\n"
}

#[test]
fn the_findings_page_is_current() {
    if let Err(stale) = golden::current(&repo().join(PAGE), &page()) {
        panic!(
            "{stale}\nto accept: INSTA_UPDATE=always cargo nextest run -p mcp-conform --test findings_page"
        );
    }
}

/// A snapshot the page leaves out, or a title for a run that no longer
/// exists, would make the page lie by omission.
#[test]
fn every_findings_snapshot_has_a_place_on_the_page() {
    let listed: Vec<String> = {
        let mut names: Vec<String> = read_notes().peers.into_iter().map(|p| p.snapshot).collect();
        names.sort();
        names
    };
    assert_eq!(
        listed,
        findings_snapshots(),
        "the peers of {NOTES} against the snapshots"
    );
}

/// A note whose finding went away must go with it.
#[test]
fn every_note_explains_a_finding() {
    let notes = read_notes();
    let mut keys = Vec::new();
    for peer in &notes.peers {
        for finding in read_findings(&peer.snapshot).findings {
            let key = format!(
                "{} {}",
                finding.scenario,
                finding.requirement.as_deref().unwrap_or("-")
            );
            keys.push(format!("{} {key}", peer.snapshot));
            keys.push(key);
        }
    }
    let stale: Vec<&String> = notes.notes.keys().filter(|key| !keys.contains(key)).collect();
    assert!(
        stale.is_empty(),
        "notes in {NOTES} for findings no run has: {stale:?}"
    );
}

#[test]
fn evidence_is_one_line_without_ports_paths_or_session_ids() {
    assert_eq!(
        normalise(
            "POST http://127.0.0.1:41234/mcp\n  session 0f8fad5b-d9cb-469f-a165-70867728950e in /tmp/.tmpAb12/x"
        ),
        "POST http://127.0.0.1:<port>/mcp session <id> in <tmp>"
    );
    let long = "x".repeat(400);
    assert_eq!(normalise(&long).chars().count(), 301);
}
