//! The frame rules of the tasks extension (2026-07-28+) on a server's
//! results: what a request that did or did not opt in may get back, the
//! shapes of task answers, the methods that are gone, the old capability,
//! and how the statuses an answer shows may move; and on a client's polls,
//! how often it polls each task (TASKX-028) and how it answers a task's
//! input requests (TASKX-019, TASKX-020, [`input_answers`]); on
//! `notifications/tasks`, that each carries the task state `tasks/get`
//! shows (TASKX-033).
//!
//! Whether a request opted in is read from its own `clientCapabilities`
//! (TASKX-002): an earlier request's declaration changes nothing.

mod input_answers;

use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

use serde_json::Value;

use self::input_answers::InputAnswers;

use super::model::method_in;
use super::model::tasks::TaskStatus;
use super::model::tasks_extension::{
    check_created, check_detailed, check_notified, declares_extension, is_task_result,
};
use super::poll_clock::PollClocks;
use super::violation::Violation;
use crate::Level;
use crate::protocol::cite;
use crate::version::ProtocolVersion;

/// The only request type a task may answer (TASKX-006).
const TASK_METHOD: &str = "tools/call";

/// The extension's own requests.
const TASK_REQUESTS: [&str; 3] = ["tasks/get", "tasks/update", "tasks/cancel"];

/// The server's push of a task's state on a listen stream (TASKX-032).
const TASK_NOTIFICATION: &str = "notifications/tasks";

/// What an `InputRequiredResult` asks with: a round of a multi round-trip
/// still open (TASKX-009).
const ROUND_MEMBERS: [&str; 2] = ["inputRequests", "requestState"];

/// The old capabilities a server with the extension no longer declares (TASKX-027).
const OLD_CAPABILITY_MEMBERS: [&str; 3] = ["list", "cancel", "requests"];

/// What the checker remembers of the extension's tasks.
#[derive(Debug, Default)]
pub(super) struct TaskExtension {
    /// The last status an answer showed for each task, by id.
    statuses: HashMap<String, TaskStatus>,
    /// How the client polls each task, by id.
    clocks: PollClocks<String>,
    /// The input requests each task showed, and the client's answers.
    inputs: InputAnswers,
    /// The first terminal state of each task a `tasks/get` answer showed,
    /// and the first a `notifications/tasks` carried, by task id.
    polled_ends: HashMap<String, Value>,
    notified_ends: HashMap<String, Value>,
}

/// Where a task state was seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seen {
    Polled,
    Notified,
}

impl TaskExtension {
    /// Judges a client's `tasks/get` read at `at`: no sooner than the
    /// latest `pollIntervalMs` after its last poll (or the task's
    /// creation), and not once an answer showed the task terminal
    /// (TASKX-028, SHOULD); and its `tasks/update`'s keys (TASKX-019,
    /// TASKX-020).
    pub fn client_request(
        &mut self,
        method: &str,
        params: Option<&Value>,
        at: Duration,
        out: &mut Vec<Violation>,
    ) {
        if method == "tasks/update" {
            return self.inputs.updated(params, out);
        }
        let task = params.and_then(|p| p.get("taskId")).and_then(Value::as_str);
        let Some(task) = task.filter(|_| method == "tasks/get") else {
            return;
        };
        for slip in self.clocks.polled(task.to_owned(), at) {
            let message = slip.describe(task, "pollIntervalMs");
            out.push(Violation::new(cite::TASKX_028, Level::Should, message).at("/params/taskId"));
        }
    }

    /// Judges a server's result, read at `at`, for a client request of
    /// `method` whose `clientCapabilities` were `declared`. True when the
    /// result is a `CreateTaskResult`, which is judged here instead of as
    /// the method's own result.
    pub fn server_result(
        &mut self,
        method: &str,
        declared: Option<&Value>,
        result: &Value,
        (version, at): (ProtocolVersion, Duration),
        out: &mut Vec<Violation>,
    ) -> bool {
        let opted_in = declares_extension(declared);
        // The extension's own answers say "complete"; saying "task" breaks
        // their shapes (TASKX-010, TASKX-016, TASKX-022), judged as usual.
        if is_task_result(result) && !TASK_REQUESTS.contains(&method) {
            if let Some(task) = result.get("taskId").and_then(Value::as_str) {
                self.clocks.started(task.to_owned(), at);
            }
            self.created(method, opted_in, result, version, out);
            return true;
        }
        match method {
            _ if TASK_REQUESTS.contains(&method) => {
                // A request with only the 2025-11-25 capability may be
                // served too (SEP-2663 asks dual-era servers to); one with
                // no declaration at all may not.
                let old_only = declared.is_some_and(|c| c.get("tasks").is_some());
                if !opted_in && !old_only {
                    let message = format!(
                        "{method} was answered with a result, although the request did not declare the tasks extension"
                    );
                    out.push(Violation::must(cite::TASKX_015, message).at("/result"));
                }
                if method == "tasks/get" {
                    out.extend(check_detailed(result, version));
                    out.extend(check_inlined_result(result, version));
                    self.note_status(result, out);
                    self.note_end(Seen::Polled, result, out);
                }
            }
            "tasks/result" => {
                let message = "tasks/result does not exist with the tasks extension, yet it was answered";
                out.push(Violation::must(cite::TASKX_024, message).at("/result"));
            }
            "tasks/list" => {
                let message = "tasks/list does not exist with the tasks extension, yet it was answered";
                out.push(Violation::new(cite::TASKX_025, Level::Should, message).at("/result"));
            }
            "server/discover" => check_old_capability(result, out),
            _ => {}
        }
        false
    }

    /// A `CreateTaskResult` answers only an opted-in `tools/call`
    /// (TASKX-002, TASKX-006), carries the task fields (TASKX-007), and
    /// none of a multi round-trip's: the rounds on the call end before the
    /// task is created (TASKX-009).
    fn created(
        &mut self,
        method: &str,
        opted_in: bool,
        result: &Value,
        version: ProtocolVersion,
        out: &mut Vec<Violation>,
    ) {
        if method != TASK_METHOD {
            let message = format!("`{method}` was answered with resultType \"task\"; only tools/call may be");
            return out.push(Violation::must(cite::TASKX_006, message).at("/result/resultType"));
        }
        if !opted_in {
            let message = "a CreateTaskResult answers a request whose clientCapabilities do not declare the tasks extension";
            out.push(Violation::must(cite::TASKX_002, message).at("/result/resultType"));
        }
        out.extend(check_created(result, version));
        for member in ROUND_MEMBERS.iter().filter(|m| result.get(**m).is_some()) {
            let message = format!(
                "the CreateTaskResult carries `{member}`: a multi round-trip on the call is still open as the task is created"
            );
            out.push(Violation::new(cite::TASKX_009, Level::Should, message).at(format!("/result/{member}")));
        }
        self.note_status(result, out);
    }

    /// Notes and judges a server's notification on a connection seen from
    /// its start (a message judged on its own keeps nothing for a later
    /// frame). A `notifications/tasks` shows a task's state as `tasks/get`
    /// would: its input requests are the keys the client may answer
    /// (TASKX-019, TASKX-020), and it carries the whole state (TASKX-033).
    /// Its status is not noted for TASKX-011: over HTTP it comes on the
    /// listen stream, in no order with answers.
    pub fn server_notification(&mut self, method: &str, params: Option<&Value>, out: &mut Vec<Violation>) {
        let Some(task) = params.filter(|_| method == TASK_NOTIFICATION) else {
            return;
        };
        self.inputs.shown(task);
        out.extend(check_notified(task));
        self.note_end(Seen::Notified, task, out);
    }

    /// A terminal state never changes, so the one a notification carried
    /// and the one `tasks/get` showed are the same, whichever came first
    /// (TASKX-033). States still moving are not compared: either may be
    /// the later one.
    fn note_end(&mut self, seen: Seen, task: &Value, out: &mut Vec<Violation>) {
        let ended = task
            .get("status")
            .and_then(Value::as_str)
            .and_then(TaskStatus::parse)
            .is_some_and(TaskStatus::is_terminal);
        let Some(id) = task.get("taskId").and_then(Value::as_str).filter(|_| ended) else {
            return;
        };
        let state = task_state(task);
        let (own, other) = match seen {
            Seen::Polled => (&mut self.polled_ends, &self.notified_ends),
            Seen::Notified => (&mut self.notified_ends, &self.polled_ends),
        };
        let first = !own.contains_key(id);
        own.entry(id.to_owned()).or_insert_with(|| state.clone());
        let Some(compared) = other.get(id).filter(|_| first) else {
            return;
        };
        let differing = differing_members(&state, compared);
        if !differing.is_empty() {
            let message = format!(
                "task {id:?} ended, yet notifications/tasks and tasks/get show it differently in {}",
                differing.into_iter().collect::<Vec<_>>().join(", ")
            );
            let at = match seen {
                Seen::Polled => "/result",
                Seen::Notified => "/params",
            };
            out.push(Violation::new(cite::TASKX_033, Level::Should, message).at(at));
        }
    }

    /// No task leaves a terminal status (TASKX-011, stated as fact: SHOULD).
    fn note_status(&mut self, task: &Value, out: &mut Vec<Violation>) {
        self.inputs.shown(task);
        let id = task.get("taskId").and_then(Value::as_str);
        let status = task
            .get("status")
            .and_then(Value::as_str)
            .and_then(TaskStatus::parse);
        let (Some(id), Some(status)) = (id, status) else {
            return;
        };
        let interval = task.get("pollIntervalMs").and_then(Value::as_u64);
        self.clocks.told(&id.to_owned(), interval, Some(status));
        let before = self.statuses.insert(id.to_owned(), status);
        if let Some(before) = before.filter(|b| !b.may_become(status)) {
            let message = format!(
                "task {id:?} went from {} to {}; a terminal status never changes",
                before.name(),
                status.name()
            );
            out.push(Violation::new(cite::TASKX_011, Level::Should, message).at("/result/status"));
        }
    }
}

/// The task state of a `tasks/get` answer or a `notifications/tasks`:
/// everything but what only the message carries (`_meta`, `resultType`).
fn task_state(message: &Value) -> Value {
    let mut state = message.clone();
    if let Some(members) = state.as_object_mut() {
        members.remove("_meta");
        members.remove("resultType");
    }
    state
}

/// The top-level members two task states do not agree on.
fn differing_members<'a>(one: &'a Value, other: &'a Value) -> BTreeSet<&'a str> {
    let (Some(one), Some(other)) = (one.as_object(), other.as_object()) else {
        return BTreeSet::new();
    };
    one.keys()
        .chain(other.keys())
        .filter(|member| one.get(*member) != other.get(*member))
        .map(String::as_str)
        .collect()
}

/// The result a completed task inlines has the shape of its request's own
/// result (TASKX-010: what the original request would have returned).
fn check_inlined_result(result: &Value, version: ProtocolVersion) -> Vec<Violation> {
    let (Some(inlined), Some(shape)) = (
        result.get("result"),
        method_in(TASK_METHOD, version).and_then(|spec| spec.result),
    ) else {
        return Vec::new();
    };
    shape.check(inlined, version, "/result/result")
}

/// A server that has the extension declares none of the old `tasks`
/// capabilities under a version with the extension (TASKX-027).
fn check_old_capability(result: &Value, out: &mut Vec<Violation>) {
    let capabilities = result.get("capabilities");
    if !declares_extension(capabilities) {
        return;
    }
    let old = capabilities.and_then(|c| c.get("tasks"));
    for member in OLD_CAPABILITY_MEMBERS
        .iter()
        .filter(|m| old.is_some_and(|o| o.get(**m).is_some()))
    {
        let message = format!(
            "the server declares the tasks extension and also the 2025-11-25 capability `tasks.{member}`"
        );
        out.push(Violation::must(cite::TASKX_027, message).at("/result/capabilities/tasks"));
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::{Value, json};

    use crate::protocol::model::tasks_extension::EXTENSION;
    use crate::protocol::{FrameChecker, PeerRole, cite};
    use crate::requirements::RequirementId;
    use crate::wire::{Direction, Frame};

    const NONE: [RequirementId; 0] = [];

    /// A 2026-07-28 conversation seen from the client's side.
    struct Conversation {
        checker: FrameChecker,
        next_id: u32,
        /// When the next frame is read; it moves on by `tick` after each.
        now: Duration,
        tick: Duration,
    }

    impl Conversation {
        fn new() -> Self {
            Conversation {
                checker: FrameChecker::new(PeerRole::Client),
                next_id: 0,
                now: Duration::ZERO,
                // Longer than any poll interval here: polls are on time.
                tick: Duration::from_millis(200),
            }
        }

        fn frame(&mut self, direction: Direction, message: Value) -> Vec<RequirementId> {
            let frame = Frame::new(direction, serde_json::to_vec(&message).unwrap(), self.now);
            self.now += self.tick;
            self.checker.check(&frame).iter().map(|v| v.requirement).collect()
        }

        /// Sends `method` declaring `capabilities`: its id, and what the
        /// request breaks.
        fn send(
            &mut self,
            method: &str,
            mut params: Value,
            capabilities: Value,
        ) -> (u32, Vec<RequirementId>) {
            self.next_id += 1;
            let id = self.next_id;
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": capabilities,
                "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
            });
            let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
            (id, self.frame(Direction::Sent, request))
        }

        /// Sends `method` declaring `capabilities`, and returns what the
        /// server's `result` for it breaks. How often the client polls is
        /// judged in a test of its own.
        fn exchange(
            &mut self,
            method: &str,
            params: Value,
            capabilities: Value,
            result: Value,
        ) -> Vec<RequirementId> {
            let (id, mut found) = self.send(method, params, capabilities);
            found.retain(|r| *r != cite::TASKX_028);
            assert_eq!(found, NONE, "{method}");
            let mut result = result;
            result["_meta"] = json!({"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}});
            self.frame(
                Direction::Received,
                json!({"jsonrpc": "2.0", "id": id, "result": result}),
            )
        }
    }

    fn opted_in() -> Value {
        json!({"extensions": {EXTENSION: {}}})
    }

    fn task(status: &str, result_type: &str) -> Value {
        json!({"resultType": result_type, "taskId": "t1", "status": status,
               "createdAt": "2026-07-28T10:30:00Z", "lastUpdatedAt": "2026-07-28T10:30:00Z",
               "ttlMs": 60000, "pollIntervalMs": 100})
    }

    fn call() -> Value {
        json!({"name": "slow", "arguments": {}})
    }

    fn get() -> Value {
        json!({"taskId": "t1"})
    }

    #[test]
    fn an_opted_in_call_becomes_a_task_polled_to_its_result() {
        let mut c = Conversation::new();
        assert_eq!(
            c.exchange("tools/call", call(), opted_in(), task("working", "task")),
            NONE
        );
        assert_eq!(
            c.exchange("tasks/get", get(), opted_in(), task("working", "complete")),
            NONE
        );
        let mut done = task("completed", "complete");
        done["result"] = json!({"content": [{"type": "text", "text": "done"}], "isError": true});
        assert_eq!(c.exchange("tasks/get", get(), opted_in(), done), NONE);
        let ack = json!({"resultType": "complete"});
        assert_eq!(c.exchange("tasks/cancel", get(), opted_in(), ack.clone()), NONE);
        let update = json!({"taskId": "t1", "inputResponses": {}});
        assert_eq!(c.exchange("tasks/update", update, opted_in(), ack), NONE);
        let plain = json!({"resultType": "complete", "content": []});
        assert_eq!(
            c.exchange("tools/call", call(), json!({}), plain),
            NONE,
            "TASKX-004"
        );
    }

    #[test]
    fn task_answers_are_judged_under_their_requirements() {
        let mut c = Conversation::new();
        assert_eq!(
            c.exchange(
                "tools/call",
                call(),
                json!({"tasks": {}}),
                task("working", "task")
            ),
            [cite::TASKX_002],
            "the old capability is no opt-in (TASKX-026)"
        );
        assert_eq!(
            c.exchange("tools/list", json!({}), opted_in(), task("working", "task")),
            [cite::TASKX_006]
        );
        let mut nested = json!({"resultType": "task", "task": task("working", "task")});
        nested["task"].as_object_mut().unwrap().remove("resultType");
        let found = c.exchange("tools/call", call(), opted_in(), nested);
        assert!(
            found.len() == 5 && found.iter().all(|r| *r == cite::TASKX_007),
            "{found:?}"
        );
        let mut mid_round = task("working", "task");
        mid_round["requestState"] = json!("sealed");
        assert_eq!(
            c.exchange("tools/call", call(), opted_in(), mid_round),
            [cite::TASKX_009],
            "created while a round is open"
        );
        let bare = c.exchange("tasks/get", get(), opted_in(), task("completed", "complete"));
        assert_eq!(bare, [cite::TASKX_010]);
        let mut revived = task("working", "complete");
        revived["pollIntervalMs"] = json!(50);
        assert_eq!(
            c.exchange("tasks/get", get(), opted_in(), revived),
            [cite::TASKX_011]
        );
        let mut broken = task("completed", "complete");
        broken["result"] = json!({"content": "not a list"});
        assert!(!c.exchange("tasks/get", get(), opted_in(), broken).is_empty());
        // A task of another client, still working.
        let other = json!({"taskId": "t2"});
        let mut working = task("working", "complete");
        working["taskId"] = json!("t2");
        assert_eq!(
            c.exchange("tasks/get", other.clone(), json!({}), working.clone()),
            [cite::TASKX_015]
        );
        assert_eq!(
            c.exchange("tasks/get", other, json!({"tasks": {}}), working),
            NONE,
            "a dual-era server may serve the old capability (SEP-2663)"
        );
        let found = c.exchange(
            "tasks/result",
            get(),
            opted_in(),
            json!({"resultType": "complete"}),
        );
        assert!(found.contains(&cite::TASKX_024), "{found:?}");
        let found = c.exchange(
            "tasks/list",
            json!({}),
            opted_in(),
            json!({"resultType": "complete"}),
        );
        assert!(found.contains(&cite::TASKX_025), "{found:?}");
        let discovered = json!({"resultType": "complete", "supportedVersions": ["2026-07-28"],
            "capabilities": {"extensions": {EXTENSION: {}}, "tasks": {"list": {}, "requests": {}}},
            "ttlMs": 0, "cacheScope": "public"});
        let found = c.exchange("server/discover", json!({}), json!({}), discovered);
        assert_eq!(found, [cite::TASKX_027, cite::TASKX_027]);
    }

    #[test]
    fn a_client_answers_only_the_input_keys_its_task_showed() {
        let mut c = Conversation::new();
        assert_eq!(
            c.exchange("tools/call", call(), opted_in(), task("working", "task")),
            NONE
        );
        let mut asking = task("input_required", "complete");
        asking["inputRequests"] =
            json!({"name": {"method": "elicitation/create", "params": {"message": "name?"}}});
        assert_eq!(c.exchange("tasks/get", get(), opted_in(), asking), NONE);
        let answer = |key: &str| json!({"taskId": "t1", "inputResponses": {key: {"action": "decline"}}});
        assert_eq!(c.send("tasks/update", answer("name"), opted_in()).1, NONE);
        assert_eq!(
            c.send("tasks/update", answer("city"), opted_in()).1,
            [cite::TASKX_020]
        );
        let mut asking = task("input_required", "complete");
        asking["inputRequests"] =
            json!({"city": {"method": "elicitation/create", "params": {"message": "city?"}}});
        let pushed = json!({"jsonrpc": "2.0", "method": "notifications/tasks", "params": asking});
        assert_eq!(c.frame(Direction::Received, pushed), NONE);
        assert_eq!(
            c.send("tasks/update", answer("city"), opted_in()).1,
            NONE,
            "shown by a notification"
        );
    }

    #[test]
    fn a_client_polls_no_faster_than_poll_interval_ms_and_not_past_the_end() {
        let mut c = Conversation::new();
        c.tick = Duration::ZERO;
        let created = c.exchange("tools/call", call(), opted_in(), task("working", "task"));
        assert_eq!(created, NONE);
        // pollIntervalMs is 100: a poll is too soon below 50 ms.
        c.now += Duration::from_millis(30);
        assert_eq!(c.send("tasks/get", get(), opted_in()).1, [cite::TASKX_028]);
        c.now += Duration::from_millis(60);
        let mut done = task("completed", "complete");
        done["result"] = json!({"content": []});
        assert_eq!(
            c.exchange("tasks/get", get(), opted_in(), done),
            NONE,
            "within the slack"
        );
        c.now += Duration::from_secs(1);
        let past_end = c.send("tasks/get", get(), opted_in()).1;
        assert_eq!(past_end, [cite::TASKX_028]);
    }

    #[test]
    fn a_followed_task_is_notified_whole_only_if_agreed_and_ends_as_tasks_get_shows() {
        let mut c = Conversation::new();
        assert_eq!(
            c.exchange("tools/call", call(), opted_in(), task("working", "task")),
            NONE
        );
        let filter = json!({"notifications": {"taskIds": ["t1"]}});
        let (listen, sent) = c.send("subscriptions/listen", filter, opted_in());
        assert_eq!(sent, NONE);
        let on_stream = |c: &mut Conversation, method: &str, mut params: Value| {
            params["_meta"] = json!({"io.modelcontextprotocol/subscriptionId": listen});
            let message = json!({"jsonrpc": "2.0", "method": method, "params": params});
            c.frame(Direction::Received, message)
        };
        let ack = json!({"notifications": {"taskIds": ["t1"]}});
        assert_eq!(
            on_stream(&mut c, "notifications/subscriptions/acknowledged", ack),
            NONE
        );
        let mut ended = task("completed", "task");
        ended.as_object_mut().unwrap().remove("resultType");
        assert_eq!(
            on_stream(&mut c, "notifications/tasks", ended.clone()),
            [cite::TASKX_033],
            "a completed state without its result"
        );
        ended["result"] = json!({"content": []});
        assert_eq!(on_stream(&mut c, "notifications/tasks", ended.clone()), NONE);
        let mut other = ended.clone();
        other["taskId"] = json!("t2");
        assert_eq!(
            on_stream(&mut c, "notifications/tasks", other),
            [cite::TASKX_033],
            "a task the acknowledgement did not agree to"
        );
        let progress = json!({"progressToken": 1, "progress": 1});
        assert!(on_stream(&mut c, "notifications/progress", progress).contains(&cite::TASKX_034));
        let log = json!({"level": "info", "data": "x"});
        assert_eq!(on_stream(&mut c, "notifications/message", log), [cite::TASKX_034]);
        let mut polled = task("completed", "complete");
        polled["result"] = json!({"content": [{"type": "text", "text": "another end"}]});
        assert_eq!(
            c.exchange("tasks/get", get(), opted_in(), polled),
            [cite::TASKX_033],
            "tasks/get shows another end than the notification"
        );
    }
}
