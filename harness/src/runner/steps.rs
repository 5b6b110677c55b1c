//! What each step does on the wire, and the checks it records.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use mcp_conform_core::judge::defaults;
use mcp_conform_core::judge::summarize;
use mcp_conform_core::judge::unanswered;
use mcp_conform_core::matcher::{MatchContext, Matcher, render_template};
use mcp_conform_core::scenario::Scenario;
use mcp_conform_core::scenario::model::{
    Capture, CheckTag, NotificationPattern, Order, PaginateStep, Reply, RequestStep, ResponseCheck, Role,
    ScriptedAnswer, Step, StepKind,
};
use mcp_conform_core::version::{Era, ProtocolVersion};
use mcp_conform_core::{Level, Verdict};
use mcp_mock_peers::session::{AskFate, MockSession, PeerRequest, Received, WaitError};
use mcp_mock_peers::transport::TransportError;
use serde_json::{Map, Value, json};
use tokio::time::Instant;

use super::RunConfig;
use super::answers::{AnswerSource, ScriptHandler, StepQueues, forbidden_name};
use super::frames::heard;
use super::gateway::Hub;
use super::latency::{TimeoutBounds, slowest_round_trip};
use super::outcome::Check;
use super::verify::{apply_captures, check_matcher, check_response};
use crate::auth::AuthContext;

mod backend;
mod http;
mod interaction;
mod silence;
mod task;
mod walk;

pub use http::transport_mismatch;
use interaction::Subscribed;
use walk::WalkProblems;

/// Why the steps stopped early.
#[derive(Debug, Clone, PartialEq)]
pub enum Stop {
    /// Carry on (or: everything ran).
    Done,
    /// The rest cannot run; the scenario's verdict is this, unless a check is worse.
    Halted { verdict: Verdict, note: String },
}

impl Stop {
    pub fn halted(verdict: Verdict, note: impl Into<String>) -> Stop {
        Stop::Halted {
            verdict,
            note: note.into(),
        }
    }
}

/// What to wait for.
pub enum Wait<'v> {
    Response(&'v Value),
    AnyResponse,
    Notification(usize),
    PeerRequest(usize),
    /// The acknowledgement of the listen request with this id (SUBS-001),
    /// or its response, whichever comes first.
    Acknowledgement(&'v Value),
    /// The end of the listen request with this id: its response, or a
    /// `notifications/cancelled` naming it.
    SubscriptionEnd(&'v Value),
    /// Nothing: serve the peer until the deadline.
    Idle,
}

/// What a wait found.
pub enum Got {
    Message(Received),
    PeerRequest(PeerRequest),
    /// What the wait was for holds (a condition on the session).
    Holds,
}

impl Got {
    /// The message received (for a peer request: its params).
    pub fn message(self) -> Value {
        match self {
            Got::Message(received) => received.message,
            Got::PeerRequest(request) => request.params.unwrap_or(Value::Null),
            Got::Holds => Value::Null,
        }
    }
}

/// How a response is judged: against `expect`, as a check or (`require`)
/// as a precondition.
#[derive(Clone, Copy)]
struct Judge<'e> {
    expect: Option<&'e ResponseCheck>,
    require: bool,
    /// What was sent is raw text, maybe no request at all (not JSON, no
    /// id): silence is judged at the expectation's own level, not as an
    /// unanswered request.
    raw: bool,
}

/// The state of one scenario run: the session, variables, checks so far.
pub struct StepRunner<'s> {
    pub scenario: &'s Scenario,
    pub session: MockSession,
    pub ctx: MatchContext,
    pub checks: Vec<Check>,
    pub version: ProtocolVersion,
    /// Ids of requests sent with `wait: false`, by name.
    pending: BTreeMap<String, (Value, &'s RequestStep)>,
    /// For each named request: how many notifications had arrived when it was sent.
    sent_at: BTreeMap<String, usize>,
    /// The peer's requests held by named `expect_request` steps, for `respond`.
    held: BTreeMap<String, PeerRequest>,
    /// Notifications already consumed by `expect_notifications`.
    notifications_seen: usize,
    /// The transcript's length when the step before the current one started.
    frames_seen: usize,
    /// Peer requests already consumed by `expect_request`.
    peer_requests_seen: usize,
    /// Scenario-level answers that served at least one request.
    used_answers: BTreeSet<usize>,
    /// Where the running step's queues of answers stand.
    queues: StepQueues,
    progress_tokens: u64,
    /// Requests of steps so far (for their ids' JSON type).
    step_requests: u64,
    /// What each `subscribe` step set up, by name.
    subscriptions: BTreeMap<String, Subscribed>,
    /// The server turned out not to speak the stateless era the run does
    /// (a legacy answer to discovery, an unmet `require`): its frames are
    /// not judged by that era's rules.
    pub other_era: bool,
    /// `role: gateway`: the mock servers behind the gateway.
    pub backends: Option<Hub>,
    /// Why steps were left out (a token the run cannot build), in order.
    pub skipped: Vec<String>,
    /// The backends' order when the step before the current one started.
    backend_mark: u64,
    /// Per backend, the order after the last request `expect_request` took.
    backend_requests_seen: BTreeMap<String, u64>,
    /// How long the peer has to answer the first request of the session.
    startup_timeout: Duration,
    /// Whether the peer's frames reach us in the order it wrote them (one
    /// pipe or stream), so a round trip proves what it sent before.
    ordered: bool,
    /// The bounds of a response wait fitted to the peer's latency.
    timeouts: TimeoutBounds,
    /// The tokens `http` steps present (`token`), when the harness is the
    /// server's authorization server.
    auth: Option<Arc<AuthContext>>,
}

impl<'s> StepRunner<'s> {
    pub fn new(scenario: &'s Scenario, session: MockSession, config: &RunConfig) -> Self {
        let mut ctx = MatchContext::default();
        ctx.vars
            .insert("protocol_version".into(), json!(config.protocol.as_str()));
        if let Some(profile) = &config.profile {
            ctx.vars.insert(
                "trigger".into(),
                json!(profile.triggers_for(config.protocol.era())),
            );
        }
        // What a raw message of the stateless era carries in `_meta` (nothing before).
        let meta: serde_json::Map<String, Value> = session
            .envelope()
            .map(|envelope| {
                envelope
                    .meta()
                    .into_iter()
                    .map(|(k, v)| (k.to_owned(), v))
                    .collect()
            })
            .unwrap_or_default();
        ctx.vars.insert("meta".into(), Value::Object(meta));
        StepRunner {
            scenario,
            session,
            ctx,
            checks: Vec::new(),
            version: config.protocol,
            pending: BTreeMap::new(),
            sent_at: BTreeMap::new(),
            held: BTreeMap::new(),
            notifications_seen: 0,
            frames_seen: 0,
            peer_requests_seen: 0,
            used_answers: BTreeSet::new(),
            queues: StepQueues::default(),
            progress_tokens: 0,
            step_requests: 0,
            subscriptions: BTreeMap::new(),
            other_era: false,
            backends: None,
            skipped: Vec::new(),
            backend_mark: 0,
            backend_requests_seen: BTreeMap::new(),
            startup_timeout: config.startup_timeout,
            ordered: config.target.frames_on_stdio(),
            timeouts: config.timeouts,
            auth: config.auth.clone(),
        }
    }

    /// Whether the run speaks the stateless era (2026-07-28+).
    pub fn is_stateless(&self) -> bool {
        self.version.era() == Era::Stateless
    }

    /// Runs steps in order until one halts the scenario.
    pub async fn run_steps(&mut self, steps: &'s [Step]) -> Stop {
        for step in steps {
            let stop = Box::pin(self.run_step(step)).await;
            if stop != Stop::Done {
                return stop;
            }
        }
        Stop::Done
    }

    async fn run_step(&mut self, step: &'s Step) -> Stop {
        // Expectations about notifications look at what arrived since the
        // step before them started (a request's progress, say), not earlier.
        let looks_back = matches!(
            step.kind,
            StepKind::ExpectNotifications { .. } | StepKind::ExpectSilence { .. }
        ) || backend::looks_back(&step.kind);
        if !looks_back {
            self.notifications_seen = self.session.notifications().len();
            self.frames_seen = self.session.transcript().len();
            if let Some(hub) = &self.backends {
                self.backend_mark = hub.mark();
            }
        }
        self.refresh_http_variables();
        match &step.kind {
            StepKind::Request(request) => self.request_step(request).await,
            StepKind::Notify { method, params } => {
                let params = match self.render(params.as_ref()) {
                    Ok(params) => params,
                    Err(stop) => return stop,
                };
                match self.session.notify(method, params).await {
                    Ok(_) => Stop::Done,
                    // The stateless era's change notifications need a listen stream.
                    Err(TransportError::Undeliverable(why)) => Stop::halted(Verdict::NotObserved, why),
                    Err(error) => {
                        self.peer_gone(&self.default_tag(step), &WaitError::Transport(error.to_string()))
                    }
                }
            }
            StepKind::SendRaw {
                text,
                expect,
                timeout,
            } => self.send_raw(step, text, expect.as_ref(), *timeout).await,
            StepKind::ExpectNotifications {
                patterns,
                order,
                since,
                within,
                tag,
            } => {
                let start = match since {
                    Some(name) => self.sent_at.get(name).copied().unwrap_or_default(),
                    None => self.notifications_seen,
                };
                self.expect_notifications(patterns, *order, start, *within, tag)
                    .await
            }
            StepKind::ExpectSilence { within, forbid, tag } => {
                self.expect_silence(*within, forbid, tag).await
            }
            StepKind::ExpectRequest {
                method,
                params,
                within,
                name,
                require,
                leaving_fails,
                tag,
            } => {
                let expected = ExpectedRequest {
                    method,
                    params: params.as_ref(),
                    name: name.as_deref(),
                    require: *require,
                    leaving_fails: *leaving_fails,
                };
                self.expect_request(expected, *within, tag).await
            }
            StepKind::Respond { to, reply } => self.respond(to, reply).await,
            StepKind::Await {
                request,
                expect,
                require,
                capture,
                timeout,
            } => {
                let Some((id, sent)) = self.pending.remove(request) else {
                    return Stop::halted(Verdict::Error, format!("no pending request named `{request}`"));
                };
                // The request's own expectation keeps its `require`.
                let (expect, require) = match expect {
                    Some(expect) => (Some(expect), *require),
                    None => (sent.expect.as_ref(), *require || sent.require),
                };
                let capture = if capture.is_empty() {
                    &sent.capture
                } else {
                    capture
                };
                let judge = Judge {
                    expect,
                    require,
                    raw: false,
                };
                self.await_response(&sent.method, &id, judge, capture, &sent.answers, *timeout)
                    .await
            }
            StepKind::Paginate(walk) => self.paginate(walk).await,
            StepKind::ForEach {
                list,
                binding,
                limit,
                steps,
            } => {
                let items = match self.ctx.vars.get(list) {
                    Some(Value::Array(items)) => items.clone(),
                    Some(other) => vec![other.clone()],
                    None => {
                        return Stop::halted(
                            Verdict::NotObserved,
                            format!("`${{{list}}}` was never captured, so for_each had nothing to walk"),
                        );
                    }
                };
                let limit = limit.map_or(usize::MAX, |l| l as usize);
                for item in items.into_iter().take(limit) {
                    self.ctx.vars.insert(binding.clone(), item);
                    let stop = self.run_steps(steps).await;
                    if stop != Stop::Done {
                        return stop;
                    }
                }
                Stop::Done
            }
            StepKind::Set(values) => {
                for (name, template) in values {
                    match self.render(Some(template)) {
                        Ok(value) => {
                            self.ctx.vars.insert(name.clone(), value.unwrap_or(Value::Null));
                        }
                        Err(stop) => return stop,
                    }
                }
                Stop::Done
            }
            StepKind::Sleep(duration) => {
                self.idle(*duration, &[]).await;
                Stop::Done
            }
            StepKind::Close {
                expect_exit_within,
                tag,
            } => {
                let within = expect_exit_within.unwrap_or(Duration::from_secs(2));
                let exit = self.session.close_and_wait(within).await;
                if expect_exit_within.is_some() {
                    let name = "the server exits when its stdin closes";
                    let exited = exit.code.is_some()
                        || (exit.signal.is_some() && !exit.description.contains("killed"));
                    self.checks.push(if exited {
                        Check::pass_for(name, tag)
                    } else {
                        let message = format!("still running {} ms after stdin closed", within.as_millis());
                        Check::broken_for(name, tag, message)
                    });
                }
                Stop::Done
            }
            StepKind::Http(exchange) => self.http_step(exchange).await,
            StepKind::Cancel { request, reason } => {
                self.cancel(request, reason.as_deref(), &self.default_tag(step))
                    .await
            }
            StepKind::Subscribe(subscribe) => self.subscribe(subscribe).await,
            StepKind::Unsubscribe { name, tag } => self.unsubscribe(name, tag).await,
            StepKind::Alive { timeout, tag } => self.alive(*timeout, tag).await,
            StepKind::ExpectSubscriptionEnd { name, within, tag } => {
                self.expect_subscription_end(name, *within, tag).await
            }
            StepKind::ExpectValue {
                name,
                value,
                matcher,
                tag,
            } => {
                let value = match self.render(Some(value)) {
                    Ok(value) => value,
                    Err(stop) => return stop,
                };
                let check = check_matcher(name.clone(), tag, matcher, value.as_ref(), &mut self.ctx);
                self.checks.push(check);
                Stop::Done
            }
            StepKind::Task(task) => self.task(task).await,
            StepKind::Backend(backend_step) => self.backend_step(step, backend_step).await,
        }
    }

    async fn request_step(&mut self, step: &'s RequestStep) -> Stop {
        let params = match self.render(step.params.as_ref()) {
            Ok(params) => params,
            Err(stop) => return stop,
        };
        let id = match &step.id {
            Some(id) => match self.render(Some(id)) {
                Ok(id) => id,
                Err(stop) => return stop,
            },
            None => Some(self.fresh_id()),
        };
        let params = match step.progress {
            true => Some(self.with_progress_token(params, id.as_ref())),
            false => params,
        };
        if let Some(name) = &step.name {
            self.sent_at
                .insert(name.clone(), self.session.notifications().len());
        }
        let id = match self.session.request(&step.method, params, id).await {
            Ok(id) => id,
            Err(error) => {
                let tag = self.expect_tag(step.expect.as_ref());
                return self.peer_gone(&tag, &WaitError::Transport(error.to_string()));
            }
        };
        if let Some(name) = &step.name {
            self.ctx.vars.insert(format!("{name}.id"), id.clone());
        }
        if step.tamper_request_state {
            self.session.tamper_next_retry(&id);
        }
        if !step.wait {
            let name = step.name.clone().unwrap_or_else(|| step.method.clone());
            self.pending.insert(name, (id, step));
            return Stop::Done;
        }
        let judge = Judge {
            expect: step.expect.as_ref(),
            require: step.require,
            raw: false,
        };
        let timeout = self.response_wait(step);
        self.await_response(&step.method, &id, judge, &step.capture, &step.answers, timeout)
            .await
    }

    /// How long a request step waits for its response: as the scenario
    /// says, or, when it says nothing and a response must come, fitted to
    /// the peer's latency (`latency`). A wait that admits silence is a
    /// window and is never fitted.
    fn response_wait(&self, step: &RequestStep) -> Duration {
        let admits_silence = step.expect.as_ref().is_some_and(|e| e.expect.admits_silence());
        match step.declared_timeout || admits_silence {
            true => step.timeout,
            false => self
                .timeouts
                .fit(step.timeout, slowest_round_trip(self.session.transcript())),
        }
    }

    /// Waits for the response to `id` while serving the peer, then judges it.
    async fn await_response(
        &mut self,
        method: &str,
        id: &Value,
        judge: Judge<'_>,
        capture: &[Capture],
        answers: &'s [ScriptedAnswer],
        timeout: Duration,
    ) -> Stop {
        let name = format!("response to {method}");
        // The first answer of a session also pays for the peer's start-up
        // (a manual handshake's initialize): give it the start-up budget.
        let timeout = if self.session.transcript().len() == 1 {
            timeout.max(self.startup_timeout)
        } else {
            timeout
        };
        let deadline = Instant::now() + timeout;
        let before = self.begin_answers();
        let waited = self.wait(Wait::Response(id), deadline, answers).await;
        self.check_required_answers(answers, before);
        let mut missing = format!(
            "no response to {method} (id {id}) within {} ms",
            timeout.as_millis()
        );
        if let Err(error) = &waited {
            // Asked inside a result (the stateless era's mock server): was it carried?
            match self.session.ask_fate(id) {
                Some(AskFate::NeverCarried) => {
                    let none = match error {
                        WaitError::TimedOut => format!("none came within {} ms", timeout.as_millis()),
                        other => format!("none came before this: {}", self.describe(other)),
                    };
                    let note = format!(
                        "{method} travels inside the result of a tools/call, prompts/get or resources/read of the client's in {}, and {none} (the plan's `calls` ask for one)",
                        self.version
                    );
                    return Stop::halted(Verdict::NotObserved, note);
                }
                Some(AskFate::LeftOut(times)) => missing.push_str(&format!(
                    ": the client's retries left out its input response ({times} times)"
                )),
                None => {}
            }
        }
        if waited.is_ok() && self.session.tamper_requested(id) && !self.session.was_tampered(id) {
            let note = format!("{method} was answered without a requestState to tamper with");
            return Stop::halted(Verdict::NotApplicable, note);
        }
        let tag = self.expect_tag(judge.expect);
        match self.judge_response(name, waited, judge, &tag, missing) {
            Ok(response) => {
                apply_captures(capture, &response, &mut self.ctx);
                Stop::Done
            }
            Err(stop) => stop,
        }
    }

    /// Judges what a wait for a response found: the response against the
    /// expectation, a timeout (a pass when no response may come), or the
    /// peer gone. Returns the response when there was one.
    fn judge_response(
        &mut self,
        name: String,
        waited: Result<Got, WaitError>,
        judge: Judge<'_>,
        tag: &CheckTag,
        missing: String,
    ) -> Result<Value, Stop> {
        let admits_silence = judge.expect.is_some_and(|e| e.expect.admits_silence());
        let (check, response) = match waited {
            Ok(got) => {
                let response = got.message();
                let check = match judge.expect {
                    Some(expect) => check_response(name, expect, &response, &mut self.ctx),
                    None => Check::pass_for(name, tag),
                };
                (check, Some(response))
            }
            Err(WaitError::TimedOut) if admits_silence => (Check::pass_for(name, tag), None),
            Err(error @ (WaitError::TimedOut | WaitError::Stray(_) | WaitError::Malformed { .. })) => {
                // Unanswered is a MUST failure whatever the expectation's
                // level, and a precondition that cannot hold stops the scenario.
                let check = self.unanswered(name, tag, &error, missing, judge.raw);
                let message = check.message.clone().unwrap_or_default();
                self.checks.push(check);
                return Err(match judge.require {
                    true => Stop::halted(Verdict::Pass, message),
                    false => Stop::Done,
                });
            }
            Err(error) => return Err(self.peer_gone(tag, &error)),
        };
        match (self.record(check, judge.require), response) {
            (Stop::Done, Some(response)) => Ok(response),
            (stop, _) => Err(stop),
        }
    }

    /// Records a check, or, for a precondition (`require`), records nothing
    /// and stops the scenario as not-observed when it does not hold.
    fn record(&mut self, check: Check, require: bool) -> Stop {
        if !require {
            self.checks.push(check);
            return Stop::Done;
        }
        match check.message {
            Some(message) if check.verdict != Verdict::Pass => {
                // A server that fails a precondition of the stateless era has
                // not shown it speaks that era: its frames are not judged by it.
                self.other_era = self.scenario.role == Role::Server && self.is_stateless();
                Stop::halted(
                    Verdict::NotObserved,
                    format!(
                        "the peer did not do what the scenario needs ({}): {message}",
                        check.name
                    ),
                )
            }
            _ => Stop::Done,
        }
    }

    async fn send_raw(
        &mut self,
        step: &Step,
        text: &str,
        expect: Option<&ResponseCheck>,
        timeout: Duration,
    ) -> Stop {
        let tag = expect.map_or_else(|| self.default_tag(step), |e| e.tag.clone());
        let mut bytes = text.as_bytes().to_vec();
        if !bytes.ends_with(b"\n") {
            bytes.push(b'\n');
        }
        if let Err(error) = self.session.send_raw(&bytes).await {
            return self.peer_gone(&tag, &WaitError::Transport(error.to_string()));
        }
        let Some(expect) = expect else { return Stop::Done };
        let deadline = Instant::now() + timeout;
        let waited = self.wait(Wait::AnyResponse, deadline, &[]).await;
        let missing = format!("no response within {} ms", timeout.as_millis());
        let judge = Judge {
            expect: Some(expect),
            require: false,
            raw: true,
        };
        match self.judge_response("response to the raw input".into(), waited, judge, &tag, missing) {
            Ok(_) => Stop::Done,
            Err(stop) => stop,
        }
    }

    async fn expect_notifications(
        &mut self,
        patterns: &[NotificationPattern],
        order: Order,
        start: usize,
        within: Duration,
        tag: &CheckTag,
    ) -> Stop {
        let deadline = Instant::now() + within;
        // With an upper bound the whole window must pass; otherwise stop once every minimum is met.
        let wait_full = patterns.iter().any(|p| p.max.is_some());
        let mut exit = None;
        loop {
            let seen = self.session.notifications().len();
            if !wait_full && self.minimums_met(patterns, start, order) {
                break;
            }
            match self.wait(Wait::Notification(seen), deadline, &[]).await {
                Ok(_) => {}
                Err(WaitError::TimedOut) => break,
                Err(error) => {
                    exit = Some(error);
                    break;
                }
            }
        }
        let received: Vec<Received> = self.session.notifications()[start..].to_vec();
        self.notifications_seen = self.session.notifications().len();
        let mut failures = Vec::new();
        let mut position = 0;
        for pattern in patterns {
            let matching: Vec<&Received> = received
                .iter()
                .skip(if order == Order::Ordered { position } else { 0 })
                .filter(|r| self.notification_matches(pattern, r))
                .collect();
            let count = matching.len() as u32;
            if let Some(first) = matching.first() {
                if order == Order::Ordered {
                    position = received.iter().position(|r| r.index == first.index).unwrap_or(0) + 1;
                }
                apply_captures(&pattern.capture, &first.message, &mut self.ctx);
            }
            if count < pattern.min {
                failures.push(format!(
                    "{}: expected at least {}, got {count}",
                    pattern.method, pattern.min
                ));
            }
            if let Some(max) = pattern.max.filter(|max| count > *max) {
                failures.push(format!("{}: expected at most {max}, got {count}", pattern.method));
            }
        }
        let name = format!(
            "notifications {}",
            patterns
                .iter()
                .map(|p| p.method.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
        if failures.is_empty() {
            self.checks.push(Check::pass_for(name, tag));
        } else {
            let got: Vec<&str> = received.iter().filter_map(|r| r.method()).collect();
            let message = format!(
                "{} within {} ms (received: {})",
                failures.join("; "),
                within.as_millis(),
                if got.is_empty() {
                    "nothing".into()
                } else {
                    got.join(", ")
                }
            );
            self.checks.push(Check::broken_for(name, tag, message));
        }
        match exit {
            Some(error) => self.peer_gone(tag, &error),
            None => Stop::Done,
        }
    }

    fn minimums_met(&self, patterns: &[NotificationPattern], start: usize, order: Order) -> bool {
        let received = &self.session.notifications()[start..];
        let mut position = 0;
        patterns.iter().all(|pattern| {
            let from = if order == Order::Ordered { position } else { 0 };
            let hits: Vec<usize> = received
                .iter()
                .enumerate()
                .skip(from)
                .filter(|(_, r)| self.notification_matches(pattern, r))
                .map(|(i, _)| i)
                .collect();
            if let Some(first) = hits.first() {
                position = first + 1;
            }
            hits.len() as u32 >= pattern.min
        })
    }

    fn notification_matches(&self, pattern: &NotificationPattern, received: &Received) -> bool {
        if received.method() != Some(pattern.method.as_str()) {
            return false;
        }
        let Some(matcher) = &pattern.params else {
            return true;
        };
        let mut trial = self.ctx.clone();
        matcher
            .eval(received.message.get("params"), &mut trial)
            .is_empty()
    }

    async fn expect_silence(&mut self, within: Duration, forbid: &[String], tag: &CheckTag) -> Stop {
        let exit = self.wait_out_silence(within, forbid).await;
        // Everything the peer sent since the step before started, but the
        // answers to our own requests: a notification for a call we just made
        // arrives while we wait for its response. A request we cancelled is
        // no longer ours to answer.
        let since = self.frames_seen;
        let heard = heard(self.session.transcript(), |i| i >= since, forbid);
        self.notifications_seen = self.session.notifications().len();
        let name = if forbid.is_empty() {
            "silence".to_owned()
        } else {
            format!("no {}", forbid.join(", "))
        };
        self.checks.push(if heard.is_empty() {
            Check::pass_for(name, tag)
        } else {
            let message = format!(
                "the peer sent {} within {} ms",
                heard.join(", "),
                within.as_millis()
            );
            Check::broken_for(name, tag, message)
        });
        match exit {
            // A client that leaves has kept silent until it left (a client told
            // a version it cannot use should leave): the check stands, and the
            // scenario ends with it.
            Some(WaitError::Closed(exit)) if self.scenario.role == Role::Client => {
                Stop::halted(Verdict::Pass, format!("the client left: {}", exit.description))
            }
            Some(error) => {
                let departure = defaults::departure_tag(tag, self.is_stateless());
                self.peer_gone(&departure, &error)
            }
            None => Stop::Done,
        }
    }

    async fn expect_request(
        &mut self,
        expected: ExpectedRequest<'_>,
        within: Duration,
        tag: &CheckTag,
    ) -> Stop {
        let method = expected.method;
        let name = format!("the peer sends {method}");
        let deadline = Instant::now() + within;
        loop {
            let seen = self.peer_requests_seen;
            if let Some(found) = self.session.peer_requests()[seen..]
                .iter()
                .position(|r| r.method == method)
            {
                let request = self.session.peer_requests()[seen + found].clone();
                self.peer_requests_seen = seen + found + 1;
                let check = match expected.params {
                    Some(matcher) => {
                        check_matcher(name, tag, matcher, request.params.as_ref(), &mut self.ctx)
                    }
                    None => Check::pass_for(name, tag),
                };
                if let Some(held) = expected.name {
                    let value =
                        json!({"id": request.id.to_value(), "method": method, "params": request.params});
                    self.ctx.vars.insert(held.to_owned(), value);
                    self.held.insert(held.to_owned(), request.clone());
                }
                return self.record(check.at_frame(Some(request.index)), expected.require);
            }
            let total = self.session.peer_requests().len();
            match self.wait(Wait::PeerRequest(total), deadline, &[]).await {
                Ok(_) => {}
                Err(WaitError::TimedOut) => {
                    let message = format!("no {method} within {} ms", within.as_millis());
                    let check = Check::broken_for(name, tag, message);
                    return self.record(check, expected.require);
                }
                Err(WaitError::Closed(exit)) if expected.leaving_fails => {
                    let message = format!("the peer left without sending {method}: {}", exit.description);
                    self.checks.push(Check::broken_for(name, tag, message));
                    return Stop::halted(Verdict::Pass, format!("the client left: {}", exit.description));
                }
                Err(error) => return self.peer_gone(tag, &error),
            }
        }
    }

    /// Answers a peer request held by a named `expect_request`. Answering
    /// one the script already answered would be a second response: an
    /// error of the scenario, not of the peer.
    async fn respond(&mut self, to: &str, reply: &Reply) -> Stop {
        let Some(request) = self.held.get(to) else {
            return Stop::halted(Verdict::Error, format!("no held request named `{to}`"));
        };
        let id = request.id.clone();
        if answered(self.session.transcript(), &id.to_value()) {
            let note = format!(
                "`{to}` ({}) was already answered by the script; give it `reply: no_reply` to answer it with `respond`",
                request.method
            );
            return Stop::halted(Verdict::Error, note);
        }
        let reply = match reply {
            Reply::Result(template) => match self.render(Some(template)) {
                Ok(result) => Reply::Result(result.unwrap_or(Value::Null)),
                Err(stop) => return stop,
            },
            other => other.clone(),
        };
        match self.session.answer(&id, reply).await {
            Ok(()) => Stop::Done,
            Err(error) => {
                let tag = self.expect_tag(None);
                self.peer_gone(&tag, &error)
            }
        }
    }

    async fn paginate(&mut self, walk: &PaginateStep) -> Stop {
        let tag = &walk.tag;
        let name = format!("{} walked to its end", walk.method);
        let base = match self.render(walk.params.as_ref()) {
            Ok(params) => params.unwrap_or_else(|| json!({})),
            Err(stop) => return stop,
        };
        let mut items: Vec<Value> = Vec::new();
        let mut problems = WalkProblems::default();
        let mut cursor: Option<Value> = None;
        let mut pages = 0;
        // A long list of fresh pages is no fault (the spec sets no length):
        // a walk that reaches `max_pages` stops there, not judged.
        let mut cut_short = false;
        loop {
            if pages == walk.max_pages {
                cut_short = true;
                break;
            }
            let mut params = base.clone();
            if let (Some(cursor), Some(object)) = (&cursor, params.as_object_mut()) {
                object.insert("cursor".into(), cursor.clone());
            }
            let id = match self.session.request(&walk.method, Some(params), None).await {
                Ok(id) => id,
                Err(error) => return self.peer_gone(tag, &WaitError::Transport(error.to_string())),
            };
            pages += 1;
            let deadline = Instant::now() + walk.timeout;
            let response = match self.wait(Wait::Response(&id), deadline, &[]).await {
                Ok(got) => got.message(),
                Err(WaitError::TimedOut) => {
                    problems.listing.push(format!(
                        "no response to page {pages} within {} ms",
                        walk.timeout.as_millis()
                    ));
                    break;
                }
                Err(error @ WaitError::Malformed { .. }) => {
                    problems
                        .listing
                        .push(format!("page {pages}: {}", self.describe(&error)));
                    break;
                }
                Err(error) => return self.peer_gone(tag, &error),
            };
            let Some(result) = response.get("result") else {
                problems.refused(pages, cursor.is_some(), &summarize(&response));
                break;
            };
            if let Some(matcher) = &walk.expect_page {
                self.keep_failure(format!("{} page {pages}", walk.method), tag, matcher, result);
            }
            let page_items = match result.get(&walk.items) {
                Some(Value::Array(page)) => page.clone(),
                _ => {
                    problems
                        .listing
                        .push(format!("page {pages} has no `{}` array", walk.items));
                    break;
                }
            };
            for item in &page_items {
                if let Some(key) = walk.key.as_deref().and_then(|pointer| item.pointer(pointer)) {
                    problems.item(key, pages);
                }
                if let Some(matcher) = &walk.expect_item {
                    self.keep_failure(format!("an item of {}", walk.method), tag, matcher, item);
                }
            }
            items.extend(page_items);
            match result.get("nextCursor") {
                None | Some(Value::Null) => break,
                Some(next) if !problems.follows(next, pages) => break,
                Some(next) => cursor = Some(next.clone()),
            }
        }
        if let Some(var) = &walk.capture {
            self.ctx.vars.insert(var.clone(), Value::Array(items.clone()));
        }
        if let Some(matcher) = &walk.expect_items {
            let all = Value::Array(items);
            let check = check_matcher(
                format!("the items of {}", walk.method),
                tag,
                matcher,
                Some(&all),
                &mut self.ctx,
            );
            self.checks.push(check);
        }
        if !problems.paging.is_empty() {
            let paging = defaults::paging_tag(tag);
            self.checks
                .push(Check::broken_for(&name, &paging, problems.paging.join("\n")));
        }
        // A list not seen to its end gets no pass from the step's rule.
        let unseen = if cut_short {
            Some(format!(
                "still a new nextCursor after {pages} pages; the rest is not walked"
            ))
        } else {
            problems
                .stopped_at
                .map(|page| format!("paging broke at page {page}; the rest is not walked"))
        };
        self.checks.push(if !problems.listing.is_empty() {
            Check::broken_for(name, tag, problems.listing.join("\n"))
        } else if let Some(note) = unseen {
            Check::broken_for(name, tag, note).with_verdict(Verdict::NotObserved)
        } else {
            Check::pass_for(name, tag)
        });
        Stop::Done
    }

    /// Matches a page or an item of a walk; only a divergence is recorded,
    /// the walk itself gets one summary check.
    fn keep_failure(&mut self, name: String, tag: &CheckTag, matcher: &Matcher, actual: &Value) {
        let check = check_matcher(name, tag, matcher, Some(actual), &mut self.ctx);
        if check.verdict != Verdict::Pass {
            self.checks.push(check);
        }
    }

    /// Serves the peer for `duration`; returns how it went away, if it did.
    pub async fn idle(&mut self, duration: Duration, answers: &'s [ScriptedAnswer]) -> Option<WaitError> {
        let deadline = Instant::now() + duration;
        match self.wait(Wait::Idle, deadline, answers).await {
            Err(WaitError::TimedOut) | Ok(_) => None,
            Err(error) => Some(error),
        }
    }

    /// Waits for something while answering the peer's requests from the
    /// script; records the checks the answers make.
    pub async fn wait(
        &mut self,
        wait: Wait<'_>,
        deadline: Instant,
        answers: &'s [ScriptedAnswer],
    ) -> Result<Got, WaitError> {
        let mut handler = script_handler(self.scenario, answers, &mut self.ctx, &mut self.queues);
        let session = &mut self.session;
        let got = match wait {
            Wait::Response(id) => session
                .wait_response(id, deadline, &mut handler)
                .await
                .map(Got::Message),
            Wait::AnyResponse => session
                .wait_any_response(deadline, &mut handler)
                .await
                .map(Got::Message),
            Wait::Notification(seen) => session
                .wait_notification(seen, deadline, &mut handler)
                .await
                .map(Got::Message),
            Wait::PeerRequest(seen) => session
                .wait_peer_request(seen, deadline, &mut handler)
                .await
                .map(Got::PeerRequest),
            Wait::Acknowledgement(id) => session
                .wait_until(deadline, &mut handler, |s| {
                    interaction::acknowledgement(s, id).is_some() || s.response_to(id).is_some()
                })
                .await
                .map(|()| {
                    Got::Message(Received {
                        index: 0,
                        message: Value::Null,
                    })
                }),
            Wait::SubscriptionEnd(id) => session
                .wait_until(deadline, &mut handler, |s| {
                    interaction::cancellation(s, id).is_some() || s.response_to(id).is_some()
                })
                .await
                .map(|()| Got::Holds),
            Wait::Idle => match session.idle_until(deadline, &mut handler).await {
                Some(exit) => Err(WaitError::Closed(exit)),
                None => Err(WaitError::TimedOut),
            },
        };
        let (checks, used) = (handler.checks, handler.used);
        self.settle_answers(checks, used);
        got
    }

    /// Answers the `inputRequests` of `task`, the state the last frame
    /// brought, from the script as [`Self::wait`] answers the peer's
    /// requests: the responses by key, and whether the script gives up.
    pub(super) fn answer_inlined(
        &mut self,
        task: &Value,
        answers: &'s [ScriptedAnswer],
    ) -> (Map<String, Value>, bool) {
        let index = self.session.transcript().len().saturating_sub(1);
        let mut handler = script_handler(self.scenario, answers, &mut self.ctx, &mut self.queues);
        let answered = self.session.answer_input_requests(task, index, &mut handler);
        let (checks, used) = (handler.checks, handler.used);
        self.settle_answers(checks, used);
        answered
    }

    /// Keeps the checks answering made, and which scenario answers served.
    fn settle_answers(&mut self, checks: Vec<Check>, used: Vec<AnswerSource>) {
        self.checks.extend(checks);
        self.used_answers
            .extend(used.into_iter().filter_map(|source| match source {
                AnswerSource::Scenario(index) => Some(index),
                AnswerSource::Step(_) => None,
            }));
    }

    /// Starts serving a step's answers: its queues start over. Returns the
    /// count of the peer's requests so far, for [`Self::check_required_answers`].
    pub(super) fn begin_answers(&mut self) -> usize {
        self.queues.reset();
        self.session.peer_requests().len()
    }

    /// A step's answers that expect something of the peer's request must
    /// have been asked for during the step: when they were not, a required
    /// one is broken and any other is not-observed. An answer of a queue
    /// must have been reached, and a request past a queue's end is broken.
    fn check_required_answers(&mut self, answers: &[ScriptedAnswer], before: usize) {
        let asked: BTreeSet<&str> = self.session.peer_requests()[before..]
            .iter()
            .map(|r| r.method.as_str())
            .collect();
        let queues = &self.queues;
        let missing: Vec<Check> = answers
            .iter()
            .enumerate()
            .filter_map(|(index, answer)| match queues.left_unused(answers, index) {
                Some(why) => unasked(answer).map(|check| Check {
                    message: Some(why),
                    ..check
                }),
                None if asked.contains(answer.method.as_str()) => None,
                None => unasked(answer),
            })
            .collect();
        self.checks.extend(missing);
        let requirement = defaults::step_requirement(self.scenario);
        let overflow = self.queues.overflow_checks(answers, &requirement);
        self.checks.extend(overflow);
    }

    /// The same for the scenario's answers, at its end.
    pub fn finish_answers(&mut self) {
        let used = &self.used_answers;
        let missing: Vec<Check> = self
            .scenario
            .answers
            .iter()
            .enumerate()
            .filter(|(index, _)| !used.contains(index))
            .filter_map(|(_, answer)| unasked(answer))
            .collect();
        self.checks.extend(missing);
    }

    /// The scenario's budget ran out in the middle of a step.
    pub fn timed_out(&mut self, budget: Duration) {
        let requirement = defaults::step_requirement(self.scenario);
        let message = format!(
            "the scenario did not finish within its {} ms budget",
            budget.as_millis()
        );
        self.checks.push(Check::broken(
            "scenario budget",
            &requirement,
            Level::Must,
            self.scenario.span,
            message,
        ));
    }

    /// The peer went away (or we could not write to it): a failed check
    /// tagged like the expectation in progress, and the scenario stops.
    pub fn peer_gone(&mut self, tag: &CheckTag, error: &WaitError) -> Stop {
        let message = self.describe(error);
        if self.scenario.role == Role::Client && !self.session.flooded() {
            // A client may leave when its own work is done (one-shot CLIs do):
            // what the remaining steps wanted is then not observed, not broken.
            // One we cut for flooding did not leave: it is judged as a server.
            return Stop::halted(Verdict::NotObserved, format!("the client left early: {message}"));
        }
        self.checks
            .push(Check::broken_for("the peer stays up", tag, message.clone()));
        Stop::halted(Verdict::Pass, message)
    }

    /// The check of a request `error` left without a usable response;
    /// `missing` says none came. An answer that is no JSON-RPC breaks
    /// RPC-001; silence, or an answer under an id never sent, the request's
    /// own rule ([`unanswered`]), or its expectation's for `raw` text.
    pub(super) fn unanswered(
        &self,
        name: String,
        tag: &CheckTag,
        error: &WaitError,
        missing: String,
        raw: bool,
    ) -> Check {
        let message = match error {
            WaitError::TimedOut => missing,
            WaitError::Malformed { answer, .. } => {
                return unanswered::not_json_rpc(name, tag.span, &answer.message, self.describe(error));
            }
            other => format!("{missing}: {}", self.describe(other)),
        };
        match raw {
            true => Check::broken_for(name, tag, message),
            false => unanswered::no_response(name, tag, message),
        }
    }

    /// Words for a wait error.
    pub fn describe(&self, error: &WaitError) -> String {
        match error {
            WaitError::TimedOut => "timed out".into(),
            WaitError::Closed(exit) => format!("the peer went away: {}", exit.description),
            WaitError::Transport(message) => message.clone(),
            WaitError::Stray(got) => format!(
                "a response came with id {}, which was never sent",
                got.message.get("id").unwrap_or(&Value::Null)
            ),
            WaitError::Malformed { answer, invalid } => format!(
                "the answer under id {} is not JSON-RPC 2.0: {invalid}",
                answer.message.get("id").unwrap_or(&Value::Null)
            ),
        }
    }

    /// The id of a step's request: strings and integers in turn (a string
    /// first), so a peer must echo both JSON types as they came (RPC-004).
    fn fresh_id(&mut self) -> Value {
        self.step_requests += 1;
        match self.step_requests % 2 {
            1 => json!(format!("mcp-conform-{}", self.step_requests)),
            _ => self.session.next_id(),
        }
    }

    /// Adds a fresh progress token, of the other JSON type than the
    /// request's id: both types are sent, and must come back as they went.
    fn with_progress_token(&mut self, params: Option<Value>, id: Option<&Value>) -> Value {
        self.progress_tokens += 1;
        let token = match id.is_some_and(Value::is_string) {
            true => json!(self.progress_tokens),
            false => json!(format!("mcp-conform-progress-{}", self.progress_tokens)),
        };
        let mut params = params.unwrap_or_else(|| json!({}));
        if let Some(object) = params.as_object_mut() {
            let meta = object.entry("_meta").or_insert_with(|| json!({}));
            meta["progressToken"] = token.clone();
        }
        self.ctx.vars.insert("progress_token".into(), token);
        params
    }

    /// Substitutes variables in a value to send. An undefined variable means
    /// an earlier step did not capture what this one needs: not observed.
    fn render(&self, template: Option<&Value>) -> Result<Option<Value>, Stop> {
        template
            .map(|t| render_template(t, &self.ctx.vars))
            .transpose()
            .map_err(|undefined| Stop::halted(Verdict::NotObserved, format!("cannot send: {undefined}")))
    }

    fn expect_tag(&self, expect: Option<&ResponseCheck>) -> CheckTag {
        expect.map_or_else(|| defaults::response_tag(self.scenario.span), |e| e.tag.clone())
    }

    fn default_tag(&self, step: &Step) -> CheckTag {
        CheckTag {
            level: Level::Must,
            requirement: defaults::step_requirement(self.scenario),
            span: step.span,
        }
    }
}

/// What an `expect_request` step looks for.
struct ExpectedRequest<'e> {
    method: &'e str,
    params: Option<&'e Matcher>,
    /// Holds the request under this name.
    name: Option<&'e str>,
    require: bool,
    /// A peer that leaves instead breaks the check.
    leaving_fails: bool,
}

/// Whether we already sent a response with this id.
fn answered(transcript: &[mcp_conform_core::wire::Frame], id: &Value) -> bool {
    transcript
        .iter()
        .filter(|f| f.direction == mcp_conform_core::wire::Direction::Sent)
        .filter_map(|f| serde_json::from_slice::<Value>(&f.raw).ok())
        .any(|m| m.get("method").is_none() && m.get("id") == Some(id))
}

/// The check for a scripted answer the peer never asked for.
pub(super) fn unasked(answer: &ScriptedAnswer) -> Option<Check> {
    let expect = answer.expect.as_ref()?;
    let tag = &expect.tag;
    if expect.forbidden {
        let name = forbidden_name(&answer.method);
        return Some(Check::pass(name, &tag.requirement, tag.level, answer.span));
    }
    let name = format!("the peer asks for {}", answer.method);
    let message = format!("the peer never sent {}", answer.method);
    let check = Check::broken(name, &tag.requirement, tag.level, answer.span, message);
    Some(if expect.required {
        check
    } else {
        check.with_verdict(Verdict::NotObserved)
    })
}

/// What answers the peer's requests during a step: the step's answers
/// (queued), then the scenario's.
fn script_handler<'a>(
    scenario: &'a Scenario,
    answers: &'a [ScriptedAnswer],
    ctx: &'a mut MatchContext,
    queues: &'a mut StepQueues,
) -> ScriptHandler<'a> {
    ScriptHandler {
        step: answers,
        scenario: &scenario.answers,
        vars: ctx,
        declared: &scenario.client.capabilities,
        checks: Vec::new(),
        used: Vec::new(),
        queues: Some(queues),
    }
}
