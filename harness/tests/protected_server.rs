//! The reference server's protected mode with the harness as its
//! authorization server: it passes every auth scenario that applies, in
//! every version with authorization; the open server gets each of them
//! not-applicable, saying why; and no output of such a run shows a token
//! the harness minted as it was sent.

use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use common::cli::{Ran, mcp_conform, ran};
use common::scripted_http::{read_request_with_headers, respond, respond_with};
use common::tokens::{files_under, jwt_beginnings};
use mcp_conform::auth::AuthServer;
use mcp_conform::runner::{RunConfig, ScenarioOutcome, Target, free_loopback_port, run_suite};
use mcp_conform::select::{keep_role, load_profile, load_scenarios};
use mcp_conform::start::StartedServer;
use mcp_conform_core::Verdict;
use mcp_conform_core::scenario::Scenario;
use mcp_conform_core::scenario::model::Role;
use mcp_conform_core::version::ProtocolVersion;
use mcp_mock_peers::transport::HttpMode;
use serde_json::{Value, json};

mod common;

const STARTUP: Duration = Duration::from_secs(30);

/// The bundled scenarios for protected servers.
fn auth_scenarios() -> Vec<Scenario> {
    let mut scenarios = load_scenarios(&[], &["auth.".to_owned()]).unwrap();
    keep_role(&mut scenarios, Role::Server);
    assert!(scenarios.len() >= 10, "{} auth scenarios", scenarios.len());
    scenarios
}

/// The reference server's arguments: open, protected verifying tokens
/// against the issuer's JWKS, protected asking its introspection endpoint.
const OPEN: &str = "";
const PROTECTED: &str = " --auth {issuer}";
const INTROSPECTING: &str = " --auth {issuer} --auth-introspect";

/// The auth scenarios run at `protocol` against the reference server,
/// open or protected as `protection` (its arguments) says.
fn run(protection: &str, protocol: ProtocolVersion, scenarios: &[Scenario]) -> Vec<ScenarioOutcome> {
    let port = free_loopback_port().unwrap();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let issuer = AuthServer::start(&url).unwrap();
    let command = format!(
        "{} reference-server --http 127.0.0.1:{port}{protection}",
        env!("CARGO_BIN_EXE_mcp-conform"),
    );
    let _server = StartedServer::start(&issuer.fill_in(&command), &url, STARTUP).unwrap();
    let target = Target::Http {
        url,
        headers: Vec::new(),
        mode: HttpMode::Streamable,
    };
    let mut config = RunConfig {
        protocol,
        profile: Some(load_profile("reference").unwrap()),
        ..RunConfig::new(target)
    };
    issuer.protect(&mut config, scenarios);
    run_suite(scenarios, &config, 4, &Arc::new(AtomicBool::new(false)), |_| {})
}

/// The scenarios that judge only a server off loopback: on one, they say so.
const OFF_LOOPBACK_ONLY: &[&str] = &["auth.endpoints-https"];

/// The scenarios that judge only a server offering no authorization server
/// metadata: on one that offers it, they say so.
const WITHOUT_METADATA_ONLY: &[&str] = &["auth.default-endpoints"];

#[test]
fn the_protected_reference_server_passes_every_auth_scenario_that_applies() {
    let scenarios = auth_scenarios();
    for (protection, protocol) in [PROTECTED, INTROSPECTING].into_iter().flat_map(|p| {
        [
            ProtocolVersion::V2025_03_26,
            ProtocolVersion::V2025_06_18,
            ProtocolVersion::V2025_11_25,
            ProtocolVersion::V2026_07_28,
        ]
        .map(|v| (p, v))
    }) {
        let outcomes = run(protection, protocol, &scenarios);
        let mut passed = 0;
        for outcome in &outcomes {
            let applies = scenarios
                .iter()
                .any(|s| s.id == outcome.id && s.versions.contains(protocol));
            let on_loopback = applies && OFF_LOOPBACK_ONLY.contains(&outcome.id.as_str());
            let with_metadata = applies && WITHOUT_METADATA_ONLY.contains(&outcome.id.as_str());
            let expected = if applies && !on_loopback && !with_metadata {
                Verdict::Pass
            } else {
                Verdict::NotApplicable
            };
            assert_eq!(
                outcome.verdict, expected,
                "{protection} {protocol} {}: {:?} {:#?}",
                outcome.id, outcome.note, outcome.checks
            );
            let note = outcome.note.as_deref().unwrap_or_default();
            if on_loopback {
                assert!(note.contains("off loopback"), "{}: {note}", outcome.id);
            }
            if with_metadata {
                assert!(
                    note.contains("offers no authorization server metadata"),
                    "{}: {note}",
                    outcome.id
                );
            }
            passed += usize::from(expected == Verdict::Pass);
        }
        assert!(passed >= 4, "{protocol}: only {passed} auth scenarios passed");
    }
}

/// 2025-03-26's server offering no metadata, with the default endpoints at
/// its origin in front of the issuer: it passes auth.default-endpoints,
/// misses the SHOULD of offering metadata, and the scenarios reading the
/// metadata say there is none; the rest pass as with metadata.
#[test]
fn the_reference_server_with_default_endpoints_passes_them() {
    let scenarios = auth_scenarios();
    let protocol = ProtocolVersion::V2025_03_26;
    for outcome in run(" --auth {issuer} --auth-default-endpoints", protocol, &scenarios) {
        let applies = scenarios
            .iter()
            .any(|s| s.id == outcome.id && s.versions.contains(protocol));
        let expected = match outcome.id.as_str() {
            _ if !applies => Verdict::NotApplicable,
            "auth.authorization-server-metadata" => Verdict::NonStrict,
            "auth.open-redirect" | "auth.endpoints-https" => Verdict::NotApplicable,
            _ => Verdict::Pass,
        };
        assert_eq!(
            outcome.verdict, expected,
            "{}: {:?} {:#?}",
            outcome.id, outcome.note, outcome.checks
        );
        if applies && expected == Verdict::NotApplicable {
            let note = outcome.note.as_deref().unwrap_or_default();
            assert!(note.contains("metadata"), "{}: {note}", outcome.id);
        }
    }
}

#[test]
fn an_open_server_gets_every_auth_scenario_not_applicable_and_says_why() {
    let scenarios = auth_scenarios();
    for outcome in run(OPEN, ProtocolVersion::V2025_11_25, &scenarios) {
        assert_eq!(outcome.verdict, Verdict::NotApplicable, "{}", outcome.id);
        let note = outcome.note.unwrap_or_default();
        assert!(
            note == "the server serves requests without a token" || note.starts_with("applies to"),
            "{}: {note}",
            outcome.id
        );
    }
}

#[test]
fn a_protected_server_keeps_the_open_servers_verdicts_outside_the_auth_scenarios() {
    let mut ordinary = load_scenarios(&[], &[]).unwrap();
    keep_role(&mut ordinary, Role::Server);
    ordinary.retain(|s| !s.id.starts_with("auth."));
    let verdicts = |protected| {
        run(protected, ProtocolVersion::V2025_11_25, &ordinary)
            .into_iter()
            .map(|o| (o.id, o.verdict))
            .collect::<std::collections::BTreeMap<_, _>>()
    };
    let open = verdicts(OPEN);
    let passed = open.values().filter(|v| **v == Verdict::Pass).count();
    assert!(
        passed > 40,
        "only {passed} ordinary scenarios pass on the open server"
    );
    assert_eq!(verdicts(PROTECTED), open);
}

/// `run` of `auth.no-token` and `tools.list` on the open reference server
/// over HTTP with `--auth-issuer ISSUER`.
fn cli_run_on_an_open_server(issuer: &str) -> Ran {
    let port = free_loopback_port().unwrap();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let server = format!(
        "{} reference-server --http 127.0.0.1:{port}",
        env!("CARGO_BIN_EXE_mcp-conform")
    );
    let mut command = mcp_conform();
    command
        .args(["run", "--url", &url, "--start", &server, "--auth-issuer", issuer])
        .args(["--filter", "auth.no-token", "--filter", "tools.list"]);
    ran(&mut command, Duration::from_secs(120))
}

/// By default the run says where its issuer is, and an open server gets
/// the auth scenarios not-applicable for what it is.
#[test]
fn the_mock_issuer_is_announced_and_an_open_server_is_told_apart() {
    let Ran { code, stdout, stderr } = cli_run_on_an_open_server("mock");
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(
        stderr.contains("mock authorization server: issuer http://127.0.0.1:"),
        "{stderr}"
    );
    assert!(
        stdout.contains("(the server serves requests without a token)"),
        "{stdout}"
    );
    assert!(stdout.contains("1 pass, 1 not-applicable"), "{stdout}");
}

/// `--auth-issuer none`: no issuer, no probe; the auth scenarios say what
/// they would need, the others run as before.
#[test]
fn without_the_mock_issuer_the_auth_scenarios_say_what_they_need() {
    let Ran { code, stdout, stderr } = cli_run_on_an_open_server("none");
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("needs the harness as the server's authorization server (--auth-issuer mock)"),
        "{stdout}"
    );
    assert!(stdout.contains("1 pass, 1 not-applicable"), "{stdout}");
    assert!(!stderr.contains("mock authorization server"), "{stderr}");
}

/// The decoded tokens `text` shows: `<JWT … | signature elided>`, each up
/// to its closing `>`.
fn decoded_tokens(text: &str) -> Vec<&str> {
    text.match_indices("<JWT ")
        .map(|(at, _)| {
            let end = text[at..].find('>').map_or(text.len(), |end| at + end + 1);
            &text[at..end]
        })
        .collect()
}

/// A protected server that shows every token it is given: a request with
/// a token is answered with its `Authorization` header in the answer (a
/// JSON-RPC error, or the instructions of `initialize` and
/// `server/discover`), so the tokens the run presents reach the
/// transcripts and the checks' messages. Without a token: 401 naming scope
/// `mcp`. A JWT granting no `mcp`: 403 naming `mcp mcp:tools`, so that
/// auth.insufficient-scope-all-at-once has the run mint one more token.
fn serve_echoing(listener: &TcpListener) {
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else { return };
        let Some(request) = read_request_with_headers(&mut stream) else {
            continue;
        };
        let json = ("Content-Type", "application/json");
        let Some(authorization) = request.header("authorization") else {
            let challenge = ("WWW-Authenticate", r#"Bearer scope="mcp""#);
            respond_with(
                &mut stream,
                "401 Unauthorized",
                &[challenge, json],
                r#"{"error":"invalid_token"}"#,
            );
            continue;
        };
        let token = authorization.trim_start_matches("Bearer ");
        if mcp_conform_core::auth::readable(token).is_some_and(|shown| !shown.contains("scope=mcp")) {
            let challenge = (
                "WWW-Authenticate",
                r#"Bearer error="insufficient_scope", scope="mcp mcp:tools""#,
            );
            respond_with(
                &mut stream,
                "403 Forbidden",
                &[challenge, json],
                r#"{"error":"insufficient_scope"}"#,
            );
            continue;
        }
        let message: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        let echo = format!("you sent {token}");
        let answer = match message["method"].as_str() {
            Some("initialize") => json!({"protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {}, "serverInfo": {"name": "echo", "version": "0"}, "instructions": echo}),
            Some("server/discover") => json!({"supportedVersions": ["2026-07-28"], "capabilities": {},
                "resultType": "complete", "ttlMs": 0, "instructions": echo,
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "echo", "version": "0"}}}),
            Some(_) if message.get("id").is_some() => {
                let error = json!({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32603, "message": echo}});
                respond(&mut stream, "200 OK", "application/json", &error.to_string());
                continue;
            }
            _ => {
                respond(&mut stream, "202 Accepted", "text/plain", "");
                continue;
            }
        };
        let answer = json!({"jsonrpc": "2.0", "id": message["id"], "result": answer});
        respond(&mut stream, "200 OK", "application/json", &answer.to_string());
    }
}

/// The auth scenarios of 2025-11-25 and 2026-07-28 against a server that
/// echoes every token, through the CLI with every report written: the
/// tokens the harness minted (before the run, and during it for the scope
/// a challenge named) appear in no output as they were sent, only decoded
/// with their signature elided.
#[test]
fn no_output_shows_a_minted_token() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    std::thread::spawn(move || serve_echoing(&listener));
    let reports = tempfile::tempdir().unwrap();
    let mut outputs = Vec::new();
    for protocol in ["2025-11-25", "2026-07-28"] {
        let dir = reports.path().join(protocol);
        let mut command = mcp_conform();
        command
            .args([
                "run",
                "--url",
                &url,
                "--protocol",
                protocol,
                "--verbose",
                "--filter",
                "auth.",
            ])
            .arg("--report-dir")
            .arg(&dir);
        let Ran { code, stdout, stderr } = ran(&mut command, Duration::from_secs(300));
        assert_eq!(code, Some(1), "the echoing server fails:\n{stdout}{stderr}");
        outputs.push((format!("stdout at {protocol}"), stdout));
        outputs.push((format!("stderr at {protocol}"), stderr));
        outputs.extend(files_under(&dir));
    }
    let transcripts = outputs
        .iter()
        .filter(|(name, _)| name.contains("transcripts"))
        .count();
    assert!(
        outputs.len() >= 12 && transcripts > 0,
        "{} outputs",
        outputs.len()
    );
    for (output, text) in &outputs {
        let leaked = jwt_beginnings(text);
        assert!(
            leaked.is_empty(),
            "{output} shows {} minted tokens: {leaked:?}",
            leaked.len()
        );
    }
    let shown: Vec<&str> = outputs
        .iter()
        .filter(|(output, _)| output.ends_with("report.json"))
        .flat_map(|(_, report)| decoded_tokens(report))
        .collect();
    assert!(
        shown.len() >= 10,
        "the reports show only {} decoded tokens",
        shown.len()
    );
    for token in &shown {
        assert!(token.ends_with(" | signature elided>"), "{token}");
    }
    assert!(
        shown.iter().any(|token| token.contains("scope=mcp mcp:tools")),
        "the token minted during the run for the scope the 403 named is shown decoded"
    );
}
