//! The stateless era (2026-07-28+) at the mock server's endpoint: POST on
//! `/mcp` only (GET and DELETE get 405, the HTTP+SSE endpoint 404), no
//! session (an `Mcp-Session-Id` is ignored, none is ever issued: HTTP-026),
//! no resumption (no priming events, no event ids). A request gets an SSE
//! stream that carries what is about it and then its response, and ends; a
//! notification gets 202. Closing the stream before the response cancels
//! the request (HTTP-011): that is recorded and told to the engine.
//!
//! Headers are not checked here: they bind the client, and are judged
//! afterwards from the record.

use std::sync::Arc;

use hyper::StatusCode;
use mcp_conform_core::evidence::http::InboundRequest;
use mcp_conform_core::protocol::meta_key::SUBSCRIPTION_ID;
use mcp_conform_core::wire::jsonrpc::id_key;
use serde_json::Value;

use super::{Endpoint, Placement, PostBody, State, is_response};
use crate::transport::http_server::respond::{Answer, status_only};
use crate::transport::http_server::serve::Inbound;
use crate::transport::http_server::streams::Origin;

const PROGRESS: &str = "notifications/progress";

impl Endpoint {
    /// POST in the stateless era: each message goes to the engine; a body
    /// with requests is answered with one SSE stream awaiting their
    /// responses, anything else with 202.
    pub(super) async fn serve_stateless_post(
        self: Arc<Self>,
        request: Inbound,
        seen: &mut InboundRequest,
    ) -> Answer {
        let PostBody { text, message, shape } = match self.parse_post(request.body, seen).await {
            Ok(body) => body,
            Err(answer) => return Ok(*answer),
        };
        // The state's lock is released before the message waits for room.
        let response = {
            let mut state = self.state();
            remember_progress_tokens(&mut state, &message);
            if shape.requests.is_empty() {
                status_only(StatusCode::ACCEPTED)
            } else {
                let router = Arc::clone(&state.router);
                let origin = router.open(shape.requests);
                Self::flush_held(&mut state, origin);
                let (closing, label) = (Arc::clone(&self), seen.label.clone());
                let body = router
                    .connect(origin, false, None)
                    .map(|body| body.on_drop(move || closing.stream_closed(origin, &label)));
                Self::stream_answer(&mut state, origin, body, &seen.label, None)?
            }
        };
        self.deliver_each(text, Some(message), seen, response.status())
            .await;
        Ok(response)
    }

    /// The client stopped reading the stream of POST `label`: requests it
    /// still awaited are cancelled, which is recorded and told to the engine.
    fn stream_closed(&self, origin: Origin, label: &str) {
        let mut state = self.state();
        let cancelled = state.router.abandon(origin);
        if cancelled.is_empty() {
            return;
        }
        if let Some(seen) = state.record.requests.iter_mut().find(|r| r.label == label) {
            seen.cancelled = true;
        }
        drop(state);
        let description = format!(
            "{label}: the client closed the response stream before the response to request {}: in 2026-07-28 that cancels the request",
            cancelled.join(", ")
        );
        self.incident(label, None, Vec::new(), description);
    }

    /// Where a frame of ours goes in the stateless era: a response on the
    /// stream awaiting it (nowhere once the client cancelled its request);
    /// a notification tagged with a subscription id on the stream of that
    /// `subscriptions/listen` request, `notifications/progress` on the
    /// stream of the request that asked for progress under its token, any
    /// other on the newest request stream still read; held when there is
    /// no such stream yet.
    pub(super) fn place_stateless(state: &State, data: String, message: &Value) -> Placement {
        let router = &state.router;
        if is_response(message) {
            let awaited = message
                .get("id")
                .map(id_key)
                .is_some_and(|id| router.awaiting(&id).is_some());
            return Placement::Routed(awaited.then(|| router.route(data, Some(message), None)).flatten());
        }
        let about = request_about(state, message);
        let outlet = match &about {
            Some(id) => router.awaiting(id),
            None => router.live_request_stream(),
        };
        match outlet {
            Some(origin) => Placement::Routed(router.route_on(origin, data).map(|seq| (origin, seq))),
            None => Placement::Held { data, about },
        }
    }
}

/// The client request (as an [`id_key`]) a notification of ours is about:
/// the listen request its subscription id names, or the request that asked
/// for progress under its progress token.
fn request_about(state: &State, message: &Value) -> Option<String> {
    if let Some(listen) = message
        .pointer("/params/_meta")
        .and_then(|meta| meta.get(SUBSCRIPTION_ID))
    {
        return Some(id_key(listen));
    }
    if message.get("method").and_then(Value::as_str) != Some(PROGRESS) {
        return None;
    }
    let token = message.pointer("/params/progressToken").map(id_key)?;
    state.progress.get(&token).cloned()
}

/// Notes the progress token of each request in a body, so that progress
/// about it goes on its stream.
fn remember_progress_tokens(state: &mut State, message: &Value) {
    let items = match message {
        Value::Array(items) => items.iter().collect(),
        single => vec![single],
    };
    for item in items {
        if let (Some(id), Some(token)) = (item.get("id"), item.pointer("/params/_meta/progressToken"))
            && item.get("method").is_some()
        {
            state.progress.insert(id_key(token), id_key(id));
        }
    }
}
