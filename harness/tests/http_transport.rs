//! The bundled suite over HTTP against real servers started on a free
//! 127.0.0.1 port: the everything server in Streamable HTTP and in legacy
//! HTTP+SSE mode, and the Python SDK peer in Streamable HTTP mode. Their
//! verdict tables are snapshotted beside the stdio ones of `real_peers.rs`.
//! Without the peers (scripts/install-peers.sh) the tests skip visibly,
//! except under `CI=true`, where their absence is a failure.

use std::collections::BTreeMap;
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command as Process, Stdio};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use assert_cmd::Command;

mod common;

/// One server (and one suite run) at a time: each run uses two jobs.
static ONE_SERVER_AT_A_TIME: Mutex<()> = Mutex::new(());

/// A server process listening on 127.0.0.1, killed when dropped.
struct Server {
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts `argv` with `PORT` set and waits until the port accepts connections.
fn start(argv: &[String], port: u16, path: &str) -> Server {
    let mut child = Process::new(&argv[0])
        .args(&argv[1..])
        .env("PORT", port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("could not start {argv:?}: {e}"));
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("{argv:?} exited before listening: {status}");
        }
        assert!(
            Instant::now() < deadline,
            "{argv:?} did not listen on {port} within 30 s"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    Server {
        child,
        url: format!("http://127.0.0.1:{port}{path}"),
    }
}

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

fn judge(launch: Launch, transport: &str, profile: &str, snapshot: &str) {
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
    let output = Command::cargo_bin("mcp-conform")
        .unwrap()
        .env("NO_COLOR", "1")
        .args(["run", "--url", &server.url, "--transport", transport])
        .args(["--header", "X-Api-Key: not-a-real-key"])
        .args(["--profile", profile, "--jobs", "2"])
        .timeout(Duration::from_secs(600))
        .output()
        .unwrap();
    let took = started.elapsed();
    drop(server);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
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
    judge(python, "streamable", "python", "python_http");
}

/// The correct reference server over both HTTP transports: every scenario
/// passes, or says why it does not apply.
#[test]
fn reference_server_over_http_passes() {
    for (transport, path) in [("streamable", "/mcp"), ("sse", "/sse")] {
        let port = free_port();
        let binary = assert_cmd::cargo::cargo_bin("mcp-conform").display().to_string();
        let argv = [
            binary,
            "reference-server".into(),
            "--http".into(),
            format!("127.0.0.1:{port}"),
        ];
        let server = start(&argv, port, path);
        let output = Command::cargo_bin("mcp-conform")
            .unwrap()
            .env("NO_COLOR", "1")
            .args([
                "run",
                "--url",
                &server.url,
                "--transport",
                transport,
                "--profile",
                "reference",
            ])
            .timeout(Duration::from_secs(300))
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
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
