//! The client scenarios against real clients nobody here wrote the SDK of:
//! fixture hosts on the official TypeScript `Client` and Python
//! `ClientSession`, and the Inspector CLI, each installed by
//! `scripts/install-peers.sh` and run by `mcp-conform test-client` over
//! stdio (`{server}`) and over Streamable HTTP (`{url}`). Their verdict
//! tables are snapshotted, as are those of a real bridge (npm
//! `supergateway`, stdio to Streamable HTTP, with the server suite through
//! it) and a real aggregating proxy (PyPI `fastmcp`, with the gateway
//! scenarios' mock servers behind it) under `test-gateway`. The Python
//! fixture is a dual-era host (`mode="auto"`), so it is judged on 2026-07-28
//! too (`test-client --protocol 2026-07-28`). Without the peers the tests
//! skip visibly, except under `CI=true`.

use std::sync::{Mutex, PoisonError};

use assert_cmd::Command;

mod common;

/// One client at a time: each run already uses two jobs.
static ONE_CLIENT_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Runs `mcp-conform SUBCOMMAND --command <peers.env COMMAND_KEY>` and
/// snapshots its verdict table, which must have at least `rows` rows.
fn judge(subcommand: &str, command_key: &str, rows: usize, snapshot: &str) {
    judge_with(&[], subcommand, command_key, rows, snapshot);
}

/// [`judge`] with more arguments for the subcommand (`--protocol VERSION`).
fn judge_with(args: &[&str], subcommand: &str, command_key: &str, rows: usize, snapshot: &str) {
    let Some(env) = common::peers_or_skip() else {
        return;
    };
    let command = env
        .get(command_key)
        .unwrap_or_else(|| panic!("{command_key} missing from peers.env"));
    let _turn = ONE_CLIENT_AT_A_TIME
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    let output = Command::cargo_bin("mcp-conform")
        .unwrap()
        .env("NO_COLOR", "1")
        .args([subcommand, "--command", command, "--jobs", "2"])
        .args(args)
        .timeout(std::time::Duration::from_secs(300))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let table = common::verdict_table(&stdout);
    assert!(
        !table.contains("ERROR"),
        "no error verdicts against a real peer:\n{stdout}"
    );
    assert!(table.lines().count() >= rows, "every scenario ran:\n{stdout}");
    insta::assert_snapshot!(snapshot, table);
}

#[test]
fn typescript_sdk_client_over_stdio() {
    judge("test-client", "TS_CLIENT_CMD", 27, "ts_client_stdio");
}

#[test]
fn python_sdk_client_over_stdio() {
    judge("test-client", "PY_CLIENT_CMD", 27, "python_client_stdio");
}

#[test]
fn python_sdk_client_over_stdio_on_2026_07_28() {
    judge_with(
        &["--protocol", "2026-07-28"],
        "test-client",
        "PY_CLIENT_CMD",
        31,
        "python_client_stdio_2026_07_28",
    );
}

#[test]
fn inspector_cli_over_stdio() {
    judge("test-client", "INSPECTOR_CLIENT_CMD", 27, "inspector_cli_stdio");
}

#[test]
fn typescript_sdk_client_over_http() {
    judge("test-client", "TS_CLIENT_HTTP_CMD", 27, "ts_client_http");
}

#[test]
fn python_sdk_client_over_http() {
    judge("test-client", "PY_CLIENT_HTTP_CMD", 27, "python_client_http");
}

#[test]
fn python_sdk_client_over_http_on_2026_07_28() {
    judge_with(
        &["--protocol", "2026-07-28"],
        "test-client",
        "PY_CLIENT_HTTP_CMD",
        31,
        "python_client_http_2026_07_28",
    );
}

#[test]
fn inspector_cli_over_http() {
    judge(
        "test-client",
        "INSPECTOR_CLIENT_HTTP_CMD",
        27,
        "inspector_cli_http",
    );
}

#[test]
fn supergateway_in_front_of_the_reference_server() {
    judge("test-gateway", "SUPERGATEWAY_CMD", 40, "supergateway_http");
}

#[test]
fn fastmcp_proxy_in_front_of_the_gateway_scenarios_backends() {
    judge("test-gateway", "FASTMCP_GATEWAY_CMD", 9, "fastmcp_gateway_stdio");
}
