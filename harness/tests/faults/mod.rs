//! The fault sweeps: each broken fixture peer (a reference peer with one
//! fault, `mcp-conform reference-server|reference-client|reference-gateway
//! --fault NAME`) judged by the library, in this process, on only the
//! bundled scenarios its declaration says catch it (`caught_by`), several
//! faults at once. Checked both ways: every one of those scenarios flags the
//! fault's requirement ([`sweep`]), and on the whole suite through the CLI
//! no other scenario flags anything ([`assert_smoke`], one fault per sweep).

use std::collections::BTreeSet;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_conform::runner::{Check, RunConfig, ScenarioOutcome, run_suite};
use mcp_conform::select::{keep_role, load_scenarios};
use mcp_conform_core::scenario::Scenario;
use mcp_conform_core::scenario::model::Role;
use mcp_conform_core::{Level, Verdict};

/// Faults judged at once. Their scenarios mostly wait on the peer (answers,
/// step timeouts), so more than the cores.
const PARALLEL: usize = 6;
/// Scenarios of one fault run at once.
const JOBS: usize = 4;

/// One fault of a fixture peer.
pub struct Fault {
    pub name: &'static str,
    pub requirement: &'static str,
    pub description: &'static str,
    /// The bundled scenarios that flag the requirement when the peer has the fault.
    pub caught_by: &'static [&'static str],
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
                caught_by: f.caught_by(),
            })
            .collect::<Vec<_>>()
    };
}

pub(crate) use fault_list;

/// The arguments of a CLI run of the whole suite against the HTTP server
/// at `url` that `command` starts (for [`assert_smoke`]).
#[allow(dead_code, reason = "the HTTP sweeps' binaries use it, the others do not")]
pub fn http_run_args<'a>(url: &'a str, command: &'a str) -> [&'a str; 11] {
    [
        "run",
        "--url",
        url,
        "--start",
        command,
        "--transport",
        "streamable",
        "--profile",
        "reference",
        "--jobs",
        "2",
    ]
}

/// The bundled scenarios of one role.
pub fn bundled(role: Role) -> Vec<Scenario> {
    let mut scenarios = load_scenarios(&[], &[]).expect("the bundled suite loads");
    keep_role(&mut scenarios, role);
    scenarios
}

/// Whether a check found something broken: failed, non-strict, or a broken
/// MAY (whose verdict is not-observed, a MAY never failing).
fn is_finding(verdict: Verdict, level: Level) -> bool {
    match verdict {
        Verdict::Fail | Verdict::NonStrict => true,
        Verdict::NotObserved => level == Level::May,
        _ => false,
    }
}

fn flags(outcome: &ScenarioOutcome, requirement: &str) -> bool {
    outcome
        .checks
        .iter()
        .any(|check| check.requirement == requirement && is_finding(check.verdict, check.level))
}

/// What one fault's run showed.
struct Swept<'a> {
    fault: &'a Fault,
    took: Duration,
    /// Why the fault does not count as caught by exactly its scenarios.
    problems: Vec<String>,
}

/// Judges each fault's peer (`start` gives the run's configuration, and
/// what must live while it runs) on its `caught_by` scenarios, and fails
/// unless every one of them flags the fault's requirement.
pub fn sweep<G>(peers: &str, role: Role, faults: &[Fault], start: impl Fn(&Fault) -> (RunConfig, G) + Sync) {
    let suite = bundled(role);
    let queue = Mutex::new(faults.iter().collect::<Vec<_>>());
    let results = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..PARALLEL {
            scope.spawn(|| {
                loop {
                    // Not `while let`: its guard would hold the queue during the run.
                    let next = queue.lock().unwrap().pop();
                    let Some(fault) = next else { break };
                    let (config, _peer) = start(fault);
                    let swept = judge(fault, &suite, &config);
                    results.lock().unwrap().push(swept);
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|swept| swept.fault.name);
    let mut missed = Vec::new();
    for swept in &results {
        let fault = swept.fault;
        eprintln!(
            "{:<36} {:<9} {:>5.1} s  {}{}",
            fault.name,
            fault.requirement,
            swept.took.as_secs_f64(),
            fault.caught_by.join(" "),
            if swept.problems.is_empty() {
                ""
            } else {
                "   <- MISSED"
            }
        );
        if !swept.problems.is_empty() {
            missed.push(format!(
                "{} ({}: {}):\n  {}",
                fault.name,
                fault.requirement,
                fault.description,
                swept.problems.join("\n  ")
            ));
        }
    }
    eprintln!(
        "mutation score: {}/{} broken {peers} caught under the right requirement by each scenario of their caught_by",
        faults.len() - missed.len(),
        faults.len()
    );
    assert!(missed.is_empty(), "missed faults:\n{}", missed.join("\n"));
}

/// Runs the fault's `caught_by` scenarios and says what is wrong with the list.
fn judge<'a>(fault: &'a Fault, suite: &[Scenario], config: &RunConfig) -> Swept<'a> {
    let started = Instant::now();
    let mut problems = Vec::new();
    if fault.caught_by.is_empty() {
        problems.push("caught_by is empty: no bundled scenario catches the fault".to_owned());
    }
    let mut scenarios = Vec::new();
    for id in fault.caught_by {
        match suite.iter().find(|s| s.id == *id) {
            None => problems.push(format!("{id}: no such bundled scenario of this role")),
            Some(s) if !s.versions.contains(config.protocol) => {
                problems.push(format!(
                    "{id}: applies to {}, not {}",
                    s.versions, config.protocol
                ));
            }
            Some(s) => scenarios.push(s.clone()),
        }
    }
    let outcomes = run_suite(
        &scenarios,
        config,
        JOBS,
        &Arc::new(AtomicBool::new(false)),
        |_| {},
    );
    for outcome in outcomes.iter().filter(|o| !flags(o, fault.requirement)) {
        problems.push(format!(
            "{}: does not flag {} ({}{}){}",
            outcome.id,
            fault.requirement,
            outcome.verdict,
            outcome
                .note
                .as_ref()
                .map(|n| format!(": {n}"))
                .unwrap_or_default(),
            findings_of(&outcome.checks)
        ));
    }
    Swept {
        fault,
        took: started.elapsed(),
        problems,
    }
}

fn findings_of(checks: &[Check]) -> String {
    checks
        .iter()
        .filter(|c| c.verdict != Verdict::Pass)
        .map(|c| {
            format!(
                "\n    {} {} {}: {}",
                c.verdict,
                c.requirement,
                c.name,
                c.message.as_deref().unwrap_or("")
            )
        })
        .collect()
}

/// The one whole-suite run of a sweep, through the real CLI (`mcp-conform
/// ARGS --report-dir DIR`): the findings of its report.json must be exactly
/// the fault's requirement in each scenario of its `caught_by`, nothing
/// else flagged and no case in error.
pub fn assert_smoke(faults: &[Fault], name: &str, args: &[&str]) {
    let fault = faults.iter().find(|f| f.name == name).expect("a declared fault");
    let reports = tempfile::tempdir().unwrap();
    let output = crate::common::cli::mcp_conform()
        .args(args)
        .arg("--report-dir")
        .arg(reports.path())
        .timeout(Duration::from_secs(300))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let text = std::fs::read_to_string(reports.path().join("report.json"))
        .unwrap_or_else(|e| panic!("no report.json ({e}):\n{stdout}"));
    let report = mcp_conform_report::json::read(&text).unwrap();
    let findings: BTreeSet<(&str, &str)> = report
        .cases
        .iter()
        .flat_map(|case| case.checks.iter().map(move |check| (case, check)))
        .filter(|(_, check)| is_finding(check.verdict, check.level))
        .map(|(case, check)| (case.scenario.as_str(), check.requirement.as_str()))
        .collect();
    let expected: BTreeSet<(&str, &str)> = fault
        .caught_by
        .iter()
        .map(|id| (*id, fault.requirement))
        .collect();
    assert_eq!(
        findings, expected,
        "{}: the whole suite's findings\n{stdout}",
        fault.name
    );
    assert_eq!(report.summary.error, 0, "{stdout}");
}
