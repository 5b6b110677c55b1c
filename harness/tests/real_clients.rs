//! The client scenarios against real clients nobody here wrote the SDK of:
//! fixture hosts on the official TypeScript `Client` and Python
//! `MockSession`, and the Inspector CLI, each installed by
//! `scripts/install-peers.sh` and run by `mcp-conform test-client` over
//! stdio (`{server}`) and over Streamable HTTP (`{url}`). Their verdict
//! tables are snapshotted, as are those of a real bridge (npm
//! `supergateway`, stdio to Streamable HTTP, with the server suite through
//! it) and a real aggregating proxy (PyPI `fastmcp`, with the gateway
//! scenarios' mock servers behind it) under `test-gateway`. The Python
//! fixture is a dual-era host (`mode="auto"`), so it is judged on 2026-07-28
//! too (`test-client --protocol 2026-07-28`); with the SDK's
//! `OAuthClientProvider` (`--oauth`) it is judged on the OAuth scenarios
//! of every version, as is the TypeScript fixture with its SDK's (whose
//! handshake-era client is judged on its authorization alone on 2026-07-28);
//! both are judged with their SDK's client-credentials provider too
//! (`--client-credentials`). Without the peers the tests
//! are ignored with the reason (see `common::needs`).

use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use common::needs::{PeersEnv, Tests, peers, peers_with};
use common::report::{assert_real_peer_run, judge};
use mcp_conform_report::{Summary, Verdict};

mod common;

/// One client at a time: each run already uses two jobs.
static ONE_CLIENT_AT_A_TIME: Mutex<()> = Mutex::new(());

/// How a client stays for the mock server's requests.
#[derive(Clone, Copy, PartialEq)]
enum Stays {
    /// It honours the plan's `linger_ms`.
    AsPlanned,
    /// It leaves as soon as its one command is done (the Inspector CLI),
    /// racing the mock server's requests: a case it answered in one run it
    /// may have left before in the next. Its passes are snapshotted as
    /// not-observed, the verdict its departure gives, so the table is the
    /// same whichever won; every other verdict is kept.
    OneShot,
}

/// A test that runs `mcp-conform SUBCOMMAND --command <peers.env
/// COMMAND_KEY> ARGS` and snapshots its verdict table.
fn judged(
    subcommand: &'static str,
    command_key: &'static str,
    args: &'static [&'static str],
    snapshot: &'static str,
    stays: Stays,
) -> impl FnOnce(PeersEnv) + Send + 'static {
    move |env| {
        let command = env
            .get(command_key)
            .unwrap_or_else(|| panic!("{command_key} missing from peers.env"));
        let _turn = ONE_CLIENT_AT_A_TIME
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let mut argv = vec![subcommand, "--command", command, "--jobs", "2"];
        argv.extend(args);
        let mut run = judge(&argv, Duration::from_secs(300));
        if stays == Stays::OneShot {
            for case in &mut run.report.cases {
                if case.verdict == Verdict::Pass {
                    case.verdict = Verdict::NotObserved;
                }
            }
            run.report.summary = Summary::of(&run.report.cases);
        }
        assert_real_peer_run!(run, snapshot);
    }
}

const ON_2026_07_28: &[&str] = &["--protocol", "2026-07-28"];
/// The OAuth scenarios on every version they apply to (the Python and
/// TypeScript hosts with their SDK's `OAuthClientProvider`, `--oauth`).
const AUTH_SCENARIOS: &[&str] = &["--protocol", "all", "--filter", "client.auth"];
/// The OAuth scenarios a client on the client_credentials grant (the
/// Python SDK's `ClientCredentialsOAuthProvider`, the TypeScript SDK's
/// `ClientCredentialsProvider`) is judged on: discovery,
/// and the refusal a client with no authorization request cannot show.
const CLIENT_CREDENTIALS_SCENARIOS: &[&str] = &[
    "--protocol",
    "all",
    "--filter",
    "client.auth.metadata",
    "--filter",
    "client.auth.pkce-unsupported",
];

fn main() -> std::process::ExitCode {
    let peers = peers();
    let client = |key, args, snapshot| judged("test-client", key, args, snapshot, Stays::AsPlanned);
    let one_shot = |key, snapshot| judged("test-client", key, &[], snapshot, Stays::OneShot);
    let gateway = |key, snapshot| judged("test-gateway", key, &[], snapshot, Stays::AsPlanned);
    Tests::default()
        .needing(
            &peers,
            "typescript_sdk_client_over_stdio",
            client("TS_CLIENT_CMD", &[], "ts_client_stdio"),
        )
        .needing(
            &peers,
            "python_sdk_client_over_stdio",
            client("PY_CLIENT_CMD", &[], "python_client_stdio"),
        )
        .needing(
            &peers,
            "python_sdk_client_over_stdio_on_2026_07_28",
            client("PY_CLIENT_CMD", ON_2026_07_28, "python_client_stdio_2026_07_28"),
        )
        .needing(
            &peers,
            "inspector_cli_over_stdio",
            one_shot("INSPECTOR_CLIENT_CMD", "inspector_cli_stdio"),
        )
        .needing(
            &peers,
            "typescript_sdk_client_over_http",
            client("TS_CLIENT_HTTP_CMD", &[], "ts_client_http"),
        )
        .needing(
            &peers,
            "python_sdk_client_over_http",
            client("PY_CLIENT_HTTP_CMD", &[], "python_client_http"),
        )
        .needing(
            &peers,
            "python_sdk_client_over_http_on_2026_07_28",
            client(
                "PY_CLIENT_HTTP_CMD",
                ON_2026_07_28,
                "python_client_http_2026_07_28",
            ),
        )
        .needing(
            &peers,
            "python_sdk_oauth_client_on_the_auth_scenarios",
            client("PY_OAUTH_CLIENT_CMD", AUTH_SCENARIOS, "python_oauth_client_http"),
        )
        .needing(
            &peers,
            "python_sdk_client_credentials_on_the_auth_scenarios",
            client(
                "PY_CLIENT_CREDENTIALS_CMD",
                CLIENT_CREDENTIALS_SCENARIOS,
                "python_client_credentials_http",
            ),
        )
        .needing(
            &peers_with(&["TS_CLIENT_CREDENTIALS_CMD"]),
            "typescript_sdk_client_credentials_on_the_auth_scenarios",
            client(
                "TS_CLIENT_CREDENTIALS_CMD",
                CLIENT_CREDENTIALS_SCENARIOS,
                "ts_client_credentials_http",
            ),
        )
        .needing(
            &peers,
            "typescript_sdk_oauth_client_on_the_auth_scenarios",
            client("TS_OAUTH_CLIENT_CMD", AUTH_SCENARIOS, "ts_oauth_client_http"),
        )
        .needing(
            &peers,
            "inspector_cli_over_http",
            one_shot("INSPECTOR_CLIENT_HTTP_CMD", "inspector_cli_http"),
        )
        .needing(
            &peers,
            "supergateway_in_front_of_the_reference_server",
            gateway("SUPERGATEWAY_CMD", "supergateway_http"),
        )
        .needing(
            &peers,
            "fastmcp_proxy_in_front_of_the_gateway_scenarios_backends",
            gateway("FASTMCP_GATEWAY_CMD", "fastmcp_gateway_stdio"),
        )
        .run()
}
