//! Scenarios of the user's own product end to end: `examples/own-product`
//! (a catalogue of the user's requirements, a scenario citing one, one
//! citing none) runs against the reference server, its report shows product
//! checks apart from the spec and is the checked-in
//! `examples/own-product/report.md`; the frame checker still judges the
//! wire under spec IDs; `list --requirements` and `explain` show the user's
//! requirements without changing a spec figure; a broken catalogue stops
//! the run with its location.

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::cli::{self, Ran, bin, ran};
use common::golden;
use common::report::{read, schema_errors};
use mcp_conform_report::{Scope, Verdict};
use tempfile::TempDir;

mod common;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn example() -> String {
    repo().join("examples/own-product").display().to_string()
}

/// `mcp-conform ARGS` from the repository root, at a fixed report date.
fn in_repo(args: &[&str]) -> Ran {
    let mut command = cli::mcp_conform();
    command
        .current_dir(repo())
        .env("SOURCE_DATE_EPOCH", "1795000000")
        .args(args);
    ran(&mut command, Duration::from_secs(120))
}

#[test]
fn the_example_runs_as_product_checks_and_its_report_is_checked_in() {
    let dir = TempDir::new().unwrap();
    let report_dir = dir.path().display().to_string();
    let Ran { code, stdout, stderr } = in_repo(&[
        "run",
        "examples/own-product",
        "--jobs",
        "1",
        "--report-dir",
        &report_dir,
    ]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("product checks: 4 (4 pass)"), "{stdout}");
    let report = read(dir.path()).unwrap();
    assert_eq!(schema_errors(&report), Vec::<String>::new());
    let cited: Vec<(&str, &str, Scope)> = report
        .cases
        .iter()
        .flat_map(|case| {
            case.checks
                .iter()
                .map(move |c| (case.scenario.as_str(), c.cited(), c.scope))
        })
        .collect();
    assert_eq!(
        cited,
        [
            ("acme.add-recorded", "–", Scope::Product),
            ("acme.add-recorded", "–", Scope::Product),
            ("acme.echo-verbatim", "ACME-001", Scope::Product),
            ("acme.tools-described", "ACME-002", Scope::Product),
        ]
    );
    // ACME-002 is a SHOULD in the catalogue, and the scenario names no level.
    assert_eq!(report.cases[2].checks[0].level, mcp_conform_report::Level::Should);
    let markdown = std::fs::read_to_string(dir.path().join("report.md"))
        .unwrap()
        .replace(&bin(), "mcp-conform");
    if let Err(stale) = golden::current(&repo().join("examples/own-product/report.md"), &markdown) {
        panic!(
            "{stale}\nto accept: INSTA_UPDATE=always cargo nextest run -p mcp-conform --test own_requirements"
        );
    }
}

/// A product test catches protocol violations too: the frame checker's
/// findings are the spec's, under spec IDs, and fail the run.
#[test]
fn the_frame_checker_judges_product_scenarios_under_spec_ids() {
    let dir = TempDir::new().unwrap();
    let server = format!("{} reference-server --fault log-undeclared", bin());
    let report_dir = dir.path().display().to_string();
    let Ran { code, stdout, .. } = in_repo(&[
        "run",
        "examples/own-product",
        "--stdio",
        &server,
        "--profile",
        "reference",
        "--report-dir",
        &report_dir,
    ]);
    assert_eq!(code, Some(1), "{stdout}");
    let report = read(dir.path()).unwrap();
    for case in &report.cases {
        let failing: Vec<(&str, Scope)> = case
            .checks
            .iter()
            .filter(|c| c.verdict == Verdict::Fail)
            .map(|c| (c.requirement.as_str(), c.scope))
            .collect();
        assert_eq!(failing, [("LOG-001", Scope::Spec)], "{}", case.scenario);
        let product = case.checks.iter().filter(|c| c.scope == Scope::Product);
        assert!(product.clone().count() > 0 && product.clone().all(|c| c.verdict == Verdict::Pass));
    }
}

/// The spec's lines of `list --requirements`: everything before the user's section.
fn spec_part(listing: &str) -> &str {
    listing.split("\nYour own requirements").next().unwrap()
}

#[test]
fn the_users_requirements_are_listed_apart_and_change_no_spec_figure() {
    let Ran {
        code,
        stdout: spec_only,
        ..
    } = in_repo(&["list", "--requirements", "scenarios"]);
    assert_eq!(code, Some(0));
    let Ran {
        code,
        stdout: with_own,
        ..
    } = in_repo(&["list", "--requirements", "scenarios", &example()]);
    assert_eq!(code, Some(0));
    assert!(!spec_only.contains("Your own requirements"), "{spec_only}");
    assert_eq!(spec_part(&with_own), spec_only, "the spec figures are the same");
    let own = &with_own[spec_part(&with_own).len()..];
    assert!(
        own.contains("ACME-001    MUST   covered          acme.echo-verbatim"),
        "{own}"
    );
    assert!(
        own.contains("ACME-002    SHOULD covered          acme.tools-described"),
        "{own}"
    );
    assert!(
        own.contains("Product checks citing no requirement: acme.add-recorded"),
        "{own}"
    );
    let Ran {
        stdout: scenarios, ..
    } = in_repo(&["list", &example()]);
    assert!(
        scenarios
            .lines()
            .any(|l| l.starts_with("acme.add-recorded") && l.contains("(product checks)")),
        "{scenarios}"
    );
}

#[test]
fn explain_shows_a_users_requirement_and_its_scenarios() {
    let Ran {
        code, stdout: text, ..
    } = in_repo(&["explain", "ACME-001", &example()]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.starts_with("ACME-001 (MUST, your own requirement)\n"),
        "{text}"
    );
    assert!(
        text.contains("  link:   https://acme.example/docs/tools#echo"),
        "{text}"
    );
    assert!(text.contains("requirements.yaml:5"), "{text}");
    assert!(text.contains("  scenario acme.echo-verbatim ("), "{text}");
    let Ran { code, stderr, .. } = in_repo(&["explain", "ACME-001"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("--requirements FILE"), "{stderr}");
}

/// A catalogue given with `--requirements` (not beside the scenarios) is
/// what the scenarios cite; without it their ID is unknown, at its place.
#[test]
fn a_catalogue_can_be_given_with_its_path() {
    let dir = TempDir::new().unwrap();
    let scenarios = dir.path().join("scenarios");
    std::fs::create_dir(&scenarios).unwrap();
    std::fs::write(
        scenarios.join("ping.yaml"),
        "id: own.ping\ntitle: t\nrequirements: [OWN-001]\nsteps:\n  - request: { method: ping, expect: { result: {} } }\n",
    )
    .unwrap();
    let catalogue = dir.path().join("ours.yaml");
    std::fs::write(&catalogue, "- {id: OWN-001, level: MUST, summary: ping works}\n").unwrap();
    let scenarios = scenarios.display().to_string();
    let Ran { code, stdout, stderr } = in_repo(&[
        "run",
        &scenarios,
        "--requirements",
        &catalogue.display().to_string(),
    ]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("product checks: 1 (1 pass)"), "{stdout}");
    let Ran { code, stderr, .. } = in_repo(&["run", &scenarios]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("unknown requirement `OWN-001`"), "{stderr}");
    assert!(stderr.contains("ping.yaml:3:16"), "{stderr}");
}

#[test]
fn a_broken_catalogue_stops_the_run_with_its_location() {
    let dir = TempDir::new().unwrap();
    std::fs::write(
        dir.path().join("requirements.yaml"),
        "- {id: OWN-001, level: MUST, summary: s}\n- {id: OWN-001, level: OFTEN, summary: s}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("ping.yaml"),
        "id: own.ping\ntitle: t\nsteps:\n  - request: { method: ping }\n",
    )
    .unwrap();
    let Ran { code, stderr, .. } = in_repo(&["run", &dir.path().display().to_string()]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("requirement `OWN-001` is listed twice"),
        "{stderr}"
    );
    assert!(stderr.contains("unknown level `OFTEN`"), "{stderr}");
    assert!(stderr.contains("requirements.yaml:2:"), "{stderr}");
}
