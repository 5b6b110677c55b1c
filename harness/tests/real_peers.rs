//! The suite against real servers nobody here wrote, installed by
//! `scripts/install-peers.sh`. Their verdict tables are snapshotted, so our
//! judgement of real servers is itself under test. Without the peers the
//! tests are ignored with the reason (see `common::needs`).

use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use common::needs::{PeersEnv, Tests, peers};
use common::report::{Judged, assert_real_peer_run, judge};

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

/// Runs the bundled suite against the `command_key` server of `env` on
/// `protocol` and snapshots its verdict table; returns the run.
fn judge_on(env: &PeersEnv, command_key: &str, profile: &str, protocol: &str, snapshot: &str) -> Judged {
    let command = env
        .get(command_key)
        .unwrap_or_else(|| panic!("{command_key} missing from peers.env"));
    let _turn = ONE_PEER_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let run = judge(
        &[
            "run",
            "--stdio",
            command,
            "--profile",
            profile,
            "--protocol",
            protocol,
            "--jobs",
            "2",
        ],
        Duration::from_secs(600),
    );
    assert_real_peer_run!(run, snapshot);
    run
}

/// The acceptance run of the report files: the everything server's run
/// writes all four, its report matches the schema, and its gate says what
/// the process exit said.
fn everything_server_over_stdio(env: PeersEnv) {
    let run = judge_on(
        &env,
        "EVERYTHING_SERVER_CMD",
        "everything",
        "2025-11-25",
        "everything_stdio",
    );
    assert!(matches!(run.code(), Some(0 | 1)), "{}", run.stdout());
    assert_eq!(run.code(), Some(i32::from(run.report.gate.exit_code.code())));
    for name in ["report.json", "junit.xml", "report.md", "report.html"] {
        assert!(run.dir.path().join(name).is_file(), "{name} missing");
    }
    assert_eq!(common::report::schema_errors(&run.report), Vec::<String>::new());
}

fn main() -> std::process::ExitCode {
    let peers = peers();
    let stdio = |key: &'static str, profile: &'static str, protocol: &'static str, snapshot: &'static str| {
        move |env: PeersEnv| {
            judge_on(&env, key, profile, protocol, snapshot);
        }
    };
    Tests::default()
        .needing(
            &peers,
            "everything_server_over_stdio",
            everything_server_over_stdio,
        )
        .needing(
            &peers,
            "python_sdk_server_over_stdio",
            stdio("PYTHON_SERVER_CMD", PYTHON_PROFILE, "2025-11-25", "python_stdio"),
        )
        .needing(
            &peers,
            "rmcp_sdk_server_over_stdio",
            stdio("RMCP_SERVER_CMD", RMCP_PROFILE, "2025-11-25", "rmcp_stdio"),
        )
        // The stateless revision over stdio: both SDKs serve a connection whose
        // first request carries the per-request `_meta` statelessly.
        .needing(
            &peers,
            "python_sdk_server_over_stdio_on_2026_07_28",
            stdio(
                "PYTHON_SERVER_CMD",
                PYTHON_PROFILE,
                "2026-07-28",
                "python_stdio_2026_07_28",
            ),
        )
        .needing(
            &peers,
            "rmcp_sdk_server_over_stdio_on_2026_07_28",
            stdio(
                "RMCP_SERVER_CMD",
                RMCP_PROFILE,
                "2026-07-28",
                "rmcp_stdio_2026_07_28",
            ),
        )
        .run()
}
