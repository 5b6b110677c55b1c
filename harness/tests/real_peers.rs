//! The suite against real servers nobody here wrote, installed by
//! `scripts/install-peers.sh`. Their verdict tables are snapshotted, so our
//! judgement of real servers is itself under test. Without the peers the
//! tests skip visibly, except under `CI=true`, where the test command has
//! installed them and their absence is a failure.

use std::sync::{Mutex, PoisonError};

use assert_cmd::Command;

mod common;

/// The profiles of the project's own SDK peers, kept beside them (the binary
/// does not bundle them).
const PYTHON_PROFILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../fixtures/peers/python/profile.yaml"
);
const RMCP_PROFILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/peers/rust/profile.yaml");

/// The peers run one at a time. Each run already uses two jobs; three runs at once
/// on a small machine slowed the Python peer's start-up past the 5 s that the
/// manual-handshake lifecycle scenarios give `initialize`, failing them at random.
static ONE_PEER_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Runs the bundled suite against `command` on `protocol`; returns (verdict
/// table, full stdout).
fn verdict_table(command_key: &str, profile: &str, protocol: &str) -> Option<(String, String)> {
    let env = common::peers_or_skip()?;
    let command = env
        .get(command_key)
        .unwrap_or_else(|| panic!("{command_key} missing from peers.env"));
    let _turn = ONE_PEER_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let output = Command::cargo_bin("mcp-conform")
        .unwrap()
        .env("NO_COLOR", "1")
        .args([
            "run",
            "--stdio",
            command,
            "--profile",
            profile,
            "--protocol",
            protocol,
            "--jobs",
            "2",
        ])
        .timeout(std::time::Duration::from_secs(600))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    Some((common::verdict_table(&stdout), stdout))
}

fn judge(command_key: &str, profile: &str, snapshot: &str) {
    judge_on(command_key, profile, "2025-11-25", snapshot);
}

fn judge_on(command_key: &str, profile: &str, protocol: &str, snapshot: &str) {
    let Some((table, stdout)) = verdict_table(command_key, profile, protocol) else {
        return;
    };
    assert!(
        !table.contains("ERROR"),
        "no error verdicts against a real peer:\n{stdout}"
    );
    assert!(table.lines().count() > 10, "the whole suite ran:\n{stdout}");
    insta::assert_snapshot!(snapshot, table);
}

#[test]
fn everything_server_over_stdio() {
    judge("EVERYTHING_SERVER_CMD", "everything", "everything_stdio");
}

#[test]
fn python_sdk_server_over_stdio() {
    judge("PYTHON_SERVER_CMD", PYTHON_PROFILE, "python_stdio");
}

#[test]
fn rmcp_sdk_server_over_stdio() {
    judge("RMCP_SERVER_CMD", RMCP_PROFILE, "rmcp_stdio");
}

/// The stateless revision over stdio: both SDKs serve a connection whose
/// first request carries the per-request `_meta` statelessly.
#[test]
fn python_sdk_server_over_stdio_on_2026_07_28() {
    judge_on(
        "PYTHON_SERVER_CMD",
        PYTHON_PROFILE,
        "2026-07-28",
        "python_stdio_2026_07_28",
    );
}

#[test]
fn rmcp_sdk_server_over_stdio_on_2026_07_28() {
    judge_on(
        "RMCP_SERVER_CMD",
        RMCP_PROFILE,
        "2026-07-28",
        "rmcp_stdio_2026_07_28",
    );
}
