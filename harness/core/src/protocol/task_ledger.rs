//! What the frame checker remembers of 2025-11-25 tasks, and the rules it
//! judges with it: which requests asked to run as tasks, the tasks they
//! created (their method and the last status an answer showed), which
//! `tasks/result` is waiting for which task, each listed tool's task
//! support, and each task's polling clock (the requester's side, TASK-010).
//!
//! Statuses are taken only from answers (`CreateTaskResult`, `tasks/get`,
//! `tasks/cancel`, `tasks/list`), never from `notifications/tasks/status`:
//! over HTTP a notification may reach us on another stream after a later
//! answer, and an order we did not see is no move the receiver made.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::Value;

use super::meta_key::RELATED_TASK;
use super::model::tasks::TaskStatus;
use super::model::{PeerRole, capability_declared};
use super::poll_clock::PollClocks;
use super::violation::Violation;
use crate::Level;
use crate::protocol::cite;
use crate::wire::RequestId;

/// A request, by the side that sent it and its id.
type Key = (PeerRole, RequestId);

/// A task, by the side that runs it (the receiver) and its id.
type TaskKey = (PeerRole, String);

#[derive(Debug, Default)]
pub(super) struct TaskLedger {
    /// Requests that carried `params.task`, with their method.
    augmented: HashMap<Key, String>,
    /// `tasks/result` requests in flight, with the task they name.
    fetching: HashMap<Key, String>,
    /// Every task seen created, with the method it runs.
    methods: HashMap<TaskKey, String>,
    /// The last status an answer showed for each task.
    statuses: HashMap<TaskKey, TaskStatus>,
    /// The task each request created, for the progress its token carries
    /// while the task runs (TASK-008).
    origins: HashMap<Key, TaskKey>,
    /// The `execution.taskSupport` of each listed tool (`None`: absent).
    tool_support: HashMap<String, Option<String>>,
    /// How each task is being polled.
    clocks: PollClocks<TaskKey>,
}

/// The capability that lists `method` as one that may be augmented:
/// `tools/call` is `tasks.requests.tools.call`.
fn request_capability(method: &str) -> String {
    format!("tasks.requests.{}", method.replace('/', "."))
}

fn task_id(value: &Value) -> Option<&str> {
    value.get("taskId").and_then(Value::as_str)
}

impl TaskLedger {
    /// Remembers the task support of each tool of a `tools/list` page.
    pub fn note_tools(&mut self, result: &Value) {
        let tools = result
            .get("tools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten();
        for tool in tools {
            if let Some(name) = tool.get("name").and_then(Value::as_str) {
                let support = tool.pointer("/execution/taskSupport").and_then(Value::as_str);
                self.tool_support
                    .insert(name.to_owned(), support.map(str::to_owned));
            }
        }
    }

    /// Notes a request and judges the requester's part of the negotiation:
    /// augment only what the receiver listed (TASK-001), call a `required`
    /// tool only as a task and a `forbidden` one never (TASK-002).
    /// `receiver` holds the capabilities the receiver declared, if known;
    /// `at` is when the request was read.
    pub fn note_request(
        &mut self,
        key: Key,
        method: &str,
        params: Option<&Value>,
        receiver: Option<&Value>,
        at: Duration,
        out: &mut Vec<Violation>,
    ) {
        if method == "tasks/result"
            && let Some(task) = params.and_then(task_id)
        {
            self.fetching.insert(key.clone(), task.to_owned());
        }
        if method == "tasks/get"
            && let Some(task) = params.and_then(task_id)
        {
            self.note_poll((key.0.other(), task.to_owned()), at, out);
        }
        let augmented = params.and_then(|p| p.get("task")).is_some_and(Value::is_object);
        let listed = receiver.is_some_and(|caps| capability_declared(caps, &request_capability(method)));
        if augmented {
            self.augmented.insert(key, method.to_owned());
            if receiver.is_some() && !listed {
                let message = format!(
                    "`{method}` was sent as a task although the receiver's `tasks` capability does not list `{}`",
                    request_capability(method)
                );
                out.push(Violation::new(cite::TASK_001, Level::Should, message).at("/params/task"));
            }
        }
        if method != "tools/call" || !listed {
            return;
        }
        let tool = params.and_then(|p| p.get("name")).and_then(Value::as_str);
        let Some(support) = tool.and_then(|name| self.tool_support.get(name)) else {
            return;
        };
        let tool = tool.unwrap_or_default();
        match (support.as_deref(), augmented) {
            (Some("required"), false) => {
                let message = format!("tool `{tool}` requires task execution but was called without `task`");
                out.push(Violation::must(cite::TASK_002, message).at("/params"));
            }
            (None | Some("forbidden"), true) => {
                let message =
                    format!("tool `{tool}` does not support task execution but was called as a task");
                out.push(Violation::must(cite::TASK_002, message).at("/params/task"));
            }
            _ => {}
        }
    }

    /// If `result` answers a task-augmented request with a task, the
    /// method the task runs; the result is then judged as a
    /// `CreateTaskResult`, not as that method's result. A task is a `task`
    /// member, or task fields where it belongs (a misshapen one).
    pub fn creates_task(&self, key: &Key, result: &Value) -> Option<&str> {
        let method = self.augmented.get(key)?;
        let task = result.get("task").is_some() || result.get("taskId").is_some();
        task.then_some(method.as_str())
    }

    /// Judges a `tasks/get` of `task` read at `at`: no sooner than the
    /// latest poll interval after the requester's last poll (or the answer
    /// that created the task), and not once the task was seen terminal
    /// (TASK-010, SHOULD).
    fn note_poll(&mut self, task: TaskKey, at: Duration, out: &mut Vec<Violation>) {
        let id = task.1.clone();
        for slip in self.clocks.polled(task, at) {
            let message = slip.describe(&id, "pollInterval");
            out.push(Violation::new(cite::TASK_010, Level::Should, message).at("/params/taskId"));
        }
    }

    /// Forgets a request once answered.
    pub fn answered(&mut self, key: &Key) {
        self.augmented.remove(key);
        self.fetching.remove(key);
    }

    /// Records the task a `CreateTaskResult` from `receiver` created: its id
    /// is new among the receiver's tasks (TASK-003); its requester heard
    /// of it `at`, which starts its polling clock.
    pub fn note_created(
        &mut self,
        receiver: PeerRole,
        method: &str,
        result: &Value,
        at: Duration,
        out: &mut Vec<Violation>,
    ) {
        let Some(task) = result.get("task") else {
            return;
        };
        let Some(id) = task_id(task) else {
            return;
        };
        let key = (receiver, id.to_owned());
        self.clocks.started(key.clone(), at);
        if self.methods.insert(key, method.to_owned()).is_some() {
            let message = format!("task id {id:?} was given to an earlier task already");
            out.push(Violation::must(cite::TASK_003, message).at("/result/task/taskId"));
        }
        self.note_status(receiver, task, "/result/task", out);
    }

    /// Remembers that request `key` created the task a `CreateTaskResult`
    /// from `receiver` announces.
    pub fn note_origin(&mut self, key: Key, receiver: PeerRole, result: &Value) {
        if let Some(id) = result.get("task").and_then(task_id) {
            self.origins.insert(key, (receiver, id.to_owned()));
        }
    }

    /// The task request `key` created, with the terminal status an answer
    /// showed it in, once one did.
    pub fn ended_task_of(&self, key: &Key) -> Option<(&str, TaskStatus)> {
        let task = self.origins.get(key)?;
        let status = self.statuses.get(task).filter(|s| s.is_terminal())?;
        Some((task.1.as_str(), *status))
    }

    /// Judges a task answer (`tasks/get`, `tasks/cancel`, `tasks/list`)
    /// from `receiver`: no task leaves a terminal status (TASK-004), and a
    /// cancelled task is `cancelled` when the cancel is answered (TASK-007).
    pub fn note_answer(
        &mut self,
        receiver: PeerRole,
        method: &str,
        result: &Value,
        out: &mut Vec<Violation>,
    ) {
        match method {
            "tasks/get" => self.note_status(receiver, result, "/result", out),
            "tasks/cancel" => {
                self.note_status(receiver, result, "/result", out);
                let status = result.get("status").and_then(Value::as_str);
                if status.is_some_and(|s| s != TaskStatus::Cancelled.name()) {
                    let message = format!(
                        "tasks/cancel was answered with the task {}, not cancelled",
                        status.unwrap_or_default()
                    );
                    out.push(Violation::must(cite::TASK_007, message).at("/result/status"));
                }
            }
            "tasks/list" => {
                let tasks = result
                    .get("tasks")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten();
                for (index, task) in tasks.enumerate() {
                    self.note_status(receiver, task, &format!("/result/tasks/{index}"), out);
                }
            }
            _ => {}
        }
    }

    fn note_status(&mut self, receiver: PeerRole, task: &Value, at: &str, out: &mut Vec<Violation>) {
        let (Some(id), Some(status)) = (
            task_id(task),
            task.get("status")
                .and_then(Value::as_str)
                .and_then(TaskStatus::parse),
        ) else {
            return;
        };
        let key = (receiver, id.to_owned());
        let interval = task.get("pollInterval").and_then(Value::as_u64);
        self.clocks.told(&key, interval, Some(status));
        let before = self.statuses.insert(key, status);
        if let Some(before) = before.filter(|b| !b.may_become(status)) {
            let message = format!(
                "task {id:?} went from {} to {}; a terminal status never changes",
                before.name(),
                status.name()
            );
            out.push(Violation::must(cite::TASK_004, message).at(format!("{at}/status")));
        }
    }

    /// Judges the answer to a `tasks/result` request `key`: it names its
    /// task under the related-task key of `_meta` (TASK-005). Returns the
    /// method the task runs, whose result shape the payload must have.
    pub fn fetched(&self, key: &Key, result: &Value, out: &mut Vec<Violation>) -> Option<&str> {
        let task = self.fetching.get(key)?;
        let related = result
            .get("_meta")
            .and_then(|meta| meta.get(RELATED_TASK))
            .and_then(task_id);
        if related != Some(task.as_str()) {
            let message = format!(
                "the tasks/result answer for task {task:?} does not name it under `_meta` `{RELATED_TASK}`"
            );
            out.push(Violation::must(cite::TASK_005, message).at("/result/_meta"));
        }
        self.methods
            .get(&(key.0.other(), task.clone()))
            .map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::{Value, json};

    use crate::protocol::{FrameChecker, PeerRole, Violation, cite};
    use crate::requirements::RequirementId;
    use crate::version::ProtocolVersion;
    use crate::wire::{Direction, Frame};

    const NONE: [RequirementId; 0] = [];

    const TASKS: &str = r#"{"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}"#;

    /// A 2025-11-25 connection seen from `us`, whose server declared `tasks`.
    struct Connection {
        checker: FrameChecker,
        us: PeerRole,
        /// When the next frame is read.
        now: Duration,
        /// How far the clock moves after each frame: by default more than
        /// any poll interval here, so that only the poll test polls early.
        tick: Duration,
    }

    impl Connection {
        fn new(us: PeerRole, server_tasks: &str) -> Self {
            let mut connection = Connection {
                checker: FrameChecker::new(us),
                us,
                now: Duration::ZERO,
                tick: Duration::from_millis(200),
            };
            let tasks: Value = serde_json::from_str(server_tasks).unwrap();
            connection.from(
                PeerRole::Client,
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                           "clientInfo": {"name": "c", "version": "1"}}}),
            );
            connection.from(
                PeerRole::Server,
                json!({"jsonrpc": "2.0", "id": 0, "result": {
                "protocolVersion": "2025-11-25", "capabilities": {"tools": {}, "tasks": tasks},
                "serverInfo": {"name": "s", "version": "1"}}}),
            );
            connection.from(
                PeerRole::Client,
                json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            );
            connection.from(
                PeerRole::Client,
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            );
            connection.from(
                PeerRole::Server,
                json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [
                {"name": "slow", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "optional"}},
                {"name": "must", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}},
                {"name": "plain", "inputSchema": {"type": "object"}}]}}),
            );
            assert_eq!(connection.checker.version(), Some(ProtocolVersion::V2025_11_25));
            connection
        }

        fn from(&mut self, sender: PeerRole, message: Value) -> Vec<RequirementId> {
            let direction = if sender == self.us {
                Direction::Sent
            } else {
                Direction::Received
            };
            let frame = Frame::new(direction, serde_json::to_vec(&message).unwrap(), self.now);
            self.now += self.tick;
            let found: Vec<Violation> = self.checker.check(&frame);
            found.iter().map(|v| v.requirement).collect()
        }

        fn request(&mut self, id: u32, method: &str, params: Value) -> Vec<RequirementId> {
            let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
            self.from(PeerRole::Client, message)
        }

        fn result(&mut self, id: u32, result: Value) -> Vec<RequirementId> {
            self.from(
                PeerRole::Server,
                json!({"jsonrpc": "2.0", "id": id, "result": result}),
            )
        }
    }

    fn task(id: &str, status: &str) -> Value {
        json!({"taskId": id, "status": status, "createdAt": "2025-11-25T10:30:00Z",
               "lastUpdatedAt": "2025-11-25T10:30:00Z", "ttl": 60000, "pollInterval": 100})
    }

    fn call_as_task(connection: &mut Connection, id: u32, task_id: &str) -> Vec<RequirementId> {
        let params = json!({"name": "slow", "task": {"ttl": 60000}, "_meta": {"progressToken": id}});
        assert_eq!(connection.request(id, "tools/call", params), NONE);
        connection.result(id, json!({"task": task(task_id, "working")}))
    }

    #[test]
    fn progress_after_its_task_was_seen_ended_is_judged_over_stdio_only() {
        for stdio in [true, false] {
            let mut c = Connection::new(PeerRole::Client, TASKS);
            if stdio {
                c.checker = std::mem::replace(&mut c.checker, FrameChecker::new(PeerRole::Client)).on_stdio();
            }
            assert_eq!(call_as_task(&mut c, 2, "t1"), NONE);
            assert_eq!(c.request(3, "tasks/get", json!({"taskId": "t1"})), NONE);
            assert_eq!(c.result(3, task("t1", "completed")), NONE);
            let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress",
                                  "params": {"progressToken": 2, "progress": 1}});
            let expected: &[RequirementId] = if stdio { &[cite::TASK_008] } else { &NONE };
            assert_eq!(c.from(PeerRole::Server, progress), expected, "stdio: {stdio}");
        }
    }

    #[test]
    fn a_task_lives_polled_to_its_result() {
        let mut c = Connection::new(PeerRole::Client, TASKS);
        assert_eq!(call_as_task(&mut c, 2, "t1"), NONE);
        let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress",
                              "params": {"progressToken": 2, "progress": 1}});
        assert_eq!(
            c.from(PeerRole::Server, progress),
            NONE,
            "the token outlives the CreateTaskResult"
        );
        assert_eq!(c.request(3, "tasks/get", json!({"taskId": "t1"})), NONE);
        assert_eq!(c.result(3, task("t1", "input_required")), NONE);
        assert_eq!(c.request(4, "tasks/get", json!({"taskId": "t1"})), NONE);
        assert_eq!(c.result(4, task("t1", "completed")), NONE);
        assert_eq!(c.request(5, "tasks/result", json!({"taskId": "t1"})), NONE);
        let payload = json!({"content": [{"type": "text", "text": "done"}],
                             "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t1"}}});
        assert_eq!(c.result(5, payload), NONE);
        assert_eq!(c.request(6, "tasks/list", json!({})), NONE);
        assert_eq!(c.result(6, json!({"tasks": [task("t1", "completed")]})), NONE);
        // A receiver that lists no tools/call processes the call normally
        // (the requester should not have asked).
        let mut plain = Connection::new(PeerRole::Client, "{}");
        assert_eq!(
            plain.request(2, "tools/call", json!({"name": "slow", "task": {}})),
            [cite::TASK_001]
        );
        assert_eq!(plain.result(2, json!({"content": []})), NONE);
    }

    #[test]
    fn task_answers_are_judged_under_their_requirements() {
        let mut c = Connection::new(PeerRole::Client, TASKS);
        assert_eq!(
            c.request(2, "tools/call", json!({"name": "slow", "task": {}})),
            NONE
        );
        let partial = c.result(2, json!({"task": {"taskId": "t1"}}));
        assert!(
            partial.len() == 4 && partial.iter().all(|r| *r == cite::TASK_003),
            "status, createdAt, lastUpdatedAt and ttl are missing: {partial:?}"
        );
        assert_eq!(call_as_task(&mut c, 3, "t1"), [cite::TASK_003], "a reused id");
        assert_eq!(c.request(4, "tasks/get", json!({"taskId": "t1"})), NONE);
        assert_eq!(c.result(4, task("t1", "failed")), NONE);
        assert_eq!(
            c.request(5, "tasks/get", json!({"taskId": "t1"})),
            [cite::TASK_010],
            "the requester polls past the end"
        );
        assert_eq!(c.result(5, task("t1", "working")), [cite::TASK_004]);
        assert_eq!(call_as_task(&mut c, 6, "t2"), NONE);
        assert_eq!(c.request(7, "tasks/cancel", json!({"taskId": "t2"})), NONE);
        assert_eq!(c.result(7, task("t2", "working")), [cite::TASK_007]);
        assert_eq!(c.request(8, "tasks/result", json!({"taskId": "t2"})), NONE);
        let unnamed = c.result(8, json!({"content": [{"type": "text"}]}));
        assert!(unnamed.contains(&cite::TASK_005), "{unnamed:?}");
        assert!(
            unnamed.len() > 1,
            "the payload is judged as a CallToolResult: {unnamed:?}"
        );
    }

    #[test]
    fn requesters_augment_only_what_the_receiver_allows() {
        let mut c = Connection::new(PeerRole::Server, TASKS);
        assert_eq!(
            c.request(2, "tools/call", json!({"name": "must"})),
            [cite::TASK_002]
        );
        assert_eq!(
            c.request(3, "tools/call", json!({"name": "plain", "task": {}})),
            [cite::TASK_002]
        );
        assert_eq!(
            c.request(4, "tools/call", json!({"name": "slow", "task": {}})),
            NONE
        );
        let mut undeclared = Connection::new(PeerRole::Server, r#"{"list": {}}"#);
        assert_eq!(
            undeclared.request(2, "tools/call", json!({"name": "slow", "task": {}})),
            [cite::TASK_001]
        );
    }

    #[test]
    fn requesters_poll_no_faster_than_the_interval_and_stop_at_the_end() {
        let mut c = Connection::new(PeerRole::Server, TASKS);
        c.tick = Duration::ZERO;
        // The task's pollInterval is 100 ms: a poll is too soon below 50 ms.
        assert_eq!(call_as_task(&mut c, 2, "t1"), NONE);
        c.now += Duration::from_millis(40);
        let get = json!({"taskId": "t1"});
        assert_eq!(c.request(3, "tasks/get", get.clone()), [cite::TASK_010]);
        assert_eq!(c.result(3, task("t1", "working")), NONE);
        c.now += Duration::from_millis(55);
        assert_eq!(
            c.request(4, "tasks/get", get.clone()),
            NONE,
            "55 ms after the last poll is within the slack of 100 ms"
        );
        assert_eq!(c.result(4, task("t1", "completed")), NONE);
        c.now += Duration::from_millis(300);
        assert_eq!(
            c.request(5, "tasks/get", get),
            [cite::TASK_010],
            "a poll after the end"
        );
        assert_eq!(c.request(6, "tasks/result", json!({"taskId": "t1"})), NONE);
    }
}
