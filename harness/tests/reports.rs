//! Report files and the release gate end to end: the four files of one run,
//! the JSON against its checked-in schema, JUnit verdict types, byte-identical
//! reruns, baseline regressions, stale and expired entries, `--strict`,
//! shards and their merge, and secret headers redacted everywhere. (The
//! HTML page in a browser: `report_browser.rs`; the run against a real
//! peer: `real_peers.rs`.)
//!
//! Failing runs use the bundled reference server with one fault
//! (`reference-server --fault NAME`), so every verdict here is deterministic.

use std::path::Path;
use std::time::Duration;

use common::cli::{self, Ran, bin, ran};
use tempfile::TempDir;

mod common;

const FILES: [&str; 4] = ["report.json", "junit.xml", "report.md", "report.html"];

/// The reference server with `fault`, as a `--stdio` command line.
fn broken(fault: &str) -> String {
    format!("{} reference-server --fault {fault}", bin())
}

/// `mcp-conform ARGS`, its reports dated now.
fn undated(args: &[&str]) -> Ran {
    let mut command = cli::mcp_conform();
    command.env_remove("SOURCE_DATE_EPOCH").args(args);
    ran(&mut command, Duration::from_secs(300))
}

/// `run` against the reference server with `fault` (and the reference
/// profile) over the resources scenarios, plus `extra`.
fn run_broken(fault: &str, dir: &Path, extra: &[&str]) -> Ran {
    let stdio = broken(fault);
    let dir = dir.display().to_string();
    let mut args = vec![
        "run",
        "--stdio",
        &stdio,
        "--profile",
        "reference",
        "--jobs",
        "2",
        "--report-dir",
        &dir,
    ];
    args.extend_from_slice(extra);
    undated(&args)
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{}: {e}", dir.join(name).display()))
}

fn json(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&read(dir, "report.json")).unwrap()
}

/// Every report file of `dir` with the run's one timestamp replaced, and
/// the directory itself (JUnit names the transcript files in it).
fn files_without_timestamp(dir: &Path) -> Vec<String> {
    let generated_at = json(dir)["generated_at"].as_str().unwrap().to_owned();
    FILES
        .iter()
        .map(|name| {
            read(dir, name)
                .replace(&generated_at, "<generated_at>")
                .replace(&dir.display().to_string(), "<dir>")
        })
        .collect()
}

fn baseline(dir: &TempDir, text: &str) -> String {
    let path = dir.path().join("baseline.yaml");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// A run against the `bad-base64` server over the resources scenarios,
/// gated by a baseline of `text`; returns the baseline's path too.
fn gated(out: &TempDir, text: &str) -> (Ran, String) {
    let path = baseline(out, text);
    let run = run_broken(
        "bad-base64",
        out.path(),
        &["-f", "resources", "--baseline", &path],
    );
    (run, path)
}

fn schema_validator() -> jsonschema::Validator {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../reports/report.schema.json");
    let schema: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::validator_for(&schema).unwrap()
}

#[test]
fn a_failing_run_writes_four_files_that_agree() {
    let out = TempDir::new().unwrap();
    let run = run_broken("bad-base64", out.path(), &["-f", "resources"]);
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    assert!(
        !run.stderr.contains('░'),
        "a progress bar outside a terminal: {}",
        run.stderr
    );
    let report = json(out.path());
    let errors: Vec<String> = schema_validator()
        .iter_errors(&report)
        .map(|e| e.to_string())
        .collect();
    assert!(
        errors.is_empty(),
        "report.json does not match its schema: {errors:?}"
    );
    assert_eq!(report["format_version"], 1);
    assert_eq!(report["gate"]["exit_code"], 1);
    let failure = &report["gate"]["new_failures"][0];
    assert_eq!(failure["scenario"], "resources.read-listed");
    assert_eq!(failure["requirement"], "RES-003");
    let case = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["scenario"] == "resources.read-listed")
        .unwrap();
    let transcript = case["transcript"].as_array().unwrap();
    assert!(
        transcript.iter().any(|f| f["answers"].is_u64()),
        "no response paired with its request"
    );

    let junit = quick_junit::Report::deserialize_from_str(&read(out.path(), "junit.xml")).unwrap();
    let failures: Vec<String> = junit
        .test_suites
        .iter()
        .flat_map(|s| &s.test_cases)
        .filter_map(|t| match &t.status {
            quick_junit::TestCaseStatus::NonSuccess { ty, .. } => ty
                .as_ref()
                .map(|ty| format!("{}:{}", t.name.as_str(), ty.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(failures, ["RES-003 frames follow RES-003:fail"]);
    assert!(
        read(out.path(), "junit.xml").contains("<system-out>"),
        "no transcript in JUnit"
    );
    // The failing test case attaches its transcript file (GitLab's link).
    let failing = junit
        .test_suites
        .iter()
        .flat_map(|s| &s.test_cases)
        .find(|t| t.name.as_str() == "RES-003 frames follow RES-003")
        .unwrap();
    let transcript_file = out
        .path()
        .join("transcripts/resources.read-listed_2025-11-25.txt");
    assert_eq!(
        failing.system_out.as_ref().map(|o| o.as_str().to_owned()),
        Some(format!("[[ATTACHMENT|{}]]", transcript_file.display()))
    );
    let attached = std::fs::read_to_string(&transcript_file).unwrap();
    assert!(attached.contains("resources/read"), "{attached}");

    let markdown = read(out.path(), "report.md");
    assert!(
        markdown.contains("❌ gate failed (exit 1)") && markdown.contains("| RES-003 |"),
        "{markdown}"
    );
    let html = read(out.path(), "report.html");
    assert!(
        html.contains("data-verdict=\"fail\"") && html.contains("RES-003"),
        "{html}"
    );
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "the page must not load anything"
    );
}

#[test]
fn junit_tells_non_strict_from_fail_and_strict_makes_it_fail() {
    let out = TempDir::new().unwrap();
    let lenient = run_broken("unknown-tool-result", out.path(), &["-f", "tools.unknown"]);
    assert_eq!(lenient.code, Some(0), "{}", lenient.stdout);
    let junit = read(out.path(), "junit.xml");
    assert!(
        junit.contains("<skipped message=\"non-strict") && junit.contains("type=\"non-strict\">"),
        "{junit}"
    );
    assert!(!junit.contains("<failure"), "{junit}");

    let strict = run_broken(
        "unknown-tool-result",
        out.path(),
        &["-f", "tools.unknown", "--strict"],
    );
    assert_eq!(strict.code, Some(1), "{}", strict.stdout);
    assert!(
        strict
            .stdout
            .contains("--strict: 1 non-strict findings fail the gate"),
        "{}",
        strict.stdout
    );
    let junit = read(out.path(), "junit.xml");
    assert!(
        junit.contains("<failure message=\"non-strict") && junit.contains("type=\"non-strict\">"),
        "{junit}"
    );
}

#[test]
fn two_runs_differ_only_in_the_timestamp() {
    let (first, second) = (TempDir::new().unwrap(), TempDir::new().unwrap());
    run_broken("bad-base64", first.path(), &["-f", "resources", "-f", "tools"]);
    std::thread::sleep(Duration::from_millis(1100));
    run_broken("bad-base64", second.path(), &["-f", "resources", "-f", "tools"]);
    assert_eq!(
        files_without_timestamp(first.path()),
        files_without_timestamp(second.path())
    );
}

#[test]
fn timings_record_each_stdio_case_s_process_start() {
    let out = TempDir::new().unwrap();
    run_broken("bad-base64", out.path(), &["-f", "tools.list", "--timings"]);
    let report = json(out.path());
    let case = &report["cases"][0];
    assert_eq!(case["verdict"], "pass", "{case}");
    let startup = case["startup_ms"].as_u64();
    assert!(startup.is_some_and(|ms| ms < 10_000), "{case}");
}

#[test]
fn a_baselined_failure_passes_and_a_new_one_fails() {
    let out = TempDir::new().unwrap();
    let (run, _) = gated(
        &out,
        "# accepted failures\n- scenario: resources.read-listed\n  requirement: RES-003\n  reason: blobs fixed in 2.0\n",
    );
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("1 failing checks accepted, 0 new"),
        "{}",
        run.stdout
    );
    assert!(read(out.path(), "junit.xml").contains("type=\"accepted\""));

    let (run, _) = gated(
        &out,
        "- scenario: elsewhere.not-run\n  requirement: RES-001\n  reason: unrelated\n  expires: 2999-01-01\n",
    );
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert!(
        run.stdout.contains("0 failing checks accepted, 1 new"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_stale_entry_fails_and_names_the_lines_to_delete() {
    let out = TempDir::new().unwrap();
    let path = baseline(
        &out,
        "- scenario: resources.read-listed\n  requirement: RES-003\n  reason: blobs were broken\n",
    );
    // The correct server: the accepted failure is gone.
    let stdio = format!("{} reference-server", bin());
    let dir = out.path().display().to_string();
    let run = undated(&[
        "run",
        "--stdio",
        &stdio,
        "--profile",
        "reference",
        "-f",
        "resources",
        "--baseline",
        &path,
        "--report-dir",
        &dir,
    ]);
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains(&format!(
            "stale baseline entry {path}:1: resources.read-listed RES-003 passes now; delete:\n- scenario: resources.read-listed\n  requirement: RES-003\n  reason: blobs were broken"
        )),
        "{}",
        run.stdout
    );
    assert_eq!(json(out.path())["gate"]["stale"][0]["line"], 1);
}

#[test]
fn an_expired_entry_accepts_nothing_and_says_so() {
    let out = TempDir::new().unwrap();
    let (run, path) = gated(
        &out,
        "- scenario: resources.read-listed\n  requirement: RES-003\n  reason: was to be fixed\n  expires: 2020-01-31\n",
    );
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert!(
        run.stdout.contains(&format!(
            "expired baseline entry {path}:1 (resources.read-listed RES-003) accepts nothing any more"
        )),
        "{}",
        run.stdout
    );
    assert!(read(out.path(), "report.md").contains("Expired baseline entries"));
}

#[test]
fn an_entry_without_a_reason_is_a_located_usage_error() {
    let out = TempDir::new().unwrap();
    let (run, _) = gated(
        &out,
        "- scenario: a.b\n  requirement: RES-003\n\n- scenario: c.d\n  requirement: X\n  reason: ok\n",
    );
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("baseline entry for a.b RES-003 has no reason"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("baseline.yaml:1:"), "{}", run.stderr);
    assert!(
        run.stderr.contains("1 error(s) in the baseline"),
        "{}",
        run.stderr
    );
}

#[test]
fn shards_split_the_suite_and_merge_back_into_the_whole() {
    let work = TempDir::new().unwrap();
    let filters = ["-f", "resources", "-f", "tools", "-f", "prompts"];
    let whole = work.path().join("whole");
    assert_eq!(run_broken("bad-base64", &whole, &filters).code, Some(1));
    let mut shard_reports = Vec::new();
    let mut ids: Vec<String> = Vec::new();
    for k in 1..=3 {
        let dir = work.path().join(format!("shard-{k}"));
        let slice = format!("{k}/3");
        let mut args = filters.to_vec();
        args.extend(["--shard", &slice]);
        run_broken("bad-base64", &dir, &args);
        let report = json(&dir);
        assert_eq!(report["run"]["shard"]["index"], k);
        let mine: Vec<String> = report["cases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["scenario"].as_str().unwrap().to_owned())
            .collect();
        assert!(!mine.is_empty(), "shard {k}/3 is empty");
        ids.extend(mine);
        shard_reports.push(dir.join("report.json"));
    }
    let whole_ids: Vec<String> = json(&whole)["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["scenario"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    assert_eq!(ids, whole_ids, "the shards together are not the whole");

    let merged = work.path().join("merged");
    let merged_arg = merged.display().to_string();
    let mut args = vec!["merge".to_owned(), "--report-dir".into(), merged_arg];
    args.extend(shard_reports.iter().rev().map(|p| p.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = undated(&args);
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    assert_eq!(files_without_timestamp(&merged), files_without_timestamp(&whole));

    let incomplete = undated(&[
        "merge",
        "--report-dir",
        &merged.display().to_string(),
        &shard_reports[0].display().to_string(),
    ]);
    assert_eq!(incomplete.code, Some(2));
    assert!(
        incomplete.stderr.contains("missing shard(s): 2/3, 3/3"),
        "{}",
        incomplete.stderr
    );
}

#[test]
fn the_same_shard_selects_the_same_scenarios() {
    let (first, second) = (TempDir::new().unwrap(), TempDir::new().unwrap());
    let ids = |dir: &Path| -> Vec<String> {
        json(dir)["cases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["scenario"].as_str().unwrap().to_owned())
            .collect()
    };
    run_broken("bad-base64", first.path(), &["-f", "tools", "--shard", "2/4"]);
    run_broken("bad-base64", second.path(), &["-f", "tools", "--shard", "2/4"]);
    assert_eq!(ids(first.path()), ids(second.path()));
}

#[test]
fn a_shard_that_selects_nothing_is_an_error() {
    let out = TempDir::new().unwrap();
    let run = run_broken(
        "bad-base64",
        out.path(),
        &["-f", "resources.read-listed", "--shard", "2/2"],
    );
    assert_eq!(run.code, Some(2), "{}", run.stdout);
    assert!(
        run.stderr.contains("shard 2/2 selected no scenario"),
        "{}",
        run.stderr
    );
    let bad = run_broken("bad-base64", out.path(), &["--shard", "3/2"]);
    assert_eq!(bad.code, Some(2));
}

#[test]
fn secret_headers_are_redacted_in_every_file() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut server = std::process::Command::new(bin())
        .args(["reference-server", "--http", &format!("127.0.0.1:{port}")])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "the reference server did not listen"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = TempDir::new().unwrap();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let dir = out.path().display().to_string();
    let run = undated(&[
        "run",
        "--url",
        &url,
        "-H",
        "Authorization: Bearer s3cret-token",
        "--profile",
        "reference",
        "-f",
        "lifecycle.ping",
        "-f",
        "tools.list",
        "--report-dir",
        &dir,
    ]);
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    for name in FILES {
        let text = read(out.path(), name);
        assert!(!text.contains("s3cret-token"), "{name} leaks the secret");
    }
    let report = read(out.path(), "report.json");
    assert!(
        report.contains("\"authorization\": \"<redacted>\""),
        "the header is not recorded redacted"
    );
}
