//! Requests running on their own tasks, by id: so that a slow call never
//! blocks the connection, and a cancelled one answers nothing.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::task::{AbortHandle, JoinHandle};

use super::sink;
use mcp_conform_core::wire::jsonrpc::{self, RpcError, id_key};

/// The running requests of one connection; removing an entry means "do not answer".
#[derive(Debug, Default)]
pub(crate) struct Inflight {
    running: Arc<Mutex<HashMap<String, AbortHandle>>>,
}

impl Inflight {
    /// Runs request `id` on its own task; it yields the response frame
    /// unless [`Inflight::cancel`] removed the request first.
    pub fn spawn<F>(&self, id: Value, work: F) -> JoinHandle<Option<Value>>
    where
        F: Future<Output = Result<Value, RpcError>> + Send + 'static,
    {
        let key = id_key(&id);
        let running = Arc::clone(&self.running);
        // Held while spawning so the task cannot finish before its entry exists.
        let mut table = self.running.lock().expect("inflight lock");
        let task = sink::spawn({
            let key = key.clone();
            async move {
                let outcome = work.await;
                let wanted = running.lock().expect("inflight lock").remove(&key).is_some();
                wanted.then(|| jsonrpc::response(&id, outcome))
            }
        });
        table.insert(key, task.abort_handle());
        task
    }

    /// Stops request `id`, which then answers nothing; false when nothing
    /// runs under that id.
    pub fn cancel(&self, id: &Value) -> bool {
        let running = self.running.lock().expect("inflight lock").remove(&id_key(id));
        running.inspect(AbortHandle::abort).is_some()
    }

    /// Gives running requests `grace` to finish, then stops the rest.
    pub async fn drain(&self, grace: Duration) {
        let running: Vec<AbortHandle> = self
            .running
            .lock()
            .expect("inflight lock")
            .values()
            .cloned()
            .collect();
        let all_finished = async {
            while running.iter().any(|handle| !handle.is_finished()) {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        };
        let _ = tokio::time::timeout(grace, all_finished).await;
        running.iter().for_each(AbortHandle::abort);
        // Let the tasks forwarding finished responses queue them.
        for _ in 0..3 {
            tokio::task::yield_now().await;
        }
    }
}
