//! `mcp-conform serve` and `mcp-conform test-client`: the mock server side,
//! for testing MCP clients and hosts with `role: client` scenarios.

use std::path::{Path, PathBuf};
use std::time::Duration;

use mcp_conform_core::redact::Secrets;
use mcp_conform_core::version::ProtocolVersion;
use mcp_conform_report::ExitCode;
use mcp_mock_peers::reference_client::{self, ClientFault, Plan, ServerAddress};
use mcp_mock_peers::transport::StdioCommand;

use crate::cli::{CliError, GateArgs, ProtocolChoice, runtime};
use crate::output;
use crate::pipeline::Judged;
use crate::report;
use crate::runner::{
    ClientUnderTest, RunConfig, ScenarioOutcome, Target, serve_connected, serve_http, serve_stdio,
};
use crate::select::{CatalogueArg, keep_role, load_scenarios, load_selection};
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
    #[arg(long, default_value_t = 10, value_parser = crate::cli::at_least_one::<u64>)]
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
    #[arg(conflicts_with = "fuzz")]
    pub paths: Vec<PathBuf>,
    /// Instead of scenario files: this many generated ones (unusual
    /// listings, unasked-for notifications, requests with odd ids), each
    /// written to `--fuzz-out` so a failing one can be replayed.
    #[arg(long, value_name = "N", value_parser = crate::cli::at_least_one::<usize>)]
    pub fuzz: Option<usize>,
    /// The generator's seed for `--fuzz` (default: from the clock; always
    /// printed). The same seed gives the same scenarios.
    #[arg(long, requires = "fuzz")]
    pub seed: Option<u64>,
    /// Where `--fuzz` writes its scenarios (default: a new directory in
    /// the system's temporary directory, printed).
    #[arg(long, value_name = "DIR", requires = "fuzz")]
    pub fuzz_out: Option<PathBuf>,
    #[command(flatten)]
    pub catalogue: CatalogueArg,
    /// Only scenarios whose id contains this text (repeatable).
    #[arg(long = "filter", short = 'f')]
    pub filters: Vec<String>,
    /// Clients to run at once (default: one per core, each starting a client
    /// process; fewer when memory is short).
    #[arg(long, short, value_parser = crate::cli::at_least_one::<usize>)]
    pub jobs: Option<usize>,
    /// The protocol version to answer when the client offers none we know
    /// (2026-07-28: serve the stateless era), or `all`: each scenario once
    /// per version it applies to, answering `initialize` with that version.
    #[arg(long, default_value = "2025-11-25", value_name = "VERSION|all")]
    pub protocol: ProtocolChoice,
    /// Seconds the client has to start the server and send `initialize`.
    #[arg(long, default_value_t = 10, value_parser = crate::cli::at_least_one::<u64>)]
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
pub fn reference_client(args: ReferenceClientArgs) -> Result<ExitCode, CliError> {
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
    runtime()?
        .block_on(reference_client::run(&server, Plan::from_env(), args.fault))
        .map(|()| ExitCode::Ok)
        .map_err(|error| CliError::Peer {
            peer: "reference client",
            error: error.to_string(),
        })
}

/// Runs `serve`; the verdict goes to stderr (stdout is the protocol's).
pub fn serve(args: ServeArgs) -> Result<ExitCode, CliError> {
    let runtime = runtime()?;
    let exit = match (&args.connect, &args.scenario) {
        (Some(socket), _) => runtime
            .block_on(serve_connected(socket))
            .map(|()| ExitCode::Ok)
            .map_err(|error| CliError::Peer {
                peer: "mcp-conform serve",
                error: error.to_string(),
            }),
        (None, Some(path)) => play(&runtime, path, &args),
        (None, None) => Err(CliError::Usage("serve needs a scenario file or --connect".into())),
    };
    // Reading stdin blocks a thread that would otherwise keep the runtime alive.
    runtime.shutdown_background();
    exit
}

/// `serve SCENARIO`: plays the one scenario, then gives its verdict.
fn play(runtime: &tokio::runtime::Runtime, path: &Path, args: &ServeArgs) -> Result<ExitCode, CliError> {
    let scenarios = load_scenarios(&[path.to_owned()], &[]).map_err(CliError::scenarios)?;
    let [scenario] = scenarios.as_slice() else {
        return Err(CliError::Usage("serve plays exactly one scenario file".into()));
    };
    let client = ClientUnderTest::started_elsewhere(args.http.is_some());
    let config = RunConfig {
        protocol: args.protocol,
        startup_timeout: Duration::from_secs(args.startup_timeout),
        ..RunConfig::new(Target::Client(client))
    };
    let outcome = match &args.http {
        Some(address) => runtime
            .block_on(serve_http(scenario, &config, address, announce))
            .map_err(|error| CliError::Usage(error.to_string()))?,
        None => runtime.block_on(serve_stdio(scenario, &config)),
    };
    Ok(verdict(&outcome))
}

/// Prints where the mock server listens, first thing on stdout.
fn announce(url: &str) {
    use std::io::Write as _;
    let mut stdout = std::io::stdout();
    let _ = writeln!(stdout, "{url}");
    let _ = stdout.flush();
}

/// The verdict of `serve` on stderr (stdout may be the protocol's); the
/// exit code of its gate.
fn verdict(outcome: &ScenarioOutcome) -> ExitCode {
    let cases = [report::case(outcome, &Secrets::default())];
    anstream::eprintln!("{}", output::case_line(&cases[0], outcome.duration, false));
    anstream::eprint!("{}", output::failure_details(&cases, false));
    report::exit_code(&cases)
}

/// Runs `test-client`.
pub fn test_client(args: TestClientArgs) -> Result<ExitCode, CliError> {
    if args.command.contains("{server}") && args.command.contains("{url}") {
        return Err(CliError::Usage(
            "--command has both {server} and {url}; give the one the client uses".into(),
        ));
    }
    let paths = match args.fuzz {
        Some(count) => vec![fuzzed_scenarios(count, args.seed, args.fuzz_out.clone())?],
        None => args.paths.clone(),
    };
    let mut scenarios = load_selection(&paths, args.catalogue.requirements.as_deref(), &args.filters)
        .map_err(CliError::scenarios)?
        .scenarios;
    keep_role(&mut scenarios, Role::Client);
    if scenarios.is_empty() {
        return Err(CliError::Usage(
            "no `role: client` scenario selected; a run that tests nothing is not a pass".into(),
        ));
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
    let jobs = crate::cli::jobs_or_default(args.jobs, true);
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

/// Writes `count` generated client scenarios from `seed` into `out` (or a
/// new temporary directory), says where, and returns the directory.
fn fuzzed_scenarios(count: usize, seed: Option<u64>, out: Option<PathBuf>) -> Result<PathBuf, CliError> {
    let seed = seed.unwrap_or_else(crate::fuzz::run::clock_seed);
    let dir = out.unwrap_or_else(|| std::env::temp_dir().join(format!("mcp-conform-fuzz-client-{seed}")));
    let written = std::fs::create_dir_all(&dir).and_then(|()| {
        crate::fuzz::client::scenarios(seed, count)
            .into_iter()
            .try_for_each(|(name, text)| std::fs::write(dir.join(name), text))
    });
    written.map_err(|e| CliError::Infrastructure(format!("--fuzz-out {}: {e}", dir.display())))?;
    println!(
        "fuzz seed {seed}: {count} generated scenarios in {} (replay one with test-client --command … FILE)",
        dir.display()
    );
    Ok(dir)
}
