//! The hostile-peer matrix (issue 16): the `mcp-conform` binary against
//! servers that flood, stall, lie and misbehave (fixtures/hostile/peer.sh),
//! each run under a memory limit and a wall-clock guard. Every case must end
//! with a clear verdict (never exit 0), within the guard, under the memory
//! cap, without panic text, with report.json written and nothing of the
//! peer's process group left running. A table of the figures is printed.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Generous: a case is judged on a single scenario with a short startup budget.
const WALL_GUARD: Duration = Duration::from_secs(90);
/// The address-space cap `mcp-conform` runs under.
const ADDRESS_SPACE: u64 = 4_000_000_000;
/// Peak resident memory a case may use.
const PEAK_RSS_KIB: u64 = 1024 * 1024;

/// The stdio server faults of fixtures/hostile/peer.sh.
const FAULTS: &[&str] = &[
    "garbage-flood",
    "notification-flood",
    "request-flood",
    "huge-line",
    "endless-stderr",
    "stdout-closed",
    "immortal",
    "never-answering",
    "wrong-id",
    "duplicate-id",
    "slow-bytes",
    "escapes",
];

#[derive(Debug)]
struct Outcome {
    exit: Option<i32>,
    wall: Duration,
    peak_rss_kib: u64,
    orphans: usize,
    problems: Vec<String>,
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_owned()
}

/// Processes still running in process group `pgid`. Zombies do not count:
/// they have exited, and wait only for init to reap them.
fn members_of(pgid: &str) -> usize {
    let out = Command::new("ps").args(["-eo", "pgid=,stat="]).output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.trim().split_once(char::is_whitespace))
        .filter(|(g, stat)| *g == pgid && !stat.trim().starts_with('Z'))
        .count()
}

fn run_case(fault: &str, dir: &Path) -> Outcome {
    let peer = workspace().join("fixtures/hostile/peer.sh");
    let pgid_file = dir.join("pgid");
    let report_dir = dir.join("report");
    let rss_file = dir.join("rss");
    let started = Instant::now();
    let output = Command::new("timeout")
        .args(["--kill-after=5", &WALL_GUARD.as_secs().to_string()])
        .arg("prlimit")
        .arg(format!("--as={ADDRESS_SPACE}"))
        .args(["/usr/bin/time", "-f", "%M", "-o"])
        .arg(&rss_file)
        .arg(env!("CARGO_BIN_EXE_mcp-conform"))
        .args(["run", "--stdio", &format!("{} {fault}", peer.display())])
        .args([
            "--filter",
            "lifecycle.ping",
            "--startup-timeout",
            "5",
            "--report-dir",
        ])
        .arg(&report_dir)
        .env("HOSTILE_PGID_FILE", &pgid_file)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let wall = started.elapsed();
    // The peer's group gets a moment to go after the harness exits.
    std::thread::sleep(Duration::from_millis(500));
    let orphans = std::fs::read_to_string(&pgid_file)
        .map(|g| members_of(g.trim()))
        .unwrap_or(0);
    let peak_rss_kib = std::fs::read_to_string(&rss_file)
        .ok()
        .and_then(|t| t.lines().last().and_then(|l| l.trim().parse().ok()))
        .unwrap_or(0);
    let exit = output.status.code();
    let mut problems = Vec::new();
    match exit {
        Some(0) => problems.push("exit 0 for a broken peer".to_owned()),
        Some(124 | 137) | None => problems.push(format!("still running after {WALL_GUARD:?}")),
        _ => {}
    }
    if peak_rss_kib > PEAK_RSS_KIB {
        problems.push(format!("peak RSS {peak_rss_kib} KiB"));
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    if stderr.contains("panicked at") || stdout.contains("panicked at") {
        problems.push("panic text".to_owned());
    }
    if stdout.contains('\u{1b}') {
        problems.push("peer's escape sequences reach the terminal raw".to_owned());
    }
    // On a terminal `<script>` is text; in the Markdown and HTML reports it
    // would be live.
    let live_html = ["report.md", "report.html"].iter().any(|file| {
        std::fs::read_to_string(report_dir.join(file)).is_ok_and(|text| text.contains("<script>alert"))
    });
    if live_html {
        problems.push("peer's HTML is live in a report".to_owned());
    }
    if orphans > 0 {
        problems.push(format!("{orphans} processes of the peer left"));
    }
    if !report_dir.join("report.json").is_file() {
        problems.push("no report.json".to_owned());
    }
    Outcome {
        exit,
        wall,
        peak_rss_kib,
        orphans,
        problems,
    }
}

#[test]
fn hostile_servers_over_stdio_get_a_clear_verdict_within_bounds() {
    let mut table = String::from("fault                exit  wall(s)  peak RSS(MiB)  orphans  outcome\n");
    let mut unexpected = Vec::new();
    for fault in FAULTS {
        let dir = tempfile::tempdir().unwrap();
        let outcome = run_case(fault, dir.path());
        let verdict = match &outcome.problems[..] {
            [] => "ok".to_owned(),
            problems => {
                unexpected.push(format!("{fault}: {}", problems.join("; ")));
                format!("FAIL: {}", problems.join("; "))
            }
        };
        table.push_str(&format!(
            "{fault:<20} {:>4}  {:>7.1}  {:>13}  {:>7}  {verdict}\n",
            outcome.exit.map_or("-".to_owned(), |c| c.to_string()),
            outcome.wall.as_secs_f64(),
            outcome.peak_rss_kib / 1024,
            outcome.orphans,
        ));
    }
    println!("{table}");
    assert!(unexpected.is_empty(), "{table}\n{}", unexpected.join("\n"));
}
