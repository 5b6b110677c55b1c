//! `record` end to end: the bundled reference client recorded against the
//! reference server over stdio and over HTTP, in both eras, gives a file that loads and
//! that `run` passes against the same server; the same file run against a
//! server whose answer changed fails with a located diff. One recorded
//! file is a snapshot, so the shape of what `record` writes is reviewed.

use std::path::Path;

use common::cli::{bin, mcp_conform};
use http_server::{free_port, reference_server, start};
use mcp_conform_core::requirements::UserCatalogue;
use mcp_conform_core::scenario::load::load_file;

mod common;
mod http_server;

/// What the reference client does while it is recorded: walk two lists,
/// call a plain tool and one that asks for sampling (a scripted answer).
/// Tasks are withheld: a recorded task is polled as often as the client
/// polled it then, so its replay would hinge on the server's timing.
const PLAN: &str = r#"{"withhold": ["tasks"], "list": ["tools", "resources"], "calls": [{"name": "echo", "arguments": {"text": "hi"}}, {"name": "sample", "arguments": {"prompt": "hi"}}], "linger_ms": 200}"#;

fn server(fault: Option<&str>) -> String {
    let fault = fault.map(|f| format!(" --fault {f}")).unwrap_or_default();
    format!("{} reference-server{fault}", bin())
}

/// How `record` and `run` reach the server.
enum Via {
    /// `--stdio` and this command line.
    Stdio(String),
    /// `--url` and this URL.
    Url(String),
}

impl Via {
    fn args(&self) -> [&str; 2] {
        match self {
            Via::Stdio(command) => ["--stdio", command],
            Via::Url(url) => ["--url", url],
        }
    }
}

/// Records the reference client (with `client_fault`) reaching the server
/// `via` into `file`; the file must load.
fn record(file: &Path, via: &Via, client_fault: Option<&str>) -> String {
    record_as(file, via, client_fault, "server")
}

/// [`record`], writing a scenario of `role`.
fn record_as(file: &Path, via: &Via, client_fault: Option<&str>, role: &str) -> String {
    let mut client = vec![bin(), "reference-client".to_owned()];
    if let Some(fault) = client_fault {
        client.extend(["--fault".to_owned(), fault.to_owned()]);
    }
    match via {
        Via::Stdio(_) => client.push("{server}".to_owned()),
        Via::Url(_) => client.extend(["--url".to_owned(), "{url}".to_owned()]),
    }
    let output = mcp_conform()
        .env("MCP_CONFORM_PLAN", PLAN)
        .args(["record", "--as", role])
        .args(via.args())
        .arg("-o")
        .arg(file)
        .arg("--")
        .args(&client)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .expect("record runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "record failed: {stderr}");
    load_file(file, &UserCatalogue::default())
        .unwrap_or_else(|d| panic!("the recorded file does not load: {d:?}"));
    std::fs::read_to_string(file).expect("written")
}

/// `run` on the recorded file against the server `via`.
fn replay(file: &Path, via: &Via, version: &str) -> std::process::Output {
    mcp_conform()
        .arg("run")
        .args(via.args())
        .args(["--protocol", version])
        .arg(file)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .expect("run runs")
}

/// Records, then replays against `replayed` on the version recorded.
fn recorded_and_replayed_green(recorded: &Via, client_fault: Option<&str>, replayed: &Via, version: &str) {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("pair.yaml");
    let text = record(&file, recorded, client_fault);
    assert!(text.contains(&format!("versions: \"{version}\"")), "{text}");
    assert!(
        text.contains("method: sampling/createMessage"),
        "the client's answer is scripted: {text}"
    );
    let output = replay(&file, replayed, version);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{version}: {stdout}");
    assert!(stdout.contains("1 scenarios: 1 pass"), "{version}: {stdout}");
}

#[test]
fn the_reference_pair_recorded_over_stdio_in_either_era_replays_green() {
    let stdio = Via::Stdio(server(None));
    recorded_and_replayed_green(&stdio, None, &stdio, "2026-07-28");
    // Without the probe the client opens with the handshake.
    recorded_and_replayed_green(&stdio, Some("modern-no-probe"), &stdio, "2025-11-25");
}

#[test]
fn the_reference_pair_recorded_over_http_in_either_era_replays_green() {
    let port = free_port();
    let correct = start(&reference_server(port, None), port, "/mcp");
    let http = Via::Url(correct.url.clone());
    recorded_and_replayed_green(&http, None, &http, "2026-07-28");
    // A server refusing server/discover makes the client fall back to the
    // handshake; the recording replays on the correct server.
    let port = free_port();
    let legacy = start(
        &reference_server(port, Some("modern-discover-missing")),
        port,
        "/mcp",
    );
    recorded_and_replayed_green(&Via::Url(legacy.url.clone()), None, &http, "2025-11-25");
}

#[test]
fn a_client_may_start_record_as_its_server() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("started-by-client.yaml");
    let output = mcp_conform()
        .env("MCP_CONFORM_PLAN", PLAN)
        .args([
            "reference-client",
            &bin(),
            "record",
            "--stdio",
            &server(None),
            "-o",
        ])
        .arg(&file)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .expect("the client runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let output = replay(&file, &Via::Stdio(server(None)), "2026-07-28");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("1 scenarios: 1 pass"), "{stdout}");
}

#[test]
fn a_changed_answer_fails_the_replay_with_a_located_diff() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("drift.yaml");
    record(&file, &Via::Stdio(server(None)), None);
    let output = replay(&file, &Via::Stdio(server(Some("bad-tool-name"))), "2026-07-28");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("FAIL response to tools/list"), "{stdout}");
    assert!(
        stdout.contains(&format!("{}:", file.display())),
        "located: {stdout}"
    );
    assert!(stdout.contains(r#"-      "name": "fail","#), "{stdout}");
    assert!(stdout.contains(r#"+      "name": "fail now!","#), "{stdout}");
}

#[test]
fn a_recording_written_as_client_tests_the_client_alone() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("client.yaml");
    let text = record_as(
        &file,
        &Via::Stdio(server(None)),
        Some("modern-no-probe"),
        "client",
    );
    assert!(text.contains("role: client"), "{text}");
    let test_client = |fault: &str| {
        let output = mcp_conform()
            .args([
                "test-client",
                "--command",
                &format!("{} reference-client{fault} {{server}}", bin()),
            ])
            .arg(&file)
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .expect("test-client runs");
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
        )
    };
    // The plan the client was given is in the file, so it does it again.
    let (code, stdout) = test_client("");
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("1 scenarios: 1 pass"), "{stdout}");
    let (code, stdout) = test_client(" --fault sampling-without-model");
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stdout.contains("FAIL response to sampling/createMessage"),
        "{stdout}"
    );
    assert!(
        stdout.contains(r#"-  "model": "mcp-conform-reference","#),
        "{stdout}"
    );
}

#[test]
fn a_recorded_handshake_era_conversation_has_this_shape() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("golden.yaml");
    let text = record(&file, &Via::Stdio(server(None)), Some("modern-no-probe"));
    insta::assert_snapshot!(text.replace(&bin(), "mcp-conform"));
}

#[test]
fn a_client_that_never_starts_its_server_is_an_error_not_a_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("none.yaml");
    let output = mcp_conform()
        .args(["record", "--startup-timeout", "1", "--stdio", &server(None), "-o"])
        .arg(&file)
        .args(["--", "sh", "-c", "sleep 5", "{server}"])
        .timeout(std::time::Duration::from_secs(30))
        .output()
        .expect("record runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("never started its server"), "{stderr}");
    assert!(!file.exists());
}
