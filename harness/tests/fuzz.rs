//! `mcp-conform fuzz` and `test-client --fuzz`, proven on the reference
//! server's and client's `fuzz-` faults (which no bundled scenario sets
//! off, so the broken_* sweeps leave them here): each is found under its
//! requirement, its reproducer fails the same way when replayed, and the
//! correct peer earns no finding.

use std::path::{Path, PathBuf};
use std::process::Output;

use common::cli::{self, bin};
use mcp_conform_core::Level;
use mcp_conform_core::requirements::catalogue;
use mcp_mock_peers::reference::Fault;
use mcp_mock_peers::reference_client::ClientFault;

mod common;

fn server(fault: Option<&str>) -> String {
    let mut line = format!("{} reference-server", bin());
    if let Some(fault) = fault {
        line += &format!(" --fault {fault}");
    }
    line
}

/// `mcp-conform ARGS`, its stdout printed for a failing test to show.
fn shown(args: &[&str]) -> Output {
    let output = cli::mcp_conform().args(args).output().unwrap();
    println!("{}", String::from_utf8_lossy(&output.stdout));
    output
}

fn fuzz(server: &str, out: &Path, extra: &[&str]) -> Output {
    let out = out.display().to_string();
    let mut args = vec![
        "fuzz",
        "--stdio",
        server,
        "--allow-tool",
        "echo",
        "--seed",
        "1",
        "--out",
        &out,
    ];
    args.extend(extra);
    shown(&args)
}

fn reproducers(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|entries| entries.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default()
}

#[test]
fn fuzz_finds_each_fuzz_fault_and_its_reproducer_fails_run_the_same_way() {
    let fuzz_faults: Vec<Fault> = Fault::ALL.iter().copied().filter(|f| f.is_fuzz()).collect();
    assert!(!fuzz_faults.is_empty());
    for fault in fuzz_faults {
        let (name, requirement) = (fault.name(), fault.requirement());
        // A broken MUST fails the fuzz run; a broken SHOULD only under --strict.
        let must = catalogue().get(requirement).unwrap().level == Level::Must;
        let server = server(Some(name));
        let out = tempfile::tempdir().unwrap();
        // The default budget: 200 cases, no time limit.
        let found = fuzz(&server, out.path(), &[]);
        let stdout = String::from_utf8_lossy(&found.stdout);
        assert!(stdout.contains(requirement), "{}: {stdout}", name);
        assert_eq!(found.status.code(), Some(if must { 1 } else { 0 }), "{}", name);
        if fault == Fault::FuzzHangOnLongString {
            // The calls like the one that hung are not sent again.
            assert!(stdout.contains("cases not sent"), "{stdout}");
        }
        let written = reproducers(out.path());
        assert_eq!(written.len(), 1, "{}: one finding, one reproducer", name);
        let reproducer = written[0].display().to_string();
        let replayed = shown(&["run", "--stdio", &server, &reproducer, "--strict"]);
        let replayed_out = String::from_utf8_lossy(&replayed.stdout);
        assert_eq!(replayed.status.code(), Some(1), "{}: {replayed_out}", name);
        assert!(replayed_out.contains(requirement), "{}: {replayed_out}", name);
    }
}

/// Over ten thousand requests, in both eras, to every subject of the
/// correct server that needs no client capability (its tools but
/// `elicit` and the like, its prompts, templates, completions, and unknown
/// methods): no finding, and no session ended as a flood (one session
/// takes in at most 10,000 frames; the fuzzer opens a fresh one well
/// before).
#[test]
fn ten_thousand_cases_on_the_correct_server_earn_no_finding() {
    for protocol in ["2025-11-25", "2026-07-28"] {
        let out = tempfile::tempdir().unwrap();
        let tools = ["--allow-tool", "add", "--allow-tool", "fail"];
        let mut extra = vec!["--cases", "1200", "--strict", "--protocol", protocol];
        extra.extend(tools);
        let found = fuzz(&server(None), out.path(), &extra);
        let stdout = String::from_utf8_lossy(&found.stdout);
        assert_eq!(found.status.code(), Some(0), "{protocol}: {stdout}");
        assert!(
            stdout.contains("0 findings, 0 frame check findings"),
            "{protocol}: {stdout}"
        );
        let sent: usize = stdout
            .lines()
            .find_map(|line| line.split_once(" cases in ")?.0.parse().ok())
            .unwrap_or_else(|| panic!("{stdout}"));
        assert!(sent >= 10_000, "{protocol}: {sent} cases\n{stdout}");
        assert!(reproducers(out.path()).is_empty());
    }
}

/// Faults of the suite's sweep that fuzzing reaches too, from subjects
/// other than tools: a prompt made without its required argument, an
/// unknown method answered with the wrong code, text that is not JSON and
/// an invalid request left unanswered. Each breaks a SHOULD, so it fails
/// the run only under `--strict`.
#[test]
fn fuzz_finds_faults_of_the_suite_from_other_subjects() {
    let faults = [
        Fault::MissingArgumentAccepted,
        Fault::UnknownMethodCode,
        Fault::NoParseError,
        Fault::InvalidRequestIgnored,
    ];
    for fault in faults {
        let out = tempfile::tempdir().unwrap();
        let found = fuzz(&server(Some(fault.name())), out.path(), &["--strict"]);
        let stdout = String::from_utf8_lossy(&found.stdout);
        assert_eq!(found.status.code(), Some(1), "{}: {stdout}", fault.name());
        assert!(stdout.contains(fault.requirement()), "{}: {stdout}", fault.name());
        assert_eq!(reproducers(out.path()).len(), 1, "{}: {stdout}", fault.name());
    }
}

#[test]
fn the_same_seed_calls_the_same_cases() {
    let out = tempfile::tempdir().unwrap();
    let server = server(Some(Fault::FuzzCrashOnEmptyString.name()));
    let first = fuzz(&server, out.path(), &["--cases", "100"]);
    let again = fuzz(&server, out.path(), &["--cases", "100"]);
    let summary = |o: &Output| {
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        text.lines()
            .filter(|l| !l.contains("cases/s"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(summary(&first).contains("TOOL-006"));
    assert_eq!(summary(&first), summary(&again));
}

/// Over HTTP with `--start`, a server that goes away on a call is started
/// again for the next: every case is sent and the crash found, where
/// without `--start` the run would stop at the first crash (exit 3).
#[test]
fn a_started_http_server_that_crashes_is_started_again() {
    let port = mcp_conform::runner::free_loopback_port().unwrap();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let start = format!(
        "{} reference-server --http 127.0.0.1:{port} --fault {}",
        bin(),
        Fault::FuzzCrashOnEmptyString.name()
    );
    let args = [
        "fuzz",
        "--url",
        &url,
        "--start",
        &start,
        "--allow-tool",
        "echo",
        "--kind",
        "tools",
        "--seed",
        "1",
    ];
    let found = shown(&args);
    let stdout = String::from_utf8_lossy(&found.stdout);
    assert_eq!(found.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("100 cases") && stdout.contains("TOOL-006"),
        "{stdout}"
    );
}

/// `test-client --fuzz 20 --seed 1` against the reference client (with
/// `fault`), writing the generated scenarios to `out`.
fn fuzz_client(fault: Option<ClientFault>, out: &Path, extra: &[&str]) -> Output {
    let fault = fault
        .map(|f| format!(" --fault {}", f.name()))
        .unwrap_or_default();
    let command = format!("{} reference-client{fault} {{server}}", bin());
    let out = out.display().to_string();
    let mut args = vec![
        "test-client",
        "--command",
        &command,
        "--fuzz",
        "20",
        "--seed",
        "1",
        "--fuzz-out",
        &out,
        // Each client waits out its linger: many at once cost no CPU.
        "--jobs",
        "6",
    ];
    args.extend(extra);
    shown(&args)
}

/// Each `fuzz-` fault of the reference client is found by generated
/// scenarios under its requirement, and the generated file that found it
/// fails again when replayed; the correct client passes them all.
#[test]
fn test_client_fuzz_finds_each_fuzz_client_fault_and_its_file_replays_it() {
    let correct = tempfile::tempdir().unwrap();
    let passed = fuzz_client(None, correct.path(), &["--strict"]);
    let stdout = String::from_utf8_lossy(&passed.stdout);
    assert_eq!(passed.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("20 scenarios: 20 pass"), "{stdout}");
    let fuzz_faults: Vec<ClientFault> = ClientFault::ALL.iter().copied().filter(|f| f.is_fuzz()).collect();
    assert!(!fuzz_faults.is_empty());
    for fault in fuzz_faults {
        let out = tempfile::tempdir().unwrap();
        let found = fuzz_client(Some(fault), out.path(), &["--strict"]);
        let stdout = String::from_utf8_lossy(&found.stdout);
        assert_eq!(found.status.code(), Some(1), "{}: {stdout}", fault.name());
        let line = stdout
            .lines()
            .find(|line| line.contains(&format!("[{} ", fault.requirement())))
            .unwrap_or_else(|| panic!("{}: {stdout}", fault.name()));
        // `… at FILE:LINE:COLUMN`: the generated file that found it.
        let file = line.rsplit_once(" at ").unwrap().1.split(':').next().unwrap();
        let command = format!("{} reference-client --fault {} {{server}}", bin(), fault.name());
        let replayed = shown(&["test-client", "--command", &command, file, "--strict"]);
        assert_eq!(replayed.status.code(), Some(1), "{}: {file}", fault.name());
    }
}
