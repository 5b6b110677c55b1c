//! Steps said at the level of the interaction, whose wire form depends on
//! the era: cancelling a request, subscribing to changes, checking that the
//! server still answers. A scenario written with them runs unchanged on
//! every version.

use mcp_conform_core::Verdict;
use mcp_conform_core::judge::defaults;
use mcp_conform_core::judge::summarize;
use mcp_conform_core::matcher::Matcher;
use mcp_conform_core::protocol::meta_key::CLIENT_CAPABILITIES;
use mcp_conform_core::protocol::subscriptions::{RESOURCE_SUBSCRIPTIONS, TASK_IDS, promises_listen};
use mcp_conform_core::protocol::tasks_extension::EXTENSION;
use mcp_conform_core::scenario::model::{CheckTag, ResponseCheck, ResponseExpect, SubscribeStep};
use mcp_conform_core::scenario::validate::STEP_TIMEOUT;
use mcp_mock_peers::session::{MockSession, Received, WaitError};
use serde_json::{Value, json};
use tokio::time::Instant;

use super::super::outcome::Check;
use super::{Judge, StepRunner, Stop, Wait};

const LISTEN: &str = "subscriptions/listen";
const ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
const SUBSCRIPTION_ID: &str = "/_meta/io.modelcontextprotocol~1subscriptionId";

/// What a `subscribe` step set up, for its `unsubscribe`.
#[derive(Debug, Clone)]
pub(super) enum Subscribed {
    /// Stateful versions: the resources subscribed to.
    Resources(Vec<String>),
    /// The stateless era: the listen request, whose stream stays open.
    Listen(Value),
}

/// The `notifications/cancelled` with which the server ended listen request
/// `id`, if it has arrived.
pub(super) fn cancellation<'s>(session: &'s MockSession, id: &Value) -> Option<&'s Received> {
    session.notifications().iter().find(|n| {
        n.method() == Some("notifications/cancelled") && n.message.pointer("/params/requestId") == Some(id)
    })
}

/// The acknowledgement of listen request `id`, if it has arrived.
pub(super) fn acknowledgement<'s>(session: &'s MockSession, id: &Value) -> Option<&'s Received> {
    session.notifications().iter().find(|n| {
        n.method() == Some(ACKNOWLEDGED)
            && n.message.get("params").and_then(|p| p.pointer(SUBSCRIPTION_ID)) == Some(id)
    })
}

/// The end of a scenario whose listen stream the server did not agree to
/// (a subscribe step's `require`).
fn not_agreed(id: &Value, why: &str) -> Stop {
    let message = format!("the server did not agree to the whole filter of listen request {id}: {why}");
    Stop::halted(Verdict::NotApplicable, message)
}

/// Whether an acknowledged filter agrees to every flag `requested` sets and
/// every item it lists.
fn agrees_to_all(requested: &Value, agreed: &Value) -> bool {
    let members = requested.as_object().into_iter().flatten();
    members.into_iter().all(|(member, wanted)| match wanted {
        Value::Bool(true) => agreed.get(member) == Some(&Value::Bool(true)),
        Value::Array(items) => {
            let listed = agreed.get(member).and_then(Value::as_array);
            items.iter().all(|item| listed.is_some_and(|l| l.contains(item)))
        }
        _ => true,
    })
}

impl StepRunner<'_> {
    /// Cancels the pending request named `request`.
    pub(super) async fn cancel(&mut self, request: &str, reason: Option<&str>, tag: &CheckTag) -> Stop {
        let Some((id, _)) = self.pending.get(request) else {
            return Stop::halted(Verdict::Error, format!("no pending request named `{request}`"));
        };
        let id = id.clone();
        match self.session.cancel(&id, reason).await {
            Ok(()) => Stop::Done,
            Err(error) => self.peer_gone(tag, &WaitError::Transport(error.to_string())),
        }
    }

    pub(super) async fn subscribe(&mut self, step: &SubscribeStep) -> Stop {
        let filter = match self.render(Some(&step.notifications)) {
            Ok(filter) => filter.unwrap_or_else(|| json!({})),
            Err(stop) => return stop,
        };
        if self.is_stateless() {
            return self.listen(step, filter).await;
        }
        let uris: Vec<String> = filter
            .get(RESOURCE_SUBSCRIPTIONS)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|uri| uri.as_str().map(str::to_owned))
            .collect();
        // List changes need no request before 2026-07-28: the capability is the subscription.
        self.subscriptions
            .insert(step.name.clone(), Subscribed::Resources(uris.clone()));
        self.ctx.vars.insert(format!("{}.id", step.name), Value::Null);
        for uri in uris {
            let params = json!({ "uri": uri });
            let stop = self
                .request_result("resources/subscribe", params, step.timeout, &step.tag, &step.tag)
                .await;
            if stop != Stop::Done {
                return stop;
            }
        }
        Stop::Done
    }

    /// Opens a listen stream and waits for its acknowledgement (SUBS-001).
    async fn listen(&mut self, step: &SubscribeStep, filter: Value) -> Stop {
        let tag = defaults::listen_tag(&step.tag);
        let mut params = json!({ "notifications": &filter });
        // Task states are the tasks extension's: a stream that follows tasks
        // is asked for by a request that declares it.
        if filter.get(TASK_IDS).is_some() {
            params["_meta"] = json!({ CLIENT_CAPABILITIES: { "extensions": { EXTENSION: {} } } });
        }
        let id = match self.session.request(LISTEN, Some(params), None).await {
            Ok(id) => id,
            Err(error) => return self.peer_gone(&tag, &WaitError::Transport(error.to_string())),
        };
        self.subscriptions
            .insert(step.name.clone(), Subscribed::Listen(id.clone()));
        self.ctx.vars.insert(format!("{}.id", step.name), id.clone());
        let name = format!("{LISTEN} is acknowledged");
        let deadline = Instant::now() + step.timeout;
        match self.wait(Wait::Acknowledgement(&id), deadline, &[]).await {
            Ok(_) => {}
            Err(WaitError::TimedOut) if step.require => return not_agreed(&id, "no acknowledgement came"),
            Err(WaitError::TimedOut) => {
                let message = format!(
                    "no {ACKNOWLEDGED} for listen request {id} within {} ms",
                    step.timeout.as_millis()
                );
                self.checks.push(Check::broken_for(name, &tag, message));
                return Stop::Done;
            }
            Err(error) => return self.peer_gone(&tag, &error),
        }
        let acknowledged =
            acknowledgement(&self.session, &id).map(|ack| &ack.message["params"]["notifications"]);
        if step.require {
            return match acknowledged {
                Some(agreed) if agrees_to_all(&filter, agreed) => Stop::Done,
                Some(agreed) => not_agreed(&id, &format!("it agreed to {agreed} only")),
                None => not_agreed(&id, "it was answered without an acknowledgement"),
            };
        }
        let check = match acknowledged {
            Some(_) => Check::pass_for(name, &tag),
            None => {
                let response = self.session.response_to(&id);
                let unknown = response
                    .as_ref()
                    .is_some_and(|r| r.message.pointer("/error/code") == Some(&json!(-32601)));
                let promised = self
                    .ctx
                    .vars
                    .get("server")
                    .and_then(|server| server.get("capabilities"))
                    .is_some_and(promises_listen);
                let answer = response.map(|r| (summarize(&r.message), r.index));
                let (answered, frame) = answer.unwrap_or_default();
                let (tag, message) = if unknown && promised {
                    let message = format!(
                        "the listen request was answered with {answered} although the server's capabilities promise list-change or resource-update notifications"
                    );
                    (defaults::listen_refused_tag(&step.tag), message)
                } else {
                    let message =
                        format!("the listen request was answered with {answered} and never acknowledged");
                    (tag, message)
                };
                Check::broken_for(name, &tag, message).at_frame(Some(frame))
            }
        };
        self.checks.push(check);
        Stop::Done
    }

    pub(super) async fn unsubscribe(&mut self, name: &str, tag: &CheckTag) -> Stop {
        match self.subscriptions.remove(name) {
            Some(Subscribed::Listen(id)) => {
                match self.session.cancel(&id, Some("mcp-conform unsubscribes")).await {
                    Ok(()) => Stop::Done,
                    Err(error) => self.peer_gone(tag, &WaitError::Transport(error.to_string())),
                }
            }
            Some(Subscribed::Resources(uris)) => {
                for uri in uris {
                    let params = json!({ "uri": uri });
                    let stop = self
                        .request_result("resources/unsubscribe", params, STEP_TIMEOUT, tag, tag)
                        .await;
                    if stop != Stop::Done {
                        return stop;
                    }
                }
                Stop::Done
            }
            None => Stop::halted(Verdict::Error, format!("no subscription named `{name}`")),
        }
    }

    /// 2026-07-28: the server ends subscription `name` itself, with a
    /// complete result for the listen request naming it (SUBS-005) or, as
    /// the cancellation page has it, `notifications/cancelled`.
    pub(super) async fn expect_subscription_end(
        &mut self,
        name: &str,
        within: std::time::Duration,
        tag: &CheckTag,
    ) -> Stop {
        let id = match self.subscriptions.get(name) {
            Some(Subscribed::Listen(id)) => id.clone(),
            Some(Subscribed::Resources(_)) => {
                return Stop::halted(
                    Verdict::NotApplicable,
                    "before 2026-07-28 a server does not end subscriptions",
                );
            }
            None => return Stop::halted(Verdict::Error, format!("no subscription named `{name}`")),
        };
        let check_name = format!("the server ends subscription {id}");
        let deadline = Instant::now() + within;
        match self.wait(Wait::SubscriptionEnd(&id), deadline, &[]).await {
            Ok(_) => {}
            Err(WaitError::TimedOut) => {
                let message = format!(
                    "neither a result for listen request {id} nor notifications/cancelled naming it within {} ms",
                    within.as_millis()
                );
                self.checks.push(Check::broken_for(check_name, tag, message));
                return Stop::Done;
            }
            Err(error) => return self.peer_gone(tag, &error),
        }
        self.subscriptions.remove(name);
        let check = match self.session.response_to(&id) {
            Some(answer) => {
                let result = answer.message.get("result");
                let named = result
                    .and_then(|r| r.pointer(SUBSCRIPTION_ID))
                    .is_some_and(|named| *named == id);
                let complete = result.and_then(|r| r.get("resultType")) == Some(&json!("complete"));
                let check = if named && complete {
                    Check::pass_for(check_name, tag)
                } else {
                    let message = format!(
                        "the listen request was answered with {}, not a complete result naming the subscription",
                        summarize(&answer.message)
                    );
                    Check::broken_for(check_name, tag, message)
                };
                check.at_frame(Some(answer.index))
            }
            None => Check::pass_for(check_name, tag),
        };
        self.checks.push(check);
        Stop::Done
    }

    /// Sends `ping` (stateful versions) or `server/discover` (stateless),
    /// and expects a result.
    pub(super) async fn alive(&mut self, timeout: std::time::Duration, tag: &CheckTag) -> Stop {
        let departure = defaults::liveness_departure_tag(tag, self.is_stateless());
        self.request_result(self.liveness_method(), Value::Null, timeout, tag, &departure)
            .await
    }

    /// The request any server answers at any time: `ping`, or
    /// `server/discover` in the stateless era (which has no `ping`).
    pub(super) fn liveness_method(&self) -> &'static str {
        if self.is_stateless() {
            "server/discover"
        } else {
            "ping"
        }
    }

    /// Sends a request (params `null`: none) and expects a result of any
    /// shape within `timeout`; a peer gone meanwhile is judged under
    /// `departure`.
    async fn request_result(
        &mut self,
        method: &str,
        params: Value,
        timeout: std::time::Duration,
        tag: &CheckTag,
        departure: &CheckTag,
    ) -> Stop {
        let params = (!params.is_null()).then_some(params);
        let id = match self.session.request(method, params, None).await {
            Ok(id) => id,
            Err(error) => {
                return self.peer_gone(departure, &WaitError::Transport(error.to_string()));
            }
        };
        let deadline = Instant::now() + timeout;
        let waited = self.wait(Wait::Response(&id), deadline, &[]).await;
        if let Err(error @ (WaitError::Closed(_) | WaitError::Transport(_))) = &waited {
            return self.peer_gone(departure, error);
        }
        let expect = ResponseCheck {
            expect: ResponseExpect::Result(Matcher::compile(&json!({})).expect("{} is a matcher")),
            tag: tag.clone(),
            span: tag.span,
        };
        let missing = format!(
            "no response to {method} (id {id}) within {} ms",
            timeout.as_millis()
        );
        let judge = Judge {
            expect: Some(&expect),
            require: false,
            raw: false,
        };
        match self.judge_response(format!("response to {method}"), waited, judge, tag, missing) {
            Ok(_) => Stop::Done,
            Err(stop) => stop,
        }
    }
}
