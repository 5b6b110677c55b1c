//! `record` between peers nobody here wrote: the Python SDK fixture host
//! (`fixtures/clients/py-client.py`, a dual-era client on the official
//! Python SDK) recorded against the everything-server over stdio, and the
//! recorded file run again against the same server passes. Without the
//! peers the test is ignored with the reason (see `common::needs`).

use std::time::Duration;

use common::cli::mcp_conform;
use common::needs::{PeersEnv, Tests, peers_with};
use mcp_conform_core::requirements::UserCatalogue;
use mcp_conform_core::scenario::load::load_file;

mod common;

/// Lists, then calls a tool without side effects.
const PLAN: &str = r#"{"list": ["tools", "prompts", "resources"], "calls": [{"name": "echo", "arguments": {"message": "hi"}}, {"name": "get-sum", "arguments": {"a": 1, "b": 2}}], "linger_ms": 300}"#;

fn python_client_against_everything_server(env: PeersEnv) {
    let server = &env["EVERYTHING_SERVER_CMD"];
    // The fixture's command line holds no quoted words.
    let client: Vec<&str> = env["PY_CLIENT_CMD"].split_whitespace().collect();
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("python-everything.yaml");
    let recorded = mcp_conform()
        .env("MCP_CONFORM_PLAN", PLAN)
        .args(["record", "--stdio", server, "-o"])
        .arg(&file)
        .arg("--")
        .args(&client)
        .timeout(Duration::from_secs(120))
        .output()
        .expect("record runs");
    let stderr = String::from_utf8_lossy(&recorded.stderr);
    assert!(recorded.status.success(), "record failed: {stderr}");
    let scenario = load_file(&file, &UserCatalogue::default())
        .unwrap_or_else(|d| panic!("the recorded file does not load: {d:?}"));
    let text = std::fs::read_to_string(&file).expect("written");
    assert!(text.contains("method: tools/call"), "{text}");
    let version = scenario
        .versions
        .newest()
        .expect("the recorded version")
        .to_string();
    let replayed = mcp_conform()
        .args(["run", "--stdio", server, "--protocol", &version])
        .arg(&file)
        .timeout(Duration::from_secs(120))
        .output()
        .expect("run runs");
    let stdout = String::from_utf8_lossy(&replayed.stdout);
    assert_eq!(replayed.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("1 scenarios: 1 pass"), "{stdout}");
}

fn main() -> std::process::ExitCode {
    Tests::default()
        .needing(
            &peers_with(&["EVERYTHING_SERVER_CMD", "PY_CLIENT_CMD"]),
            "python_sdk_client_against_the_everything_server_replays_green",
            python_client_against_everything_server,
        )
        .run()
}
