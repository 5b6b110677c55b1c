//! `role: gateway` scenarios: the peer under test is a gateway (a proxy, an
//! aggregator). We play the client in front of it and every server behind
//! it. For each scenario the gateway is started with a config that points at
//! the scenario's backends; each backend is served in-process the way
//! `test-client` serves a client (a relay, `mcp-conform serve --connect`,
//! or a mock server on a loopback port over HTTP), while the steps run on
//! the front. The gateway is judged on both sides: as a server by the
//! front's frames, as a client by each backend's; behind a protected front,
//! by whether the client's token reached a backend (AUTH-006).

mod backends;
mod launch;

use std::time::Duration;

use mcp_conform_core::Verdict;
use mcp_conform_core::evidence::http::InboundRequest;
use mcp_conform_core::judge::opening;
use mcp_conform_core::judge::passthrough::{BackendTraffic, no_token_passthrough};
use mcp_conform_core::protocol::PeerRole;
use mcp_conform_core::scenario::Scenario;
use mcp_conform_core::scenario::model::{Backend, Role};
use mcp_conform_core::wire::{Direction, Frame};
use serde_json::Value;
use tokio::time::Instant;

pub use backends::{BackendTransport, Hub, TICK};
pub use launch::{GatewayUnderTest, free_loopback_port, shell_word, wait_for_port};

use super::RunConfig;
use super::frames::check_frames;
use super::outcome::{Check, ScenarioOutcome};
use super::scenario::{precondition, run_session};
use super::socket_dir::SocketDir;
use super::steps::unasked;

/// How long the gateway gets to exit by itself at the end (HTTP front).
const EXIT_GRACE: Duration = Duration::from_millis(500);

/// Runs one scenario against a fresh instance of the gateway.
pub async fn run_gateway_scenario(
    scenario: &Scenario,
    config: &RunConfig,
    gateway: &GatewayUnderTest,
) -> ScenarioOutcome {
    let started = Instant::now();
    if scenario.role != Role::Gateway {
        let note = "tests a server or a client, not a gateway".to_owned();
        return ScenarioOutcome::unrun(scenario, Verdict::NotApplicable, note);
    }
    if let Some(backend) = scenario.backends.iter().find(|b| !gateway.reaches(&b.name)) {
        let note = format!(
            "the gateway's command line names neither {{config}} nor {{server:{}}}",
            backend.name
        );
        return ScenarioOutcome::unrun(scenario, Verdict::NotApplicable, note);
    }
    if let Some((verdict, note)) = precondition(scenario, config) {
        return ScenarioOutcome::unrun(scenario, verdict, note);
    }
    if scenario.requires.protected && gateway.backends == BackendTransport::Stdio {
        let note = "reads the headers of the gateway's requests to its backends: HTTP backends only (--backends http)";
        return ScenarioOutcome::unrun(scenario, Verdict::NotApplicable, note.into());
    }
    // The backends' tasks hold sessions that are not `Send`: they run on
    // this thread, beside the steps.
    let local = tokio::task::LocalSet::new();
    local
        .run_until(run_started(scenario, config, gateway, started))
        .await
}

/// The part of a run that starts things: backends, gateway, steps.
async fn run_started(
    scenario: &Scenario,
    config: &RunConfig,
    gateway: &GatewayUnderTest,
    started: Instant,
) -> ScenarioOutcome {
    let front = match front(gateway, config) {
        Ok(front) => front,
        Err(note) => return ScenarioOutcome::unrun(scenario, Verdict::Error, note),
    };
    let dir = SocketDir::new();
    let watched: Vec<String> = front.token.iter().map(|t| t.token.clone()).collect();
    let hub = match std::fs::create_dir_all(dir.path()) {
        Ok(()) => Hub::listen(scenario, dir.path(), config.protocol, gateway.backends, &watched).await,
        Err(error) => Err(error),
    };
    let hub = match hub {
        Ok(hub) => hub,
        Err(error) => {
            let note = format!("cannot serve the backends in {}: {error}", dir.path().display());
            return ScenarioOutcome::unrun(scenario, Verdict::Error, note);
        }
    };
    let launched = launch::launch(
        gateway,
        scenario,
        (dir.path(), &hub),
        &front,
        config.startup_timeout,
    )
    .await;
    let launched = match launched {
        Ok(launched) => launched,
        Err((note, tail)) => {
            hub.stop().await;
            let mut outcome = ScenarioOutcome::unrun(scenario, Verdict::Error, note);
            outcome.stderr_tail = tail;
            return outcome;
        }
    };
    let outcome = ScenarioOutcome {
        version: Some(config.protocol),
        ..ScenarioOutcome::new(scenario)
    };
    let mut outcome = run_session(scenario, config, launched.session, outcome, started, Some(hub)).await;
    if let Some(mut process) = launched.process {
        process.shutdown(EXIT_GRACE).await;
        if outcome.verdict > Verdict::NonStrict || outcome.verdict == Verdict::Error {
            let tail = process.stderr_tail();
            outcome.stderr_tail = (!tail.trim().is_empty()).then_some(tail);
        }
    }
    drop(dir);
    outcome.duration = started.elapsed();
    outcome
}

/// The front of one scenario: a free port unless the gateway speaks stdio,
/// and there a token for it when the harness is the front's authorization
/// server (`test-gateway --auth`).
fn front(gateway: &GatewayUnderTest, config: &RunConfig) -> Result<launch::Front, String> {
    if gateway.front_is_stdio() {
        return Ok(launch::Front::default());
    }
    let port = free_loopback_port().map_err(|e| format!("no free port: {e}"))?;
    let token = config
        .auth
        .as_ref()
        .and_then(|auth| auth.front_token(&gateway.front_url(port)));
    Ok(launch::Front {
        port: Some(port),
        token,
    })
}

/// What the backends saw, judged: their checks (the handshake the gateway
/// made as a client, the scripted answers' expectations, every frame the
/// gateway sent them) and their frames, labelled and numbered after the
/// front's `offset` frames.
pub struct BackendsJudged {
    pub checks: Vec<Check>,
    pub frames: Vec<Frame>,
}

/// Judges every connection of every backend once the hub stopped.
pub fn judge_backends(hub: &Hub, scenario: &Scenario, config: &RunConfig, offset: usize) -> BackendsJudged {
    let mut judged = BackendsJudged {
        checks: Vec::new(),
        frames: Vec::new(),
    };
    if scenario.requires.protected
        && let Some(auth) = &config.auth
    {
        judged.checks.push(passthrough(hub, scenario, &auth.tokens()));
    }
    for backend in &scenario.backends {
        hub.with_backend(&backend.name, |log| {
            for (number, connection) in log.connections.iter().enumerate() {
                let label = format!("backend {}#{}", backend.name, number + 1);
                let at = offset + judged.frames.len();
                let mut checks = handshake_checks(&connection.transcript, connection.initialize(), backend);
                checks.extend(connection.checks.iter().cloned());
                let version = connection.version.unwrap_or(config.protocol);
                let framed = check_frames(&connection.transcript, version, true, config, PeerRole::Server);
                checks.extend(framed.into_iter().map(|mut check| {
                    check.name = format!("{label}: {}", check.name);
                    check
                }));
                judged.checks.extend(checks.into_iter().map(|mut check| {
                    check.frame = check.frame.map(|i| i + at);
                    check
                }));
                judged
                    .frames
                    .extend(connection.transcript.iter().cloned().map(|mut frame| {
                        frame.meta.stream = Some(label.clone());
                        frame
                    }));
            }
            let unused = backend
                .answers
                .iter()
                .enumerate()
                .filter(|(index, _)| !log.used.contains(index))
                .filter_map(|(_, answer)| unasked(answer));
            judged.checks.extend(unused);
        });
    }
    judged
}

/// AUTH-006: no backend request carried a token the client presented at
/// the front (any of the run's `tokens`).
fn passthrough(hub: &Hub, scenario: &Scenario, tokens: &[String]) -> Check {
    let received: Vec<(&str, Received)> = scenario
        .backends
        .iter()
        .map(|b| {
            (
                b.name.as_str(),
                hub.with_backend(&b.name, received).unwrap_or_default(),
            )
        })
        .collect();
    let traffic: Vec<BackendTraffic<'_>> = received
        .iter()
        .map(|(backend, received)| BackendTraffic {
            backend,
            requests: &received.requests,
            messages: &received.messages,
        })
        .collect();
    no_token_passthrough(&traffic, tokens, scenario.span)
}

/// What one backend received from the gateway over HTTP.
#[derive(Default)]
struct Received {
    requests: Vec<InboundRequest>,
    messages: Vec<Vec<u8>>,
}

fn received(log: &backends::BackendLog) -> Received {
    let connections = &log.connections;
    Received {
        requests: connections
            .iter()
            .filter_map(|c| c.http.as_ref())
            .flat_map(|record| record.requests.iter().cloned())
            .collect(),
        messages: connections
            .iter()
            .flat_map(|c| c.transcript.iter())
            .filter(|f| f.direction == Direction::Received)
            .map(|f| f.raw.clone())
            .collect(),
    }
}

/// The gateway's handshake as a client on one connection: it opens with
/// `initialize` (LIFE-001) whose params are complete (LIFE-002), and sends
/// `notifications/initialized` before any other request (LIFE-007).
fn handshake_checks(transcript: &[Frame], initialize: Option<&Value>, backend: &Backend) -> Vec<Check> {
    let received: Vec<(usize, Value)> = transcript
        .iter()
        .enumerate()
        .filter(|(_, f)| f.direction == Direction::Received)
        .filter_map(|(i, f)| serde_json::from_slice(&f.raw).ok().map(|m| (i, m)))
        .collect();
    if received.is_empty() {
        return Vec::new();
    }
    let span = backend.span;
    let mut checks = vec![opening::opens_with_initialize(transcript, span)];
    if let Some(params) = initialize {
        checks.push(opening::initialize_params(params, span));
    }
    if let Some(check) = opening::initialized_first(&received, span) {
        checks.push(check);
    }
    checks
}
