//! `subscriptions/listen`: long-lived streams of change notifications.
//!
//! Opening one acknowledges the part of the filter this server honours
//! before anything else goes on the stream (SUBS-001, SUBS-002); after that
//! the stream carries only the notification types it opted into (LIST-003,
//! RES-008), each tagged with the listen request's id (SUBS-003). A stream
//! ends silently when the client cancels it (stdio `notifications/cancelled`,
//! or closing the HTTP stream), or gracefully when the server ends it: a
//! `complete` result for the listen request (SUBS-005). A stream may follow
//! tasks of the extension (`taskIds`, TASKX-032): it gets each agreed
//! task's state at once, then every change of it, as `tasks/get` shows it
//! (TASKX-033), and nothing else about the task (TASKX-034).
//!
//! The registry belongs to the whole server, not to a connection: a tool
//! called on one HTTP request notifies the streams opened by others.

use std::sync::Mutex;

use serde_json::{Map, Value, json};

use super::results;
use crate::reference::era::SUBSCRIPTION_ID;
use crate::reference::resources;
use crate::reference::sink::Sink;
use crate::reference::tasks::TaskStore;
use mcp_conform_core::protocol::subscriptions::TASK_IDS;
use mcp_conform_core::wire::jsonrpc::{self, RpcError, id_key};

/// The notification that carries a followed task's state.
const TASK_STATUS: &str = "notifications/tasks";

/// A list whose changes a stream may ask for, with its filter member and notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListKind {
    Tools,
    Prompts,
    Resources,
}

impl ListKind {
    const ALL: [ListKind; 3] = [ListKind::Tools, ListKind::Prompts, ListKind::Resources];

    fn member(self) -> &'static str {
        match self {
            ListKind::Tools => "toolsListChanged",
            ListKind::Prompts => "promptsListChanged",
            ListKind::Resources => "resourcesListChanged",
        }
    }

    fn method(self) -> &'static str {
        match self {
            ListKind::Tools => "notifications/tools/list_changed",
            ListKind::Prompts => "notifications/prompts/list_changed",
            ListKind::Resources => "notifications/resources/list_changed",
        }
    }
}

/// What a stream receives: the part of its filter this server honours.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Filter {
    lists: Vec<ListKind>,
    uris: Vec<String>,
    tasks: Vec<String>,
}

/// The strings of filter member `member`, which must be an array of them.
fn listed<'a>(requested: &'a Map<String, Value>, member: &str) -> Result<Vec<&'a str>, RpcError> {
    let wrong = || RpcError::invalid_params(format!("`{member}` must be an array of strings"));
    match requested.get(member) {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items.iter().map(|item| item.as_str().ok_or_else(wrong)).collect(),
        Some(_) => Err(wrong()),
    }
}

impl Filter {
    /// The honoured part of a requested filter: every list (they all may
    /// change), the subscribed resources that exist, and the tasks the
    /// requester `may_follow`.
    fn honoured(requested: &Value, may_follow: impl Fn(&str) -> bool) -> Result<Filter, RpcError> {
        let Some(requested) = requested.as_object() else {
            return Err(RpcError::invalid_params(
                "subscriptions/listen needs a `notifications` filter object",
            ));
        };
        let lists = ListKind::ALL
            .into_iter()
            .filter(|kind| requested.get(kind.member()) == Some(&Value::Bool(true)))
            .collect();
        let uris = listed(requested, "resourceSubscriptions")?
            .into_iter()
            .filter(|uri| resources::exists(uri))
            .map(str::to_owned)
            .collect();
        let tasks = listed(requested, TASK_IDS)?
            .into_iter()
            .filter(|id| may_follow(id))
            .map(str::to_owned)
            .collect();
        Ok(Filter { lists, uris, tasks })
    }

    fn to_json(&self) -> Value {
        let mut filter = Map::new();
        for kind in &self.lists {
            filter.insert(kind.member().to_owned(), Value::Bool(true));
        }
        if !self.uris.is_empty() {
            filter.insert("resourceSubscriptions".to_owned(), json!(self.uris));
        }
        if !self.tasks.is_empty() {
            filter.insert(TASK_IDS.to_owned(), json!(self.tasks));
        }
        Value::Object(filter)
    }
}

/// One open stream.
#[derive(Debug)]
struct Stream {
    /// The connection the listen request came on (its ids are its own).
    connection: u64,
    id: Value,
    filter: Filter,
    sink: Sink,
}

impl Stream {
    fn notify(&self, method: &str, mut params: Value) {
        params["_meta"] = json!({ SUBSCRIPTION_ID: self.id });
        self.sink.send(jsonrpc::notification(method, params));
    }
}

/// The open streams of the server.
#[derive(Debug, Default)]
pub(crate) struct Registry {
    streams: Mutex<Vec<Stream>>,
}

impl Registry {
    fn streams(&self) -> std::sync::MutexGuard<'_, Vec<Stream>> {
        self.streams.lock().expect("listen registry lock")
    }

    /// Opens the stream of listen request `id` on `connection`: the
    /// acknowledgement goes out first, then the state of each task it
    /// follows (of `tasks`, those `principal` may see), then the stream is live.
    pub fn open(
        &self,
        (connection, id): (u64, Value),
        params: &Map<String, Value>,
        sink: Sink,
        (tasks, principal): (&TaskStore, Option<&str>),
    ) -> Result<(), RpcError> {
        let requested = params.get("notifications").unwrap_or(&Value::Null);
        let may_follow = |task: &str| tasks.knows(task) && !tasks.belongs_to_another(task, principal);
        let filter = Filter::honoured(requested, may_follow)?;
        let stream = Stream {
            connection,
            id,
            filter,
            sink,
        };
        // Under the lock, so that no notification can overtake the acknowledgement.
        let mut streams = self.streams();
        stream.notify(
            "notifications/subscriptions/acknowledged",
            json!({ "notifications": stream.filter.to_json() }),
        );
        // Read under the lock too: a change after this read finds the stream open.
        for state in stream.filter.tasks.iter().filter_map(|task| tasks.get(task).ok()) {
            stream.notify(TASK_STATUS, state);
        }
        streams.push(stream);
        Ok(())
    }

    /// Ends stream `id` of `connection` without a word: the client cancelled
    /// it. False when there was none.
    pub fn cancel(&self, connection: u64, id: &Value) -> bool {
        let mut streams = self.streams();
        let before = streams.len();
        streams.retain(|s| !(s.connection == connection && id_key(&s.id) == id_key(id)));
        streams.len() != before
    }

    /// Ends the streams `which` picks gracefully: each listen request gets
    /// its `complete` result. Returns how many ended.
    pub fn end(&self, which: impl Fn(u64, &Value) -> bool) -> usize {
        let mut streams = self.streams();
        let (ending, staying): (Vec<Stream>, Vec<Stream>) =
            streams.drain(..).partition(|s| which(s.connection, &s.id));
        *streams = staying;
        for stream in &ending {
            let result = results::complete(json!({ "_meta": { SUBSCRIPTION_ID: stream.id } }));
            stream.sink.send(jsonrpc::response(&stream.id, Ok(result)));
        }
        ending.len()
    }

    /// Tells the streams that asked for it that a list changed.
    pub fn list_changed(&self, kind: ListKind) {
        for stream in self.streams().iter().filter(|s| s.filter.lists.contains(&kind)) {
            stream.notify(kind.method(), json!({}));
        }
    }

    /// Tells the streams that follow the task whose state this is that it changed.
    pub fn task_changed(&self, state: &Value) {
        let id = state.get("taskId").and_then(Value::as_str).unwrap_or_default();
        for stream in self
            .streams()
            .iter()
            .filter(|s| s.filter.tasks.iter().any(|t| t == id))
        {
            stream.notify(TASK_STATUS, state.clone());
        }
    }

    /// Tells the streams subscribed to `uri` that it changed; false when none is.
    pub fn resource_updated(&self, uri: &str) -> bool {
        let streams = self.streams();
        let subscribed: Vec<&Stream> = streams
            .iter()
            .filter(|s| s.filter.uris.iter().any(|u| u == uri))
            .collect();
        for stream in &subscribed {
            stream.notify("notifications/resources/updated", json!({ "uri": uri }));
        }
        !subscribed.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_honoured_filter_keeps_lists_asked_for_and_resources_that_exist() {
        let requested = json!({
            "toolsListChanged": true,
            "promptsListChanged": false,
            "resourceSubscriptions": ["ref://text/readme", "ref://nope"],
        });
        let honoured = Filter::honoured(&requested, |_| true).unwrap();
        assert_eq!(
            honoured.to_json(),
            json!({ "toolsListChanged": true, "resourceSubscriptions": ["ref://text/readme"] })
        );
        assert_eq!(
            Filter::honoured(&json!({}), |_| true).unwrap().to_json(),
            json!({})
        );
        assert!(Filter::honoured(&Value::Null, |_| true).is_err());
        assert!(Filter::honoured(&json!({ "resourceSubscriptions": [1] }), |_| true).is_err());
    }

    #[test]
    fn the_honoured_filter_follows_only_tasks_the_requester_may_see() {
        let requested = json!({ "taskIds": ["mine", "theirs"] });
        let honoured = Filter::honoured(&requested, |task| task == "mine").unwrap();
        assert_eq!(honoured.to_json(), json!({ "taskIds": ["mine"] }));
        assert!(Filter::honoured(&json!({ "taskIds": "mine" }), |_| true).is_err());
    }
}
