//! `subscriptions/listen`: long-lived streams of change notifications.
//!
//! Opening one acknowledges the part of the filter this server honours
//! before anything else goes on the stream (SUBS-001, SUBS-002); after that
//! the stream carries only the notification types it opted into (LIST-003,
//! RES-008), each tagged with the listen request's id (SUBS-003). A stream
//! ends silently when the client cancels it (stdio `notifications/cancelled`,
//! or closing the HTTP stream), or gracefully when the server ends it: a
//! `complete` result for the listen request (SUBS-005).
//!
//! The registry belongs to the whole server, not to a connection: a tool
//! called on one HTTP request notifies the streams opened by others.

use std::sync::Mutex;

use serde_json::{Map, Value, json};

use super::results;
use crate::reference::era::SUBSCRIPTION_ID;
use crate::reference::resources;
use crate::reference::sink::Sink;
use mcp_conform_core::wire::jsonrpc::{self, RpcError, id_key};

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
}

impl Filter {
    /// The honoured part of a requested filter: every list (they all may
    /// change), and the subscribed resources that exist.
    fn honoured(requested: &Value) -> Result<Filter, RpcError> {
        let Some(requested) = requested.as_object() else {
            return Err(RpcError::invalid_params(
                "subscriptions/listen needs a `notifications` filter object",
            ));
        };
        let lists = ListKind::ALL
            .into_iter()
            .filter(|kind| requested.get(kind.member()) == Some(&Value::Bool(true)))
            .collect();
        let uris = match requested.get("resourceSubscriptions") {
            None => Vec::new(),
            Some(Value::Array(uris)) => uris
                .iter()
                .map(|uri| uri.as_str().ok_or(()))
                .collect::<Result<Vec<&str>, ()>>()
                .map_err(|()| RpcError::invalid_params("`resourceSubscriptions` must be strings"))?
                .into_iter()
                .filter(|uri| resources::exists(uri))
                .map(str::to_owned)
                .collect(),
            Some(_) => {
                return Err(RpcError::invalid_params(
                    "`resourceSubscriptions` must be an array of URIs",
                ));
            }
        };
        Ok(Filter { lists, uris })
    }

    fn to_json(&self) -> Value {
        let mut filter = Map::new();
        for kind in &self.lists {
            filter.insert(kind.member().to_owned(), Value::Bool(true));
        }
        if !self.uris.is_empty() {
            filter.insert("resourceSubscriptions".to_owned(), json!(self.uris));
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
    /// acknowledgement goes out first, then the stream is live.
    pub fn open(
        &self,
        connection: u64,
        id: Value,
        params: &Map<String, Value>,
        sink: Sink,
    ) -> Result<(), RpcError> {
        let requested = params.get("notifications").unwrap_or(&Value::Null);
        let filter = Filter::honoured(requested)?;
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
        let honoured = Filter::honoured(&requested).unwrap();
        assert_eq!(
            honoured.to_json(),
            json!({ "toolsListChanged": true, "resourceSubscriptions": ["ref://text/readme"] })
        );
        assert_eq!(Filter::honoured(&json!({})).unwrap().to_json(), json!({}));
        assert!(Filter::honoured(&Value::Null).is_err());
        assert!(Filter::honoured(&json!({ "resourceSubscriptions": [1] })).is_err());
    }
}
