//! Bring-your-own-token mode: `run --url … --auth-issuer none --token T`
//! against the reference server's protected mode, which trusts an issuer
//! this test runs (as a server trusting only its own authorization server
//! would). The token carries the ordinary suite; the auth scenarios that
//! need no other kind of token run with it and catch a server that accepts
//! any token; the others are not-applicable, saying why; the token appears
//! in no output, and the AUTH rows in every report format.

use std::path::Path;
use std::time::Duration;

use common::report::{Judged, judge};
use mcp_conform::runner::free_loopback_port;
use mcp_conform_report::Verdict;
use mcp_mock_peers::auth::{MockIssuer, TokenChoice};
use mcp_mock_peers::reference::NEEDED_SCOPES;

mod common;

/// A scenario of the user's own that has the server echo the token back,
/// so that it is in the transcript of every output.
const ECHO_THE_TOKEN: &str = r#"
id: own.echo-token
title: The server echoes the token back
versions: all
steps:
  # An `http` step binds ${valid_token}; the request after it is in the transcript.
  - http:
      method: POST
      body: { jsonrpc: "2.0", id: "list", method: tools/list }
      expect: [{ name: the list is answered, status: 200 }]
  - request:
      method: tools/call
      params: { name: echo, arguments: { text: "${valid_token}" } }
      expect: { result: { content: { $len: 1 } } }
"#;

/// A protected reference server (with `fault`, if any) trusting an issuer
/// of this test's, judged with one valid token of that issuer given by
/// `--token` on `scenarios`.
fn judged_with_own_token(fault: Option<&str>, scenarios: &[&str]) -> (Judged, String) {
    let port = free_loopback_port().unwrap();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let issuer = runtime.block_on(MockIssuer::start(&url)).unwrap();
    let token = issuer
        .minter()
        .mint_scoped(TokenChoice::Valid, Some(NEEDED_SCOPES));
    let server = format!(
        "{} reference-server --http 127.0.0.1:{port} --auth {}{}",
        env!("CARGO_BIN_EXE_mcp-conform"),
        issuer.issuer(),
        fault.map(|f| format!(" --fault {f}")).unwrap_or_default()
    );
    let mut args = vec![
        "run",
        "--url",
        &url,
        "--start",
        &server,
        "--auth-issuer",
        "none",
        "--token",
        &token,
        "--protocol",
        "2025-11-25",
    ];
    args.extend(scenarios);
    let run = judge(&args, Duration::from_secs(120));
    (run, token)
}

fn verdict<'a>(run: &'a Judged, scenario: &str) -> (Verdict, &'a str) {
    let case = run
        .report
        .cases
        .iter()
        .find(|case| case.scenario == scenario)
        .unwrap_or_else(|| panic!("no case {scenario}"));
    (case.verdict, case.note.as_deref().unwrap_or_default())
}

#[test]
fn the_users_token_runs_what_it_can_and_the_rest_says_it_needs_the_mock_issuer() {
    let (run, token) = judged_with_own_token(None, &["--filter", "auth.", "--filter", "tools.list"]);
    let stderr = String::from_utf8_lossy(&run.output.stderr);
    assert!(!stderr.contains("mock authorization server"), "{stderr}");
    for scenario in [
        "tools.list",
        "auth.no-token",
        "auth.query-token",
        "auth.session-without-token",
    ] {
        assert_eq!(
            verdict(&run, scenario).0,
            Verdict::Pass,
            "{scenario}:\n{}",
            run.stdout()
        );
    }
    for scenario in ["auth.wrong-audience", "auth.insufficient-scope"] {
        let (verdict, note) = verdict(&run, scenario);
        assert_eq!(verdict, Verdict::NotApplicable, "{scenario}");
        assert!(
            note.contains("only the harness's mock issuer can mint"),
            "{scenario}: {note}"
        );
    }
    // The forgeries built from the user's token were presented and refused;
    // the case says which tokens it could not present.
    let (invalid_tokens, note) = verdict(&run, "auth.invalid-tokens");
    assert_eq!(invalid_tokens, Verdict::Pass);
    assert!(
        note.starts_with("partly judged: left out the steps presenting the `expired` token, ")
            && note.contains("only the harness's mock issuer can mint"),
        "{note}"
    );
    let invalid = run
        .report
        .cases
        .iter()
        .find(|c| c.scenario == "auth.invalid-tokens")
        .unwrap();
    let passed: Vec<&str> = invalid
        .checks
        .iter()
        .filter(|check| check.verdict == Verdict::Pass)
        .map(|check| check.name.as_str())
        .collect();
    assert_eq!(
        passed,
        [
            "a token whose signature does not verify gets 401",
            "a token that is no JWT gets 401"
        ]
    );
    assert_eq!(run.report.summary.count(Verdict::Fail), 0, "{}", run.stdout());
    assert_eq!(run.report.summary.count(Verdict::Error), 0, "{}", run.stdout());
    never_shown(&run, &token);
}

/// Those forgeries are not there for show: a server accepting any token
/// fails under AUTH-003 with the user's token alone.
#[test]
fn a_server_accepting_any_token_fails_with_the_users_token_alone() {
    let filter = ["--filter", "auth.invalid-tokens"];
    let (run, token) = judged_with_own_token(Some("auth-accepts-any-token"), &filter);
    assert_eq!(
        verdict(&run, "auth.invalid-tokens").0,
        Verdict::Fail,
        "{}",
        run.stdout()
    );
    let failed = run.report.cases.iter().flat_map(|case| &case.checks);
    let failed: Vec<&str> = failed
        .filter(|check| check.verdict == Verdict::Fail)
        .map(|check| check.requirement.as_str())
        .collect();
    assert!(
        !failed.is_empty() && failed.iter().all(|id| *id == "AUTH-003"),
        "{failed:?}"
    );
    never_shown(&run, &token);
    auth_rows_in_every_format(run.dir.path());
}

/// The redaction knows the user's token: echoed back by the server, it is
/// `<redacted>` in every output, not shown decoded as a minted one is.
#[test]
fn the_users_token_echoed_back_is_redacted_everywhere() {
    let dir = tempfile::TempDir::new().unwrap();
    let scenario = dir.path().join("echo-token.yaml");
    std::fs::write(&scenario, ECHO_THE_TOKEN).unwrap();
    let (run, token) = judged_with_own_token(None, &[scenario.to_str().unwrap()]);
    assert_eq!(run.report.summary.count(Verdict::Pass), 1, "{}", run.stdout());
    let echoed = &run.report.cases[0].transcript;
    assert!(
        echoed
            .iter()
            .any(|frame| frame.text.contains(r#""text":"<redacted>""#)),
        "{echoed:#?}"
    );
    never_shown(&run, &token);
}

/// Neither the token nor its claims appear in the terminal or any report
/// file: unlike a minted token, the user's is not shown decoded.
fn never_shown(run: &Judged, token: &str) {
    let payload = token.split('.').nth(1).unwrap();
    let mut outputs = vec![
        ("stdout".to_owned(), run.stdout()),
        (
            "stderr".to_owned(),
            String::from_utf8_lossy(&run.output.stderr).into_owned(),
        ),
    ];
    for file in mcp_conform::report::FILES {
        let text = std::fs::read_to_string(run.dir.path().join(file)).unwrap();
        outputs.push((file.to_owned(), text));
    }
    for (output, text) in outputs {
        assert!(!text.contains(payload), "the token is in {output}");
        assert!(!text.contains("<JWT "), "the token is shown decoded in {output}");
    }
}

/// The AUTH-003 finding shows in every report format, and in the HTML
/// report's requirement matrix.
fn auth_rows_in_every_format(dir: &Path) {
    for file in mcp_conform::report::FILES {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        assert!(text.contains("AUTH-003"), "{file}");
    }
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    let matrix = html.split("<section id=\"matrix\">").nth(1).expect("a matrix");
    let matrix = matrix.split("</section>").next().unwrap();
    assert!(matrix.contains("AUTH-003"), "{matrix}");
}
