//! Drives the reference server over HTTP with a minimal HTTP/1.1 client on a
//! raw TCP stream: Streamable HTTP at /mcp and HTTP+SSE at /sse.

use std::net::SocketAddr;
use std::process::Stdio;
use std::time::Duration;

use mcp_mock_peers::reference::Fault;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

mod raw_http;

use raw_http::{BOTH, Reply, WAIT, send, start};

fn initialize(version: &str, capabilities: Value) -> String {
    json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": capabilities,
            "clientInfo": {"name": "http-test", "version": "0"},
        },
    })
    .to_string()
}

fn request(id: u64, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

/// A client session on the Streamable HTTP endpoint.
struct Client {
    addr: SocketAddr,
    session: String,
    version: String,
}

impl Client {
    /// Initializes (checking the answer) and sends notifications/initialized.
    async fn ready(addr: SocketAddr, version: &str, capabilities: Value) -> Client {
        let mut reply = send(
            addr,
            "POST",
            "/mcp",
            &[("accept", BOTH), ("content-type", "application/json")],
            Some(&initialize(version, capabilities)),
        )
        .await;
        assert_eq!(reply.status, 200);
        assert_eq!(reply.header("content-type"), Some("text/event-stream"));
        let session = reply.header("mcp-session-id").expect("a session id").to_owned();
        let answer = reply.message().await;
        assert_eq!(answer["result"]["protocolVersion"], json!(version));
        assert!(
            reply.event().await.is_none(),
            "the stream ends after the response"
        );
        let client = Client {
            addr,
            session,
            version: version.to_owned(),
        };
        let accepted = client
            .post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string())
            .await;
        assert_eq!(accepted.status, 202);
        client
    }

    async fn send(&self, method: &str, extra: &[(&str, &str)], body: Option<&str>) -> Reply {
        let mut headers = vec![
            ("mcp-session-id", self.session.as_str()),
            ("mcp-protocol-version", self.version.as_str()),
        ];
        headers.extend_from_slice(extra);
        send(self.addr, method, "/mcp", &headers, body).await
    }

    async fn post(&self, body: &str) -> Reply {
        self.send(
            "POST",
            &[("accept", BOTH), ("content-type", "application/json")],
            Some(body),
        )
        .await
    }

    async fn get(&self, extra: &[(&str, &str)]) -> Reply {
        let mut headers = vec![("accept", "text/event-stream")];
        headers.extend_from_slice(extra);
        self.send("GET", &headers, None).await
    }

    /// A tools/call answered on its own SSE stream, which then ends.
    async fn call(&self, id: u64, tool: &str, arguments: Value) -> Value {
        let mut reply = self
            .post(&request(
                id,
                "tools/call",
                json!({"name": tool, "arguments": arguments}),
            ))
            .await;
        assert_eq!(reply.status, 200);
        let answer = reply.message().await;
        assert!(
            reply.event().await.is_none(),
            "the stream ends after the response"
        );
        answer
    }
}

#[tokio::test]
async fn initialize_creates_a_session_and_primes_the_stream() {
    let addr = start(None).await;
    let mut reply = send(
        addr,
        "POST",
        "/mcp",
        &[("accept", BOTH), ("content-type", "application/json")],
        Some(&initialize("2025-11-25", json!({}))),
    )
    .await;
    assert_eq!(reply.status, 200);
    let session = reply.header("mcp-session-id").expect("session id").to_owned();
    assert!(!session.is_empty() && session.bytes().all(|b| (0x21..=0x7e).contains(&b)));
    let priming = reply.event().await.expect("priming event");
    assert!(priming.id.is_some() && priming.data.is_empty(), "{priming:?}");
    let answer = reply.event().await.expect("response");
    assert!(answer.id.is_some(), "every event has an id");
    assert_eq!(answer.json()["id"], json!(0));
    assert!(reply.event().await.is_none());
}

#[tokio::test]
async fn no_priming_event_before_2025_11_25() {
    let addr = start(None).await;
    let client = Client::ready(addr, "2025-06-18", json!({})).await;
    let mut reply = client.post(&request(1, "ping", json!({}))).await;
    let first = reply.event().await.expect("an event");
    assert_eq!(first.json()["result"], json!({}));
}

#[tokio::test]
async fn tools_call_is_answered_over_sse() {
    let addr = start(None).await;
    let client = Client::ready(addr, "2025-11-25", json!({})).await;
    let answer = client.call(1, "echo", json!({"text": "over http"})).await;
    assert_eq!(answer["id"], json!(1));
    assert_eq!(answer["result"]["content"][0]["text"], json!("over http"));
}

#[tokio::test]
async fn elicitation_travels_on_the_call_stream() {
    let addr = start(None).await;
    let client = Client::ready(addr, "2025-11-25", json!({"elicitation": {"form": {}}})).await;
    let mut call = client
        .post(&request(
            7,
            "tools/call",
            json!({"name": "elicit", "arguments": {}}),
        ))
        .await;
    assert_eq!(call.status, 200);
    let ask = call.message().await;
    assert_eq!(ask["method"], json!("elicitation/create"));
    let answer = json!({"jsonrpc": "2.0", "id": ask["id"],
        "result": {"action": "accept", "content": {"name": "Ada", "age": 36}}});
    let posted = client.post(&answer.to_string()).await;
    assert_eq!(posted.status, 202);
    assert!(posted.text().await.is_empty(), "202 has no body");
    let result = call.message().await;
    assert_eq!(result["id"], json!(7));
    assert!(
        result["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("accept"),
        "{result}"
    );
    assert!(call.event().await.is_none());
}

#[tokio::test]
async fn progress_notifications_precede_the_answer_on_its_stream() {
    let addr = start(None).await;
    let client = Client::ready(addr, "2025-06-18", json!({})).await;
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "progress", "arguments": {"steps": 3}, "_meta": {"progressToken": "p"}}});
    let mut reply = client.post(&body.to_string()).await;
    for step in 1..=3 {
        let note = reply.message().await;
        assert_eq!(note["method"], json!("notifications/progress"));
        assert_eq!(note["params"]["progress"], json!(step));
    }
    assert_eq!(reply.message().await["id"], json!(3));
    assert!(reply.event().await.is_none());
}

#[tokio::test]
async fn cancelling_a_call_ends_its_stream_without_an_answer() {
    let addr = start(None).await;
    let client = Client::ready(addr, "2025-11-25", json!({})).await;
    let mut call = client
        .post(&request(
            4,
            "tools/call",
            json!({"name": "slow", "arguments": {"ms": 60000}}),
        ))
        .await;
    assert!(call.event().await.expect("priming").data.is_empty());
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 4}});
    assert_eq!(client.post(&cancel.to_string()).await.status, 202);
    assert!(call.event().await.is_none(), "the stream ends with no response");
}

#[tokio::test]
async fn notifications_and_responses_get_202() {
    let addr = start(None).await;
    let client = Client::ready(addr, "2025-11-25", json!({})).await;
    let reply = client
        .post(&json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}).to_string())
        .await;
    assert_eq!(reply.status, 202);
    let stray = json!({"jsonrpc": "2.0", "id": 99, "result": {}}).to_string();
    assert_eq!(client.post(&stray).await.status, 202);
}

#[tokio::test]
async fn session_header_rules() {
    let addr = start(None).await;
    let client = Client::ready(addr, "2025-11-25", json!({})).await;
    let ping = request(1, "ping", json!({}));
    let json_headers = [("accept", BOTH), ("content-type", "application/json")];
    let missing = send(addr, "POST", "/mcp", &json_headers, Some(&ping)).await;
    assert_eq!(missing.status, 400);
    assert!(missing.json().await["error"].is_object());
    let unknown = [
        ("mcp-session-id", "no-such-session"),
        json_headers[0],
        json_headers[1],
    ];
    assert_eq!(
        send(addr, "POST", "/mcp", &unknown, Some(&ping)).await.status,
        404
    );
    let get_without = send(addr, "GET", "/mcp", &[("accept", "text/event-stream")], None).await;
    assert_eq!(get_without.status, 400);
    assert_eq!(client.post(&ping).await.status, 200);
}

#[tokio::test]
async fn header_checks_come_before_the_message() {
    let addr = start(None).await;
    let client = Client::ready(addr, "2025-11-25", json!({})).await;
    let ping = request(1, "ping", json!({}));
    let json_only = [
        ("accept", "application/json"),
        ("content-type", "application/json"),
    ];
    assert_eq!(client.send("POST", &json_only, Some(&ping)).await.status, 406);
    let text_plain = [("accept", BOTH), ("content-type", "text/plain")];
    assert_eq!(client.send("POST", &text_plain, Some(&ping)).await.status, 415);
    assert_eq!(client.get(&[]).await.status, 200);
    let wrong_accept = client.send("GET", &[("accept", "application/json")], None).await;
    assert_eq!(wrong_accept.status, 406);
}

#[tokio::test]
async fn unsupported_protocol_version_header_gets_400() {
    let addr = start(None).await;
    let client = Client::ready(addr, "2025-06-18", json!({})).await;
    let ping = request(1, "ping", json!({}));
    for bad in ["2025-13-45", "banana"] {
        let headers = [
            ("mcp-session-id", client.session.as_str()),
            ("mcp-protocol-version", bad),
            ("accept", BOTH),
            ("content-type", "application/json"),
        ];
        assert_eq!(
            send(addr, "POST", "/mcp", &headers, Some(&ping)).await.status,
            400,
            "{bad}"
        );
    }
    // Absent: the negotiated version holds.
    let headers = [
        ("mcp-session-id", client.session.as_str()),
        ("accept", BOTH),
        ("content-type", "application/json"),
    ];
    assert_eq!(
        send(addr, "POST", "/mcp", &headers, Some(&ping)).await.status,
        200
    );
}

#[tokio::test]
async fn foreign_origins_and_hosts_get_403() {
    let addr = start(None).await;
    let client = Client::ready(addr, "2025-11-25", json!({})).await;
    let ping = request(1, "ping", json!({}));
    let evil_origin = [
        ("origin", "http://evil.example"),
        ("accept", BOTH),
        ("content-type", "application/json"),
    ];
    let refused = client.send("POST", &evil_origin, Some(&ping)).await;
    assert_eq!(refused.status, 403);
    let body = refused.json().await;
    assert!(body.get("id").is_none() && body["error"].is_object(), "{body}");
    let local_origin = [
        ("origin", "http://localhost:6274"),
        ("accept", BOTH),
        ("content-type", "application/json"),
    ];
    assert_eq!(client.send("POST", &local_origin, Some(&ping)).await.status, 200);
    let evil_host = [
        ("host", "attacker.example"),
        ("accept", BOTH),
        ("content-type", "application/json"),
    ];
    assert_eq!(client.send("POST", &evil_host, Some(&ping)).await.status, 403);
}

#[tokio::test]
async fn deleted_sessions_are_gone() {
    let addr = start(None).await;
    let client = Client::ready(addr, "2025-11-25", json!({})).await;
    let deleted = client.send("DELETE", &[], None).await;
    assert!(matches!(deleted.status, 200 | 204), "{}", deleted.status);
    assert_eq!(client.post(&request(1, "ping", json!({}))).await.status, 404);
    assert_eq!(client.get(&[]).await.status, 404);
    assert_eq!(client.send("DELETE", &[], None).await.status, 404);
}

#[tokio::test]
async fn session_notices_go_to_the_open_get_stream() {
    let addr = start(None).await;
    let client = Client::ready(addr, "2025-11-25", json!({})).await;
    let mut get = client.get(&[]).await;
    assert_eq!(get.status, 200);
    assert_eq!(get.header("content-type"), Some("text/event-stream"));
    let priming = get.event().await.expect("priming");
    assert!(priming.data.is_empty() && priming.id.is_some());
    // A second standalone stream is refused while the first is open.
    assert_eq!(client.get(&[]).await.status, 409);
    let answer = client.call(2, "add_tool", json!({"name": "extra"})).await;
    assert_eq!(answer["id"], json!(2), "the call stream carries only the answer");
    let notice = get.message().await;
    assert_eq!(notice["method"], json!("notifications/tools/list_changed"));
}

#[tokio::test]
async fn last_event_id_replays_the_rest_of_that_stream() {
    let addr = start(None).await;
    let client = Client::ready(addr, "2025-11-25", json!({})).await;
    let body = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {"name": "progress", "arguments": {"steps": 4}, "_meta": {"progressToken": 1}}});
    let mut reply = client.post(&body.to_string()).await;
    let priming = reply.event().await.expect("priming");
    let first = reply.event().await.expect("first progress");
    assert_eq!(first.json()["params"]["progress"], json!(1));
    drop(reply); // the connection breaks; the call goes on
    tokio::time::sleep(Duration::from_millis(100)).await;

    let mut resumed = client
        .get(&[("last-event-id", first.id.as_deref().unwrap())])
        .await;
    assert_eq!(resumed.status, 200);
    let mut progress = Vec::new();
    let mut ids = vec![first.id.clone().unwrap()];
    while let Some(event) = resumed.event().await {
        ids.push(event.id.clone().expect("replayed events keep ids"));
        let message = event.json();
        match message["params"]["progress"].as_u64() {
            Some(step) => progress.push(step),
            None => assert_eq!(message["id"], json!(5)),
        }
    }
    assert_eq!(progress, [2, 3, 4], "only events after the given id");
    let unique: std::collections::HashSet<&String> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len());

    // From the priming event, the whole stream again.
    let mut again = client
        .get(&[("last-event-id", priming.id.as_deref().unwrap())])
        .await;
    let mut count = 0;
    while again.event().await.is_some() {
        count += 1;
    }
    assert_eq!(count, 5, "four progress events and the answer");
    assert_eq!(client.get(&[("last-event-id", "999-1")]).await.status, 400);
}

#[tokio::test]
async fn batches_only_under_2025_03_26() {
    let addr = start(None).await;
    let old = Client::ready(addr, "2025-03-26", json!({})).await;
    let batch = format!(
        "[{},{}]",
        request(1, "ping", json!({})),
        request(2, "tools/list", json!({}))
    );
    let mut reply = old.post(&batch).await;
    assert_eq!(reply.status, 200);
    let answers = reply.message().await;
    assert_eq!(answers.as_array().map(Vec::len), Some(2), "{answers}");
    assert!(reply.event().await.is_none());

    let new = Client::ready(addr, "2025-06-18", json!({})).await;
    let refused = new.post(&batch).await;
    assert_eq!(refused.status, 400);
    assert_eq!(refused.json().await["error"]["code"], json!(-32600));
}

#[tokio::test]
async fn legacy_http_with_sse() {
    let addr = start(None).await;
    let mut stream = send(addr, "GET", "/sse", &[("accept", "text/event-stream")], None).await;
    assert_eq!(stream.status, 200);
    let endpoint = stream.event().await.expect("endpoint event");
    assert_eq!(endpoint.event.as_deref(), Some("endpoint"));
    assert!(
        endpoint.data.starts_with("/messages?session_id="),
        "{}",
        endpoint.data
    );
    let post = |body: String| {
        let path = endpoint.data.clone();
        async move {
            send(
                addr,
                "POST",
                &path,
                &[("content-type", "application/json")],
                Some(&body),
            )
            .await
        }
    };
    assert_eq!(post(initialize("2024-11-05", json!({}))).await.status, 202);
    let answer = stream.event().await.expect("initialize answer");
    assert_eq!(answer.event.as_deref(), Some("message"));
    assert_eq!(answer.json()["result"]["protocolVersion"], json!("2024-11-05"));
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    assert_eq!(post(initialized).await.status, 202);
    let call = request(
        1,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "legacy"}}),
    );
    assert_eq!(post(call).await.status, 202);
    let answer = stream.message().await;
    assert_eq!(answer["result"]["content"][0]["text"], json!("legacy"));
    let unknown = send(addr, "POST", "/messages?session_id=nope", &[], Some("{}")).await;
    assert_eq!(unknown.status, 404);
}

#[tokio::test]
async fn faults_apply_over_http() {
    let addr = start(Some(Fault::PingWrongJsonrpc)).await;
    let client = Client::ready(addr, "2025-11-25", json!({})).await;
    let mut reply = client.post(&request(1, "ping", json!({}))).await;
    assert_eq!(reply.message().await["jsonrpc"], json!("1.0"));

    let addr = start(Some(Fault::NotificationAnswered)).await;
    let client = Client::ready(addr, "2025-11-25", json!({})).await;
    let odd = json!({"jsonrpc": "2.0", "method": "notifications/whatever"}).to_string();
    let reply = client.post(&odd).await;
    assert_ne!(reply.status, 202, "the fault answers a notification");
}

#[tokio::test]
async fn the_binary_serves_http_on_the_port_it_prints() {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcp-reference-server"))
        .args(["--http", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn reference server");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let line = tokio::time::timeout(WAIT, lines.next_line())
        .await
        .expect("listening line in time")
        .expect("stdout")
        .expect("a line");
    let url = line.strip_prefix("listening on http://").expect(&line);
    let (authority, path) = url.split_once('/').expect("a path");
    assert_eq!(path, "mcp");
    assert!(authority.starts_with("127.0.0.1:"));
    let client = Client::ready(authority.parse().expect("address"), "2025-11-25", json!({})).await;
    assert_eq!(client.call(1, "echo", json!({"text": "x"})).await["id"], json!(1));
    child.kill().await.expect("kill");
}
