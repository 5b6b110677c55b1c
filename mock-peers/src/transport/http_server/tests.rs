use std::time::Duration;

use mcp_conform_core::wire::Direction;
use serde_json::{Value, json};

use super::*;
use crate::transport::HttpIncident;
use crate::transport::http::sse::SseDecoder;

const BOTH: &str = "application/json, text/event-stream";
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

async fn server() -> HttpServerTransport {
    HttpServerTransport::bind("127.0.0.1:0").await.unwrap()
}

/// The next frame the client sent (skipping incidents).
async fn next_frame(server: &mut HttpServerTransport) -> Frame {
    loop {
        let event = tokio::time::timeout(Duration::from_secs(5), server.recv())
            .await
            .expect("an event in time")
            .expect("the transport is open");
        if let TransportEvent::Frame(frame) = event {
            return frame;
        }
    }
}

/// Reads SSE events until one carries a message; returns it.
async fn next_message(response: &mut reqwest::Response, decoder: &mut SseDecoder) -> Value {
    loop {
        let chunk = tokio::time::timeout(Duration::from_secs(5), response.chunk())
            .await
            .expect("an event in time")
            .unwrap()
            .expect("the stream is open");
        if let Some(event) = decoder
            .feed(&chunk)
            .into_iter()
            .find(|e| !e.data.trim().is_empty())
        {
            return serde_json::from_str(&event.data).unwrap();
        }
    }
}

fn post(client: &reqwest::Client, url: &str, body: &str) -> reqwest::RequestBuilder {
    client
        .post(url)
        .header("accept", BOTH)
        .header("content-type", "application/json")
        .body(body.to_owned())
}

/// Initializes a session; returns the session id.
async fn initialize(server: &mut HttpServerTransport, client: &reqwest::Client) -> String {
    let url = server.url().to_owned();
    let mut answer = post(client, &url, INITIALIZE).send().await.unwrap();
    assert_eq!(answer.status(), 200);
    let session = answer.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    let frame = next_frame(server).await;
    assert_eq!(frame.meta.stream.as_deref(), Some("post#1"));
    let result = json!({"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "m", "version": "1"}});
    let sent = server
        .send(
            json!({"jsonrpc": "2.0", "id": 0, "result": result})
                .to_string()
                .as_bytes(),
        )
        .await
        .unwrap();
    assert_eq!(sent.meta.stream.as_deref(), Some("post#1"));
    assert_eq!(sent.meta.headers["mcp-session-id"], session);
    let message = next_message(&mut answer, &mut SseDecoder::new()).await;
    assert_eq!(message["result"]["protocolVersion"], "2025-11-25");
    session
}

#[tokio::test]
async fn a_session_is_opened_answered_on_its_stream_and_recorded() {
    let mut server = server().await;
    let client = reqwest::Client::new();
    let session = initialize(&mut server, &client).await;
    let url = server.url().to_owned();
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let accepted = post(&client, &url, initialized)
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(accepted.status(), 202);
    assert_eq!(accepted.text().await.unwrap(), "");
    let frame = next_frame(&mut server).await;
    assert_eq!(frame.direction, Direction::Received);
    assert_eq!(frame.text(), initialized);
    assert_eq!(frame.meta.http_status, Some(202));
    assert_eq!(frame.meta.headers["mcp-session-id"], session);
    let record = server.record();
    assert_eq!(record.session_id.as_deref(), Some(session.as_str()));
    assert_eq!(record.version.as_deref(), Some("2025-11-25"));
    let labels: Vec<&str> = record.requests.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(labels, ["post#1", "post#2"]);
    assert!(record.answered_at.unwrap() <= record.requests[1].at);
}

#[tokio::test]
async fn our_requests_wait_for_the_standalone_stream_then_go_on_it_primed() {
    let mut server = server().await;
    let client = reqwest::Client::new();
    let session = initialize(&mut server, &client).await;
    let roots = json!({"jsonrpc": "2.0", "id": 1, "method": "roots/list"}).to_string();
    let sent = server.send(roots.as_bytes()).await.unwrap();
    assert_eq!(sent.meta.stream.as_deref(), Some("held"));
    let url = server.url().to_owned();
    let mut stream = client
        .get(&url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    let mut decoder = SseDecoder::new();
    let chunk = stream.chunk().await.unwrap().unwrap();
    let events = decoder.feed(&chunk);
    assert!(
        events[0].id.is_some() && events[0].data.is_empty(),
        "a priming event first"
    );
    let message = match events.get(1) {
        Some(event) => serde_json::from_str(&event.data).unwrap(),
        None => next_message(&mut stream, &mut decoder).await,
    };
    assert_eq!(message["method"], "roots/list");
    // With the GET stream open, the next one goes straight on it.
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}).to_string();
    let sent = server.send(ping.as_bytes()).await.unwrap();
    assert_eq!(sent.meta.stream.as_deref(), Some("get#2"));
    assert_eq!(next_message(&mut stream, &mut decoder).await["method"], "ping");
}

#[tokio::test]
async fn a_request_no_stream_can_carry_is_given_up_with_its_id() {
    let mut server = server().await;
    let ping = json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}).to_string();
    server.send(ping.as_bytes()).await.unwrap();
    // A guard against a hang, not a measurement: a loaded machine may be slow.
    let event = tokio::time::timeout(endpoint::HOLD + Duration::from_secs(30), server.recv())
        .await
        .unwrap()
        .unwrap();
    let TransportEvent::Http(incident) = event else {
        panic!("an incident, not {event:?}");
    };
    let nine = mcp_conform_core::wire::RequestId::from_value(&json!(9)).unwrap();
    assert_eq!(incident.unanswered, [nine]);
    assert!(
        incident.description.contains("no standalone GET stream"),
        "{}",
        incident.description
    );
}

#[tokio::test]
async fn sessions_are_checked_where_the_spec_binds_the_server_only() {
    let mut server = server().await;
    let client = reqwest::Client::new();
    let session = initialize(&mut server, &client).await;
    let url = server.url().to_owned();
    let ping = r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#;
    let unknown = post(&client, &url, ping)
        .header("mcp-session-id", "not-ours")
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 404);
    let bad_version = post(&client, &url, ping)
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "1999-01-01")
        .send()
        .await
        .unwrap();
    assert_eq!(bad_version.status(), 400);
    let foreign = post(&client, &url, ping)
        .header("origin", "http://attacker.example")
        .send()
        .await
        .unwrap();
    assert_eq!(foreign.status(), 403);
    // No session id and a JSON-only Accept: served, and recorded for judging.
    let served = client
        .post(&url)
        .header("accept", "application/json")
        .body(format!("[{ping}]"))
        .send()
        .await
        .unwrap();
    assert_eq!(served.status(), 200);
    let frame = next_frame(&mut server).await;
    assert_eq!(frame.text(), ping.replace(' ', ""));
    let record = server.record();
    let statuses: Vec<u16> = record.requests.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [200, 404, 400, 403, 200]);
    let last = record.requests.last().unwrap();
    assert!(last.array && last.header("mcp-session-id").is_none() && last.refusal.is_none());
    assert_eq!(record.requests[1].refusal.as_deref(), Some("Session not found"));
}

#[tokio::test]
async fn delete_ends_the_session_and_the_client_is_gone() {
    let mut server = server().await;
    let client = reqwest::Client::new();
    let session = initialize(&mut server, &client).await;
    let url = server.url().to_owned();
    let deleted = client
        .delete(&url)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 200);
    let exit = server.wait_exit(Duration::from_secs(5)).await;
    assert!(exit.description.contains("DELETE"), "{}", exit.description);
    let again = post(&client, &url, r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 404);
}

#[tokio::test]
async fn the_legacy_endpoint_names_where_to_post_and_answers_on_its_stream() {
    let mut server = server().await;
    let client = reqwest::Client::new();
    let sse = server.url().replace(MCP_PATH, SSE_PATH);
    let mut stream = client
        .get(&sse)
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    let mut decoder = SseDecoder::new();
    let chunk = stream.chunk().await.unwrap().unwrap();
    let endpoint = decoder.feed(&chunk).remove(0);
    assert_eq!(endpoint.event.as_deref(), Some("endpoint"));
    let post_url = reqwest::Url::parse(&sse)
        .unwrap()
        .join(endpoint.data.trim())
        .unwrap();
    let accepted = post(&client, post_url.as_str(), INITIALIZE).send().await.unwrap();
    assert_eq!(accepted.status(), 202);
    assert_eq!(next_frame(&mut server).await.text(), INITIALIZE);
    server
        .send(br#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2024-11-05","capabilities":{},"serverInfo":{"name":"m","version":"1"}}}"#)
        .await
        .unwrap();
    let message = next_message(&mut stream, &mut decoder).await;
    assert_eq!(message["result"]["protocolVersion"], "2024-11-05");
    assert!(server.record().legacy);
    drop(stream);
    let exit = server.wait_exit(Duration::from_secs(5)).await;
    assert!(exit.description.contains("HTTP+SSE"), "{}", exit.description);
}

/// A stateless mock server, a client for it, and its URL.
async fn stateless_server() -> (HttpServerTransport, reqwest::Client, String) {
    let mut server = server().await;
    server.serve_stateless();
    let url = server.url().to_owned();
    (server, reqwest::Client::new(), url)
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#;

/// A 2026-07-28 request body: `method` with `params` (JSON members) and the
/// protocol version in its `_meta`.
fn stateless(id: &str, method: &str, params: &str) -> String {
    let params = if params.is_empty() {
        META.to_owned()
    } else {
        format!("{params},{META}")
    };
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{params}}}}}"#)
}

/// One POST's SSE answer, read event by event.
struct Events {
    response: reqwest::Response,
    decoder: SseDecoder,
    queue: std::collections::VecDeque<crate::transport::http::sse::SseEvent>,
}

impl Events {
    async fn post(client: &reqwest::Client, url: &str, body: &str) -> Events {
        let response = post(client, url, body).send().await.unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        assert!(!response.headers().contains_key("mcp-session-id"));
        Events {
            response,
            decoder: SseDecoder::new(),
            queue: Default::default(),
        }
    }

    /// The next event, or `None` once the stream has ended.
    async fn next(&mut self) -> Option<crate::transport::http::sse::SseEvent> {
        while self.queue.is_empty() {
            let chunk = tokio::time::timeout(Duration::from_secs(5), self.response.chunk())
                .await
                .expect("an event or the end in time")
                .unwrap()?;
            self.queue.extend(self.decoder.feed(&chunk));
        }
        self.queue.pop_front()
    }

    /// The next message; events carry no ids (nothing is resumable).
    async fn message(&mut self) -> Value {
        let event = self.next().await.expect("a message");
        assert_eq!(event.id, None);
        serde_json::from_str(&event.data).unwrap()
    }

    /// Whether nothing arrives within a moment.
    async fn quiet(&mut self) -> bool {
        tokio::time::timeout(Duration::from_millis(300), self.response.chunk())
            .await
            .is_err()
    }
}

/// Sends `message` as the engine; returns the stream it went on.
async fn engine_sends(server: &mut HttpServerTransport, message: Value) -> Option<String> {
    let sent = server.send(message.to_string().as_bytes()).await.unwrap();
    sent.meta.stream
}

/// The next incident (skipping frames).
async fn next_incident(server: &mut HttpServerTransport, within: Duration) -> HttpIncident {
    loop {
        let event = tokio::time::timeout(within, server.recv())
            .await
            .expect("an incident in time")
            .expect("the transport is open");
        if let TransportEvent::Http(incident) = event {
            return incident;
        }
    }
}

#[tokio::test]
async fn the_stateless_era_serves_post_only_and_never_a_session() {
    let (mut server, client, url) = stateless_server().await;
    for method in [reqwest::Method::GET, reqwest::Method::DELETE] {
        let refused = client.request(method, &url).send().await.unwrap();
        assert_eq!(refused.status(), 405);
        assert_eq!(refused.headers()["allow"], "POST");
    }
    let sse = client.get(url.replace(MCP_PATH, SSE_PATH)).send().await.unwrap();
    assert_eq!(sse.status(), 404);
    // A session id the server never issued is ignored, not refused.
    let bogus = post(&client, &url, &stateless("1", "tools/list", ""))
        .header("mcp-session-id", "not-ours")
        .send()
        .await
        .unwrap();
    assert_eq!(bogus.status(), 200);
    assert!(!bogus.headers().contains_key("mcp-session-id"));
    let frame = next_frame(&mut server).await;
    assert_eq!(frame.meta.stream.as_deref(), Some("post#4"));
    let note = r#"{"jsonrpc":"2.0","method":"notifications/mcp-conform/note"}"#;
    let accepted = post(&client, &url, note).send().await.unwrap();
    assert_eq!(accepted.status(), 202);
    assert_eq!(accepted.text().await.unwrap(), "");
    assert_eq!(next_frame(&mut server).await.meta.http_status, Some(202));
    let record = server.record();
    assert!(record.stateless && record.session_id.is_none());
    let statuses: Vec<u16> = record.requests.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [405, 405, 404, 200, 202]);
}

#[tokio::test]
async fn each_response_goes_on_the_stream_of_its_request_which_then_ends() {
    let (mut server, client, url) = stateless_server().await;
    let mut first = Events::post(&client, &url, &stateless("1", "tools/list", "")).await;
    let mut second = Events::post(&client, &url, &stateless("2", "prompts/list", "")).await;
    let _ = next_frame(&mut server).await;
    let _ = next_frame(&mut server).await;
    // The engine's session switches too, once the client is there: the streams stay.
    server.serve_stateless();
    let answer = |id: u64| json!({"jsonrpc": "2.0", "id": id, "result": {}});
    assert_eq!(
        engine_sends(&mut server, answer(2)).await.as_deref(),
        Some("post#2")
    );
    assert_eq!(second.message().await["id"], 2);
    assert!(second.next().await.is_none(), "the stream ends with its response");
    assert!(first.quiet().await);
    assert_eq!(
        engine_sends(&mut server, answer(1)).await.as_deref(),
        Some("post#1")
    );
    assert_eq!(first.message().await["id"], 1);
    assert!(first.next().await.is_none());
}

#[tokio::test]
async fn notifications_go_on_the_stream_of_the_request_they_are_about() {
    let (mut server, client, url) = stateless_server().await;
    let filter = r#""notifications":{"toolsListChanged":true}"#;
    let mut listen = Events::post(
        &client,
        &url,
        &stateless(r#""L""#, "subscriptions/listen", filter),
    )
    .await;
    let call = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow","arguments":{},"_meta":{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    let mut called = Events::post(&client, &url, call).await;
    let _ = next_frame(&mut server).await;
    let _ = next_frame(&mut server).await;
    let tagged = json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
        "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": "L"}}});
    assert_eq!(engine_sends(&mut server, tagged).await.as_deref(), Some("post#1"));
    assert_eq!(
        listen.message().await["method"],
        "notifications/tools/list_changed"
    );
    let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress",
        "params": {"progressToken": "p", "progress": 1}});
    assert_eq!(
        engine_sends(&mut server, progress).await.as_deref(),
        Some("post#2")
    );
    assert_eq!(called.message().await["method"], "notifications/progress");
    // About no request in particular: the newest request stream still open.
    let log = json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}});
    assert_eq!(engine_sends(&mut server, log).await.as_deref(), Some("post#2"));
    assert_eq!(called.message().await["method"], "notifications/message");
    assert!(listen.quiet().await, "nothing else reaches the listen stream");
    let done = json!({"jsonrpc": "2.0", "id": 7, "result": {"content": []}});
    assert_eq!(engine_sends(&mut server, done).await.as_deref(), Some("post#2"));
    assert_eq!(called.message().await["id"], 7);
    assert!(called.next().await.is_none());
    // The listen stream stays open until its request is answered.
    assert!(listen.quiet().await);
    let ended = json!({"jsonrpc": "2.0", "id": "L", "result": {}});
    assert_eq!(engine_sends(&mut server, ended).await.as_deref(), Some("post#1"));
    assert_eq!(listen.message().await["id"], "L");
    assert!(listen.next().await.is_none());
}

#[tokio::test]
async fn a_notification_no_stream_can_carry_waits_for_the_next_request() {
    let (mut server, client, url) = stateless_server().await;
    let log = json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}});
    assert_eq!(engine_sends(&mut server, log).await.as_deref(), Some("held"));
    let mut events = Events::post(&client, &url, &stateless("1", "tools/list", "")).await;
    assert_eq!(events.message().await["method"], "notifications/message");
}

#[tokio::test]
async fn closing_a_stream_before_its_response_cancels_the_request() {
    let (mut server, client, url) = stateless_server().await;
    let call = stateless("9", "tools/call", r#""name":"slow","arguments":{}"#);
    let events = Events::post(&client, &url, &call).await;
    let _ = next_frame(&mut server).await;
    drop(events);
    let incident = next_incident(&mut server, Duration::from_secs(5)).await;
    assert_eq!(incident.stream, "post#1");
    assert!(incident.unanswered.is_empty() && incident.status.is_none());
    assert!(
        incident.description.contains("before the response to request 9")
            && incident.description.contains("cancels"),
        "{}",
        incident.description
    );
    assert!(server.record().requests[0].cancelled);
    // Nothing more goes out about it: its response goes nowhere, its progress waits in vain.
    let done = json!({"jsonrpc": "2.0", "id": 9, "result": {"content": []}});
    assert_eq!(engine_sends(&mut server, done).await, None);
    let tagged = json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
        "params": {"uri": "file:///x", "_meta": {"io.modelcontextprotocol/subscriptionId": 9}}});
    assert_eq!(engine_sends(&mut server, tagged).await.as_deref(), Some("held"));
    let expired = next_incident(&mut server, endpoint::HOLD + Duration::from_secs(30)).await;
    assert!(
        expired
            .description
            .contains("request 9, which it is about, is closed"),
        "{}",
        expired.description
    );
}

#[tokio::test]
async fn a_stream_that_ends_with_its_response_cancels_nothing() {
    let (mut server, client, url) = stateless_server().await;
    let mut events = Events::post(&client, &url, &stateless("3", "tools/list", "")).await;
    let _ = next_frame(&mut server).await;
    engine_sends(
        &mut server,
        json!({"jsonrpc": "2.0", "id": 3, "result": {"tools": []}}),
    )
    .await;
    assert_eq!(events.message().await["id"], 3);
    drop(events);
    assert!(
        tokio::time::timeout(Duration::from_millis(500), server.recv())
            .await
            .is_err()
    );
    assert!(!server.record().requests[0].cancelled);
}

#[test]
fn the_mock_server_listens_on_loopback_only() {
    assert!(loopback_address("127.0.0.1:0").is_ok());
    assert!(loopback_address("[::1]:8080").is_ok());
    assert_eq!(
        loopback_address("localhost:0").unwrap().to_string(),
        "127.0.0.1:0"
    );
    let refused = loopback_address("0.0.0.0:0").unwrap_err().to_string();
    assert!(refused.contains("loopback addresses only"), "{refused}");
    assert!(loopback_address("192.168.1.2:80").is_err());
    assert!(loopback_address("nonsense").is_err());
}

#[tokio::test]
async fn a_client_posting_faster_than_the_session_reads_waits_for_its_answers() {
    let mut server = server().await;
    let client = reqwest::Client::new();
    let session = initialize(&mut server, &client).await;
    let url = server.url().to_owned();
    let answered = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let notification = r#"{"jsonrpc":"2.0","method":"notifications/mcp-conform/flood"}"#;
    let posts: Vec<_> = (0..200)
        .map(|_| {
            let request = post(&client, &url, notification).header("mcp-session-id", &session);
            let answered = Arc::clone(&answered);
            tokio::spawn(async move {
                assert_eq!(request.send().await.unwrap().status(), 202);
                answered.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            })
        })
        .collect();
    // Nobody reads: the queue takes its share, and the other POSTs wait.
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let early = answered.load(std::sync::atomic::Ordering::Relaxed);
    assert!(
        early <= FRAMES_AHEAD + 1,
        "{early} POSTs answered before the session read any"
    );
    for _ in 0..200 {
        assert_eq!(next_frame(&mut server).await.text(), notification);
    }
    for post in posts {
        post.await.unwrap();
    }
}
