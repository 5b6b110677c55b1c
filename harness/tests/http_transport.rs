//! The bundled suite over HTTP against real servers started on a free
//! 127.0.0.1 port: the everything server in Streamable HTTP and in legacy
//! HTTP+SSE mode, and the Python SDK and rmcp peers in Streamable HTTP mode, at
//! 2025-11-25, at 2026-07-28 and on every version they speak (`--protocol all`).
//! Their verdict tables are snapshotted beside the stdio ones of `real_peers.rs`.
//! Without the peers (scripts/install-peers.sh) the tests skip visibly,
//! except under `CI=true`, where their absence is a failure.

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

mod common;

/// The profiles of the project's own SDK peers, kept beside them (the binary
/// does not bundle them).
const PYTHON_PROFILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../fixtures/peers/python/profile.yaml"
);
const RMCP_PROFILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/peers/rust/profile.yaml");
mod http_server;

use http_server::{free_port, start};

/// One server (and one suite run) at a time: each run uses two jobs.
static ONE_SERVER_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Which server to start, from the peers' environment: argv and URL path.
type Launch = fn(&BTreeMap<String, String>, u16) -> (Vec<String>, &'static str);

fn everything(env: &BTreeMap<String, String>, mode: &str) -> Vec<String> {
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

fn everything_streamable(env: &BTreeMap<String, String>, _: u16) -> (Vec<String>, &'static str) {
    (everything(env, "streamableHttp"), "/mcp")
}

fn everything_sse(env: &BTreeMap<String, String>, _: u16) -> (Vec<String>, &'static str) {
    (everything(env, "sse"), "/sse")
}

fn python(env: &BTreeMap<String, String>, port: u16) -> (Vec<String>, &'static str) {
    let command = env
        .get("PYTHON_SERVER_CMD")
        .expect("PYTHON_SERVER_CMD in peers.env");
    let mut argv: Vec<String> = command.split_whitespace().map(str::to_owned).collect();
    assert_eq!(argv.pop().as_deref(), Some("stdio"), "{command}");
    argv.extend(["http".into(), port.to_string()]);
    (argv, "/mcp")
}

fn rmcp(env: &BTreeMap<String, String>, port: u16) -> (Vec<String>, &'static str) {
    let command = env.get("RMCP_SERVER_CMD").expect("RMCP_SERVER_CMD in peers.env");
    (vec![command.clone(), "http".into(), port.to_string()], "/mcp")
}

fn judge(launch: Launch, transport: &str, profile: &str, snapshot: &str) {
    judge_on(launch, transport, profile, "2025-11-25", snapshot);
}

/// Runs the suite on `protocol` (a version, or `all`) and snapshots its table.
fn judge_on(launch: Launch, transport: &str, profile: &str, protocol: &str, snapshot: &str) {
    let Some(env) = common::peers_or_skip() else {
        return;
    };
    let _turn = ONE_SERVER_AT_A_TIME
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    let port = free_port();
    let (argv, path) = launch(&env, port);
    let server = start(&argv, port, path);
    let started = Instant::now();
    let (_, stdout) = http_server::run(
        &[
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
    let header = stdout.lines().next().unwrap_or_default();
    assert!(
        header.contains(&format!("http: http://127.0.0.1:{port}{path}")),
        "{header}"
    );
    assert!(header.contains("X-Api-Key: <redacted>"), "{header}");
    assert!(
        !stdout.contains("not-a-real-key"),
        "a secret header leaked:\n{stdout}"
    );
    let table = common::verdict_table(&stdout);
    assert!(
        !table.contains("ERROR"),
        "no error verdicts against a real peer:\n{stdout}"
    );
    assert!(table.lines().count() > 10, "the whole suite ran:\n{stdout}");
    insta::assert_snapshot!(snapshot, table);
}

#[test]
fn everything_server_over_streamable_http() {
    judge(everything_streamable, "auto", "everything", "everything_http");
}

#[test]
fn everything_server_over_http_with_sse() {
    judge(everything_sse, "sse", "everything", "everything_sse");
}

#[test]
fn python_sdk_server_over_streamable_http() {
    judge(python, "streamable", PYTHON_PROFILE, "python_http");
}

#[test]
fn rmcp_sdk_server_over_streamable_http() {
    judge(rmcp, "streamable", RMCP_PROFILE, "rmcp_http");
}

/// The stateless revision: both SDKs speak 2026-07-28 over HTTP.
#[test]
fn python_sdk_server_on_2026_07_28() {
    judge_on(
        python,
        "streamable",
        PYTHON_PROFILE,
        "2026-07-28",
        "python_http_2026_07_28",
    );
}

#[test]
fn rmcp_sdk_server_on_2026_07_28() {
    judge_on(
        rmcp,
        "streamable",
        RMCP_PROFILE,
        "2026-07-28",
        "rmcp_http_2026_07_28",
    );
}

/// Every version each SDK speaks, in one run: the version matrix.
#[test]
fn python_sdk_server_on_every_version() {
    judge_on(python, "streamable", PYTHON_PROFILE, "all", "python_http_all");
}

#[test]
fn rmcp_sdk_server_on_every_version() {
    judge_on(rmcp, "streamable", RMCP_PROFILE, "all", "rmcp_http_all");
}

/// The correct reference server over both HTTP transports: every scenario
/// passes, or says why it does not apply.
#[test]
fn reference_server_over_http_passes() {
    for (transport, path) in [("streamable", "/mcp"), ("sse", "/sse")] {
        let port = free_port();
        let server = start(&http_server::reference_server(port, None), port, path);
        let (output, stdout) = http_server::run(
            &[
                "--url",
                &server.url,
                "--transport",
                transport,
                "--profile",
                "reference",
            ],
            Duration::from_secs(300),
        );
        let table = common::verdict_table(&stdout);
        let not_passed: Vec<&str> = table
            .lines()
            .filter(|line| !line.ends_with(" pass") && !line.ends_with(" not-applicable"))
            .collect();
        assert!(not_passed.is_empty(), "over {transport}:\n{stdout}");
        assert!(output.status.success(), "over {transport}:\n{stdout}");
        assert!(
            table.lines().count() >= 50,
            "the whole suite ran over {transport}:\n{stdout}"
        );
    }
}

/// `--start` starts the server, waits for its port, runs, and kills it.
#[test]
fn run_starts_and_stops_the_server_it_is_given() {
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let server = http_server::reference_server(port, None).join(" ");
    let (output, stdout) = http_server::run(
        &[
            "--url",
            &url,
            "--start",
            &server,
            "--profile",
            "reference",
            "--filter",
            "http.notification",
        ],
        Duration::from_secs(60),
    );
    assert!(output.status.success(), "{stdout}");
    assert!(stdout.contains("1 scenarios: 1 pass"), "{stdout}");
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
        "the started server still listens after the run"
    );
}
