//! What the tests of broken fixture peers share: the mutation score of a
//! fault list, and the README that lists the faults.

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::time::Duration;

use assert_cmd::Command;
use serde_json::Value;

/// Faulty peers judged at once (each run uses four scenario workers).
const PARALLEL: usize = 2;

/// One fault of a fixture peer.
pub struct Fault {
    pub name: &'static str,
    pub requirement: &'static str,
    pub description: &'static str,
}

/// What one run of the bundled scenarios found.
pub struct Judged {
    pub stdout: String,
    report: Value,
}

impl Judged {
    /// The requirements of the checks that found something broken: failed,
    /// non-strict, or a broken MAY (whose verdict is not-observed, a MAY
    /// never failing).
    pub fn flagged(&self) -> BTreeSet<String> {
        let cases = self.report["cases"].as_array().into_iter().flatten();
        cases
            .flat_map(|case| case["checks"].as_array().into_iter().flatten())
            .filter(|check| match check["verdict"].as_str() {
                Some("fail" | "non-strict") => true,
                Some("not-observed") => check["level"] == "MAY",
                _ => false,
            })
            .filter_map(|check| check["requirement"].as_str().map(str::to_owned))
            .collect()
    }
}

/// Runs `mcp-conform SUBCOMMAND --command "mcp-conform FIXTURE [--fault
/// NAME] PLACEHOLDER" ARGS…` on the bundled scenarios, with a report.
pub fn judge_fixture(
    subcommand: &str,
    fixture: &str,
    fault: Option<&str>,
    placeholder: &str,
    args: &[&str],
) -> Judged {
    let exe = assert_cmd::cargo::cargo_bin("mcp-conform");
    let fault = fault.map(|f| format!(" --fault {f}")).unwrap_or_default();
    let command = format!("{} {fixture}{fault} {placeholder}", exe.display());
    let reports = tempfile::tempdir().unwrap();
    let output = Command::cargo_bin("mcp-conform")
        .unwrap()
        .env("NO_COLOR", "1")
        .args([subcommand, "--command", &command, "--jobs", "4", "--report-dir"])
        .arg(reports.path())
        .args(args)
        .timeout(Duration::from_secs(300))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let report = std::fs::read_to_string(reports.path().join("report.json"))
        .unwrap_or_else(|e| panic!("no report.json ({e}):\n{stdout}"));
    Judged {
        report: serde_json::from_str(&report).unwrap(),
        stdout,
    }
}

/// The faults of a `faults!` enum of mcp-mock-peers.
macro_rules! fault_list {
    ($enum:ty) => {
        <$enum>::ALL
            .iter()
            .map(|f| crate::faults::Fault {
                name: f.name(),
                requirement: f.requirement(),
                description: f.description(),
            })
            .collect::<Vec<_>>()
    };
}

pub(crate) use fault_list;

/// Judges the peer once per fault, two at a time, and fails unless each
/// fault is flagged under the requirement it breaks.
pub fn assert_each_caught(peers: &str, faults: &[Fault], judge: impl Fn(&str) -> Judged + Sync) {
    let queue = Mutex::new(faults.iter().collect::<Vec<_>>());
    let results = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..PARALLEL {
            scope.spawn(|| {
                while let Some(fault) = queue.lock().unwrap().pop() {
                    let judged = judge(fault.name);
                    results.lock().unwrap().push((fault, judged));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(fault, _)| fault.name);
    let mut missed = Vec::new();
    for (fault, judged) in &results {
        let ids = judged.flagged();
        let caught = ids.contains(fault.requirement);
        eprintln!(
            "{:<30} {:<9} {}{}",
            fault.name,
            fault.requirement,
            ids.iter().cloned().collect::<Vec<_>>().join(" "),
            if caught { "" } else { "   <- MISSED" }
        );
        if !caught {
            missed.push(format!(
                "{} ({}):\n{}",
                fault.name, fault.requirement, judged.stdout
            ));
        }
    }
    eprintln!(
        "mutation score: {}/{} broken {peers} caught under the right requirement",
        faults.len() - missed.len(),
        faults.len()
    );
    assert!(missed.is_empty(), "missed faults:\n{}", missed.join("\n"));
}

/// Fails unless the table rows of the README (under the repository root)
/// are exactly the faults.
pub fn assert_readme_lists(readme: &str, faults: &[Fault]) {
    let path = format!("{}/../{readme}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let rows: BTreeSet<&str> = text.lines().filter(|line| line.starts_with("| `")).collect();
    let expected: BTreeSet<String> = faults
        .iter()
        .map(|f| format!("| `{}` | {} | {} |", f.name, f.requirement, f.description))
        .collect();
    let expected: BTreeSet<&str> = expected.iter().map(String::as_str).collect();
    assert_eq!(rows, expected, "{readme} is out of date");
}
