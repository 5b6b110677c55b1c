use std::time::Duration;

use mcp_conform_core::wire::Direction;
use serde_json::{Value, json};

use super::*;
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
    let event = tokio::time::timeout(endpoint::HOLD + Duration::from_secs(2), server.recv())
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
