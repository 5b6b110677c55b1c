//! `mcp-conform fuzz`, proven on the reference server's `fuzz-` faults
//! (which no bundled scenario sets off, so broken_servers.rs leaves them
//! here): each is found under its requirement, its reproducer makes `run`
//! fail the same way, and the correct server earns no finding.

use std::path::{Path, PathBuf};
use std::process::Output;

use common::cli::{self, bin};
use mcp_conform_core::Level;
use mcp_conform_core::requirements::catalogue;
use mcp_mock_peers::reference::Fault;

mod common;

/// Enough for the hang fault: its first case with a long string comes
/// early, and each hang costs the call and ping timeouts.
const TIME_BUDGET: &str = "20";

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
        let found = fuzz(&server, out.path(), &["--time", TIME_BUDGET]);
        let stdout = String::from_utf8_lossy(&found.stdout);
        assert!(stdout.contains(requirement), "{}: {stdout}", name);
        assert_eq!(found.status.code(), Some(if must { 1 } else { 0 }), "{}", name);
        let written = reproducers(out.path());
        assert_eq!(written.len(), 1, "{}: one finding, one reproducer", name);
        let reproducer = written[0].display().to_string();
        let replayed = shown(&["run", "--stdio", &server, &reproducer, "--strict"]);
        let replayed_out = String::from_utf8_lossy(&replayed.stdout);
        assert_eq!(replayed.status.code(), Some(1), "{}: {replayed_out}", name);
        assert!(replayed_out.contains(requirement), "{}: {replayed_out}", name);
    }
}

#[test]
fn the_correct_server_earns_no_finding() {
    let out = tempfile::tempdir().unwrap();
    let found = fuzz(&server(None), out.path(), &["--cases", "100", "--strict"]);
    let stdout = String::from_utf8_lossy(&found.stdout);
    assert_eq!(found.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("100 cases") && stdout.contains("0 findings"),
        "{stdout}"
    );
    assert!(reproducers(out.path()).is_empty());
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
