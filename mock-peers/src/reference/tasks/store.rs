//! The tasks of one connection (2025-11-25) or of the whole server (the
//! 2026-07-28 extension, where any request may poll any task): their state,
//! their lifecycle, and what each call answered.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use mcp_conform_core::protocol::meta_key::RELATED_TASK;
use mcp_conform_core::protocol::tasks::TaskStatus;
use mcp_conform_core::wire::jsonrpc::{RpcError, code};
use mcp_conform_report::provenance::rfc3339;
use ring::rand::{SecureRandom, SystemRandom};
use serde_json::{Map, Value, json};
use tokio::task::AbortHandle;

use crate::reference::pagination;

/// What `pollInterval` suggests, in milliseconds: longer than the
/// profile's task tools take, so one poll sees them end and transcripts
/// stay the same from run to run.
const POLL_INTERVAL_MS: u64 = 500;

/// How long a task is kept when the requester asks for no `ttl`.
const DEFAULT_TTL_MS: u64 = 300_000;

/// Tasks per `tasks/list` page: small, so that a few tasks need a cursor.
const PAGE_SIZE: usize = 2;

/// How often a waiting `tasks/result` looks again.
const RESULT_POLL: Duration = Duration::from_millis(20);

/// Which protocol's tasks a store keeps: the field names, what a tool
/// result with `isError` ends as, and what `tasks/get` shows differ.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavor {
    /// The tasks utility of 2025-11-25.
    #[default]
    Utility,
    /// The tasks extension (2026-07-28+).
    Extension,
}

#[derive(Debug, Default)]
pub(crate) struct TaskStore {
    flavor: Flavor,
    /// Oldest first.
    tasks: Arc<Mutex<Vec<Entry>>>,
    watch: Watch,
}

/// Who hears of each change of a task's status (the extension's listen
/// streams, TASKX-032): called with the task's state as `tasks/get` shows
/// it, after the store's lock is released.
#[derive(Clone, Default)]
pub(crate) struct Watch(Option<Arc<Watcher>>);

/// What a [`Watch`] calls.
type Watcher = dyn Fn(&Value) + Send + Sync;

impl Watch {
    fn tell(&self, state: Option<Value>) {
        if let (Some(watch), Some(state)) = (&self.0, state) {
            watch(&state);
        }
    }
}

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Watch(on)"
        } else {
            "Watch(off)"
        })
    }
}

#[derive(Debug, Clone)]
struct Entry {
    id: String,
    status: TaskStatus,
    message: Option<String>,
    created: String,
    updated: String,
    ttl: u64,
    /// What the call answered, once it did.
    outcome: Option<Result<Value, RpcError>>,
    abort: Option<AbortHandle>,
    /// The user whose request created it, on a protected server: the task
    /// is theirs alone (TASKX-031).
    owner: Option<String>,
    /// The extension's requests for input the task waits on, by key.
    asking: Map<String, Value>,
    /// The responses `tasks/update` brought for keys of `asking`.
    answered: Map<String, Value>,
}

impl Entry {
    /// The task fields, named as `flavor` names them.
    fn describe(&self, flavor: Flavor) -> Value {
        let (ttl, poll_interval) = match flavor {
            Flavor::Utility => ("ttl", "pollInterval"),
            Flavor::Extension => ("ttlMs", "pollIntervalMs"),
        };
        let mut task = json!({
            "taskId": self.id,
            "status": self.status.name(),
            "createdAt": self.created,
            "lastUpdatedAt": self.updated,
            ttl: self.ttl,
            poll_interval: POLL_INTERVAL_MS,
        });
        if let Some(message) = &self.message {
            task["statusMessage"] = json!(message);
        }
        task
    }

    /// The extension's task state: the fields, and the outcome inlined
    /// once the task ended (`result` or `error`, TASKX-010).
    fn detailed(&self) -> Value {
        let mut task = self.describe(Flavor::Extension);
        match &self.outcome {
            Some(Ok(result)) if self.status == TaskStatus::Completed => task["result"] = result.clone(),
            Some(Err(error)) if self.status == TaskStatus::Failed => task["error"] = error.to_json(),
            _ if self.status == TaskStatus::InputRequired => {
                task["inputRequests"] = Value::Object(self.asking.clone());
            }
            _ => {}
        }
        task
    }

    fn moves_to(&mut self, status: TaskStatus, message: impl Into<String>) {
        self.status = status;
        self.message = Some(message.into());
        self.updated = now();
    }
}

fn now() -> String {
    let seconds = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    rfc3339(seconds)
}

/// 128 random bits: a task id nobody can guess (TASK-009 without an
/// authorization context).
fn fresh_id() -> String {
    let mut bytes = [0u8; 16];
    SystemRandom::new()
        .fill(&mut bytes)
        .expect("the system's random source");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Names no id: the requester knows which one it sent.
fn not_found() -> RpcError {
    RpcError::invalid_params("no such task")
}

/// The status a finished call leaves its task in: in 2025-11-25 a tool
/// result with `isError` fails the task too; in the extension only a
/// JSON-RPC error does (TASKX-012).
fn ended_status(outcome: &Result<Value, RpcError>, flavor: Flavor) -> TaskStatus {
    let tool_error = || matches!(outcome, Ok(result) if result.get("isError") == Some(&Value::Bool(true)));
    match outcome {
        Err(_) => TaskStatus::Failed,
        Ok(_) if flavor == Flavor::Utility && tool_error() => TaskStatus::Failed,
        Ok(_) => TaskStatus::Completed,
    }
}

/// What a running task of the extension uses to ask the client for input:
/// its requests show in `tasks/get` until `tasks/update` answers them all.
#[derive(Debug, Clone)]
pub(crate) struct TaskInput {
    tasks: Arc<Mutex<Vec<Entry>>>,
    id: String,
    watch: Watch,
}

impl TaskInput {
    /// Moves the task to `input_required` with `requests` (by key) until
    /// every one is answered, then back to `working`; returns the answers.
    /// A task that ended meanwhile (cancelled) gets none.
    pub async fn ask(&self, requests: Map<String, Value>) -> Map<String, Value> {
        let waiting = self.edit(|entry| {
            entry.moves_to(TaskStatus::InputRequired, "waiting for the client's input");
            entry.asking = requests;
            entry.answered = Map::new();
            entry.detailed()
        });
        if waiting.is_none() {
            return Map::new();
        }
        self.watch.tell(waiting);
        loop {
            let answers = self.edit(|entry| {
                let done =
                    entry.status.is_terminal() || entry.asking.keys().all(|k| entry.answered.contains_key(k));
                done.then(|| {
                    let resumed = !entry.status.is_terminal();
                    if resumed {
                        entry.moves_to(TaskStatus::Working, "the client answered");
                    }
                    entry.asking = Map::new();
                    let answers = std::mem::take(&mut entry.answered);
                    (answers, resumed.then(|| entry.detailed()))
                })
            });
            match answers {
                Some(None) => tokio::time::sleep(RESULT_POLL).await,
                Some(Some((answers, resumed))) => {
                    self.watch.tell(resumed);
                    return answers;
                }
                None => return Map::new(),
            }
        }
    }

    fn edit<T>(&self, change: impl FnOnce(&mut Entry) -> T) -> Option<T> {
        let mut table = self.tasks.lock().expect("tasks lock");
        table.iter_mut().find(|e| e.id == self.id).map(change)
    }
}

impl TaskStore {
    /// The store of the extension's tasks; `watch` hears of every change
    /// of a task's status.
    pub fn extension(watch: impl Fn(&Value) + Send + Sync + 'static) -> TaskStore {
        TaskStore {
            flavor: Flavor::Extension,
            watch: Watch(Some(Arc::new(watch))),
            ..TaskStore::default()
        }
    }

    /// Starts `run` as a new task of `owner`, kept for `ttl` ms (or the
    /// default), and returns the task as created.
    pub fn start<F>(&self, ttl: Option<u64>, owner: Option<String>, run: F) -> Value
    where
        F: Future<Output = Result<Value, RpcError>> + Send + 'static,
    {
        self.start_asking(ttl, owner, |_| run)
    }

    /// [`Self::start`] for a call that may ask for input while it runs:
    /// `run` gets the task's [`TaskInput`].
    pub fn start_asking<F>(
        &self,
        ttl: Option<u64>,
        owner: Option<String>,
        run: impl FnOnce(TaskInput) -> F,
    ) -> Value
    where
        F: Future<Output = Result<Value, RpcError>> + Send + 'static,
    {
        let created = now();
        let mut entry = Entry {
            id: fresh_id(),
            status: TaskStatus::Working,
            message: None,
            created: created.clone(),
            updated: created,
            ttl: ttl.unwrap_or(DEFAULT_TTL_MS),
            outcome: None,
            abort: None,
            owner,
            asking: Map::new(),
            answered: Map::new(),
        };
        let described = entry.describe(self.flavor);
        let run = run(TaskInput {
            tasks: Arc::clone(&self.tasks),
            id: entry.id.clone(),
            watch: self.watch.clone(),
        });
        let flavor = self.flavor;
        let tasks = Arc::clone(&self.tasks);
        let watch = self.watch.clone();
        let id = entry.id.clone();
        // Held while spawning so the task cannot end before its entry exists.
        let mut table = self.tasks.lock().expect("tasks lock");
        // Not `sink::spawn`: the request's stream ends with the
        // CreateTaskResult, so what the task sends goes where unrelated
        // messages go.
        let running = tokio::spawn(async move {
            let outcome = run.await;
            let ended = {
                let mut table = tasks.lock().expect("tasks lock");
                let entry = table.iter_mut().find(|e| e.id == id);
                entry.filter(|e| !e.status.is_terminal()).map(|entry| {
                    let status = ended_status(&outcome, flavor);
                    entry.moves_to(status, format!("the call {}", status.name()));
                    entry.outcome = Some(outcome);
                    entry.detailed()
                })
            };
            watch.tell(ended);
        });
        entry.abort = Some(running.abort_handle());
        table.push(entry);
        described
    }

    pub fn get(&self, id: &str) -> Result<Value, RpcError> {
        let table = self.tasks.lock().expect("tasks lock");
        let entry = table.iter().find(|e| e.id == id).ok_or_else(not_found)?;
        Ok(match self.flavor {
            Flavor::Utility => entry.describe(Flavor::Utility),
            Flavor::Extension => entry.detailed(),
        })
    }

    pub fn list(&self, params: &Map<String, Value>) -> Result<Value, RpcError> {
        let described: Vec<Value> = self
            .tasks
            .lock()
            .expect("tasks lock")
            .iter()
            .map(|entry| entry.describe(self.flavor))
            .collect();
        let page = pagination::page("tasks", &described, params, PAGE_SIZE)?;
        Ok(page.finish(Map::from_iter([(
            "tasks".to_owned(),
            Value::Array(page.items.clone()),
        )])))
    }

    /// Cancels a task that has not ended: it is `cancelled` before this
    /// returns, and stays so (TASK-007); an ended one gets `-32602` (TASK-006).
    pub fn cancel(&self, id: &str) -> Result<Value, RpcError> {
        let (described, state) = {
            let mut table = self.tasks.lock().expect("tasks lock");
            let entry = table.iter_mut().find(|e| e.id == id).ok_or_else(not_found)?;
            if entry.status.is_terminal() {
                return Err(RpcError::invalid_params(format!(
                    "the task already ended: {}",
                    entry.status.name()
                )));
            }
            if let Some(abort) = entry.abort.take() {
                abort.abort();
            }
            entry.moves_to(TaskStatus::Cancelled, "cancelled by tasks/cancel");
            entry.outcome = Some(Err(RpcError::new(
                code::INTERNAL_ERROR,
                "the task was cancelled before its call answered",
            )));
            (entry.describe(self.flavor), entry.detailed())
        };
        self.watch.tell(Some(state));
        Ok(described)
    }

    /// The extension's `tasks/cancel`: a task that has not ended is
    /// cancelled at once, an ended one stays as it was; either way the
    /// request is only acknowledged (TASKX-022). An unknown task gets
    /// `-32602` (TASKX-014).
    pub fn cancel_cooperatively(&self, id: &str) -> Result<(), RpcError> {
        match self.cancel(id) {
            Err(error) if error.code == code::INVALID_PARAMS && self.knows(id) => Ok(()),
            outcome => outcome.map(drop),
        }
    }

    /// Whether the task `id` exists and is not `principal`'s: to them it
    /// does not exist. A request with no principal (an open server's) is
    /// no one's to filter.
    pub fn belongs_to_another(&self, id: &str, principal: Option<&str>) -> bool {
        let table = self.tasks.lock().expect("tasks lock");
        principal.is_some_and(|principal| {
            table
                .iter()
                .any(|e| e.id == id && e.owner.as_deref() != Some(principal))
        })
    }

    /// The extension's `tasks/update`: keeps the responses to keys the task
    /// is waiting on and ignores the others (TASKX-017); an unknown task
    /// gets `-32602` (TASKX-014).
    pub fn update(&self, id: &str, responses: &Map<String, Value>) -> Result<(), RpcError> {
        let mut table = self.tasks.lock().expect("tasks lock");
        let entry = table.iter_mut().find(|e| e.id == id).ok_or_else(not_found)?;
        for (key, response) in responses {
            if entry.asking.contains_key(key) {
                entry.answered.insert(key.clone(), response.clone());
            }
        }
        Ok(())
    }

    /// Whether a task with this id exists.
    pub fn knows(&self, id: &str) -> bool {
        self.tasks.lock().expect("tasks lock").iter().any(|e| e.id == id)
    }

    /// Waits for the task to end, then gives what its call answered, with
    /// the related-task key in a result's `_meta` (TASK-005).
    pub async fn outcome(&self, id: &str) -> Result<Value, RpcError> {
        loop {
            let ended = {
                let table = self.tasks.lock().expect("tasks lock");
                let entry = table.iter().find(|e| e.id == id).ok_or_else(not_found)?;
                entry.outcome.clone()
            };
            match ended {
                Some(Ok(mut result)) => {
                    result["_meta"][RELATED_TASK] = json!({ "taskId": id });
                    return Ok(result);
                }
                Some(Err(error)) => return Err(error),
                None => tokio::time::sleep(RESULT_POLL).await,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_error_fails_a_task_only_in_2025_11_25() {
        let tool_error = Ok(json!({ "content": [], "isError": true }));
        assert_eq!(ended_status(&tool_error, Flavor::Utility), TaskStatus::Failed);
        assert_eq!(
            ended_status(&tool_error, Flavor::Extension),
            TaskStatus::Completed
        );
        let rpc_error = Err(RpcError::new(code::INTERNAL_ERROR, "down"));
        assert_eq!(ended_status(&rpc_error, Flavor::Extension), TaskStatus::Failed);
    }

    #[tokio::test]
    async fn the_extension_inlines_the_outcome_and_only_acknowledges_cancels() {
        let store = TaskStore::extension(|_| {});
        let created = store.start(None, None, async { Ok(json!({ "content": [] })) });
        let id = created["taskId"].as_str().unwrap().to_owned();
        assert!(created.get("ttlMs").is_some() && created.get("ttl").is_none());
        while store.get(&id).unwrap()["status"] == "working" {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(store.get(&id).unwrap()["result"], json!({ "content": [] }));
        assert_eq!(
            store.cancel_cooperatively(&id),
            Ok(()),
            "an ended task's cancel is acknowledged"
        );
        assert_eq!(store.get(&id).unwrap()["status"], "completed");
        assert_eq!(
            store.cancel_cooperatively("nope").unwrap_err().code,
            code::INVALID_PARAMS
        );
    }

    #[tokio::test]
    async fn a_watched_store_tells_every_status_change_with_the_state_tasks_get_shows() {
        let told = Arc::new(Mutex::new(Vec::new()));
        let hearing = Arc::clone(&told);
        let store = TaskStore::extension(move |state| hearing.lock().unwrap().push(state.clone()));
        let created = store.start(None, None, async { Ok(json!({ "content": [] })) });
        let id = created["taskId"].as_str().unwrap().to_owned();
        while told.lock().unwrap().is_empty() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(*told.lock().unwrap(), [store.get(&id).unwrap()]);
        assert_eq!(told.lock().unwrap()[0]["result"], json!({ "content": [] }));
        let slow = store.start(None, None, std::future::pending());
        let slow_id = slow["taskId"].as_str().unwrap().to_owned();
        store.cancel(&slow_id).unwrap();
        assert_eq!(told.lock().unwrap()[1], store.get(&slow_id).unwrap());
        assert_eq!(told.lock().unwrap()[1]["status"], "cancelled");
    }

    #[tokio::test]
    async fn a_task_asks_until_its_keys_are_answered_and_ignores_other_keys() {
        let store = TaskStore::extension(|_| {});
        let question = json!({ "method": "roots/list" });
        let asked = Map::from_iter([("roots".to_owned(), question.clone())]);
        let created = store.start_asking(None, None, |input| async move {
            let answers = input.ask(asked).await;
            Ok(json!({ "content": [], "got": answers }))
        });
        let id = created["taskId"].as_str().unwrap().to_owned();
        while store.get(&id).unwrap()["status"] != "input_required" {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(
            store.get(&id).unwrap()["inputRequests"],
            json!({ "roots": question })
        );
        let stray = Map::from_iter([("other".to_owned(), json!({ "roots": [] }))]);
        store.update(&id, &stray).unwrap();
        tokio::time::sleep(RESULT_POLL * 3).await;
        assert_eq!(
            store.get(&id).unwrap()["status"],
            "input_required",
            "a stray key answers nothing"
        );
        let answer = Map::from_iter([("roots".to_owned(), json!({ "roots": [] }))]);
        store.update(&id, &answer).unwrap();
        while store.get(&id).unwrap()["status"] != "completed" {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(
            store.get(&id).unwrap()["result"]["got"],
            json!({ "roots": { "roots": [] } })
        );
        assert_eq!(
            store.update("nope", &answer).unwrap_err().code,
            code::INVALID_PARAMS
        );
    }
}
