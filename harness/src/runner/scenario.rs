//! One scenario from start to end.

use std::time::Duration;

use mcp_conform_core::judge::origin;
use mcp_conform_core::protocol::PeerRole;
use mcp_conform_core::protocol::client_http::ClientEvidence;
use mcp_conform_core::scenario::Scenario;
use mcp_conform_core::scenario::model::{Handshake, Role, StepKind, TransportName};
use mcp_conform_core::scenario::profile::unbound;
use mcp_conform_core::version::Era;
use mcp_conform_core::{Level, Verdict};
use mcp_mock_peers::session::{Envelope, MockSession};
use mcp_mock_peers::transport::{
    HttpMode, HttpOptions, HttpTransport, StdioTransport, Transport, TransportError,
};
use serde_json::{Value, json};
use tokio::time::Instant;

use super::discover::discover;
use super::failfast::heard;
use super::frames::check_frames;
use super::gateway::{self, Hub};
use super::handshake::{Handshaken, handshake};
use super::mock_server;
use super::outcome::{Check, ScenarioOutcome, first_heard};
use super::steps::{StepRunner, Stop, transport_mismatch};
use super::{RunConfig, Target};
use crate::auth::Protection;

/// How long a peer gets to exit by itself once we close its stdin.
const EXIT_GRACE: Duration = Duration::from_millis(500);

/// Runs one scenario in its own session and process. Never panics on peer
/// behaviour and never outlives the scenario's budget by more than the
/// shutdown grace.
pub async fn run_scenario(scenario: &Scenario, config: &RunConfig) -> ScenarioOutcome {
    match &config.target {
        Target::Client(client) => return mock_server::run_client_scenario(scenario, config, client).await,
        Target::Gateway(gateway) => return gateway::run_gateway_scenario(scenario, config, gateway).await,
        Target::Stdio(_) | Target::Http { .. } => {}
    }
    let started = Instant::now();
    if let Some(unrun) = inapplicable(scenario, config) {
        return unrun;
    }
    let mut outcome = fresh_outcome(scenario, config);
    let session = match open_transport(config) {
        Ok(transport) => client_session(transport, scenario, config),
        Err(error) => {
            outcome.verdict = Verdict::Error;
            outcome.note = Some(error.to_string());
            outcome.heard = Some(false);
            return outcome;
        }
    };
    run_session(scenario, config, session, outcome, started, None).await
}

/// [`run_scenario`] over a connection the caller opened (an in-process
/// server's byte stream, framed like stdio); `config.target` says how the
/// frames travel.
pub async fn run_scenario_over(
    scenario: &Scenario,
    config: &RunConfig,
    transport: Transport,
) -> ScenarioOutcome {
    let started = Instant::now();
    if let Some(unrun) = inapplicable(scenario, config) {
        return unrun;
    }
    let session = client_session(transport, scenario, config);
    run_session(
        scenario,
        config,
        session,
        fresh_outcome(scenario, config),
        started,
        None,
    )
    .await
}

/// The outcome of a run of `scenario` before anything happened.
fn fresh_outcome(scenario: &Scenario, config: &RunConfig) -> ScenarioOutcome {
    ScenarioOutcome {
        version: Some(config.protocol),
        ..ScenarioOutcome::new(scenario)
    }
}

/// The finished outcome of a scenario that does not apply to this run.
fn inapplicable(scenario: &Scenario, config: &RunConfig) -> Option<ScenarioOutcome> {
    let (verdict, note) = precondition(scenario, config)?;
    Some(ScenarioOutcome {
        verdict,
        note: Some(note),
        ..fresh_outcome(scenario, config)
    })
}

/// A connection to the server under test, for the configuration's version.
pub(super) fn open_transport(config: &RunConfig) -> Result<Transport, TransportError> {
    match &config.target {
        Target::Stdio(command) => StdioTransport::spawn(command).map(Transport::from),
        Target::Http { url, headers, mode } => HttpTransport::new(HttpOptions {
            url: url.clone(),
            headers: headers.clone(),
            mode: *mode,
            answer_timeout: config.startup_timeout,
            stateless: config.protocol.era() == Era::Stateless,
        })
        .map(Transport::from),
        // A client or gateway under test is started per scenario by its own runner.
        Target::Client(_) | Target::Gateway(_) => Err(TransportError::CommandLine(
            "a client or gateway is started per scenario by its own runner".into(),
        )),
    }
}

/// The mock client's session; in the stateless era every request carries
/// the scenario's client (its capabilities and info) and the version.
pub(super) fn client_session(transport: Transport, scenario: &Scenario, config: &RunConfig) -> MockSession {
    let mut session = MockSession::new(transport);
    if config.protocol.era() == Era::Stateless {
        let client = &scenario.client;
        session.speak_stateless(Envelope {
            protocol_version: client
                .protocol_version
                .clone()
                .unwrap_or_else(|| config.protocol.to_string()),
            capabilities: client.capabilities.clone(),
            info: client.info.clone().unwrap_or_else(default_client_info),
        });
    }
    session
}

/// How the mock client names itself unless the scenario says otherwise.
pub(super) fn default_client_info() -> Value {
    json!({"name": "mcp-conform", "version": env!("CARGO_PKG_VERSION")})
}

/// Runs the scenario over an open session (with the backends of a gateway
/// scenario) and judges everything it saw.
pub(super) async fn run_session(
    scenario: &Scenario,
    config: &RunConfig,
    session: MockSession,
    mut outcome: ScenarioOutcome,
    started: Instant,
    backends: Option<Hub>,
) -> ScenarioOutcome {
    let mut runner = StepRunner::new(scenario, session, config);
    runner.backends = backends;
    let untriggered = untriggered(scenario, config);
    let stop = drive(&mut runner, scenario, config, untriggered.as_deref()).await;
    if let Stop::Halted { verdict, note } = stop {
        outcome.verdict = verdict;
        outcome.note = Some(note);
    } else if let Some(first) = runner.skipped.first() {
        // Judged on the steps that ran; with none, the case does not apply.
        let why = crate::auth::ONLY_THE_MOCK_ISSUER;
        outcome.note = Some(match runner.checks.is_empty() {
            true => {
                outcome.verdict = Verdict::NotApplicable;
                format!("presents {first}: {why}")
            }
            false => format!(
                "partly judged: left out the steps presenting {}: {why}",
                runner.skipped.join(", ")
            ),
        });
    }
    runner.finish_answers();
    runner.session.shutdown(EXIT_GRACE).await;
    outcome.checks = std::mem::take(&mut runner.checks);
    outcome.version = Some(runner.version);
    let us = match scenario.role {
        Role::Server | Role::Gateway => PeerRole::Client,
        Role::Client => PeerRole::Server,
    };
    let stdio = config.target.frames_on_stdio();
    // A server of another era is not judged by this one's rules.
    let mut found = match runner.other_era {
        true => Vec::new(),
        false => check_frames(runner.session.transcript(), runner.version, stdio, config, us),
    };
    if let Some(facts) = runner.session.http_facts()
        && !facts.refused.is_empty()
    {
        found.extend(
            facts
                .refused
                .iter()
                .map(|url| origin::refused(url, scenario.span)),
        );
        if outcome.verdict == Verdict::Error {
            // What stopped the case is the server's URL we refused: its
            // finding decides, and says it.
            outcome.verdict = Verdict::Pass;
            outcome.note = None;
        }
    }
    let mut authorization = None;
    if let Some(record) = runner.session.http_client_record() {
        let evidence = ClientEvidence {
            record: &record,
            version: runner.version,
            scenario,
            transcript: runner.session.transcript(),
        };
        found.extend(mock_server::judge_http(evidence));
        authorization = mock_server::auth::judge(evidence);
    }
    outcome.transcript = runner.session.transcript().to_vec();
    outcome.heard = Some(heard(&outcome.transcript));
    outcome.startup = (config.timings && stdio)
        .then(|| first_heard(&outcome.transcript))
        .flatten();
    if let Some(hub) = runner.backends.take() {
        hub.stop().await;
        let judged = gateway::judge_backends(&hub, scenario, config, outcome.transcript.len());
        found.extend(judged.checks);
        outcome.transcript.extend(judged.frames);
    }
    let decides =
        |check: &Check| check.level == Level::Must || scenario.requirements.contains(&check.requirement);
    let (checks, mut remarks): (Vec<_>, Vec<_>) = found.into_iter().partition(decides);
    outcome.checks.extend(checks);
    if outcome.verdict == Verdict::NotApplicable || untriggered.is_some() {
        // A case that does not apply, or ran no step, judges nothing: what
        // its frames broke is shown, and judged by the cases that do apply.
        remarks.splice(0..0, std::mem::take(&mut outcome.checks));
    }
    if let Some(judged) = authorization {
        judged.settle_into(&mut outcome, &mut remarks, decides);
    }
    outcome.remarks = remarks;
    outcome.settle();
    if outcome.verdict > Verdict::NonStrict || outcome.verdict == Verdict::Error {
        // Over HTTP, what the transport saw besides messages comes first.
        let mut tail: String = runner
            .session
            .incidents()
            .iter()
            .map(|i| format!("[http {} ms] {}\n", i.at.as_millis(), i.description))
            .collect();
        tail.push_str(&runner.session.stderr_tail());
        outcome.stderr_tail = (!tail.trim().is_empty()).then_some(tail);
    }
    outcome.duration = started.elapsed();
    outcome
}

/// The handshake and the steps, within the scenario's budget. The session
/// lives outside the budget so the transcript survives a timeout. A case
/// missing a trigger (`untriggered`, why) stops after the handshake.
async fn drive<'s>(
    runner: &mut StepRunner<'s>,
    scenario: &'s Scenario,
    config: &RunConfig,
    untriggered: Option<&str>,
) -> Stop {
    let budget = scenario.timeout;
    let work = async {
        if scenario.handshake == Handshake::Auto {
            let handshaken = match scenario.role {
                Role::Server if runner.is_stateless() => discover(runner, config).await,
                Role::Server | Role::Gateway => handshake(runner, config).await,
                Role::Client => mock_server::serve_handshake(runner, config).await,
            };
            match handshaken {
                Handshaken::Ready => {}
                Handshaken::Stopped(stop) => return stop,
            }
        }
        if let Some(why) = untriggered {
            return Stop::halted(Verdict::NotObserved, why.to_owned());
        }
        let steps = &scenario.steps;
        let stop = runner.run_steps(steps).await;
        if scenario.role == Role::Client && stop == Stop::Done {
            // The client under test goes on by itself: keep serving it until
            // it leaves, its held requests answered now that nothing more is asked.
            runner.session.expect_asks(false);
            runner.idle(mock_server::LINGER, &[]).await;
        }
        stop
    };
    match tokio::time::timeout(budget, work).await {
        Ok(stop) => stop,
        Err(_) => {
            runner.timed_out(budget);
            Stop::Done
        }
    }
}

/// Why a scenario does not apply before anything is started.
pub(super) fn precondition(scenario: &Scenario, config: &RunConfig) -> Option<(Verdict, String)> {
    let for_gateways = matches!(config.target, Target::Gateway(_));
    match scenario.role {
        Role::Client => {
            return Some((
                Verdict::NotApplicable,
                "tests a client: run it with `mcp-conform test-client`".into(),
            ));
        }
        Role::Gateway if !for_gateways => {
            return Some((
                Verdict::NotApplicable,
                "tests a gateway: run it with `mcp-conform test-gateway`".into(),
            ));
        }
        Role::Server | Role::Gateway => {}
    }
    if let Some(need) = scenario.requires.transport {
        let unmet = match (&config.target, need) {
            (_, TransportName::Stdio) if config.target.frames_on_stdio() => None,
            (_, TransportName::Stdio) => Some("what it observes is seen over stdio only".into()),
            (Target::Http { mode, .. }, _) => match mode {
                HttpMode::Auto => None,
                HttpMode::Streamable => transport_mismatch(need, false),
                HttpMode::Sse => transport_mismatch(need, true),
            },
            _ if config.target.frames_on_stdio() => Some(format!("tests the {need} transport: HTTP only")),
            // A gateway that serves Streamable HTTP.
            _ => transport_mismatch(need, false),
        };
        if let Some(note) = unmet {
            return Some((Verdict::NotApplicable, note));
        }
    }
    if scenario.requires.protected
        && let Some(note) = unprotected(config)
    {
        return Some((Verdict::NotApplicable, note));
    }
    if !config.target.frames_on_stdio() && needs_stdio(scenario) {
        return Some((
            Verdict::NotApplicable,
            "closes the server's stdin and expects it to exit: stdio only".into(),
        ));
    }
    let stateful = config.protocol.era() == Era::Stateful;
    if stateful && !config.target.frames_on_stdio() && requests_before_initialize(scenario) {
        return Some((
            Verdict::NotApplicable,
            "sends a request before initialize: over HTTP it has no session yet, and a server may refuse it with 400 (HTTP-015)".into(),
        ));
    }
    if !scenario.versions.contains(config.protocol) {
        return Some((
            Verdict::NotApplicable,
            format!(
                "applies to {}; this run speaks {}",
                scenario.versions, config.protocol
            ),
        ));
    }
    // Without its capability the case does not apply whatever the profile
    // binds: capability-gated cases learn that from the handshake first.
    let note = untriggered(scenario, config).filter(|_| !capability_gated(scenario))?;
    Some((Verdict::NotObserved, note))
}

/// Why the case cannot be provoked: a trigger it needs that the profile
/// does not bind.
fn untriggered(scenario: &Scenario, config: &RunConfig) -> Option<String> {
    let missing = unbound(
        &scenario.requires.triggers,
        config.profile.as_ref(),
        config.protocol.era(),
    );
    if missing.is_empty() || scenario.role == Role::Client {
        return None;
    }
    let unbound = match &config.profile {
        Some(profile) => format!("profile `{}` does not bind it", profile.name),
        None => "no profile was given (--profile)".to_owned(),
    };
    Some(format!("needs trigger {}; {unbound}", missing.join(", ")))
}

/// Whether the handshake decides that the case does not apply: it names
/// capabilities the server must (or must not) declare.
fn capability_gated(scenario: &Scenario) -> bool {
    let requires = &scenario.requires;
    scenario.handshake == Handshake::Auto
        && !(requires.capabilities.is_empty()
            && requires.absent_capabilities.is_empty()
            && requires.any_capabilities.is_empty())
}

/// Why a scenario for protected servers does not apply, if it does not.
fn unprotected(config: &RunConfig) -> Option<String> {
    let Some(auth) = config.auth.as_deref() else {
        if matches!(config.target, Target::Gateway(_)) {
            return Some(
                "needs the gateway's front protected by the harness's issuer (test-gateway --auth)".into(),
            );
        }
        return Some("needs the harness as the server's authorization server (--auth-issuer mock) or a token of the server's own (--token)".into());
    };
    match &auth.protection {
        Protection::Protected => None,
        Protection::Open => Some("the server serves requests without a token".into()),
        Protection::Unknown(why) | Protection::Silent(why) => {
            Some(format!("could not tell whether the server needs a token: {why}"))
        }
    }
}

/// Whether a scenario tests the stdio transport itself: a `close` step
/// that expects the server to exit.
fn needs_stdio(scenario: &Scenario) -> bool {
    scenario.steps.iter().any(|step| {
        matches!(
            step.kind,
            StepKind::Close {
                expect_exit_within: Some(_),
                ..
            }
        )
    })
}

/// The scenario makes its own handshake and sends something else first.
fn requests_before_initialize(scenario: &Scenario) -> bool {
    scenario.handshake == Handshake::Manual
        && scenario.steps.iter().find_map(|step| match &step.kind {
            StepKind::Request(request) => Some(request.method != "initialize"),
            _ => None,
        }) == Some(true)
}

/// The value at a dotted path (`tools.listChanged`), if declared: present,
/// not null and not `false`.
pub(super) fn dotted<'v>(value: &'v Value, path: &str) -> Option<&'v Value> {
    // An extension's identifier has dots of its own
    // (`extensions.io.modelcontextprotocol/tasks`): it is one key.
    let found = match path.strip_prefix("extensions.") {
        Some(extension) => value.get("extensions").and_then(|e| e.get(extension)),
        None => path.split('.').try_fold(value, |v, key| v.get(key)),
    };
    found.filter(|v| !v.is_null() && **v != Value::Bool(false))
}
