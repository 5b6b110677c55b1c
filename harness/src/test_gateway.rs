//! `mcp-conform test-gateway`: a gateway or bridge under test, with the
//! bundled reference server behind it and the server suite in front. What
//! the suite finds beyond what it finds in the reference server alone (it
//! passes everything) is the gateway's doing.

use std::net::TcpListener;
use std::time::{Duration, Instant};

use mcp_mock_peers::transport::{HttpMode, StdioCommand, StdioTransport};

use crate::cli::{GateArgs, Judged, exit, report_diagnostics};
use crate::report;
use crate::runner::{RunConfig, Target};
use crate::select::{keep_role, load_profile, load_scenarios};
use mcp_conform_core::scenario::model::Role;

/// How often we try the gateway's port while it starts.
const POLL: Duration = Duration::from_millis(100);

/// `test-gateway`.
#[derive(Debug, clap::Args)]
pub struct TestGatewayArgs {
    /// The gateway's command line. `{server}` is replaced by the backend
    /// server's command line as one quoted word; `{port}` by a free loopback
    /// port, where the gateway must serve Streamable HTTP (at `--path`).
    /// Without `{port}` the gateway is spoken to over its stdio.
    #[arg(long, value_name = "COMMAND")]
    pub command: String,
    /// The MCP endpoint's path on `{port}`.
    #[arg(long, default_value = "/mcp")]
    pub path: String,
    /// Only scenarios whose id contains this text (repeatable).
    #[arg(long = "filter", short = 'f')]
    pub filters: Vec<String>,
    /// Scenarios to run at once.
    #[arg(long, short, default_value_t = 2)]
    pub jobs: usize,
    /// Seconds the gateway has to start listening and answer `initialize`.
    #[arg(long, default_value_t = 15)]
    pub startup_timeout: u64,
    #[command(flatten)]
    pub gate: GateArgs,
}

/// Runs `test-gateway`.
pub fn test_gateway(args: TestGatewayArgs) -> u8 {
    let mut scenarios = match load_scenarios(&[], &args.filters) {
        Ok(scenarios) => scenarios,
        Err(diagnostics) => return report_diagnostics(&diagnostics),
    };
    keep_role(&mut scenarios, Role::Server);
    let backend = match std::env::current_exe() {
        Ok(exe) => StdioCommand {
            program: exe.display().to_string(),
            args: vec!["reference-server".into()],
            env: Vec::new(),
            cwd: None,
        },
        Err(error) => {
            eprintln!("error: {error}");
            return exit::ERROR;
        }
    };
    let backend_word = format!("'{}'", backend.display().replace('\'', r"'\''"));
    let line = args.command.replace("{server}", &backend_word);
    if !line.contains("{port}") {
        let command = match StdioCommand::parse(&line) {
            Ok(command) => command,
            Err(error) => {
                eprintln!("error: --command: {error}");
                return exit::USAGE;
            }
        };
        return judge(&scenarios, Target::Stdio(command), &args);
    }
    let port = match TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()) {
        Ok(address) => address.port(),
        Err(error) => {
            eprintln!("error: no free port: {error}");
            return exit::ERROR;
        }
    };
    let command = match StdioCommand::parse(&line.replace("{port}", &port.to_string())) {
        Ok(command) => command,
        Err(error) => {
            eprintln!("error: --command: {error}");
            return exit::USAGE;
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: {error}");
            return exit::ERROR;
        }
    };
    // The gateway lives on this runtime while the suite runs on its own workers.
    let _guard = runtime.enter();
    let mut gateway = match StdioTransport::spawn(&command) {
        Ok(gateway) => gateway,
        Err(error) => {
            eprintln!("error: {error}");
            return exit::ERROR;
        }
    };
    let deadline = Instant::now() + Duration::from_secs(args.startup_timeout);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if Instant::now() > deadline || gateway.try_exit().is_some() {
            eprintln!(
                "error: the gateway did not listen on 127.0.0.1:{port}\n{}",
                gateway.stderr_tail()
            );
            runtime.block_on(gateway.shutdown(Duration::ZERO));
            return exit::ERROR;
        }
        std::thread::sleep(POLL);
    }
    let target = Target::Http {
        url: format!("http://127.0.0.1:{port}{}", args.path),
        headers: Vec::new(),
        mode: HttpMode::Streamable,
    };
    let code = judge(&scenarios, target, &args);
    runtime.block_on(gateway.shutdown(Duration::from_millis(500)));
    code
}

fn judge(scenarios: &[mcp_conform_core::scenario::Scenario], target: Target, args: &TestGatewayArgs) -> u8 {
    let mut config = RunConfig::new(target);
    config.startup_timeout = Duration::from_secs(args.startup_timeout);
    match load_profile("reference") {
        Ok(profile) => config.profile = Some(profile),
        Err(error) => {
            eprintln!("error: {error}");
            return exit::ERROR;
        }
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
