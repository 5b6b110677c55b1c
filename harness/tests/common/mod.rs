//! What the tests against real peers share: the peers' environment and the
//! verdict table of a run.

use std::collections::BTreeMap;
use std::path::PathBuf;

/// The variables of `peers.env` (written by scripts/install-peers.sh), or
/// `None` when the peers are not installed. Under `CI=true` the test command
/// has installed them, so their absence fails instead of skipping.
pub fn peers_or_skip() -> Option<BTreeMap<String, String>> {
    let dir = std::env::var_os("MCP_CONFORM_PEERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/peers"));
    let Ok(text) = std::fs::read_to_string(dir.join("peers.env")) else {
        assert!(
            std::env::var("CI").is_err(),
            "real peers are missing; the test command (scripts/test-all.sh) installs them"
        );
        eprintln!("skipped: real peers not installed (run scripts/install-peers.sh)");
        return None;
    };
    let pairs = text.lines().filter_map(|line| {
        let (key, value) = line.trim().strip_prefix("export ")?.split_once('=')?;
        Some((
            key.to_owned(),
            value.trim_matches(|c| c == '"' || c == '\'').to_owned(),
        ))
    });
    Some(pairs.collect())
}

/// The verdict table of a run's stdout: id and verdict of each scenario line
/// (the block after the header), sorted because scenarios finish in any order.
pub fn verdict_table(stdout: &str) -> String {
    let mut table: Vec<String> = stdout
        .split("\n\n")
        .nth(1)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let verdict = words.next()?;
            let id = words.next()?;
            Some(format!("{id:<40} {verdict}"))
        })
        .collect();
    table.sort();
    table.join("\n")
}
