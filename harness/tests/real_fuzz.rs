//! `mcp-conform fuzz` against real servers nobody here wrote (every
//! subject kind: the safe tools, prompts, resource templates, completions,
//! unknown methods): each runs within its budget with no harness error,
//! and what the oracle and the frame checker find is snapshotted
//! (docs/fuzz.md explains it). Without
//! the peers the tests are ignored with the reason (see `common::needs`).

use std::time::Duration;

use common::needs::{PeersEnv, Tests, peers};

mod common;

/// The profiles of the project's own SDK peers, kept beside them.
const PYTHON_PROFILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../fixtures/peers/python/profile.yaml"
);
const RMCP_PROFILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/peers/rust/profile.yaml");

/// The run's own limit; the process is killed a minute later.
const TIME_BUDGET_SECONDS: u64 = 60;

/// `fuzz` on the `command_key` server with `tools` allowed: its summary
/// without the rate, which depends on the machine.
fn fuzzed(env: &PeersEnv, command_key: &str, protocol: &str, tools: &[&str]) -> String {
    let command = env
        .get(command_key)
        .unwrap_or_else(|| panic!("{command_key} missing from peers.env"));
    let budget = TIME_BUDGET_SECONDS.to_string();
    let mut args = vec![
        "fuzz",
        "--stdio",
        command,
        "--protocol",
        protocol,
        "--seed",
        "1",
        "--cases",
        "200",
        "--time",
        &budget,
    ];
    args.extend(tools);
    let output = assert_cmd::Command::cargo_bin("mcp-conform")
        .unwrap()
        .env("NO_COLOR", "1")
        .args(&args)
        .timeout(Duration::from_secs(TIME_BUDGET_SECONDS + 60))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    // 0: nothing found, 1: a MUST finding; 2 and 3 are the harness's or the
    // invocation's failure, never a verdict on the server.
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "{command_key}: {:?}\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains(" cases in "), "{stdout}");
    stdout
        .lines()
        .map(|line| match line.split_once(" cases in ") {
            Some((cases, rest)) => format!("{cases} cases:{}", rest.split_once("):").map_or("", |(_, r)| r)),
            None => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn main() -> std::process::ExitCode {
    let case = |key: &'static str,
                protocol: &'static str,
                tools: &'static [&'static str],
                snapshot: &'static str| {
        move |env: PeersEnv| insta::assert_snapshot!(snapshot, fuzzed(&env, key, protocol, tools))
    };
    let peers = peers();
    Tests::default()
        .needing(
            &peers,
            "everything_server",
            case(
                "EVERYTHING_SERVER_CMD",
                "2025-11-25",
                &["--allow-tool", "echo", "--allow-tool", "get-sum"],
                "fuzz_everything",
            ),
        )
        .needing(
            &peers,
            "python_sdk_server",
            case(
                "PYTHON_SERVER_CMD",
                "2025-11-25",
                &["--profile", PYTHON_PROFILE],
                "fuzz_python",
            ),
        )
        .needing(
            &peers,
            "python_sdk_server_on_2026_07_28",
            case(
                "PYTHON_SERVER_CMD",
                "2026-07-28",
                &["--profile", PYTHON_PROFILE],
                "fuzz_python_2026_07_28",
            ),
        )
        .needing(
            &peers,
            "rmcp_sdk_server",
            case(
                "RMCP_SERVER_CMD",
                "2025-11-25",
                &["--profile", RMCP_PROFILE],
                "fuzz_rmcp",
            ),
        )
        .run()
}
