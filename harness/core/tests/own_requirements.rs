//! A user's own requirements: every broken catalogue in
//! `fixtures/invalid-catalogues` renders as its snapshot (with
//! `path:line:col`); a scenario of the user's may cite their IDs or none,
//! a bundled one may do neither.

use std::path::{Path, PathBuf};

use mcp_conform_core::Level;
use mcp_conform_core::diag::Diagnostic;
use mcp_conform_core::requirements::{NO_REQUIREMENT, UserCatalogue};
use mcp_conform_core::scenario::Scenario;
use mcp_conform_core::scenario::load::{Origin, load_str, load_text};
use mcp_conform_core::scenario::model::{CheckTag, StepKind};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/invalid-catalogues")
}

fn rendered(diagnostics: &[Diagnostic]) -> String {
    diagnostics.iter().map(|d| d.render(false) + "\n").collect()
}

#[test]
fn every_broken_catalogue_renders_as_its_snapshot() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 5, "{files:?}");
    for file in &files {
        let shown = Path::new("fixtures/invalid-catalogues").join(file.file_name().unwrap());
        let text = std::fs::read_to_string(file).unwrap();
        let diagnostics = UserCatalogue::parse(&shown, &text).expect_err("the fixture is broken");
        let rendered = rendered(&diagnostics);
        assert!(rendered.contains(&format!("{}:", shown.display())), "{rendered}");
        let name = file.file_stem().unwrap().to_string_lossy();
        insta::assert_snapshot!(name.as_ref(), rendered);
    }
}

#[test]
fn an_id_listed_in_two_files_names_the_first() {
    let dir = tempfile::TempDir::new().unwrap();
    let entry = "- {id: ACME-001, level: MUST, summary: s}\n";
    let paths = ["a.yaml", "b.yaml"].map(|name| dir.path().join(name));
    for path in &paths {
        std::fs::write(path, entry).unwrap();
    }
    let shown = rendered(&UserCatalogue::load(&paths).unwrap_err());
    assert!(
        shown.contains("requirement `ACME-001` is listed twice"),
        "{shown}"
    );
    assert!(
        shown.contains(&format!("first listed at {}:1", paths[0].display())),
        "{shown}"
    );
}

fn acme() -> UserCatalogue {
    let text = "- {id: ACME-001, level: MUST, summary: The booking tool refuses a date in the past.}\n\
                - {id: ACME-002, level: SHOULD, summary: Search returns at most 20 hits.}\n";
    UserCatalogue::parse(Path::new("requirements.yaml"), text).unwrap()
}

fn own(text: &str) -> Result<Scenario, String> {
    let catalogue = acme();
    load_text(Path::new("own.yaml"), text, Origin::User(&catalogue)).map_err(|d| rendered(&d))
}

/// The tag of each request step's `expect`.
fn tags(scenario: &Scenario) -> Vec<CheckTag> {
    scenario
        .steps
        .iter()
        .filter_map(|step| match &step.kind {
            StepKind::Request(request) => request.expect.as_ref().map(|e| e.tag.clone()),
            _ => None,
        })
        .collect()
}

/// Each check's requirement and level, in order.
fn levels(scenario: &Scenario) -> Vec<(String, Level)> {
    tags(scenario)
        .into_iter()
        .map(|t| (t.requirement, t.level))
        .collect()
}

const STEPS: &str = "steps:\n  \
    - request: { method: tools/list, expect: { result: {} } }\n  \
    - request: { method: tools/list, expect: { level: MAY, result: {} } }\n";

#[test]
fn a_scenario_of_the_users_citing_nothing_makes_product_checks_at_must() {
    let scenario = own(&format!("id: acme.a\ntitle: t\n{STEPS}")).unwrap();
    assert!(scenario.requirements.is_empty() && scenario.cited.is_empty());
    let judged = levels(&scenario);
    let product = NO_REQUIREMENT.to_owned();
    assert_eq!(judged, [(product.clone(), Level::Must), (product, Level::May)]);
    // `requirements: []` says the same.
    let empty = own(&format!("id: acme.a\ntitle: t\nrequirements: []\n{STEPS}")).unwrap();
    assert_eq!(levels(&empty), judged);
}

#[test]
fn a_users_requirement_is_judged_at_its_own_level_unless_the_step_says() {
    let scenario = own(&format!(
        "id: acme.b\ntitle: t\nrequirements: [ACME-002, TOOL-002]\n{STEPS}"
    ))
    .unwrap();
    let judged = levels(&scenario);
    assert_eq!(
        judged,
        [
            ("ACME-002".into(), Level::Should),
            ("ACME-002".into(), Level::May)
        ]
    );
    let cited: Vec<&str> = scenario.cited.iter().map(String::as_str).collect();
    assert_eq!(cited, ["ACME-002", "TOOL-002"]);
}

#[test]
fn an_id_in_neither_catalogue_is_refused_at_its_place() {
    let shown = own(&format!(
        "id: acme.c\ntitle: t\nrequirements: [ACME-003]\n{STEPS}"
    ))
    .unwrap_err();
    insta::assert_snapshot!(shown);
}

#[test]
fn a_bundled_scenario_cites_no_user_id() {
    let shown = load_str(
        Path::new("bundled.yaml"),
        &format!("id: b\ntitle: t\nrequirements: [ACME-001]\n{STEPS}"),
    )
    .map_err(|d| rendered(&d))
    .unwrap_err();
    assert!(shown.contains("unknown requirement `ACME-001`"), "{shown}");
}

#[test]
fn a_spec_requirement_is_judged_at_its_catalogue_level_unless_the_step_says() {
    // PAGE-005 is a SHOULD: a check citing it is never judged as a MUST.
    let scenario = own(&format!(
        "id: acme.d\ntitle: t\nrequirements: [PAGE-005]\n{STEPS}"
    ))
    .unwrap();
    let judged = levels(&scenario);
    assert_eq!(
        judged,
        [
            ("PAGE-005".into(), Level::Should),
            ("PAGE-005".into(), Level::May)
        ]
    );
}
