//! What the tests of broken fixture peers share: the mutation score of a
//! fault list, and the README that lists the faults.

use std::collections::BTreeSet;
use std::time::Duration;

use assert_cmd::Command;
use regex::Regex;

/// One fault of a fixture peer.
pub struct Fault {
    pub name: &'static str,
    pub requirement: &'static str,
    pub description: &'static str,
}

/// Runs `mcp-conform SUBCOMMAND --command "mcp-conform FIXTURE [--fault
/// NAME] PLACEHOLDER"` on the bundled scenarios; returns its stdout.
pub fn judge_fixture(subcommand: &str, fixture: &str, fault: Option<&str>, placeholder: &str) -> String {
    let exe = assert_cmd::cargo::cargo_bin("mcp-conform");
    let fault = fault.map(|f| format!(" --fault {f}")).unwrap_or_default();
    let command = format!("{} {fixture}{fault} {placeholder}", exe.display());
    let output = Command::cargo_bin("mcp-conform")
        .unwrap()
        .env("NO_COLOR", "1")
        .args([subcommand, "--command", &command, "--jobs", "4"])
        .timeout(Duration::from_secs(300))
        .output()
        .unwrap();
    String::from_utf8_lossy(&output.stdout).into_owned()
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

/// Judges the peer once per fault (`judge` returns the run's stdout) and
/// fails unless each fault is flagged under the requirement it breaks.
pub fn assert_each_caught(peers: &str, faults: &[Fault], judge: impl Fn(&str) -> String) {
    let finding = Regex::new(r"^\s+(?:FAIL|non-strict) .*\[([A-Z]+-[0-9]{3}) (?:MUST|SHOULD|MAY)\]").unwrap();
    let mut missed = Vec::new();
    for fault in faults {
        let stdout = judge(fault.name);
        let ids: BTreeSet<String> = stdout
            .lines()
            .filter_map(|line| finding.captures(line))
            .map(|c| c[1].to_owned())
            .collect();
        let caught = ids.contains(fault.requirement);
        eprintln!(
            "{:<28} {:<9} {}{}",
            fault.name,
            fault.requirement,
            ids.iter().cloned().collect::<Vec<_>>().join(" "),
            if caught { "" } else { "   <- MISSED" }
        );
        if !caught {
            missed.push(format!("{} ({}):\n{stdout}", fault.name, fault.requirement));
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
