//! `record` between peers nobody here wrote, in both eras and over both
//! transports: the Python SDK fixture host (`fixtures/clients/py-client.py`,
//! dual-era) against the everything-server over stdio (2025-11-25) and
//! against the Python SDK fixture server over stdio and Streamable HTTP
//! (2026-07-28); the TypeScript SDK fixture host against the Python SDK
//! server over Streamable HTTP (2025-11-25). Each recorded file, run again
//! against the same server, passes. Without the peers the tests are ignored
//! with the reason (see `common::needs`).

use std::time::Duration;

use common::cli::mcp_conform;
use common::needs::{PeersEnv, Tests, peers_with};
use mcp_conform::runner::free_loopback_port;
use mcp_conform::start::StartedServer;
use mcp_conform_core::requirements::UserCatalogue;
use mcp_conform_core::scenario::load::load_file;

mod common;

/// The everything-server: lists, then calls tools without side effects.
const EVERYTHING_PLAN: &str = r#"{"list": ["tools", "prompts", "resources"], "calls": [{"name": "echo", "arguments": {"message": "hi"}}, {"name": "get-sum", "arguments": {"a": 1, "b": 2}}], "linger_ms": 300}"#;
/// The Python SDK fixture server: the same with its `echo`.
const PYTHON_PLAN: &str = r#"{"list": ["tools", "prompts", "resources"], "calls": [{"name": "echo", "arguments": {"text": "hi"}}], "linger_ms": 300}"#;

/// How `record` and `run` reach the server: `--stdio CMD` or `--url URL`.
type Server = [String; 2];

/// Where the recorded server runs.
#[derive(Clone, Copy)]
enum ServerAt {
    /// Over stdio, the command of this peers.env key.
    Stdio(&'static str),
    /// The Python SDK fixture server over Streamable HTTP.
    PythonOverHttp,
}

/// One recorded pair: its test, the server, the host's peers.env key, the
/// host's plan and the version the recorded file must speak.
struct Pair {
    test: &'static str,
    server: ServerAt,
    client: &'static str,
    plan: &'static str,
    version: &'static str,
}

const PAIRS: &[Pair] = &[
    Pair {
        test: "python_sdk_client_against_the_everything_server_replays_green",
        server: ServerAt::Stdio("EVERYTHING_SERVER_CMD"),
        client: "PY_CLIENT_CMD",
        plan: EVERYTHING_PLAN,
        version: "2025-11-25",
    },
    Pair {
        test: "python_sdk_pair_over_stdio_on_2026_07_28_replays_green",
        server: ServerAt::Stdio("PYTHON_SERVER_CMD"),
        client: "PY_CLIENT_CMD",
        plan: PYTHON_PLAN,
        version: "2026-07-28",
    },
    Pair {
        test: "python_sdk_pair_over_http_on_2026_07_28_replays_green",
        server: ServerAt::PythonOverHttp,
        client: "PY_CLIENT_HTTP_CMD",
        plan: PYTHON_PLAN,
        version: "2026-07-28",
    },
    Pair {
        test: "typescript_sdk_client_against_the_python_sdk_server_over_http_replays_green",
        server: ServerAt::PythonOverHttp,
        client: "TS_CLIENT_HTTP_CMD",
        plan: PYTHON_PLAN,
        version: "2025-11-25",
    },
];

impl ServerAt {
    /// The peers.env key of the server's command.
    fn key(self) -> &'static str {
        match self {
            ServerAt::Stdio(key) => key,
            ServerAt::PythonOverHttp => "PYTHON_SERVER_CMD",
        }
    }

    /// The server started if it listens on a port (kept until the test
    /// ends), and how to reach it.
    fn reached(self, env: &PeersEnv) -> (Option<StartedServer>, Server) {
        match self {
            ServerAt::Stdio(key) => (None, ["--stdio".into(), env[key].clone()]),
            ServerAt::PythonOverHttp => {
                let (started, server) = python_over_http(env);
                (Some(started), server)
            }
        }
    }
}

/// Records the pair's host (its command's `{url}` is the proxy's) talking
/// to its server under its plan, checks the file speaks the pair's
/// version, and runs it again against the same server: it must pass.
fn recorded_then_replayed(env: &PeersEnv, pair: &Pair) {
    let &Pair {
        server,
        client: client_key,
        plan,
        version,
        ..
    } = pair;
    let (_started, server) = server.reached(env);
    // The fixtures' command lines hold no quoted words; `env` takes the
    // variable assignments some of them start with.
    let client: Vec<&str> = std::iter::once("env")
        .chain(env[client_key].split_whitespace())
        .collect();
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("recorded.yaml");
    let recorded = mcp_conform()
        .env("MCP_CONFORM_PLAN", plan)
        .arg("record")
        .args(&server)
        .arg("-o")
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
    let spoken = scenario
        .versions
        .newest()
        .expect("the recorded version")
        .to_string();
    assert_eq!(spoken, version, "{text}");
    let replayed = mcp_conform()
        .arg("run")
        .args(&server)
        .args(["--protocol", version])
        .arg(&file)
        .timeout(Duration::from_secs(120))
        .output()
        .expect("run runs");
    let stdout = String::from_utf8_lossy(&replayed.stdout);
    assert_eq!(replayed.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("1 scenarios: 1 pass"), "{stdout}");
}

/// The Python SDK fixture server over Streamable HTTP on a free port, and
/// how to reach it.
fn python_over_http(env: &PeersEnv) -> (StartedServer, Server) {
    let port = free_loopback_port().expect("a free port");
    let command = env["PYTHON_SERVER_CMD"]
        .strip_suffix(" stdio")
        .expect("the fixture's stdio command");
    let url = format!("http://127.0.0.1:{port}/mcp");
    let started = StartedServer::start(&format!("{command} http {port}"), &url, Duration::from_secs(30))
        .unwrap_or_else(|e| panic!("{e}"));
    (started, ["--url".into(), url])
}

fn main() -> std::process::ExitCode {
    PAIRS
        .iter()
        .fold(Tests::default(), |tests, pair| {
            tests.needing(
                &peers_with(&[pair.server.key(), pair.client]),
                pair.test,
                move |env| recorded_then_replayed(&env, pair),
            )
        })
        .run()
}
