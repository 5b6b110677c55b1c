//! `mcp-conform test-gateway`: a gateway, proxy or bridge under test.
//!
//! - With `{config}` or `{server:NAME}` in its command line: the `role:
//!   gateway` scenarios, each with the mock client in front and its own mock
//!   servers behind, the gateway started per scenario with a config that
//!   points at them.
//! - With `{server}`: the server suite through the gateway, with the bundled
//!   reference server as its one backend. What the suite finds beyond what it
//!   finds in the reference server alone (it passes everything) is the
//!   gateway's doing.
//!
//! With `--backends http` the gateway reaches its backends by URL; with
//! `--auth` its HTTP front is protected by the harness's mock issuer
//! (`{issuer}`), and whether the client's token reaches a backend is
//! judged (AUTH-006, `gateway.token-passthrough`).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use mcp_conform_report::ExitCode;
use mcp_mock_peers::reference_gateway::{self, FrontOptions, GatewayFault};
use mcp_mock_peers::transport::{HttpMode, StdioCommand, StdioTransport};

use crate::auth::AuthServer;
use crate::cli::{CliError, GateArgs, runtime};
use crate::pipeline::Judged;
use crate::report;
use crate::runner::{
    BackendTransport, GatewayUnderTest, RunConfig, Target, free_loopback_port, shell_word, wait_for_port,
};
use crate::select::{keep_role, load_profile, load_selection};
use mcp_conform_core::scenario::Scenario;
use mcp_conform_core::scenario::model::Role;

/// `test-gateway`.
#[derive(Debug, clap::Args)]
pub struct TestGatewayArgs {
    /// The gateway's command line. `{config}`: a generated
    /// `{"mcpServers": {...}}` file naming the scenario's backends;
    /// `{server:NAME}`: one backend's command line (bundled scenarios name
    /// theirs `alpha` and `beta`); `{server}`: the reference server, to run
    /// the server suite through a one-backend bridge instead; `{port}`: a
    /// free loopback port, where the gateway must serve Streamable HTTP (at
    /// `--path`). Without `{port}` the gateway is spoken to over its stdio.
    #[arg(long, value_name = "COMMAND")]
    pub command: String,
    /// Scenario files or directories (default: the bundled suite).
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub catalogue: crate::select::CatalogueArg,
    /// The MCP endpoint's path on `{port}`.
    #[arg(long, default_value = "/mcp")]
    pub path: String,
    /// How the gateway reaches the scenario's backends: `stdio` (each a
    /// command in the config) or `http` (each a `url`, a mock server on a
    /// loopback port that records every request's headers).
    #[arg(long, value_enum, default_value_t = BackendTransport::Stdio)]
    pub backends: BackendTransport,
    /// The gateway's front at `{port}` is OAuth-protected: the harness runs
    /// a mock authorization server, hands its URL to the command as
    /// `{issuer}`, and presents on every request a token it minted for the
    /// front's URL. The gateway must accept that issuer's tokens.
    #[arg(long)]
    pub auth: bool,
    /// Only scenarios whose id contains this text (repeatable).
    #[arg(long = "filter", short = 'f')]
    pub filters: Vec<String>,
    /// Scenarios to run at once.
    #[arg(long, short, default_value_t = 2, value_parser = crate::cli::at_least_one::<usize>)]
    pub jobs: usize,
    /// Seconds the gateway has to start listening and answer `initialize`.
    #[arg(long, default_value_t = 15, value_parser = crate::cli::at_least_one::<u64>)]
    pub startup_timeout: u64,
    #[command(flatten)]
    pub gate: GateArgs,
}

/// Runs `test-gateway`.
pub fn test_gateway(args: TestGatewayArgs) -> Result<ExitCode, CliError> {
    let backends = args.command.contains("{config}") || args.command.contains("{server:");
    let suite = args.command.contains("{server}");
    if backends == suite {
        return Err(CliError::Usage(
            "--command needs {config} or {server:NAME} (the gateway scenarios, with mock servers behind the gateway) or {server} (the server suite through it), and not both".into(),
        ));
    }
    let mut scenarios = load_selection(&args.paths, args.catalogue.requirements.as_deref(), &args.filters)
        .map_err(CliError::scenarios)?
        .scenarios;
    keep_role(
        &mut scenarios,
        if backends { Role::Gateway } else { Role::Server },
    );
    if scenarios.is_empty() {
        return Err(CliError::Usage(
            "no scenario selected; a run that tests nothing is not a pass".into(),
        ));
    }
    if args.command.contains("{issuer}") && !args.auth {
        return Err(CliError::Usage(
            "--command names {issuer}, the harness's issuer of --auth: add --auth".into(),
        ));
    }
    if args.auth && (!backends || !args.command.contains("{port}")) {
        return Err(CliError::Usage(
            "--auth protects the gateway's HTTP front: --command needs {port}, and {config} or {server:NAME}"
                .into(),
        ));
    }
    if backends {
        let gateway = GatewayUnderTest {
            backends: args.backends,
            ..GatewayUnderTest::new(&args.command, &args.path)
        };
        let issuer = args.auth.then(AuthServer::for_gateways).transpose();
        let issuer = issuer.map_err(CliError::Infrastructure)?;
        if let Some(issuer) = &issuer {
            eprintln!(
                "mock authorization server of the gateway's front: issuer {}",
                issuer.issuer()
            );
        }
        return judge(&scenarios, Target::Gateway(gateway), None, issuer.as_ref(), &args);
    }
    through_one_backend(&scenarios, &args)
}

/// The server suite through the gateway, one gateway for the whole run.
fn through_one_backend(scenarios: &[Scenario], args: &TestGatewayArgs) -> Result<ExitCode, CliError> {
    let exe = std::env::current_exe().map_err(|error| CliError::Infrastructure(error.to_string()))?;
    let backend = StdioCommand {
        program: exe.display().to_string(),
        args: vec!["reference-server".into()],
        env: Vec::new(),
        cwd: None,
    };
    let line = args.command.replace("{server}", &shell_word(&backend.display()));
    let parse = |line: &str| {
        StdioCommand::parse(line).map_err(|error| CliError::Usage(format!("--command: {error}")))
    };
    if !line.contains("{port}") {
        return judge(
            scenarios,
            Target::Stdio(parse(&line)?),
            Some("reference"),
            None,
            args,
        );
    }
    let port =
        free_loopback_port().map_err(|error| CliError::Infrastructure(format!("no free port: {error}")))?;
    let command = parse(&line.replace("{port}", &port.to_string()))?;
    let runtime = runtime()?;
    // The gateway lives on this runtime while the suite runs on its own workers.
    let _guard = runtime.enter();
    let mut gateway =
        StdioTransport::spawn(&command).map_err(|error| CliError::Infrastructure(error.to_string()))?;
    let startup = Duration::from_secs(args.startup_timeout);
    if let Err(note) = runtime.block_on(wait_for_port(&mut gateway, port, startup)) {
        let error = CliError::Infrastructure(format!("{note}\n{}", gateway.stderr_tail()));
        runtime.block_on(gateway.shutdown(Duration::ZERO));
        return Err(error);
    }
    let target = Target::Http {
        url: format!("http://127.0.0.1:{port}{}", args.path),
        headers: Vec::new(),
        mode: HttpMode::Streamable,
    };
    let exit = judge(scenarios, target, Some("reference"), None, args);
    runtime.block_on(gateway.shutdown(Duration::from_millis(500)));
    exit
}

fn judge(
    scenarios: &[Scenario],
    target: Target,
    profile: Option<&str>,
    issuer: Option<&AuthServer>,
    args: &TestGatewayArgs,
) -> Result<ExitCode, CliError> {
    let mut config = RunConfig::new(target);
    config.startup_timeout = Duration::from_secs(args.startup_timeout);
    config.auth = issuer.map(|issuer| Arc::new(issuer.gateway_context()));
    if let Some(profile) = profile {
        // Only the bundled `reference` profile is loaded here: failing to load it is ours.
        config.profile = Some(load_profile(profile).map_err(CliError::Infrastructure)?);
    }
    let judged = Judged {
        scenarios,
        config: &config,
        versions: vec![config.protocol],
        jobs: args.jobs,
        suite: report::suite(scenarios),
        shard: None,
    };
    judged.run(&args.gate)
}

/// Runs `reference-gateway`.
pub fn reference_gateway(
    config: &std::path::Path,
    front: &FrontOptions,
    fault: Option<GatewayFault>,
) -> Result<ExitCode, CliError> {
    let runtime = runtime()?;
    let exit = runtime
        .block_on(reference_gateway::run(config, front, fault))
        .map(|()| ExitCode::Ok)
        .map_err(|error| CliError::Peer {
            peer: "reference gateway",
            error: error.to_string(),
        });
    // Reading stdin blocks a thread that would otherwise keep the runtime alive.
    runtime.shutdown_background();
    exit
}
