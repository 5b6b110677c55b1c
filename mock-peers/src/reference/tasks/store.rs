//! The tasks of one connection: their state, their lifecycle, and what
//! each call answered.

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

#[derive(Debug, Default)]
pub(crate) struct TaskStore {
    /// Oldest first.
    tasks: Arc<Mutex<Vec<Entry>>>,
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
}

impl Entry {
    fn describe(&self) -> Value {
        let mut task = json!({
            "taskId": self.id,
            "status": self.status.name(),
            "createdAt": self.created,
            "lastUpdatedAt": self.updated,
            "ttl": self.ttl,
            "pollInterval": POLL_INTERVAL_MS,
        });
        if let Some(message) = &self.message {
            task["statusMessage"] = json!(message);
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
/// result with `isError` fails the task too.
fn ended_status(outcome: &Result<Value, RpcError>) -> TaskStatus {
    match outcome {
        Ok(result) if result.get("isError") != Some(&Value::Bool(true)) => TaskStatus::Completed,
        _ => TaskStatus::Failed,
    }
}

impl TaskStore {
    /// Starts `run` as a new task, kept for `ttl` ms (or the default), and
    /// returns the task as created.
    pub fn start<F>(&self, ttl: Option<u64>, run: F) -> Value
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
        };
        let described = entry.describe();
        let tasks = Arc::clone(&self.tasks);
        let id = entry.id.clone();
        // Held while spawning so the task cannot end before its entry exists.
        let mut table = self.tasks.lock().expect("tasks lock");
        // Not `sink::spawn`: the request's stream ends with the
        // CreateTaskResult, so what the task sends goes where unrelated
        // messages go.
        let running = tokio::spawn(async move {
            let outcome = run.await;
            let mut table = tasks.lock().expect("tasks lock");
            let Some(entry) = table.iter_mut().find(|e| e.id == id) else {
                return;
            };
            if entry.status.is_terminal() {
                return;
            }
            let status = ended_status(&outcome);
            entry.moves_to(status, format!("the call {}", status.name()));
            entry.outcome = Some(outcome);
        });
        entry.abort = Some(running.abort_handle());
        table.push(entry);
        described
    }

    pub fn get(&self, id: &str) -> Result<Value, RpcError> {
        let table = self.tasks.lock().expect("tasks lock");
        let entry = table.iter().find(|e| e.id == id).ok_or_else(not_found)?;
        Ok(entry.describe())
    }

    pub fn list(&self, params: &Map<String, Value>) -> Result<Value, RpcError> {
        let described: Vec<Value> = self
            .tasks
            .lock()
            .expect("tasks lock")
            .iter()
            .map(Entry::describe)
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
        Ok(entry.describe())
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
