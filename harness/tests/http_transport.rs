//! The bundled suite over HTTP against real servers started on a free
//! 127.0.0.1 port: the everything server in Streamable HTTP and in legacy
//! HTTP+SSE mode, and the Python SDK and rmcp peers in Streamable HTTP mode, at
//! 2025-11-25, at 2026-07-28 and on every version they speak (`--protocol all`).
//! Their verdict tables are snapshotted beside the stdio ones of `real_peers.rs`.
//! Without the peers the tests are ignored with the reason (see
//! `common::needs`).

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use common::needs::{PeersEnv, Tests, peers};
use common::report::{assert_real_peer_run, judge};
use http_server::{free_port, start};

mod common;

/// The profiles of the project's own SDK peers, kept beside them (the binary
/// does not bundle them).
const PYTHON_PROFILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../fixtures/peers/python/profile.yaml"
);
const RMCP_PROFILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/peers/rust/profile.yaml");
mod http_server;

/// One server (and one suite run) at a time: each run uses two jobs.
static ONE_SERVER_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Which server to start, from the peers' environment: argv and URL path.
type Launch = fn(&PeersEnv, u16) -> (Vec<String>, &'static str);

fn everything(env: &PeersEnv, mode: &str) -> Vec<String> {
    let get = |key: &str| {
        env.get(key)
            .unwrap_or_else(|| panic!("{key} missing from peers.env"))
            .clone()
    };
    // `node` as the stdio command runs it; the shim keeps listen() on 127.0.0.1.
    let node = get("EVERYTHING_SERVER_CMD")
        .split_whitespace()
        .next()
        .unwrap_or("node")
        .to_owned();
    vec![
        node,
        "--require".into(),
        get("LOOPBACK_SHIM"),
        get("EVERYTHING_SERVER_JS"),
        mode.into(),
    ]
}

fn everything_streamable(env: &PeersEnv, _: u16) -> (Vec<String>, &'static str) {
    (everything(env, "streamableHttp"), "/mcp")
}

fn everything_sse(env: &PeersEnv, _: u16) -> (Vec<String>, &'static str) {
    (everything(env, "sse"), "/sse")
}

fn python(env: &PeersEnv, port: u16) -> (Vec<String>, &'static str) {
    let command = env
        .get("PYTHON_SERVER_CMD")
        .expect("PYTHON_SERVER_CMD in peers.env");
    let mut argv: Vec<String> = command.split_whitespace().map(str::to_owned).collect();
    assert_eq!(argv.pop().as_deref(), Some("stdio"), "{command}");
    argv.extend(["http".into(), port.to_string()]);
    (argv, "/mcp")
}

fn rmcp(env: &PeersEnv, port: u16) -> (Vec<String>, &'static str) {
    let command = env.get("RMCP_SERVER_CMD").expect("RMCP_SERVER_CMD in peers.env");
    (vec![command.clone(), "http".into(), port.to_string()], "/mcp")
}

/// A test that runs the suite on `protocol` (a version, or `all`) against
/// the server `launch` starts and snapshots its verdict table.
fn judged(
    launch: Launch,
    transport: &'static str,
    profile: &'static str,
    protocol: &'static str,
    snapshot: &'static str,
) -> impl FnOnce(PeersEnv) + Send + 'static {
    move |env| {
        let _turn = ONE_SERVER_AT_A_TIME
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let port = free_port();
        let (argv, path) = launch(&env, port);
        let server = start(&argv, port, path);
        let started = Instant::now();
        let run = judge(
            &[
                "run",
                "--url",
                &server.url,
                "--transport",
                transport,
                "--header",
                "X-Api-Key: not-a-real-key",
                "--profile",
                profile,
                "--protocol",
                protocol,
                "--jobs",
                "2",
            ],
            Duration::from_secs(900),
        );
        let took = started.elapsed();
        drop(server);
        eprintln!("{snapshot}: suite over HTTP in {:.1} s", took.as_secs_f64());
        let target = &run.report.run.target;
        assert!(
            target.starts_with(&format!("http: http://127.0.0.1:{port}{path} "))
                && target.contains("X-Api-Key: <redacted>"),
            "{target}"
        );
        let report = serde_json::to_string(&run.report).unwrap();
        assert!(
            !run.stdout().contains("not-a-real-key") && !report.contains("not-a-real-key"),
            "a secret header leaked"
        );
        assert_real_peer_run!(run, snapshot);
    }
}

fn main() -> std::process::ExitCode {
    let peers = peers();
    let latest =
        |launch, transport, profile, snapshot| judged(launch, transport, profile, "2025-11-25", snapshot);
    Tests::default()
        .needing(
            &peers,
            "everything_server_over_streamable_http",
            latest(everything_streamable, "auto", "everything", "everything_http"),
        )
        .needing(
            &peers,
            "everything_server_over_http_with_sse",
            latest(everything_sse, "sse", "everything", "everything_sse"),
        )
        .needing(
            &peers,
            "python_sdk_server_over_streamable_http",
            latest(python, "streamable", PYTHON_PROFILE, "python_http"),
        )
        .needing(
            &peers,
            "rmcp_sdk_server_over_streamable_http",
            latest(rmcp, "streamable", RMCP_PROFILE, "rmcp_http"),
        )
        // The stateless revision: both SDKs speak 2026-07-28 over HTTP.
        .needing(
            &peers,
            "python_sdk_server_on_2026_07_28",
            judged(
                python,
                "streamable",
                PYTHON_PROFILE,
                "2026-07-28",
                "python_http_2026_07_28",
            ),
        )
        .needing(
            &peers,
            "rmcp_sdk_server_on_2026_07_28",
            judged(
                rmcp,
                "streamable",
                RMCP_PROFILE,
                "2026-07-28",
                "rmcp_http_2026_07_28",
            ),
        )
        // Every version each SDK speaks, in one run: the version matrix.
        .needing(
            &peers,
            "python_sdk_server_on_every_version",
            judged(python, "streamable", PYTHON_PROFILE, "all", "python_http_all"),
        )
        .needing(
            &peers,
            "rmcp_sdk_server_on_every_version",
            judged(rmcp, "streamable", RMCP_PROFILE, "all", "rmcp_http_all"),
        )
        .run()
}
