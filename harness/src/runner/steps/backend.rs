//! Steps on a backend's side of a gateway (`role: gateway`): the backend
//! sends a request or a notification to the gateway, expects what reaches
//! it, answers a request it held, or takes new answers. The front keeps
//! being served (its scripted answers) while a backend step waits.

use std::time::Duration;

use mcp_conform_core::Verdict;
use mcp_conform_core::matcher::Matcher;
use mcp_conform_core::scenario::model::{
    BackendAction, BackendStep, Capture, CheckTag, Reply, ResponseCheck, Step, StepKind,
};
use mcp_mock_peers::session::{PeerRequest, Received, WaitError};
use serde_json::Value;
use tokio::sync::oneshot;
use tokio::sync::oneshot::error::TryRecvError;
use tokio::time::Instant;

use super::super::gateway::{Hub, TICK};
use super::super::outcome::Check;
use super::super::scenario::dotted;
use super::super::verify::{apply_captures, check_matcher};
use super::{Got, Judge, StepRunner, Stop};

/// Whether a step judges what arrived since the step before it started
/// (a call's request reaches a backend while the front waits for its
/// answer, in the step before).
pub fn looks_back(kind: &StepKind) -> bool {
    matches!(
        kind,
        StepKind::Backend(BackendStep {
            action: BackendAction::ExpectSilence { .. } | BackendAction::ExpectRequest { .. },
            ..
        })
    )
}

impl<'s> StepRunner<'s> {
    pub(super) async fn backend_step(&mut self, step: &'s Step, backend: &'s BackendStep) -> Stop {
        let Some(hub) = self.backends.clone() else {
            return Stop::halted(Verdict::Error, "a backend step outside a gateway run");
        };
        let name = backend.backend.as_str();
        match &backend.action {
            BackendAction::Request {
                method,
                params,
                expect,
                capture,
                timeout,
            } => {
                let sent = Sent {
                    method,
                    params: params.as_ref(),
                    expect: expect.as_ref(),
                    capture,
                    timeout: *timeout,
                };
                self.backend_request(&hub, name, step, sent).await
            }
            BackendAction::Notify { method, params } => {
                let params = match self.render(params.as_ref()) {
                    Ok(params) => params,
                    Err(stop) => return stop,
                };
                if hub.notify(name, method, params.as_ref()) == 0 {
                    let note = format!(
                        "the gateway holds no connection open to backend {name}, so its {method} cannot reach the gateway"
                    );
                    return Stop::halted(Verdict::NotObserved, note);
                }
                Stop::Done
            }
            BackendAction::ExpectRequest {
                method,
                params,
                within,
                tag,
            } => {
                self.backend_expect_request(&hub, name, method, params.as_ref(), *within, tag)
                    .await
            }
            BackendAction::ExpectSilence { within, forbid, tag } => {
                if let Some(error) = self.idle(*within, &[]).await {
                    return self.peer_gone(tag, &error);
                }
                let heard = hub.heard_since(name, self.backend_mark, forbid);
                let what = match forbid.is_empty() {
                    true => "nothing".to_owned(),
                    false => format!("no {}", forbid.join(", ")),
                };
                let check_name = format!("{what} reaches backend {name}");
                self.checks.push(if heard.is_empty() {
                    Check::pass(check_name, &tag.requirement, tag.level, tag.span)
                } else {
                    let message = format!("backend {name} received {}", heard.join(", "));
                    broken(check_name, tag, message)
                });
                Stop::Done
            }
            BackendAction::Reply { method, reply } => {
                let reply = match reply {
                    Reply::Result(template) => match self.render(Some(template)) {
                        Ok(result) => Reply::Result(result.unwrap_or(Value::Null)),
                        Err(stop) => return stop,
                    },
                    other => other.clone(),
                };
                if !hub.reply(name, method, reply) {
                    let tag = self.default_tag(step);
                    let message = format!("backend {name} holds no {method} request to answer");
                    let check_name = format!("backend {name} answers {method}");
                    self.checks.push(broken(check_name, &tag, message));
                }
                Stop::Done
            }
            BackendAction::Script(answers) => {
                hub.script(name, answers);
                Stop::Done
            }
        }
    }

    /// The backend sends a request to the gateway on its active connection
    /// and judges the answer.
    async fn backend_request(&mut self, hub: &Hub, name: &str, step: &Step, sent: Sent<'_>) -> Stop {
        let tag = sent
            .expect
            .map_or_else(|| self.default_tag(step), |e| e.tag.clone());
        let Some(connection) = hub.active_connection(name) else {
            let message = format!(
                "the gateway holds no connection open to backend {name} to carry its {}",
                sent.method
            );
            let check_name = format!("backend {name} sends {}", sent.method);
            self.checks.push(broken(check_name, &tag, message));
            return Stop::Done;
        };
        let declared = hub.client_capabilities(name, connection);
        let needs = &self.scenario.requires.client_capabilities;
        if let Some(missing) = needs.iter().find(|path| dotted(&declared, path).is_none()) {
            let note = format!("the gateway does not declare the `{missing}` capability to backend {name}");
            return Stop::halted(Verdict::NotApplicable, note);
        }
        let params = match self.render(sent.params) {
            Ok(params) => params,
            Err(stop) => return stop,
        };
        let answer = hub.request(name, connection, sent.method, params);
        let deadline = Instant::now() + sent.timeout;
        let waited = match self.serve_front_until(answer, deadline).await {
            Ok(waited) => waited,
            Err(error) => return self.peer_gone(&tag, &error),
        };
        let check_name = format!("backend {name}: response to {}", sent.method);
        let missing = format!(
            "backend {name} got no response to {} within {} ms",
            sent.method,
            sent.timeout.as_millis()
        );
        let waited = waited.map(|message| Got::Message(Received { index: 0, message }));
        let judge = Judge {
            expect: sent.expect,
            require: false,
            raw: false,
        };
        match self.judge_response(check_name, waited, judge, &tag, missing) {
            Ok(response) => {
                apply_captures(sent.capture, &response, &mut self.ctx);
                Stop::Done
            }
            // The backend's connection closing is the gateway's business, not the front's end.
            Err(Stop::Halted { .. }) | Err(Stop::Done) => Stop::Done,
        }
    }

    /// Serves the front until the backend's answer comes or the deadline
    /// passes; `Err` when the front went away.
    async fn serve_front_until(
        &mut self,
        mut answer: oneshot::Receiver<Result<Value, WaitError>>,
        deadline: Instant,
    ) -> Result<Result<Value, WaitError>, WaitError> {
        loop {
            match answer.try_recv() {
                Ok(result) => return Ok(result),
                Err(TryRecvError::Closed) => {
                    return Ok(Err(WaitError::Transport("the backend's connection ended".into())));
                }
                Err(TryRecvError::Empty) => {}
            }
            if Instant::now() >= deadline {
                return Ok(Err(WaitError::TimedOut));
            }
            if let Some(error) = self.idle(TICK, &[]).await {
                return Err(error);
            }
        }
    }

    /// The gateway must send the backend a request of `method` (whose
    /// params match, when given) since the step before started.
    async fn backend_expect_request(
        &mut self,
        hub: &Hub,
        name: &str,
        method: &str,
        params: Option<&Matcher>,
        within: Duration,
        tag: &CheckTag,
    ) -> Stop {
        let check_name = format!("backend {name} receives {method}");
        let deadline = Instant::now() + within;
        loop {
            // Past what an earlier expect_request took.
            let taken = self.backend_requests_seen.get(name).copied().unwrap_or(0);
            let candidates = hub.requests_since(name, taken.max(self.backend_mark), method);
            let fits = |request: &PeerRequest| {
                params.is_none_or(|m| m.eval(request.params.as_ref(), &mut self.ctx.clone()).is_empty())
            };
            let found = candidates.iter().find(|(_, r)| fits(r)).or(candidates.first());
            let expired = Instant::now() >= deadline;
            if let Some((order, request)) = found.filter(|(_, r)| expired || fits(r)) {
                self.backend_requests_seen.insert(name.to_owned(), order + 1);
                let check = match params {
                    Some(matcher) => {
                        check_matcher(check_name, tag, matcher, request.params.as_ref(), &mut self.ctx)
                    }
                    None => Check::pass(check_name, &tag.requirement, tag.level, tag.span),
                };
                self.checks.push(check);
                return Stop::Done;
            }
            if expired {
                let message = format!(
                    "no {method} reached backend {name} within {} ms",
                    within.as_millis()
                );
                self.checks.push(broken(check_name, tag, message));
                return Stop::Done;
            }
            if let Some(error) = self.idle(TICK, &[]).await {
                return self.peer_gone(tag, &error);
            }
        }
    }
}

/// A broken expectation of a backend step.
fn broken(name: String, tag: &CheckTag, message: String) -> Check {
    Check::broken(name, &tag.requirement, tag.level, tag.span, message)
}

/// A backend request step's parts.
struct Sent<'a> {
    method: &'a str,
    params: Option<&'a Value>,
    expect: Option<&'a ResponseCheck>,
    capture: &'a [Capture],
    timeout: Duration,
}
