//! `mcp-conform serve` and `mcp-conform test-client`: the mock server side,
//! for testing MCP clients and hosts with `role: client` scenarios.

use std::path::PathBuf;
use std::time::Duration;

use mcp_conform_core::version::ProtocolVersion;
use mcp_mock_peers::reference_client::{self, ClientFault, Plan, ServerAddress};
use mcp_mock_peers::transport::StdioCommand;

use crate::cli::{GateArgs, Judged, ProtocolChoice, exit, report_diagnostics};
use crate::output;
use crate::report;
use crate::runner::{
    ClientUnderTest, RunConfig, ScenarioOutcome, Target, serve_connected, serve_http, serve_stdio,
};
use crate::select::{keep_role, load_scenarios};
use mcp_conform_core::scenario::model::Role;

/// `serve`: a scripted mock server on stdin/stdout, or over HTTP.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// The scenario file to play (`role: client`).
    #[arg(required_unless_present = "connect")]
    pub scenario: Option<PathBuf>,
    /// Relay stdin/stdout to the engine of a `test-client` run listening on
    /// this Unix socket (what `{server}` expands to).
    #[arg(long, value_name = "SOCKET", conflicts_with_all = ["scenario", "http"])]
    pub connect: Option<PathBuf>,
    /// Serve Streamable HTTP (and HTTP+SSE at /sse) on this loopback address
    /// (`127.0.0.1:0` picks a free port); the endpoint URL is printed on
    /// stdout as the first line.
    #[arg(long, value_name = "ADDRESS")]
    pub http: Option<String>,
    /// The protocol version to answer when the client offers none we know.
    #[arg(long, default_value = "2025-11-25")]
    pub protocol: ProtocolVersion,
    /// Seconds the client has to send `initialize`.
    #[arg(long, default_value_t = 10)]
    pub startup_timeout: u64,
}

/// `test-client`: runs a client once per scenario against the mock server.
#[derive(Debug, clap::Args)]
pub struct TestClientArgs {
    /// The client's command line; `{server}` is replaced by the command that
    /// starts the mock server over stdio, or `{url}` by the URL of a fresh
    /// mock server on a free loopback port (Streamable HTTP). The scenario's
    /// id and plan are in the environment (`MCP_CONFORM_SCENARIO`,
    /// `MCP_CONFORM_PLAN`).
    #[arg(long, value_name = "COMMAND")]
    pub command: String,
    /// Scenario files or directories (default: the bundled `role: client` scenarios).
    pub paths: Vec<PathBuf>,
    /// Only scenarios whose id contains this text (repeatable).
    #[arg(long = "filter", short = 'f')]
    pub filters: Vec<String>,
    /// Clients to run at once (default: the number of cores).
    #[arg(long, short)]
    pub jobs: Option<usize>,
    /// The protocol version to answer when the client offers none we know
    /// (2026-07-28: serve the stateless era), or `all`: each scenario once
    /// per version it applies to, answering `initialize` with that version.
    #[arg(long, default_value = "2025-11-25", value_name = "VERSION|all")]
    pub protocol: ProtocolChoice,
    /// Seconds the client has to start the server and send `initialize`.
    #[arg(long, default_value_t = 10)]
    pub startup_timeout: u64,
    #[command(flatten)]
    pub gate: GateArgs,
}

/// `reference-client`: the bundled client, correct or with one fault.
#[derive(Debug, clap::Args)]
pub struct ReferenceClientArgs {
    /// Break one rule on purpose (the broken-client fixtures).
    #[arg(long)]
    pub fault: Option<ClientFault>,
    /// Reach the server over Streamable HTTP at this URL instead.
    #[arg(long, conflicts_with = "server")]
    pub url: Option<String>,
    /// The server's command line, as separate words.
    #[arg(
        required_unless_present = "url",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub server: Vec<String>,
}

/// Runs `reference-client`.
pub fn reference_client(args: ReferenceClientArgs) -> u8 {
    let server = match args.url {
        Some(url) => ServerAddress::Url(url),
        None => {
            let mut words = args.server.into_iter();
            ServerAddress::Command(StdioCommand {
                program: words.next().unwrap_or_default(),
                args: words.collect(),
                env: Vec::new(),
                cwd: None,
            })
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: {error}");
            return exit::ERROR;
        }
    };
    match runtime.block_on(reference_client::run(&server, Plan::from_env(), args.fault)) {
        Ok(()) => exit::OK,
        Err(error) => {
            eprintln!("reference client: {error}");
            exit::ERROR
        }
    }
}

/// Runs `serve`; the verdict goes to stderr (stdout is the protocol's).
pub fn serve(args: ServeArgs) -> u8 {
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: {error}");
            return exit::ERROR;
        }
    };
    let code = match (&args.connect, &args.scenario) {
        (Some(socket), _) => match runtime.block_on(serve_connected(socket)) {
            Ok(()) => exit::OK,
            Err(error) => {
                eprintln!("mcp-conform serve: {error}");
                exit::ERROR
            }
        },
        (None, Some(path)) => match load_scenarios(std::slice::from_ref(path), &[]) {
            Ok(scenarios) if scenarios.len() == 1 => {
                let client = ClientUnderTest::started_elsewhere(args.http.is_some());
                let config = RunConfig {
                    protocol: args.protocol,
                    startup_timeout: Duration::from_secs(args.startup_timeout),
                    ..RunConfig::new(Target::Client(client))
                };
                let scenario = &scenarios[0];
                let outcome = match &args.http {
                    Some(address) => runtime.block_on(serve_http(scenario, &config, address, announce)),
                    None => Ok(runtime.block_on(serve_stdio(scenario, &config))),
                };
                match outcome {
                    Ok(outcome) => verdict(&outcome),
                    Err(error) => {
                        eprintln!("error: {error}");
                        exit::USAGE
                    }
                }
            }
            Ok(_) => {
                eprintln!("error: serve plays exactly one scenario file");
                exit::USAGE
            }
            Err(diagnostics) => report_diagnostics(&diagnostics),
        },
        (None, None) => exit::USAGE,
    };
    // Reading stdin blocks a thread that would otherwise keep the runtime alive.
    runtime.shutdown_background();
    code
}

/// Prints where the mock server listens, first thing on stdout.
fn announce(url: &str) {
    use std::io::Write as _;
    let mut stdout = std::io::stdout();
    let _ = writeln!(stdout, "{url}");
    let _ = stdout.flush();
}

/// The verdict of `serve` on stderr (stdout may be the protocol's); the exit code.
fn verdict(outcome: &ScenarioOutcome) -> u8 {
    anstream::eprintln!("{}", output::scenario_line(outcome));
    anstream::eprint!("{}", output::failure_details(std::slice::from_ref(outcome)));
    report::exit_code(std::slice::from_ref(outcome))
}

/// Runs `test-client`.
pub fn test_client(args: TestClientArgs) -> u8 {
    if args.command.contains("{server}") && args.command.contains("{url}") {
        eprintln!("error: --command has both {{server}} and {{url}}; give the one the client uses");
        return exit::USAGE;
    }
    let mut scenarios = match load_scenarios(&args.paths, &args.filters) {
        Ok(scenarios) => scenarios,
        Err(diagnostics) => return report_diagnostics(&diagnostics),
    };
    keep_role(&mut scenarios, Role::Client);
    if scenarios.is_empty() {
        eprintln!("error: no `role: client` scenario selected; a run that tests nothing is not a pass");
        return exit::USAGE;
    }
    let mut client = ClientUnderTest::new(&args.command);
    let versions = match args.protocol {
        ProtocolChoice::One(version) => vec![version],
        ProtocolChoice::All => {
            client.pinned = true;
            ProtocolVersion::ALL.to_vec()
        }
    };
    let mut config = RunConfig::new(Target::Client(client));
    config.protocol = versions[0];
    config.startup_timeout = Duration::from_secs(args.startup_timeout);
    let jobs = crate::cli::jobs_or_default(args.jobs);
    let judged = Judged {
        scenarios: &scenarios,
        config: &config,
        versions,
        jobs,
        suite: report::suite(&scenarios),
        shard: None,
    };
    judged.run(&args.gate)
}
