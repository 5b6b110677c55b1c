//! `role: client` scenarios: we play a scripted server and the peer under
//! test is a client (or a host). The steps and checks are the server runs'
//! own; what differs is who starts whom, and the handshake, which we answer
//! instead of sending.
//!
//! - [`run_client_scenario`]: `test-client` starts the client with a command
//!   line whose `{server}` is a relay (`mcp-conform serve --connect SOCKET`)
//!   back to the engine in this process, or whose `{url}` is the URL of a
//!   fresh mock server on a loopback port (Streamable HTTP).
//! - [`serve_stdio`]: `mcp-conform serve SCENARIO`, the engine on our own
//!   stdin/stdout, for a client started by someone else; [`serve_http`]:
//!   the same over HTTP (`serve --http ADDRESS`).
//!
//! Over HTTP the client's transport rules are judged too (by core's
//! `protocol::client_http`); the stateless era has no handshake to answer
//! (`discovery.rs`). A scenario with `auth:` protects the mock server with
//! OAuth (`auth.rs`).

pub(super) mod auth;
mod discovery;
mod relay;

use std::future::Future;
use std::path::PathBuf;
use std::time::Duration;

use mcp_conform_core::Verdict;
use mcp_conform_core::judge::opening;
use mcp_conform_core::scenario::Scenario;
use mcp_conform_core::scenario::model::{Reply, ServerModel, TransportName};
use mcp_conform_core::span::Span;
use mcp_conform_core::version::{Era, ProtocolVersion, VersionSet};
use mcp_mock_peers::session::{MockSession, PeerRequest, RequestHandler, WaitError, default_reply};
use mcp_mock_peers::transport::http_server::ClientDeparture;
use mcp_mock_peers::transport::{HttpServerTransport, StdioCommand, StdioTransport, StreamTransport};
use serde_json::{Value, json};
use tokio::net::UnixListener;
use tokio::time::Instant;

pub use mcp_conform_core::protocol::client_http::judge as judge_http;
pub use relay::serve_connected;

use super::handshake::{Handshaken, capability_precondition};
use super::outcome::{Check, ScenarioOutcome};
use super::scenario::run_session;
use super::socket_dir::SocketDir;
use super::steps::{StepRunner, Stop, Wait};
use super::{RunConfig, Target};

/// How long the mock server keeps serving a client after the last step
/// before it ends the connection.
pub const LINGER: Duration = Duration::from_secs(2);
/// How long a client gets to leave once we close the connection.
const EXIT_GRACE: Duration = Duration::from_millis(500);
/// How often we look whether a client that has not connected yet exited.
const POLL: Duration = Duration::from_millis(50);
/// Longer than any scenario: how long we watch a client's process for its exit.
const LIFETIME: Duration = Duration::from_secs(24 * 3600);

/// The client under test: a command line where `{server}` stands for the
/// command that starts our mock server over stdio, or `{url}` for the URL
/// of our mock server over Streamable HTTP.
#[derive(Debug, Clone)]
pub struct ClientUnderTest {
    pub command: String,
    /// The mcp-conform binary whose `serve --connect` `{server}` runs.
    pub serve_program: PathBuf,
    /// The client speaks HTTP to us (`{url}`, or `serve --http`).
    pub over_http: bool,
    /// `initialize` is answered with the run's version whatever the client
    /// offers (`--protocol all`: a case per version).
    pub pinned: bool,
}

impl ClientUnderTest {
    /// A client whose `{server}` runs this very binary; `{url}` in the
    /// command line makes it an HTTP client.
    pub fn new(command: &str) -> ClientUnderTest {
        ClientUnderTest {
            command: command.to_owned(),
            serve_program: std::env::current_exe().unwrap_or_else(|_| PathBuf::from("mcp-conform")),
            over_http: command.contains("{url}"),
            pinned: false,
        }
    }

    /// A client started by someone else, to `mcp-conform serve`.
    pub fn started_elsewhere(over_http: bool) -> ClientUnderTest {
        ClientUnderTest {
            over_http,
            ..ClientUnderTest::new("(started by its client)")
        }
    }
}

/// Answers `initialize` with a mock server's model, and pings; anything
/// else before `initialize` is refused as a server would.
pub(super) struct InitializeHandler<'a> {
    pub server: &'a ServerModel,
    /// Versions we accept when the client offers them.
    pub versions: VersionSet,
    /// The version answered when the client offers none of them.
    pub fallback: ProtocolVersion,
    /// The version answered, once `initialize` came.
    pub answered: Option<String>,
}

impl RequestHandler for InitializeHandler<'_> {
    fn answer(&mut self, request: &PeerRequest) -> Reply {
        if request.method != "initialize" {
            return default_reply(&request.method);
        }
        let server = self.server;
        let offered = request
            .params
            .as_ref()
            .and_then(|p| p.get("protocolVersion"))
            .and_then(Value::as_str)
            .and_then(|v| v.parse::<ProtocolVersion>().ok())
            .filter(|v| self.versions.contains(*v));
        let version = server
            .protocol_version
            .clone()
            .or_else(|| offered.map(|v| v.to_string()))
            .unwrap_or_else(|| self.fallback.to_string());
        let info = server.info.clone().unwrap_or_else(mock_server_info);
        let mut result =
            json!({"protocolVersion": version, "capabilities": server.capabilities, "serverInfo": info});
        if let Some(instructions) = &server.instructions {
            result["instructions"] = json!(instructions);
        }
        self.answered = Some(version);
        Reply::Result(result)
    }
}

/// How the mock server names itself unless the scenario says otherwise.
fn mock_server_info() -> Value {
    json!({"name": "mcp-conform", "version": env!("CARGO_PKG_VERSION")})
}

/// The server side of the handshake: the client must open with
/// `initialize` (LIFE-001) whose params are complete (LIFE-002); we answer
/// it, then the client must send `notifications/initialized` (LIFE-007).
/// The stateless era has none: the client's first request stands in.
pub async fn serve_handshake(runner: &mut StepRunner<'_>, config: &RunConfig) -> Handshaken {
    if runner.is_stateless() {
        let stdio = config.target.frames_on_stdio();
        return discovery::serve_opening(runner, config, stdio).await;
    }
    let scenario = runner.scenario;
    let deadline = Instant::now() + config.startup_timeout;
    let pinned = matches!(&config.target, Target::Client(client) if client.pinned);
    let mut handler = InitializeHandler {
        server: &scenario.server,
        versions: match pinned {
            true => VersionSet::only(config.protocol),
            false => scenario.versions,
        },
        fallback: config.protocol,
        answered: None,
    };
    let initialize = loop {
        let seen = runner.session.peer_requests().len();
        match runner
            .session
            .wait_peer_request(seen, deadline, &mut handler)
            .await
        {
            Ok(request) if request.method == "initialize" => break request,
            Ok(_) => {}
            Err(error) => {
                let missing = format!("no initialize within {} ms", config.startup_timeout.as_millis());
                return never_came(runner, opening::never_initialized, missing, error);
            }
        }
    };
    runner.checks.push(opening::opens_with_initialize(
        runner.session.transcript(),
        scenario.span,
    ));
    let params = initialize.params.clone().unwrap_or(Value::Null);
    runner
        .checks
        .push(opening::initialize_params(&params, scenario.span).at_frame(Some(initialize.index)));
    let answered = handler.answered.unwrap_or_default();
    match answered.parse::<ProtocolVersion>() {
        Ok(version) if scenario.versions.contains(version) => runner.version = version,
        _ => {
            let offered = params.get("protocolVersion").cloned().unwrap_or(Value::Null);
            let note = format!(
                "the client offered {offered}; the scenario applies to {}",
                scenario.versions
            );
            return Handshaken::Stopped(Stop::halted(Verdict::NotApplicable, note));
        }
    }
    let capabilities = params.get("capabilities").cloned().unwrap_or(Value::Null);
    runner.ctx.vars.insert(
        "client".into(),
        json!({
            "capabilities": capabilities,
            "info": params.get("clientInfo"),
            "protocolVersion": params.get("protocolVersion"),
        }),
    );
    let initialized = loop {
        let seen = runner.session.notifications().len();
        match runner.wait(Wait::Notification(seen), deadline, &[]).await {
            Ok(got) => {
                if got.message().get("method") == Some(&json!("notifications/initialized")) {
                    break Ok(());
                }
            }
            Err(error) => break Err(error),
        }
    };
    if let Err(error) = initialized {
        let missing = format!(
            "no notifications/initialized within {} ms of the initialize answer",
            config.startup_timeout.as_millis()
        );
        return never_came(runner, opening::never_sent_initialized, missing, error);
    }
    match capability_precondition(runner, &capabilities, "client") {
        Some(stop) => Handshaken::Stopped(stop),
        None => Handshaken::Ready,
    }
}

/// A handshake message that did not come (`missing` when the wait timed
/// out): a broken MUST, and the scenario ends.
fn never_came(
    runner: &mut StepRunner<'_>,
    verdict: fn(Span, String) -> Check,
    missing: String,
    error: WaitError,
) -> Handshaken {
    let message = match error {
        WaitError::TimedOut => missing,
        other => runner.describe(&other),
    };
    let span = runner.scenario.span;
    runner.checks.push(verdict(span, message));
    Handshaken::Stopped(Stop::Done)
}

/// Runs one scenario against a fresh instance of the client under test.
pub async fn run_client_scenario(
    scenario: &Scenario,
    config: &RunConfig,
    client: &ClientUnderTest,
) -> ScenarioOutcome {
    let started = Instant::now();
    let outcome = ScenarioOutcome {
        version: Some(config.protocol),
        ..ScenarioOutcome::new(scenario)
    };
    if let Some(note) = precondition(scenario, config, client.over_http) {
        return ScenarioOutcome::unrun(scenario, Verdict::NotApplicable, note);
    }
    let launched = if client.over_http {
        launch_http(scenario, config, client).await
    } else {
        // The socket is needed until the client connected.
        let socket_dir = SocketDir::new();
        let socket = socket_dir.path().join("serve.sock");
        launch(scenario, config, client, socket_dir.path(), &socket).await
    };
    let Launched {
        mut session,
        mut process,
        departure,
    } = match launched {
        Ok(launched) => launched,
        Err((note, tail)) => {
            let mut outcome = ScenarioOutcome::unrun(scenario, Verdict::Error, note);
            outcome.stderr_tail = tail;
            outcome.heard = Some(false);
            return outcome;
        }
    };
    serve_era(&mut session, scenario, config);
    let run = run_session(scenario, config, session, outcome, started, None);
    let mut outcome = match departure {
        Some(departure) => watched(run, &mut process, departure).await,
        None => run.await,
    };
    process.shutdown(EXIT_GRACE).await;
    if outcome.verdict > Verdict::NonStrict || outcome.verdict == Verdict::Error {
        let tail = process.stderr_tail();
        outcome.stderr_tail = (!tail.trim().is_empty()).then_some(tail);
    }
    outcome.duration = started.elapsed();
    outcome
}

/// Why a scenario does not apply to this client before it is started. A
/// run of the handshake era learns the version from `initialize`; one of
/// the stateless era serves that era only.
fn precondition(scenario: &Scenario, config: &RunConfig, over_http: bool) -> Option<String> {
    if scenario.role != mcp_conform_core::scenario::model::Role::Client {
        return Some("tests a server: run it with `mcp-conform run`".to_owned());
    }
    let version = config.protocol;
    if version.era() == Era::Stateless && !scenario.versions.contains(version) {
        return Some(format!(
            "applies to {}; this run serves {version}",
            scenario.versions
        ));
    }
    let need = scenario.requires.transport?;
    // The mock server speaks stdio through `{server}`, every HTTP transport at `{url}`.
    let (needs_http, reach) = match need {
        TransportName::Stdio => (false, "{server}"),
        _ => (true, "{url}"),
    };
    (needs_http != over_http)
        .then(|| format!("tests the {need} transport: the client must reach the mock server by {reach}"))
}

/// Makes the session serve the run's era: the stateless era has its own
/// ways (the handshake era's are the session's own).
fn serve_era(session: &mut MockSession, scenario: &Scenario, config: &RunConfig) {
    if config.protocol.era() == Era::Stateless {
        discovery::serve_stateless(session, scenario, config.protocol);
    }
}

/// A started client and the session with it.
struct Launched {
    session: MockSession,
    /// The client's process.
    process: StdioTransport,
    /// Over HTTP: tells the session when the process ends (no request does).
    departure: Option<ClientDeparture>,
}

/// Why a client could not be started: a note and the client's stderr.
type LaunchError = (String, Option<String>);

/// Runs `run` while watching the client's process: its exit is reported
/// to the session as the client leaving.
async fn watched(
    run: impl Future<Output = ScenarioOutcome>,
    process: &mut StdioTransport,
    departure: ClientDeparture,
) -> ScenarioOutcome {
    tokio::pin!(run);
    tokio::select! {
        outcome = &mut run => return outcome,
        exit = process.wait_exit(LIFETIME) => departure.left(exit),
    }
    run.await
}

/// Starts the client with `line` (the command with its placeholder
/// filled in) and the scenario's id and plan in its environment.
fn spawn_client(line: &str, scenario: &Scenario) -> Result<StdioTransport, LaunchError> {
    let mut command = StdioCommand::parse(line).map_err(|e| (format!("--command: {e}"), None))?;
    command
        .env
        .push(("MCP_CONFORM_SCENARIO".into(), scenario.id.clone()));
    let plan = scenario.plan.clone().unwrap_or_else(|| json!({}));
    command.env.push(("MCP_CONFORM_PLAN".into(), plan.to_string()));
    command.env.extend(auth::client_environment(scenario));
    StdioTransport::spawn(&command).map_err(|e| (e.to_string(), None))
}

/// The client has not reached us yet: `Ok` while it may still, the error
/// once it exited or the startup timeout passed (`never`: what it never
/// did; `placeholder`: what its command line needs for that).
async fn still_starting(
    process: &mut StdioTransport,
    deadline: Instant,
    config: &RunConfig,
    (never, placeholder): (&str, &str),
) -> Result<(), LaunchError> {
    let exited = process.try_exit();
    if exited.is_none() && Instant::now() <= deadline {
        return Ok(());
    }
    let why = exited.map_or_else(
        || format!("within {} ms", config.startup_timeout.as_millis()),
        |exit| format!("before it {}", exit.description),
    );
    let tail = process.stderr_tail();
    process.shutdown(Duration::ZERO).await;
    let note = format!("the client never {never} ({why}); does its command line contain {placeholder}?");
    Err((note, (!tail.trim().is_empty()).then_some(tail)))
}

/// Starts the client and waits for it to start our server over stdio.
async fn launch(
    scenario: &Scenario,
    config: &RunConfig,
    client: &ClientUnderTest,
    dir: &std::path::Path,
    socket: &std::path::Path,
) -> Result<Launched, LaunchError> {
    std::fs::create_dir_all(dir).map_err(|e| (format!("cannot create {}: {e}", dir.display()), None))?;
    let listener = UnixListener::bind(socket)
        .map_err(|e| (format!("cannot listen on {}: {e}", socket.display()), None))?;
    let server = relay_command(&client.serve_program, socket);
    let mut process = spawn_client(&client.command.replace("{server}", &server.display()), scenario)?;
    let deadline = Instant::now() + config.startup_timeout;
    let never = ("started the mock server", "{server}");
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let (stream, _) = accepted.map_err(|e| (format!("accept failed: {e}"), None))?;
                let (reader, writer) = stream.into_split();
                let session = MockSession::new(StreamTransport::new(reader, writer));
                return Ok(Launched { session, process, departure: None });
            }
            () = tokio::time::sleep(POLL) => {}
        }
        still_starting(&mut process, deadline, config, never).await?;
    }
}

/// The command that starts our mock server: `PROGRAM serve --connect SOCKET`,
/// a relay back to the engine listening on the socket.
pub(crate) fn relay_command(program: &std::path::Path, socket: &std::path::Path) -> StdioCommand {
    StdioCommand {
        program: program.display().to_string(),
        args: vec!["serve".into(), "--connect".into(), socket.display().to_string()],
        env: Vec::new(),
        cwd: None,
    }
}

/// Starts a mock server on a free loopback port, then the client with its
/// URL, and waits for the client's first request.
async fn launch_http(
    scenario: &Scenario,
    config: &RunConfig,
    client: &ClientUnderTest,
) -> Result<Launched, LaunchError> {
    let mut server = HttpServerTransport::bind("127.0.0.1:0")
        .await
        .map_err(|e| (e.to_string(), None))?;
    if config.protocol.era() == Era::Stateless {
        // Before the client's first request, which the era decides.
        server.serve_stateless();
    }
    auth::protect(&server, scenario).await.map_err(|e| (e, None))?;
    let mut process = spawn_client(&client.command.replace("{url}", server.url()), scenario)?;
    let deadline = Instant::now() + config.startup_timeout;
    let never = format!("reached the mock server at {}", server.url());
    while !server.contacted() {
        tokio::time::sleep(POLL).await;
        // A client may reach us and exit within one poll (one that refuses
        // to go on after OAuth): its request counts.
        if !server.contacted() {
            still_starting(&mut process, deadline, config, (&never, "{url}")).await?;
        }
    }
    let departure = Some(server.departure());
    Ok(Launched {
        session: MockSession::new(server),
        process,
        departure,
    })
}

/// `mcp-conform serve SCENARIO`: the engine on our own stdin/stdout.
pub async fn serve_stdio(scenario: &Scenario, config: &RunConfig) -> ScenarioOutcome {
    let session = MockSession::new(StreamTransport::new(tokio::io::stdin(), tokio::io::stdout()));
    serve(scenario, config, session, false).await
}

/// `mcp-conform serve --http ADDRESS SCENARIO`: the engine as a Streamable
/// HTTP server on a loopback `address`; `announce` gets its URL once it
/// listens. Fails when the address is not loopback or cannot be bound.
pub async fn serve_http(
    scenario: &Scenario,
    config: &RunConfig,
    address: &str,
    announce: impl FnOnce(&str),
) -> Result<ScenarioOutcome, String> {
    let mut server = HttpServerTransport::bind(address)
        .await
        .map_err(|e| e.to_string())?;
    if config.protocol.era() == Era::Stateless {
        server.serve_stateless();
    }
    auth::protect(&server, scenario).await?;
    announce(server.url());
    Ok(serve(scenario, config, MockSession::new(server), true).await)
}

async fn serve(
    scenario: &Scenario,
    config: &RunConfig,
    mut session: MockSession,
    over_http: bool,
) -> ScenarioOutcome {
    if let Some(note) = precondition(scenario, config, over_http) {
        return ScenarioOutcome::unrun(scenario, Verdict::NotApplicable, note);
    }
    serve_era(&mut session, scenario, config);
    let outcome = ScenarioOutcome {
        version: Some(config.protocol),
        ..ScenarioOutcome::new(scenario)
    };
    run_session(scenario, config, session, outcome, Instant::now(), None).await
}
