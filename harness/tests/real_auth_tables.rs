//! The bundled suite, auth scenarios included, against the real
//! OAuth-protected servers of `fixtures/peers/auth` (issue 17: Python SDK,
//! FastMCP, TypeScript SDK): `mcp-conform
//! run --url … --start "<peer> --issuer {issuer} --jwks {jwks}"` on every
//! version, the harness being their authorization server. Each peer requires
//! the scope `mcp`, so the run's tokens must carry the scope the peer
//! advertises for the ordinary suite to pass (the positive control), and the
//! insufficient-scope scenarios apply. Verdict tables and findings are
//! snapshotted as `http_transport.rs` does; `fixtures/peers/auth/README.md`
//! explains every non-pass. Without the peers the tests are ignored with the
//! reason (`common::needs`).

use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use common::needs::{PeersEnv, Tests, peers_with};
use common::report::judge;
use mcp_conform::runner::free_loopback_port;
use mcp_conform_report::Verdict;

mod common;

const PROFILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/peers/auth/profile.yaml");

/// The scope every token must carry, which the peer advertises in its
/// protected resource metadata.
const REQUIRED_SCOPE: &str = "mcp";

/// One peer (and one suite run, two jobs) at a time.
static ONE_PEER_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The test judging the peer `key` of peers.env, snapshotted as `snapshot`.
fn judged(key: &'static str, snapshot: &'static str) -> impl FnOnce(PeersEnv) + Send + 'static {
    move |env| {
        let _turn = ONE_PEER_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
        let port = free_loopback_port().expect("a free loopback port");
        let url = format!("http://127.0.0.1:{port}/mcp");
        let start = format!(
            "{} --required-scope {REQUIRED_SCOPE}",
            env[key].replace("{port}", &port.to_string())
        );
        let run = judge(
            &[
                "run",
                "--url",
                &url,
                "--start",
                &start,
                "--transport",
                "streamable",
                "--profile",
                PROFILE,
                "--protocol",
                "all",
                "--jobs",
                "2",
            ],
            Duration::from_secs(900),
        );
        let stderr = String::from_utf8_lossy(&run.output.stderr);
        assert!(
            stderr.contains("mock authorization server: issuer "),
            "the harness is the peer's authorization server:\n{stderr}"
        );
        // A JWT begins with its base64url-encoded header, `{"` being `ey`.
        let report = serde_json::to_string(&run.report).unwrap();
        for (output, text) in [("stdout", run.stdout()), ("report.json", report)] {
            assert!(!text.contains("Bearer ey"), "a minted token in {output}");
        }
        insta::assert_snapshot!(snapshot, run.table());
        insta::assert_snapshot!(format!("{snapshot}_findings"), run.findings());
        let passed = |name: &str| {
            run.report
                .cases
                .iter()
                .any(|case| case.scenario == name && case.verdict == Verdict::Pass)
        };
        assert!(
            passed("tools.call") && passed("auth.no-token"),
            "a token with the required scope is served, none is refused:\n{}",
            run.stdout()
        );
        assert_eq!(
            run.report.summary.count(Verdict::Error),
            0,
            "no error verdicts against a real peer:\n{}",
            run.stdout()
        );
    }
}

fn main() -> std::process::ExitCode {
    let keys = [
        "AUTH_PYTHON_SERVER_CMD",
        "AUTH_FASTMCP_SERVER_CMD",
        "AUTH_TS_SERVER_CMD",
    ];
    let [python, fastmcp, typescript] = keys.map(|key| peers_with(&[key]));
    Tests::default()
        .needing(
            &python,
            "python_sdk_protected_server_on_every_version",
            judged(keys[0], "python_sdk_protected_all"),
        )
        .needing(
            &fastmcp,
            "fastmcp_protected_server_on_every_version",
            judged(keys[1], "fastmcp_protected_all"),
        )
        .needing(
            &typescript,
            "typescript_sdk_protected_server_on_every_version",
            judged(keys[2], "typescript_sdk_protected_all"),
        )
        .run()
}
