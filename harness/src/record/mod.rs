//! `mcp-conform record`: a transparent relay between a real client and a
//! real server that judges every frame as it passes (findings on stderr,
//! traffic untouched) and writes the conversation as a scenario that `run`
//! replays against the same server. Replaying is running: a drift from the
//! recording fails like any other expectation, with its diff.
//!
//! - `stdio`, `http`: the relays, `client`: the client being recorded;
//! - `tap`: the live frame check and the transcript;
//! - `conversation`: the transcript read as steps;
//! - `generalize`: what would differ next time, as wildcards and captures;
//! - `writer`: the scenario file.

mod as_client;
mod client;
mod conversation;
mod generalize;
mod http;
mod stdio;
mod tap;
mod writer;

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use mcp_conform_core::redact::Secrets;
use mcp_conform_core::requirements::UserCatalogue;
use mcp_conform_core::scenario::load::load_text;
use mcp_conform_core::scenario::validate::Origin;
use mcp_conform_core::version::ProtocolVersion;
use mcp_conform_report::ExitCode;
use mcp_mock_peers::transport::StdioCommand;

use crate::cli::{CliError, ServerAddress, runtime, secrets_from};

/// How long the server has to exit once its client has gone.
const SERVER_GRACE: Duration = Duration::from_secs(2);
use client::Client;
use tap::Tap;
use writer::Provenance;

/// `record`: relay, judge and write the scenario. The server is given as
/// to `run`, but a relay has no bundled default, and `--url` is where it
/// forwards.
#[derive(Debug, clap::Args)]
#[command(
    mut_arg("stdio", |stdio| stdio
        .required_unless_present("url")
        .help("The server's command line (split like a shell would, run without one)")),
    mut_arg("url", |url| url.help(
        "The MCP endpoint of a server listening over HTTP: `record` listens on a loopback port and \
         forwards there (its URL replaces `{url}` in the client's command line, or is printed on stdout)"
    )),
)]
pub struct RecordArgs {
    #[command(flatten)]
    pub server: ServerAddress,
    /// Where to write the scenario.
    #[arg(long, short, value_name = "FILE")]
    pub output: PathBuf,
    /// The scenario's id (default: `recorded.` and the file's name).
    #[arg(long)]
    pub id: Option<String>,
    /// A value never to write into the file nor show (repeatable); secret-named
    /// members (`token`, `apiKey`, …) are redacted too. `MCP_CONFORM_SECRETS` adds more.
    #[arg(long = "secret", value_name = "VALUE")]
    pub secrets: Vec<String>,
    /// The scenario's role: `server` tests the server (`run` replays it),
    /// `client` tests the client alone against the server's side scripted
    /// (`test-client` replays it; the plan it was given, `MCP_CONFORM_PLAN`,
    /// is kept).
    #[arg(long = "as", value_name = "ROLE", default_value = "server")]
    pub role: Written,
    /// Seconds a started client has to start its server (`{server}`).
    #[arg(long, default_value_t = 10, value_parser = crate::cli::at_least_one::<u64>)]
    pub startup_timeout: u64,
    /// The client's command line, `{server}` where it takes its server's
    /// command (`{url}` where it takes its URL, with `--url`). Without it,
    /// over stdio the client is whoever started `record` (it speaks on our
    /// stdin and stdout); over HTTP it is recorded until `record` is interrupted.
    #[arg(last = true, value_name = "CLIENT")]
    pub client: Vec<String>,
}

/// Which side the written scenario tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Written {
    Server,
    Client,
}

/// Runs `record`: 0 once the file is written (findings are printed, the
/// gate is `run` on the file), 2 for a bad invocation, 3 when the relay or
/// the file failed.
pub fn record(args: RecordArgs) -> Result<ExitCode, CliError> {
    let client = match args.client.is_empty() {
        true => Client::Elsewhere,
        false => Client::Command(args.client.clone()),
    };
    let secrets = secrets_from(&args.secrets);
    let runtime = runtime()?;
    let recorded = match (&args.server.stdio, &args.server.url) {
        (Some(command), _) => over_stdio(&runtime, command, &client, &args, &secrets),
        (None, Some(url)) => over_http(&runtime, url, &client, &args, &secrets),
        (None, None) => Err(CliError::Usage("record needs --stdio or --url".into())),
    };
    // Reading our own stdin blocks a thread that would keep the runtime alive.
    runtime.shutdown_background();
    recorded
}

fn over_stdio(
    runtime: &tokio::runtime::Runtime,
    command: &str,
    client: &Client,
    args: &RecordArgs,
    secrets: &Secrets,
) -> Result<ExitCode, CliError> {
    let server = StdioCommand::parse(command).map_err(|e| CliError::Usage(format!("--stdio: {e}")))?;
    let mut tap = Tap::new(true, secrets.clone(), std::io::stderr());
    let startup = Duration::from_secs(args.startup_timeout);
    let relayed = runtime.block_on(stdio::relay(&server, client, &mut tap, startup));
    let mut server = relayed.map_err(CliError::Infrastructure)?;
    let written = write(args, &mut tap, Transport::Stdio(command), secrets);
    runtime.block_on(server.shutdown(SERVER_GRACE));
    written
}

fn over_http(
    runtime: &tokio::runtime::Runtime,
    url: &str,
    client: &Client,
    args: &RecordArgs,
    secrets: &Secrets,
) -> Result<ExitCode, CliError> {
    let tap = Arc::new(Mutex::new(Tap::new(false, secrets.clone(), std::io::stderr())));
    runtime
        .block_on(http::relay(url, client, Arc::clone(&tap)))
        .map_err(CliError::Infrastructure)?;
    let mut tap = tap.lock().unwrap_or_else(PoisonError::into_inner);
    write(args, &mut tap, Transport::Http(url), secrets)
}

/// How the conversation was reached: the server's command line or URL.
enum Transport<'a> {
    Stdio(&'a str),
    Http(&'a str),
}

/// The command that replays the file (without the file).
fn replay(args: &RecordArgs, transport: &Transport, version: Option<ProtocolVersion>) -> String {
    let protocol = version.map(|v| format!(" --protocol {v}")).unwrap_or_default();
    let (target, placeholder) = match transport {
        Transport::Stdio(command) => (format!("--stdio {}", shell_word(command)), "{server}"),
        Transport::Http(url) => (format!("--url {}", shell_word(url)), "{url}"),
    };
    match args.role {
        Written::Server => format!("mcp-conform run {target}{protocol}"),
        Written::Client => {
            let client = match args.client.is_empty() {
                true => format!("CLIENT {placeholder}"),
                false => args.client.join(" "),
            };
            format!(
                "mcp-conform test-client --command {}{protocol}",
                shell_word(&client)
            )
        }
    }
}

/// Writes the scenario of what the tap saw.
fn write(
    args: &RecordArgs,
    tap: &mut Tap<std::io::Stderr>,
    transport: Transport,
    secrets: &Secrets,
) -> Result<ExitCode, CliError> {
    let findings = tap.findings();
    let conversation = conversation::read(&tap.take_transcript());
    if conversation.steps.is_empty() {
        return Err(CliError::Infrastructure(
            "nothing to record: the client sent no request beyond the handshake".into(),
        ));
    }
    let provenance = Provenance {
        id: args.id.clone().unwrap_or_else(|| default_id(&args.output)),
        replay: replay(args, &transport, conversation.version),
    };
    let text = match args.role {
        Written::Server => writer::server_scenario(&conversation, &provenance, secrets),
        Written::Client => {
            let plan = std::env::var("MCP_CONFORM_PLAN")
                .ok()
                .and_then(|p| serde_json::from_str(&p).ok());
            as_client::client_scenario(&conversation, &provenance, secrets, plan)
                .map_err(CliError::Infrastructure)?
        }
    };
    // A recording is the user's own scenario: it cites nothing.
    let own = UserCatalogue::default();
    if let Err(diagnostics) = load_text(&args.output, &text, Origin::User(&own)) {
        return Err(CliError::scenarios(diagnostics));
    }
    std::fs::write(&args.output, text)
        .map_err(|e| CliError::Infrastructure(format!("cannot write {}: {e}", args.output.display())))?;
    eprintln!(
        "record: wrote {} ({} steps; {findings} findings on the way)",
        args.output.display(),
        conversation.steps.len()
    );
    Ok(ExitCode::Ok)
}

/// `recorded.` and the file's name without its extension.
fn default_id(output: &std::path::Path) -> String {
    let stem = output
        .file_stem()
        .map(|s| s.to_string_lossy())
        .unwrap_or_default();
    let name: String = stem
        .chars()
        .map(|c| match c.is_ascii_alphanumeric() || c == '-' {
            true => c.to_ascii_lowercase(),
            false => '-',
        })
        .collect();
    format!("recorded.{name}")
}

/// A command line as one single-quoted shell word.
fn shell_word(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}
