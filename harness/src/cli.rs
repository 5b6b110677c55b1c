//! The `mcp-conform` command line.
//!
//! Every command returns `Result<ExitCode, CliError>`: the exit code a
//! finished command decided (a run's comes from its report's gate), or the
//! error that stopped it. [`main`] is the one place either becomes the
//! process's exit status.

mod error;

use std::path::PathBuf;
use std::sync::Arc;

use clap::{Parser, Subcommand};
use mcp_conform_core::protocol::official::OfficialSchemas;
use mcp_conform_core::redact::Secrets;
use mcp_conform_core::requirements::catalogue;
use mcp_conform_core::version::ProtocolVersion;
use mcp_conform_report::{ExitCode, sanitize};
use mcp_mock_peers::transport::http::headers::parse_header;
use mcp_mock_peers::transport::{HttpMode, StdioCommand};

use crate::auth::{AuthServer, TokenSource};
use crate::coverage::{self, Coverage};
use crate::output;
use crate::own_requirements;
use crate::pipeline::Judged;
use crate::report::{self, shard};
use crate::runner::{RunConfig, Target, supported_versions};
use crate::schemas;
use crate::select::{CatalogueArg, keep_role, load_profile, load_scenarios, load_selection};
use mcp_conform_core::scenario::model::Role;

pub use error::CliError;

#[derive(Debug, Parser)]
#[command(
    name = "mcp-conform",
    about = "Conformance test harness and mock peer for MCP",
    disable_version_flag = true,
    args_conflicts_with_subcommands = true,
    arg_required_else_help = true
)]
pub struct Cli {
    /// Print the version, the protocol versions it speaks and the bundled
    /// suite's id.
    #[arg(short = 'V', long)]
    pub version: bool,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run scenarios against a server.
    Run(Box<RunArgs>),
    /// List the scenarios that would run, or the requirement catalogue with coverage.
    List {
        /// Scenario files or directories (default: the bundled suite).
        paths: Vec<PathBuf>,
        /// List requirements and how the suite covers them.
        #[arg(long)]
        requirements: bool,
        /// Only requirements of this protocol version.
        #[arg(long, requires = "requirements")]
        version: Option<ProtocolVersion>,
        /// Every scenario, not only those a plain `run` runs.
        #[arg(long, short = 'v', conflicts_with = "requirements")]
        verbose: bool,
    },
    /// Combine the `report.json` files of `run --shard K/N` runs into the
    /// report of the whole run; exits like the whole run would.
    Merge {
        /// Every shard's `report.json`.
        #[arg(required = true)]
        reports: Vec<PathBuf>,
        /// Where to write the merged report files.
        #[arg(long, value_name = "DIR")]
        report_dir: PathBuf,
    },
    /// Print a requirement, its spec page and what tests it; or a
    /// scenario's purpose, requirements and steps in words.
    Explain {
        /// A requirement ID such as `TOOL-002`, one of your own, or a scenario ID.
        id: String,
        /// Scenario files or directories (default: the bundled suite); a
        /// `requirements.yaml` among them is your catalogue.
        paths: Vec<PathBuf>,
        #[command(flatten)]
        catalogue: CatalogueArg,
    },
    /// Write a commented skeleton to start from.
    New {
        #[command(subcommand)]
        what: NewCommand,
    },
    /// Print the JSON Schema of scenario files.
    Schema,
    /// Print a shell completion script (`bash`, `zsh` or `fish`).
    Completions { shell: crate::completions::Shell },
    /// Print the man page (roff): `mcp-conform man > mcp-conform.1`.
    Man,
    /// Official MCP schema files (for `run --schema-dir`).
    Schemas {
        #[command(subcommand)]
        command: SchemasCommand,
    },
    /// Play a `role: client` scenario as a mock server on stdio (the
    /// command a client under test starts).
    Serve(crate::test_client::ServeArgs),
    /// Run a client once per `role: client` scenario against the mock server, and judge it.
    TestClient(crate::test_client::TestClientArgs),
    /// Put a gateway or bridge between the server suite and the bundled
    /// reference server, and judge what comes through.
    TestGateway(crate::test_gateway::TestGatewayArgs),
    /// Write a commented profile for a server from its tools, prompts and
    /// resources (no tool is called).
    Init(Box<crate::init::InitArgs>),
    /// Profiles: `profile check FILE` validates one against the live server.
    Profile {
        #[command(subcommand)]
        command: ProfileCommand,
    },
    /// Call a server's allowed tools with generated arguments, judge every
    /// answer, and write a reproducer scenario for each finding.
    Fuzz(Box<crate::fuzz::run::FuzzArgs>),
    /// Relay between a client and a server, judge every frame as it passes,
    /// and write the conversation as a scenario that `run` replays.
    Record(crate::record::RecordArgs),
    /// Run the bundled reference client against a server command (the
    /// broken-client fixtures with `--fault`); it follows `MCP_CONFORM_PLAN`.
    #[command(hide = true)]
    ReferenceClient(crate::test_client::ReferenceClientArgs),
    /// Run the bundled reference gateway on stdio in front of the servers
    /// of an `mcpServers` config (the broken-gateway fixtures with `--fault`).
    #[command(hide = true)]
    ReferenceGateway {
        /// The `{"mcpServers": {...}}` file.
        config: PathBuf,
        /// Break one rule on purpose.
        #[arg(long)]
        fault: Option<mcp_mock_peers::reference_gateway::GatewayFault>,
        /// Serve Streamable HTTP at `/mcp` on this loopback port instead of stdio.
        #[arg(long)]
        port: Option<u16>,
        /// Protect that front with OAuth: accept only tokens this issuer
        /// (its URL) signs for the front's URL.
        #[arg(long, value_name = "ISSUER_URL", requires = "port")]
        auth: Option<String>,
    },
    /// Serve the bundled reference server over stdio.
    #[command(hide = true)]
    ReferenceServer {
        /// Break one rule on purpose (the broken-server fixtures).
        #[arg(long)]
        fault: Option<mcp_mock_peers::reference::Fault>,
        /// Serve Streamable HTTP (`/mcp`) and HTTP+SSE (`/sse`) on this
        /// loopback address (`127.0.0.1:0` picks a port) instead of stdio.
        #[arg(long, value_name = "ADDRESS")]
        http: Option<String>,
        /// Protect the HTTP server with OAuth: accept only tokens this
        /// issuer (its URL) signs for the endpoint, which needs scope `mcp`.
        #[arg(long, value_name = "ISSUER_URL", requires = "http")]
        auth: Option<String>,
        /// Validate tokens by asking the issuer's introspection endpoint
        /// (RFC 7662) instead of verifying them against its JWKS.
        #[arg(long, requires = "auth")]
        auth_introspect: bool,
        /// Offer no authorization server metadata at the origin, and serve
        /// 2025-03-26's default /authorize and /token there instead, in
        /// front of the issuer.
        #[arg(long, requires = "auth")]
        auth_default_endpoints: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum NewCommand {
    /// A scenario file `<DIR>/<ID>.yaml`, with the schema beside it for editors.
    Scenario {
        /// The scenario's ID, such as `acme.echo`.
        id: String,
        /// Where to write it.
        #[arg(long, value_name = "DIR", default_value = ".")]
        dir: PathBuf,
    },
}

#[derive(Debug, Subcommand)]
pub enum ProfileCommand {
    /// Check that the tools and prompts a profile binds exist on the server
    /// and that their arguments are valid for it.
    Check(Box<crate::profile_check::CheckArgs>),
}

#[derive(Debug, Subcommand)]
pub enum SchemasCommand {
    /// Download the official schema files into a cache directory.
    Fetch {
        /// Base URL; `{base}/{version}/schema.json` is fetched.
        #[arg(long, default_value = schemas::DEFAULT_BASE_URL)]
        url: String,
        /// Where to write them (default: the user cache).
        #[arg(long)]
        dest: Option<PathBuf>,
        /// Versions to fetch (default: all).
        #[arg(long = "version")]
        versions: Vec<ProtocolVersion>,
    },
}

/// Where the server is: `--stdio` or `--url`, as `run`, `fuzz` and
/// `record` take it (`record` says what each means for a relay).
#[derive(Debug, Clone, clap::Args)]
pub struct ServerAddress {
    /// The server's command line, split like a shell would but run without
    /// one. Default: the bundled reference server.
    #[arg(long, value_name = "COMMAND", conflicts_with = "url")]
    pub stdio: Option<String>,
    /// The MCP endpoint of a server already listening over HTTP
    /// (`http://127.0.0.1:PORT/mcp`).
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
}

/// The server under test, as `run` and `fuzz` take it.
#[derive(Debug, Clone, clap::Args)]
pub struct ServerArgs {
    #[command(flatten)]
    pub address: ServerAddress,
    /// A header sent on every HTTP request, `'Name: value'` (repeatable).
    /// Values of headers named like authorization, cookie, token, key or
    /// secret are shown as `<redacted>`.
    #[arg(long = "header", short = 'H', value_name = "HEADER", requires = "url")]
    pub headers: Vec<String>,
    /// The HTTP transport: `streamable` (Streamable HTTP), `sse` (the legacy
    /// HTTP+SSE of 2024-11-05) or `auto` (Streamable HTTP, falling back to
    /// HTTP+SSE when the server refuses the first POST).
    #[arg(long, value_name = "TRANSPORT", default_value = "auto", requires = "url")]
    pub transport: HttpMode,
}

#[derive(Debug, Clone, clap::Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// A command that starts the server at `--url` (a loopback address):
    /// the run waits for its port, then kills its process group at the end.
    #[arg(long, value_name = "COMMAND", requires = "url")]
    pub start: Option<String>,
    /// The authorization server for an OAuth-protected server at `--url`:
    /// `mock` (the harness runs one on loopback; `--start` gets its URLs as
    /// `{issuer}` and `{jwks}`, and the tokens' audience as `{audience}`,
    /// also as MCP_CONFORM_ISSUER, MCP_CONFORM_JWKS, MCP_CONFORM_AUDIENCE) or
    /// `none` (no auth scenarios; pass a token with `--header`).
    #[arg(long, value_name = "ISSUER", default_value = "mock", requires = "url")]
    pub auth_issuer: AuthIssuer,
    /// A valid access token for a server that trusts only its own
    /// authorization server (instead of the mock issuer): sent on every
    /// request, and the auth scenarios that need no other kind of token run
    /// with it. Never printed.
    #[arg(
        long,
        value_name = "TOKEN",
        requires = "url",
        conflicts_with = "token_command"
    )]
    pub token: Option<String>,
    /// A command printing that token on its first line (`sh -c`), to keep it
    /// off the command line.
    #[arg(long, value_name = "COMMAND", requires = "url")]
    pub token_command: Option<String>,
    /// Scenario files or directories (default: the bundled suite).
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub catalogue: CatalogueArg,
    /// Scenarios to run at once (default: over HTTP 4 per core, over stdio,
    /// where each starts a server process, 1 per core; at most 16, fewer
    /// when memory is short).
    #[arg(long, short, value_parser = at_least_one::<usize>)]
    pub jobs: Option<usize>,
    /// A bundled profile name or a profile file binding triggers to the
    /// server's tools. Default: `reference` for the bundled server, none otherwise.
    #[arg(long)]
    pub profile: Option<String>,
    /// The protocol version to speak, or `all`: every version the server
    /// speaks (asked with an `initialize` per stateful version and
    /// `server/discover`), each scenario once per version it applies to.
    #[arg(long, default_value = "2025-11-25", value_name = "VERSION|all")]
    pub protocol: ProtocolChoice,
    /// Only scenarios whose id contains this text (repeatable).
    #[arg(long = "filter", short = 'f')]
    pub filters: Vec<String>,
    /// Also validate every frame against official schema files in this
    /// directory (`<version>/schema.json`, see `schemas fetch`).
    #[arg(long)]
    pub schema_dir: Option<PathBuf>,
    /// Seconds the server has to answer `initialize`.
    #[arg(long, default_value_t = 10, value_parser = at_least_one::<u64>)]
    pub startup_timeout: u64,
    /// Milliseconds a request step without `timeout_ms` waits at least: its
    /// wait is 20 times the server's slowest round trip so far, within the
    /// floor and the ceiling (default 5000: never shorter than the
    /// scenario language's default).
    #[arg(long, value_name = "MS", value_parser = at_least_one::<u64>)]
    pub timeout_floor: Option<u64>,
    /// Milliseconds such a wait lasts at most (default 30000).
    #[arg(long, value_name = "MS", value_parser = at_least_one::<u64>)]
    pub timeout_ceiling: Option<u64>,
    #[command(flatten)]
    pub gate: GateArgs,
    /// Run slice K of N of the selected scenarios (split by id; for a CI
    /// matrix, see `merge`).
    #[arg(long, value_name = "K/N", value_parser = shard::parse)]
    pub shard: Option<mcp_conform_report::Shard>,
    /// After the run, run again the scenarios whose files change, until Ctrl-C.
    #[arg(long, requires = "paths", conflicts_with = "shard")]
    pub watch: bool,
}

/// `--auth-issuer`: who issues the tokens of a protected server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AuthIssuer {
    /// The harness's own mock authorization server.
    Mock,
    /// None: a protected server gets the user's `--header` only.
    None,
}

/// `--protocol`: one version, or every version the server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProtocolChoice {
    One(ProtocolVersion),
    All,
}

impl std::str::FromStr for ProtocolChoice {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "all" => Ok(ProtocolChoice::All),
            one => one
                .parse()
                .map(ProtocolChoice::One)
                .map_err(|e| format!("{e}, or `all`")),
        }
    }
}

/// Report files, gating, the secrets no output shows and which cases the
/// terminal lists: the same for every command that judges a peer.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct GateArgs {
    /// Write `report.json`, `junit.xml`, `report.md` and `report.html` here.
    #[arg(long, value_name = "DIR")]
    pub report_dir: Option<PathBuf>,
    /// A YAML file of accepted failures (each with a reason, optionally an
    /// `expires` date): only new failures fail the run, and so does an entry
    /// whose check passes now (stale).
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Non-strict findings (broken SHOULDs) fail the run too.
    #[arg(long)]
    pub strict: bool,
    /// A value never to show (repeatable): replaced by `<redacted>` in every
    /// output, also where the peer echoes it (JSON-escaped, percent- or
    /// base64-encoded). `MCP_CONFORM_SECRETS` adds more, one per line.
    #[arg(long = "secret", value_name = "VALUE")]
    pub secrets: Vec<String>,
    /// Run every scenario even when the peer answered nothing usable in the
    /// first ones (by default the rest are then reported as errors, unrun).
    #[arg(long)]
    pub keep_going: bool,
    /// Also record in report.json how long each case's peer process took
    /// to start (`startup_ms`, stdio only). Off by default: measured times
    /// would make two runs' files differ.
    #[arg(long)]
    pub timings: bool,
    #[command(flatten)]
    pub listing: crate::quiet::Listing,
}

/// More `--secret` values, one per line (for CI, where a secret is a variable).
pub const SECRETS_VARIABLE: &str = "MCP_CONFORM_SECRETS";

impl GateArgs {
    /// The values of `--secret` and of [`SECRETS_VARIABLE`].
    pub fn secrets(&self) -> Secrets {
        secrets_from(&self.secrets)
    }
}

/// `values` (the `--secret`s) and those of [`SECRETS_VARIABLE`].
pub(crate) fn secrets_from(values: &[String]) -> Secrets {
    let mut secrets = Secrets::default();
    let from_environment = std::env::var(SECRETS_VARIABLE).unwrap_or_default();
    for value in values.iter().map(String::as_str).chain(from_environment.lines()) {
        secrets.add(value);
    }
    secrets
}

/// What a command's errors must not show: its `--secret`s and secret
/// `--header` values.
fn secrets_of(command: &Command) -> Secrets {
    let (gate, headers) = match command {
        Command::Run(args) => (&args.gate, args.server.headers.as_slice()),
        Command::TestClient(args) => (&args.gate, [].as_slice()),
        Command::TestGateway(args) => (&args.gate, [].as_slice()),
        Command::Record(args) => return secrets_from(&args.secrets),
        _ => return Secrets::default(),
    };
    let mut secrets = gate.secrets();
    for (name, value) in headers.iter().filter_map(|h| parse_header(h).ok()) {
        secrets.add_header(&name, &value);
    }
    secrets
}

/// Runs the command line; returns the process exit status.
pub fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let secrets = cli.command.as_ref().map(secrets_of).unwrap_or_default();
    let result = match cli.command {
        Some(command) => execute(command),
        None if cli.version => print_version(),
        None => <Cli as clap::CommandFactory>::command()
            .error(clap::error::ErrorKind::MissingSubcommand, "a command is required")
            .exit(),
    };
    let exit = match result {
        Ok(exit) => exit,
        Err(error) => {
            let color = anstream::AutoStream::choice(&std::io::stderr()) != anstream::ColorChoice::Never;
            eprint!("{}", shown_error(&error, color, &secrets));
            error.exit_code()
        }
    };
    mcp_mock_peers::transport::dismiss_janitor();
    exit.into()
}

/// `--version`, with the id of the bundled suite.
fn print_version() -> Result<ExitCode, CliError> {
    let scenarios = load_scenarios(&[], &[]).map_err(CliError::scenarios)?;
    print!("{}", crate::about::version_text(&scenarios));
    Ok(ExitCode::Ok)
}

/// An error as stderr shows it: without the command's secrets, and with
/// the control characters of what a peer said in it escaped (diagnostics
/// carry colours of our own and no peer text).
fn shown_error(error: &CliError, color: bool, secrets: &Secrets) -> String {
    let text = match error {
        CliError::Diagnostics { .. } => error.render(color),
        _ => sanitize::controls(&error.render(color)).into_owned(),
    };
    secrets.redact(&text).into_owned()
}

fn execute(command: Command) -> Result<ExitCode, CliError> {
    match command {
        Command::Run(args) if args.watch => crate::watch::watch(*args, run),
        Command::Run(args) => run(*args),
        Command::Fuzz(args) => crate::fuzz::run::fuzz(*args),
        Command::Init(args) => crate::init::init(*args),
        Command::Profile {
            command: ProfileCommand::Check(args),
        } => crate::profile_check::check(*args),
        Command::Serve(args) => crate::test_client::serve(args),
        Command::TestClient(args) => crate::test_client::test_client(args),
        Command::ReferenceClient(args) => crate::test_client::reference_client(args),
        Command::Record(args) => crate::record::record(args),
        Command::TestGateway(args) => crate::test_gateway::test_gateway(args),
        Command::ReferenceGateway {
            config,
            fault,
            port,
            auth,
        } => {
            let front = mcp_mock_peers::reference_gateway::FrontOptions { port, auth };
            crate::test_gateway::reference_gateway(&config, &front, fault)
        }
        Command::List {
            paths,
            requirements: false,
            verbose,
            ..
        } => list(&paths, verbose),
        Command::List {
            paths,
            requirements: true,
            version,
            ..
        } => list_requirements(&paths, version),
        Command::Merge { reports, report_dir } => merge(&reports, &report_dir),
        Command::Explain { id, paths, catalogue } => explain(&id, &paths, &catalogue),
        Command::New {
            what: NewCommand::Scenario { id, dir },
        } => {
            let path = crate::new_scenario::write(&id, &dir).map_err(CliError::Usage)?;
            println!("wrote {}", path.display());
            Ok(ExitCode::Ok)
        }
        Command::Completions { shell } => {
            print!(
                "{}",
                crate::completions::script(shell, &<Cli as clap::CommandFactory>::command())
            );
            Ok(ExitCode::Ok)
        }
        Command::Man => {
            print!(
                "{}",
                crate::completions::man_page(&<Cli as clap::CommandFactory>::command())
            );
            Ok(ExitCode::Ok)
        }
        Command::Schema => {
            let schema = mcp_conform_core::scenario::schema::scenario_json_schema();
            println!("{}", serde_json::to_string_pretty(&schema).unwrap_or_default());
            Ok(ExitCode::Ok)
        }
        Command::Schemas {
            command: SchemasCommand::Fetch { url, dest, versions },
        } => fetch(&url, dest, versions),
        Command::ReferenceServer {
            fault,
            http,
            auth,
            auth_introspect,
            auth_default_endpoints,
        } => {
            use mcp_mock_peers::reference::{AuthorizationEndpoints, TokenValidation};
            let validation = if auth_introspect {
                TokenValidation::Introspection
            } else {
                TokenValidation::Jwks
            };
            let endpoints = if auth_default_endpoints {
                AuthorizationEndpoints::Defaults
            } else {
                AuthorizationEndpoints::Metadata
            };
            let served = match http {
                Some(address) => mcp_mock_peers::reference::serve_http_blocking(
                    &address,
                    fault,
                    auth.as_deref(),
                    validation,
                    endpoints,
                ),
                None => mcp_mock_peers::reference::serve_stdio_blocking_with(fault),
            };
            served.map(|()| ExitCode::Ok).map_err(|error| CliError::Peer {
                peer: "reference server",
                error: error.to_string(),
            })
        }
    }
}

fn run(args: RunArgs) -> Result<ExitCode, CliError> {
    let mut scenarios = load_selection(&args.paths, args.catalogue.requirements.as_deref(), &args.filters)
        .map_err(CliError::scenarios)?
        .scenarios;
    keep_role(&mut scenarios, Role::Server);
    if scenarios.is_empty() {
        return Err(CliError::Usage(
            "no scenario selected (check the paths and --filter); a run that tests nothing is not a pass"
                .into(),
        ));
    }
    let suite = report::suite(&scenarios);
    if let Some(slice) = args.shard {
        scenarios = shard::select(scenarios, slice);
        if scenarios.is_empty() {
            return Err(CliError::Usage(format!(
                "shard {}/{} selected no scenario (only {} in the run); a run that tests nothing is not a pass",
                slice.index, slice.count, suite.scenarios
            )));
        }
    }
    let bundled_server = args.server.is_bundled();
    let mut config = RunConfig::new(args.server.target().map_err(CliError::Usage)?);
    config.startup_timeout = std::time::Duration::from_secs(args.startup_timeout);
    config.timeouts = timeout_bounds(&args)?;
    // Listening from here: a signal while the server starts stops the run too.
    crate::interrupt::flag();
    let own_token = crate::auth::read_token(args.token.as_deref(), args.token_command.as_deref())
        .map_err(CliError::Usage)?;
    let auth = match (&args.server.address.url, args.auth_issuer) {
        (Some(url), AuthIssuer::Mock)
            if own_token.is_none() && crate::auth::needed(&scenarios, args.start.as_deref()) =>
        {
            let auth = AuthServer::start(url).map_err(CliError::Infrastructure)?;
            eprintln!(
                "mock authorization server: issuer {}, JWKS {}",
                auth.issuer(),
                auth.jwks_url()
            );
            Some(auth)
        }
        _ => None,
    };
    let _started = match (&args.start, &args.server.address.url) {
        (Some(command_line), Some(url)) => {
            let command_line = auth
                .as_ref()
                .map_or_else(|| command_line.clone(), |a| a.fill_in(command_line));
            let env = auth.as_ref().map(AuthServer::env).unwrap_or_default();
            Some(
                crate::start::StartedServer::start_with(&command_line, &env, url, config.startup_timeout)
                    .map_err(|message| CliError::Infrastructure(format!("--start: {message}")))?,
            )
        }
        _ => None,
    };
    if let Some(auth) = &auth {
        auth.protect(&mut config, &scenarios);
    } else if let Some(token) = &own_token {
        eprintln!(
            "--token: auth scenarios presenting a token only an issuer can mint (expired, wrong audience, \
             a given scope, …) are not-applicable"
        );
        crate::auth::protect(&mut config, TokenSource::UsersToken, |answer| {
            crate::auth::with_own_token(token, answer)
        });
    }
    let profile = args
        .profile
        .clone()
        .or_else(|| bundled_server.then(|| "reference".to_owned()));
    if let Some(profile) = profile {
        let profile =
            load_profile(&profile).map_err(|error| CliError::Usage(format!("--profile: {error}")))?;
        config.profile = Some(profile);
    }
    if let Some(dir) = &args.schema_dir {
        let official = OfficialSchemas::load_dir(dir)
            .map_err(|error| CliError::Usage(format!("--schema-dir: {error}")))?;
        config.official = Some(Arc::new(official));
    }
    let versions = match args.protocol {
        ProtocolChoice::One(version) => vec![version],
        ProtocolChoice::All => spoken_versions(&config)
            .map_err(|message| CliError::Infrastructure(format!("--protocol all: {message}")))?,
    };
    config.protocol = versions
        .last()
        .copied()
        .unwrap_or(ProtocolVersion::LATEST_STATEFUL);
    let jobs = jobs_or_default(args.jobs, matches!(config.target, Target::Stdio(_)));
    let judged = Judged {
        scenarios: &scenarios,
        config: &config,
        versions,
        jobs,
        suite,
        shard: args.shard,
    };
    judged.run(&args.gate)
}

/// The versions the server speaks (`--protocol all`).
fn spoken_versions(config: &RunConfig) -> Result<Vec<ProtocolVersion>, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("could not start a runtime: {e}"))?;
    runtime.block_on(supported_versions(config))
}

/// A count or a number of seconds that must be 1 or more: no job runs
/// nothing, and no time to start fails every peer.
pub(crate) fn at_least_one<T: std::str::FromStr + PartialOrd + From<u8>>(text: &str) -> Result<T, String> {
    match text.parse::<T>() {
        Ok(number) if number >= T::from(1) => Ok(number),
        Ok(_) => Err("must be 1 or more".into()),
        Err(_) => Err(format!("`{text}` is not a whole number")),
    }
}

/// `--timeout-floor` and `--timeout-ceiling`, each defaulting on its own.
fn timeout_bounds(args: &RunArgs) -> Result<crate::runner::latency::TimeoutBounds, CliError> {
    use std::time::Duration;
    let default = crate::runner::latency::TimeoutBounds::default();
    let bounds = crate::runner::latency::TimeoutBounds {
        floor: args.timeout_floor.map_or(default.floor, Duration::from_millis),
        ceiling: args
            .timeout_ceiling
            .map_or(default.ceiling, Duration::from_millis),
    };
    match bounds.floor <= bounds.ceiling {
        true => Ok(bounds),
        false => Err(CliError::Usage(format!(
            "--timeout-floor ({} ms) is above --timeout-ceiling ({} ms)",
            bounds.floor.as_millis(),
            bounds.ceiling.as_millis()
        ))),
    }
}

/// `--jobs`, or the default fitted to the work (`crate::jobs`): whether
/// each scenario `starts_a_process`.
pub(crate) fn jobs_or_default(jobs: Option<usize>, starts_a_process: bool) -> usize {
    jobs.unwrap_or_else(|| crate::jobs::default_jobs_here(starts_a_process))
}

fn merge(reports: &[PathBuf], dir: &std::path::Path) -> Result<ExitCode, CliError> {
    let merged =
        report::merge_files(reports, dir).map_err(|error| CliError::Usage(format!("merge: {error}")))?;
    println!(
        "{} cases from {} shards merged into {}",
        merged.summary.cases,
        reports.len(),
        dir.display()
    );
    print!("{}", output::gate_lines(&merged));
    Ok(merged.gate.exit_code)
}

impl ServerArgs {
    /// Whether the server is the bundled reference server (no `--stdio`, no `--url`).
    pub(crate) fn is_bundled(&self) -> bool {
        self.address.stdio.is_none() && self.address.url.is_none()
    }

    /// The server in words, as its options named it.
    pub(crate) fn describe(&self) -> String {
        match (&self.address.stdio, &self.address.url) {
            (_, Some(url)) => format!("--url {url}"),
            (Some(command), None) => format!("--stdio {command}"),
            (None, None) => "the bundled reference server".into(),
        }
    }

    /// The peer under test, from `--stdio`, `--url` or the bundled default.
    pub(crate) fn target(&self) -> Result<Target, String> {
        if let Some(url) = &self.address.url {
            let headers = self
                .headers
                .iter()
                .map(|h| parse_header(h).map_err(|e| format!("--header: {e}")))
                .collect::<Result<Vec<_>, _>>()?;
            // Refuse a bad URL before the run, not once per scenario.
            mcp_mock_peers::transport::HttpTransport::new(mcp_mock_peers::transport::HttpOptions {
                headers: headers.clone(),
                ..mcp_mock_peers::transport::HttpOptions::new(url.to_owned())
            })
            .map_err(|e| format!("--url: {e}"))?;
            return Ok(Target::Http {
                url: url.to_owned(),
                headers,
                mode: self.transport,
            });
        }
        let command = match &self.address.stdio {
            Some(line) => StdioCommand::parse(line),
            None => reference_server_command(),
        };
        command.map(Target::Stdio).map_err(|e| format!("--stdio: {e}"))
    }
}

fn list(paths: &[PathBuf], verbose: bool) -> Result<ExitCode, CliError> {
    let selection = load_selection(paths, None, &[]).map_err(CliError::scenarios)?;
    print!("{}", crate::quiet::scenario_list(&selection.scenarios, verbose));
    Ok(ExitCode::Ok)
}

fn list_requirements(paths: &[PathBuf], version: Option<ProtocolVersion>) -> Result<ExitCode, CliError> {
    let selection = load_selection(paths, None, &[]).map_err(CliError::scenarios)?;
    let scenarios = &selection.scenarios;
    let mut counts = std::collections::BTreeMap::new();
    for requirement in catalogue()
        .iter()
        .filter(|r| version.is_none_or(|v| r.applies_to(v)))
    {
        let coverage = coverage::coverage(requirement, scenarios, version);
        let status = coverage::status(&coverage);
        *counts.entry(status).or_insert(0) += 1;
        let detail = match coverage {
            Coverage::Covered { scenarios, built_in } => {
                let mut by = scenarios;
                if built_in {
                    by.insert(0, "(engine)".into());
                }
                by.join(", ")
            }
            Coverage::NotYet(why) => why,
            Coverage::NotAutomatable(reason) => reason,
        };
        let (level, versions) = (requirement.level.to_string(), requirement.versions.to_string());
        println!(
            "{:<11} {level:<6} {versions:<24} {status:<16} {detail}",
            requirement.id
        );
    }
    let summary: Vec<String> = counts.iter().map(|(status, n)| format!("{n} {status}")).collect();
    println!("\n{}", summary.join(", "));
    print!("{}", own_requirements::listing(&selection.catalogue, scenarios));
    Ok(ExitCode::Ok)
}

fn explain(id: &str, paths: &[PathBuf], own: &CatalogueArg) -> Result<ExitCode, CliError> {
    let selection = load_selection(paths, own.requirements.as_deref(), &[]).map_err(CliError::scenarios)?;
    if let Some(requirement) = catalogue().get(id) {
        print!("{}", coverage::explain(requirement, &selection.scenarios));
    } else if let Some(requirement) = selection.catalogue.get(id) {
        print!("{}", own_requirements::explain(requirement, &selection.scenarios));
    } else if let Some(scenario) = selection.scenarios.iter().find(|s| s.id == id) {
        print!("{}", crate::explain_scenario::explain(scenario, catalogue()));
    } else {
        return Err(CliError::Usage(format!(
            "unknown requirement `{id}` (see `mcp-conform list --requirements`; yours are read from \
             `requirements.yaml` beside the scenarios given, or `--requirements FILE`)"
        )));
    }
    Ok(ExitCode::Ok)
}

fn fetch(url: &str, dest: Option<PathBuf>, versions: Vec<ProtocolVersion>) -> Result<ExitCode, CliError> {
    let versions = if versions.is_empty() {
        ProtocolVersion::ALL.to_vec()
    } else {
        versions
    };
    let dest = dest.unwrap_or_else(schemas::default_cache_dir);
    let report =
        schemas::fetch(url, &versions, &dest).map_err(|error| CliError::Infrastructure(error.to_string()))?;
    println!("{report}");
    // The report names each version that failed.
    Ok(if report.is_complete() {
        ExitCode::Ok
    } else {
        ExitCode::Error
    })
}

/// A current-thread runtime for a command that drives one peer.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, CliError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| CliError::Infrastructure(error.to_string()))
}

/// This very binary, serving the reference server.
fn reference_server_command() -> Result<StdioCommand, mcp_mock_peers::transport::TransportError> {
    let exe = std::env::current_exe()
        .map_err(|e| mcp_mock_peers::transport::TransportError::CommandLine(e.to_string()))?;
    Ok(StdioCommand {
        program: exe.display().to_string(),
        args: vec!["reference-server".into()],
        env: Vec::new(),
        cwd: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_show_no_secret_and_no_live_control() {
        let mut secrets = Secrets::default();
        secrets.add("key-0123456");
        let error = CliError::Infrastructure("the server said \x1b]0;owned\x07 to key-0123456".into());
        assert_eq!(
            shown_error(&error, true, &secrets),
            "error: the server said \\x1b]0;owned\\x07 to <redacted>\n"
        );
    }
}
