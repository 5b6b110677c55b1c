//! Prints how long loading a generated suite of 1,000 scenarios takes (issue
//! 20: under 200 ms in release), and how long the frame checker takes over
//! long connections; both should stay linear in size. Figures, not pass/fail:
//! `cargo bench -p mcp-conform --bench scale`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mcp_conform::select::load_scenarios;
use mcp_conform_core::protocol::{FrameChecker, PeerRole};
use mcp_conform_core::wire::{Direction, Frame};

const ROUNDS: usize = 5;
const SIZES: [usize; 3] = [250, 500, 1000];
/// Ping round trips after the handshake, per connection checked.
const ROUND_TRIPS: [usize; 3] = [10_000, 20_000, 40_000];

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#;
const INITIALIZE_RESULT: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"bench","version":"1"}}}"#;

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
    println!("frame checker over one connection, best of {ROUNDS}");
    for trips in ROUND_TRIPS {
        let frames = connection(trips);
        let best = best_check(&frames);
        println!(
            "  {:>6} frames: {:>7.1} ms, {:>6.2} µs per frame",
            frames.len(),
            best.as_secs_f64() * 1000.0,
            best.as_secs_f64() * 1e6 / frames.len() as f64
        );
    }
}

/// A handshake and then `trips` pings from the harness, each answered.
fn connection(trips: usize) -> Vec<Frame> {
    let frame = |direction, text: String| Frame::new(direction, text.into_bytes(), Duration::ZERO);
    let mut frames = vec![
        frame(Direction::Sent, INITIALIZE.to_owned()),
        frame(Direction::Received, INITIALIZE_RESULT.to_owned()),
        frame(
            Direction::Sent,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned(),
        ),
    ];
    for id in 1..=trips {
        frames.push(frame(
            Direction::Sent,
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#),
        ));
        frames.push(frame(
            Direction::Received,
            format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#),
        ));
    }
    frames
}

fn best_check(frames: &[Frame]) -> Duration {
    (0..ROUNDS)
        .map(|_| {
            let mut checker = FrameChecker::new(PeerRole::Client);
            let started = Instant::now();
            let violations: usize = frames.iter().map(|frame| checker.check(frame).len()).sum();
            let elapsed = started.elapsed();
            assert_eq!(violations, 0, "a correct connection breaks no rule");
            elapsed
        })
        .min()
        .expect("at least one round")
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
