//! Prints how long loading a generated suite of 1,000 scenarios takes (issue
//! 20: under 200 ms in release), and whether loading stays linear in the
//! suite's size. Figures, not pass/fail:
//! `cargo bench -p mcp-conform --bench scale`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mcp_conform::select::load_scenarios;

const ROUNDS: usize = 5;
const SIZES: [usize; 3] = [250, 500, 1000];

/// One server scenario; `{n}` makes each copy's id unique, and the copies
/// spread over ten folders as a real suite does.
const TEMPLATE: &str = "\
id: scale.generated-{n}
title: Generated scenario {n} for the loader benchmark
requirements: [RPC-012]
requires: { capabilities: [tools] }
steps:
  - request:
      method: tools/call
      params: { arguments: {} }
      expect: { level: SHOULD, error: { code: -32602 } }
  - request:
      method: ping
      expect: { requirement: PING-001, result: {} }
";

fn main() {
    println!("generated suite, load_scenarios, best of {ROUNDS}");
    for size in SIZES {
        let dir = generate(size);
        let best = best_load(dir.path());
        println!(
            "  {size:>5} scenarios: {:>7.1} ms, {:>6.1} µs per scenario",
            best.as_secs_f64() * 1000.0,
            best.as_secs_f64() * 1e6 / size as f64
        );
    }
}

/// Writes `size` scenarios into a fresh temporary directory.
fn generate(size: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for n in 0..size {
        let folder = dir.path().join(format!("area-{}", n % 10));
        std::fs::create_dir_all(&folder).expect("a scenario folder");
        let text = TEMPLATE.replace("{n}", &n.to_string());
        std::fs::write(folder.join(format!("scenario-{n}.yaml")), text).expect("a scenario file");
    }
    dir
}

fn best_load(dir: &Path) -> Duration {
    let paths: Vec<PathBuf> = vec![dir.to_owned()];
    (0..ROUNDS)
        .map(|_| {
            let started = Instant::now();
            let scenarios = load_scenarios(&paths, &[]).expect("the generated suite loads");
            let elapsed = started.elapsed();
            assert!(!scenarios.is_empty());
            elapsed
        })
        .min()
        .expect("at least one round")
}
