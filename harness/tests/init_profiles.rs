//! `mcp-conform init` and `profile check` against the bundled reference
//! server: the profile init writes makes (nearly) as many scenarios
//! observable as the hand-written `reference` profile, fails none that one does not,
//! and `profile check` accepts it and locates what is wrong in a bad one.

use std::time::Duration;

use common::cli::{Ran, mcp_conform, ran};

mod common;

/// init's profile must make at least this share of the scenarios needing a
/// trigger observable, against the hand-written profile's count (issue 21),
/// both without the scenarios needing what only calling a tool tells (the
/// raw ratio is printed too). Was 0.8: at 2026-07-28 no listing says which
/// tool runs as a task, so each new extension task scenario counts against
/// init (79% with tasks.extension-cancelled-notification, 77% with
/// tasks.extension-listen).
const LEAST_RATIO: f64 = 0.76;

fn judged_like_the_hand_written_profile(protocol: &str) {
    let comparison = common::observable::compare(&[], "reference", protocol, Duration::from_secs(300));
    let figures = comparison.figures(&format!("reference server, {protocol}"));
    println!("{figures}");
    assert!(comparison.knowable_ratio() >= LEAST_RATIO, "{figures}");
    assert!(comparison.failing_only_by_init.is_empty(), "{figures}");
}

#[test]
fn init_on_the_reference_server_observes_as_much_as_its_hand_written_profile() {
    judged_like_the_hand_written_profile("2025-11-25");
}

#[test]
fn init_on_the_stateless_reference_server_observes_as_much_as_its_hand_written_profile() {
    judged_like_the_hand_written_profile("2026-07-28");
}

fn init_or_check(args: &[&str]) -> Ran {
    ran(mcp_conform().args(args), Duration::from_secs(60))
}

#[test]
fn profile_check_accepts_what_init_wrote_and_locates_a_wrong_binding() {
    let dir = tempfile::TempDir::new().unwrap();
    let file = dir.path().join("profile.yaml");
    let path = file.to_str().unwrap();
    let init = init_or_check(&["init", "-o", path]);
    assert_eq!(init.code, Some(0), "{}", init.stderr);
    let again = init_or_check(&["init", "-o", path]);
    assert_eq!(again.code, Some(2), "init overwrote its profile");
    let check = init_or_check(&["profile", "check", path]);
    let out = &check.stdout;
    assert_eq!(check.code, Some(0), "{out}{}", check.stderr);
    assert!(
        out.contains("triggers, each naming what the server declares with valid arguments"),
        "{out}"
    );

    let text = std::fs::read_to_string(&file).unwrap();
    let broken = text
        .replacen("name: \"fail\"", "name: \"no-such-tool\"", 1)
        .replacen("arguments: {\"ms\":1500}", "arguments: {\"ms\":\"soon\"}", 1);
    std::fs::write(&file, &broken).unwrap();
    let line_of = |needle: &str| broken.lines().position(|l| l.contains(needle)).unwrap() + 1;
    let check = init_or_check(&["profile", "check", path]);
    let err = &check.stderr;
    assert_eq!(check.code, Some(2), "{err}");
    assert!(err.contains("the server lists no tool `no-such-tool`"), "{err}");
    assert!(
        err.contains(&format!("{path}:{}:", line_of("no-such-tool"))),
        "{err}"
    );
    assert!(err.contains("does not match the inputSchema of `slow`"), "{err}");
    assert!(err.contains(&format!("{path}:{}:", line_of("\"soon\""))), "{err}");
}

#[test]
fn profile_check_accepts_the_hand_written_reference_profile_on_each_era() {
    for (protocol, unchecked) in [
        ("2025-11-25", "end_listen_tool, header_tool"),
        ("2026-07-28", "task_forbidden_tool, url_elicit_tool"),
    ] {
        let check = init_or_check(&[
            "profile",
            "check",
            "../scenarios/profiles/reference.yaml",
            "--protocol",
            protocol,
        ]);
        let out = &check.stdout;
        assert_eq!(check.code, Some(0), "{protocol}: {out}{}", check.stderr);
        // The triggers no scenario of this version reads are named, not checked.
        assert!(
            out.contains(&format!("no bundled scenario of {protocol} uses {unchecked}")),
            "{out}"
        );
    }
}
