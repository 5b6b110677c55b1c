//! Prints how fast the bundled suite runs against the reference server, by
//! job count, and the harness's peak memory. Figures, not pass/fail:
//! `cargo bench -p mcp-conform --bench suite`.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use mcp_conform::runner::{RunConfig, Target, run_suite};
use mcp_conform::select::{load_profile, load_scenarios};
use mcp_mock_peers::transport::StdioCommand;

const ROUNDS: usize = 3;

fn main() {
    let scenarios = load_scenarios(&[], &[]).expect("the bundled suite loads");
    let command = StdioCommand {
        program: env!("CARGO_BIN_EXE_mcp-conform").into(),
        args: vec!["reference-server".into()],
        env: Vec::new(),
        cwd: None,
    };
    let mut config = RunConfig::new(Target::Stdio(command));
    config.profile = Some(load_profile("reference").expect("bundled profile"));
    let never = Arc::new(AtomicBool::new(false));
    println!(
        "bundled suite: {} scenarios, reference server over stdio, best of {ROUNDS}",
        scenarios.len()
    );
    for jobs in [1, 2, 4, 8] {
        let best = (0..ROUNDS)
            .map(|_| {
                let started = Instant::now();
                let outcomes = run_suite(&scenarios, &config, jobs, &never, |_| {});
                assert_eq!(outcomes.len(), scenarios.len());
                started.elapsed()
            })
            .min()
            .expect("at least one round");
        println!(
            "  jobs {jobs}: {:>7.1} ms per suite, {:>6.1} scenarios/s",
            best.as_secs_f64() * 1000.0,
            scenarios.len() as f64 / best.as_secs_f64()
        );
    }
    if let Some(peak) = peak_rss_kib() {
        println!("  peak RSS of the harness: {:.1} MiB", peak as f64 / 1024.0);
    }
}

/// VmHWM from /proc (Linux only).
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
