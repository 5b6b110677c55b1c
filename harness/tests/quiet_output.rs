//! The terminal of a first run: the README's main command fits one screen,
//! and everything it folds is listed under `--verbose` with the same
//! verdicts (the reports hold every case either way).

use std::time::Duration;

use common::cli::mcp_conform;
use common::report::judge;
use mcp_conform_report::Verdict;

mod common;

/// The bound for a green run of the README's main command.
const ONE_SCREEN: usize = 60;

fn stdout(args: &[&str]) -> String {
    let output = mcp_conform().args(args).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{args:?}: {output:?}");
    String::from_utf8(output.stdout).unwrap()
}

/// The summary line: `94 scenarios: 49 pass, 45 not-applicable in 3.2s`,
/// without the duration.
fn counts(stdout: &str) -> &str {
    let line = stdout.lines().find(|l| l.contains(" scenarios: ")).expect(stdout);
    line.rsplit_once(" in ").map_or(line, |(counts, _)| counts)
}

#[test]
fn a_green_run_fits_one_screen_and_verbose_lists_every_case() {
    let budget = Duration::from_secs(300);
    let quiet = judge(&["run"], budget);
    let verbose = judge(&["run", "--verbose"], budget);
    let (quiet_out, verbose_out) = (quiet.stdout(), verbose.stdout());
    assert_eq!(quiet.code(), Some(0), "{quiet_out}");
    assert!(
        quiet_out.lines().count() <= ONE_SCREEN,
        "{} lines:\n{quiet_out}",
        quiet_out.lines().count()
    );
    assert_eq!(counts(&quiet_out), counts(&verbose_out), "the same verdicts");
    assert_eq!(quiet.report.cases.len(), verbose.report.cases.len());
    for case in &quiet.report.cases {
        let listed = |out: &str| {
            out.lines()
                .any(|l| l.split_whitespace().nth(1) == Some(&case.scenario))
        };
        assert!(
            listed(&verbose_out),
            "--verbose lists {}:\n{verbose_out}",
            case.scenario
        );
        if case.verdict != Verdict::NotApplicable {
            assert_eq!(
                listed(&quiet_out),
                case.verdict != Verdict::Pass,
                "{} ({}) listed alone only if it needs attention:\n{quiet_out}",
                case.scenario,
                case.verdict
            );
        }
        if case.verdict == Verdict::Pass {
            let (area, name) = case.scenario.rsplit_once('.').unwrap();
            let area_line = quiet_out
                .lines()
                .find(|l| l.starts_with("pass ") && l.contains(&format!(" {area}: ")))
                .unwrap_or_else(|| panic!("no pass line for {area}:\n{quiet_out}"));
            assert!(
                area_line
                    .split(": ")
                    .nth(1)
                    .unwrap()
                    .split(", ")
                    .any(|n| n == name),
                "{area_line}"
            );
        }
    }
    // Each not-applicable case counted once: in a folded line or on its own.
    let not_applicable: usize = quiet_out
        .lines()
        .filter_map(|l| l.strip_prefix("not-applicable "))
        .map(|l| match l.split_once(" scenarios") {
            Some((n, _)) => n.trim().parse::<usize>().expect(l),
            None => 1,
        })
        .sum();
    let expected = quiet
        .report
        .cases
        .iter()
        .filter(|c| c.verdict == Verdict::NotApplicable);
    assert_eq!(not_applicable, expected.count(), "{quiet_out}");
    let versions = quiet_out
        .lines()
        .find(|l| l.ends_with("scenarios of other protocol versions"))
        .expect(&quiet_out);
    let of_other_versions = quiet
        .report
        .cases
        .iter()
        .filter(|c| c.note.as_deref().is_some_and(|n| n.contains("this run speaks")))
        .count();
    assert!(of_other_versions > 1);
    assert!(
        versions.contains(&format!(" {of_other_versions} scenarios ")),
        "{versions}"
    );
}

#[test]
fn show_not_applicable_lists_those_cases_with_their_reason() {
    let out = stdout(&[
        "run",
        "--filter",
        "stateless.discover",
        "--show",
        "not-applicable",
    ]);
    assert!(
        out.lines()
            .any(|l| l.starts_with("not-applicable stateless.discover")
                && l.contains("(applies to 2026-07-28; this run speaks 2025-11-25)")),
        "{out}"
    );
    assert!(!out.contains("of other protocol versions"), "{out}");
}

#[test]
fn a_scenario_whose_trigger_is_unbound_says_which_one_and_how_to_bind_it() {
    let binary = assert_cmd::cargo::cargo_bin("mcp-conform");
    let server = format!("{} reference-server", binary.display());
    let out = stdout(&["run", "--stdio", &server, "--filter", "tools.call"]);
    assert!(
        out.lines().any(|l| l.starts_with("not-observed   tools.call")
            && l.contains("needs trigger safe_tool; no profile was given")),
        "{out}"
    );
    assert!(
        out.contains("not-observed for want of a trigger: safe_tool (1). Bind them")
            && out.contains("--profile FILE")
            && out.contains("`mcp-conform init` with this run's --stdio or --url writes one")
            && out.contains("1 case waits on it."),
        "{out}"
    );
}

#[test]
fn a_missing_capability_decides_before_a_missing_trigger() {
    // A mock server that declares tools only: no tasks.
    let dir = tempfile::tempdir().unwrap();
    let played = dir.path().join("tools-only.yaml");
    let scenario = "id: fixture.tools-only\ntitle: declares tools only\nrole: client\n\
                    server: { capabilities: { tools: {} } }\nsteps:\n  - sleep: 300\n";
    std::fs::write(&played, scenario).unwrap();
    let binary = assert_cmd::cargo::cargo_bin("mcp-conform");
    let server = format!("{} serve {}", binary.display(), played.display());
    let out = stdout(&[
        "run",
        "--stdio",
        &server,
        "--protocol",
        "2025-11-25",
        "--filter",
        "tasks.",
        "--show",
        "not-applicable",
    ]);
    // The extension's scenarios are not-applicable for their version first.
    let cases: Vec<&str> = out
        .lines()
        .filter(|l| l.contains(" tasks.") && !l.contains("tasks.extension-"))
        .collect();
    assert!(cases.len() >= 7, "{out}");
    for case in cases {
        assert!(
            case.starts_with("not-applicable")
                && case.contains("does not declare the `tasks.requests.tools.call` capability"),
            "{out}"
        );
    }
    assert!(!out.contains("for want of a trigger"), "{out}");
}

#[test]
fn list_shows_what_a_plain_run_runs_and_counts_the_rest() {
    let quiet = stdout(&["list"]);
    let verbose = stdout(&["list", "--verbose"]);
    let listed = |out: &str| out.lines().filter(|l| l.contains("  ")).count();
    let folded: usize = quiet
        .lines()
        .filter(|l| l.contains(" scenarios "))
        .map(|l| l.split(' ').next().unwrap().parse::<usize>().expect(l))
        .sum();
    assert!(folded > 0, "{quiet}");
    assert_eq!(listed(&quiet) + folded, listed(&verbose), "{quiet}");
    assert!(quiet.contains("client scenarios (`test-client`)"), "{quiet}");
    assert!(!quiet.lines().any(|l| l.starts_with("client.")), "{quiet}");
    assert!(verbose.lines().any(|l| l.starts_with("client.")), "{verbose}");
}

#[test]
fn version_names_the_protocol_versions_and_the_suite_a_plain_run_reports() {
    let version = stdout(&["--version"]);
    assert!(version.starts_with("mcp-conform "), "{version}");
    assert!(
        version.contains("2025-11-25") && version.contains("2026-07-28"),
        "{version}"
    );
    // A shard's report fingerprints the whole selection, as a plain run's does.
    let all = judge(&["run", "--shard", "1/40"], Duration::from_secs(60)).report;
    let run_line = version
        .lines()
        .find(|l| l.trim_start().starts_with("run "))
        .expect(&version);
    assert!(run_line.contains(&all.run.suite.digest), "{version}");
}
