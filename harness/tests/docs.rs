//! The documentation stays true: the README fits its budget, every relative
//! link leads somewhere, every count is generated from its source (the
//! bundled suite, the catalogue, the verdict snapshots, the calibration
//! mapping) or absent, and the README's first scenario passes.
//!
//! A stale generated block fails with the command that regenerates them:
//! `MCP_CONFORM_UPDATE_DOCS=1 cargo nextest run -p mcp-conform --test docs`.

use std::time::Duration;

use common::report::judge;
use doc_pages::{generated, links, pages, prose_lines, root};
use mcp_conform_report::Verdict;
use regex::Regex;

mod common;
mod doc_pages;

/// The issue's budget for the README: the rest lives under `docs/`.
const README_BUDGET: usize = 10 * 1024;

const UPDATE: &str = "MCP_CONFORM_UPDATE_DOCS";

#[test]
fn the_readme_fits_its_budget() {
    let size = std::fs::metadata(root().join("README.md")).unwrap().len() as usize;
    assert!(
        size <= README_BUDGET,
        "README.md is {size} bytes; move detail to docs/"
    );
}

#[test]
fn every_relative_link_leads_somewhere() {
    let broken: Vec<String> = pages().iter().flat_map(links::broken).collect();
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn generated_blocks_are_current() {
    let update = std::env::var_os(UPDATE).is_some();
    let mut stale = Vec::new();
    for page in pages() {
        let fresh =
            generated::regenerate(&page.text).unwrap_or_else(|e| panic!("{}: {e}", page.path.display()));
        if fresh == page.text {
            continue;
        }
        if update {
            std::fs::write(root().join(&page.path), fresh).unwrap();
        } else {
            stale.push(page.path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "stale generated blocks in {}; regenerate with `{UPDATE}=1 cargo nextest run -p mcp-conform --test docs` and review the diff",
        stale.join(", ")
    );
}

/// A number of scenarios, cases, requirements, faults or verdicts written
/// by hand goes stale the day the suite grows: such counts live in
/// generated blocks. (Limits of the code, such as `16 MiB`, are not counts.)
#[test]
fn no_count_is_kept_by_hand() {
    let count = Regex::new(
        r"(?i)\b\d[\d,]*\s+(scenarios?|cases?|requirements?|faults?|tests?|checks?|broken|pass|fail|non-strict|not-applicable|not-observed|covered|agree|deliberate|not (compared|yet|automatable))\b|(?:^|[\s(])\d+/\d+\b",
    )
    .unwrap();
    for hand_kept in [
        "The suite has 91 scenarios",
        "268 cases, 229 pass",
        "Mutation score: 72/72",
    ] {
        assert!(count.is_match(hand_kept), "{hand_kept}");
    }
    assert!(!count.is_match("LIFE-001/002/007, 16 MiB, 2025-11-25"));
    let mut found = Vec::new();
    for page in pages() {
        for (number, line) in prose_lines(&page.text) {
            for hit in count.find_iter(line) {
                found.push(format!("{}:{number}: `{}`", page.path.display(), hit.as_str()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "hand-kept counts (put them in a generated block, or say it without the number):\n{}",
        found.join("\n")
    );
}

/// The scenario under "Write a first scenario" is real: it loads and passes
/// against the bundled reference server.
#[test]
fn the_readme_scenario_passes() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme
        .find("# my-scenarios/echo.yaml\n")
        .expect("the README's first scenario");
    let end = readme[start..].find("```").unwrap() + start;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("echo.yaml"), &readme[start..end]).unwrap();
    let run = judge(&["run", dir.path().to_str().unwrap()], Duration::from_secs(60));
    assert_eq!(run.code(), Some(0), "{}", run.stdout());
    let verdicts: Vec<Verdict> = run.report.cases.iter().map(|c| c.verdict).collect();
    assert_eq!(verdicts, [Verdict::Pass], "{}", run.stdout());
}
