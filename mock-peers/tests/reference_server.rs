//! Drives the bundled reference server binary over raw stdio lines.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};

mod stdio_server;

const WAIT: Duration = Duration::from_secs(5);

/// The client end of one server process.
struct Peer {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Lines<BufReader<ChildStdout>>,
}

impl Peer {
    fn spawn() -> Peer {
        let (child, stdin, stdout) = stdio_server::spawn(None);
        Peer { child, stdin, stdout }
    }

    /// A peer that completed the handshake for `version` with `capabilities`.
    async fn ready(version: &str, capabilities: Value) -> Peer {
        let mut peer = Peer::spawn();
        let result = peer.initialize(version, capabilities).await;
        assert_eq!(result["result"]["protocolVersion"], json!(version));
        peer.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        peer
    }

    async fn initialize(&mut self, version: &str, capabilities: Value) -> Value {
        self.request(
            0,
            "initialize",
            json!({
                "protocolVersion": version,
                "capabilities": capabilities,
                "clientInfo": {"name": "reference-test", "version": "0"},
            }),
        )
        .await
    }

    async fn send_raw(&mut self, line: &str) {
        stdio_server::write_line(self.stdin.as_mut().expect("stdin open"), line).await;
    }

    async fn send(&mut self, frame: Value) {
        self.send_raw(&frame.to_string()).await;
    }

    async fn recv_within(&mut self, wait: Duration) -> Option<Value> {
        let line = tokio::time::timeout(wait, self.stdout.next_line()).await.ok()?;
        let line = line.expect("read").expect("server closed stdout");
        Some(serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
    }

    async fn recv(&mut self) -> Value {
        self.recv_within(WAIT).await.expect("a frame within the wait")
    }

    /// Sends a request and returns its response, failing on anything else in between.
    async fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        let frame = self.recv().await;
        assert_eq!(
            frame["id"],
            json!(id),
            "expected the response to {method}, got {frame}"
        );
        frame
    }

    /// Sends a `tools/call` without waiting for its response.
    async fn start_tool(&mut self, id: i64, name: &str, arguments: Value) {
        self.send(json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        }))
        .await;
    }
}

fn tool_text(response: &Value) -> &str {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {response}"))
}

async fn call_tool(peer: &mut Peer, id: i64, name: &str, arguments: Value) -> Value {
    peer.start_tool(id, name, arguments).await;
    let frame = peer.recv().await;
    assert_eq!(
        frame["id"],
        json!(id),
        "expected the tools/call response, got {frame}"
    );
    frame
}

#[tokio::test]
async fn initialize_echoes_supported_versions_and_gates_fields_by_version() {
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let mut peer = Peer::spawn();
        let response = peer.initialize(version, json!({})).await;
        let result = &response["result"];
        assert_eq!(result["protocolVersion"], json!(version));
        assert_eq!(result["capabilities"]["tools"], json!({"listChanged": true}));
        assert_eq!(
            result["capabilities"]["resources"],
            json!({"subscribe": true, "listChanged": true})
        );
        assert_eq!(result["capabilities"]["logging"], json!({}));
        assert_eq!(
            result["capabilities"].get("completions").is_some(),
            version != "2024-11-05",
            "{version}"
        );
        assert_eq!(
            result["serverInfo"].get("title").is_some(),
            version >= "2025-06-18",
            "{version}"
        );
    }
    let mut peer = Peer::spawn();
    let response = peer.initialize("2099-01-01", json!({})).await;
    assert_eq!(response["result"]["protocolVersion"], json!("2025-11-25"));
}

#[tokio::test]
async fn requests_before_initialize_are_rejected_but_ping_is_answered() {
    let mut peer = Peer::spawn();
    assert_eq!(peer.request(1, "ping", json!({})).await["result"], json!({}));
    assert_eq!(
        peer.request(2, "tools/list", json!({})).await["error"]["code"],
        json!(-32600)
    );
    assert_eq!(
        peer.request(3, "no/such", json!({})).await["error"]["code"],
        json!(-32601)
    );
    peer.initialize("2025-06-18", json!({})).await;
    assert_eq!(
        peer.initialize("2025-06-18", json!({})).await["error"]["code"],
        json!(-32600)
    );
}

#[tokio::test]
async fn malformed_input_gets_parse_and_invalid_request_errors() {
    let mut peer = Peer::ready("2025-06-18", json!({})).await;
    peer.send_raw("{not json").await;
    let parse = peer.recv().await;
    assert_eq!(
        (parse["id"].clone(), parse["error"]["code"].clone()),
        (Value::Null, json!(-32700))
    );
    peer.send(json!({"id": 5, "method": "ping"})).await;
    let invalid = peer.recv().await;
    assert_eq!(
        (invalid["id"].clone(), invalid["error"]["code"].clone()),
        (json!(5), json!(-32600))
    );
}

#[tokio::test]
async fn tools_list_paginates_four_per_page_to_the_end() {
    let mut peer = Peer::ready("2025-06-18", json!({})).await;
    let mut names = Vec::new();
    let mut cursor: Option<Value> = None;
    for id in 1.. {
        let params = cursor.as_ref().map_or(json!({}), |c| json!({"cursor": c}));
        let result = peer.request(id, "tools/list", params).await["result"].clone();
        let tools = result["tools"].as_array().unwrap().clone();
        assert!(tools.len() <= 4 && !tools.is_empty());
        for tool in &tools {
            assert_eq!(tool["inputSchema"]["type"], json!("object"));
            assert_eq!(
                tool.get("outputSchema").is_some(),
                tool["name"] == json!("add"),
                "{tool}"
            );
            names.push(tool["name"].as_str().unwrap().to_owned());
        }
        match result.get("nextCursor") {
            Some(next) => {
                assert!(
                    next.as_str().unwrap().parse::<u64>().is_err(),
                    "cursor should be opaque: {next}"
                );
                cursor = Some(next.clone());
            }
            None => break,
        }
    }
    assert_eq!(names.len(), 14);
    for expected in [
        "echo", "add", "fail", "elicit", "connect", "sample", "roots", "progress", "slow", "log", "add_tool",
        "touch", "book", "bookings",
    ] {
        assert!(names.iter().any(|n| n == expected), "missing {expected}");
    }
    let bad = peer.request(99, "tools/list", json!({"cursor": "4"})).await;
    assert_eq!(bad["error"]["code"], json!(-32602));
}

#[tokio::test]
async fn add_returns_structured_content_only_from_2025_06_18() {
    let mut old = Peer::ready("2025-03-26", json!({})).await;
    let response = call_tool(&mut old, 1, "add", json!({"a": 2, "b": 3})).await;
    assert_eq!(tool_text(&response), r#"{"sum":5}"#);
    assert!(response["result"].get("structuredContent").is_none());
    let mut new = Peer::ready("2025-06-18", json!({})).await;
    let response = call_tool(&mut new, 1, "add", json!({"a": 2, "b": 3})).await;
    assert_eq!(response["result"]["structuredContent"], json!({"sum": 5}));
}

#[tokio::test]
async fn invalid_tool_arguments_are_protocol_errors_before_2025_11_25_and_tool_errors_after() {
    let mut old = Peer::ready("2025-06-18", json!({})).await;
    assert_eq!(
        call_tool(&mut old, 1, "echo", json!({})).await["error"]["code"],
        json!(-32602)
    );
    let mut new = Peer::ready("2025-11-25", json!({})).await;
    assert_eq!(
        call_tool(&mut new, 1, "echo", json!({})).await["result"]["isError"],
        json!(true)
    );
    assert_eq!(
        call_tool(&mut new, 2, "nope", json!({})).await["error"]["code"],
        json!(-32602)
    );
    assert_eq!(
        call_tool(&mut new, 3, "fail", json!({})).await["result"]["isError"],
        json!(true)
    );
}

/// Starts `elicit` and returns the server's `elicitation/create` request.
async fn start_elicitation(peer: &mut Peer, id: i64) -> Value {
    peer.start_tool(id, "elicit", json!({"message": "Who are you?"}))
        .await;
    let request = peer.recv().await;
    assert_eq!(request["method"], json!("elicitation/create"), "{request}");
    request
}

#[tokio::test]
async fn elicitation_round_trips_accept_and_decline() {
    let mut peer = Peer::ready("2025-11-25", json!({"elicitation": {}})).await;
    let request = start_elicitation(&mut peer, 1).await;
    let params = &request["params"];
    assert_eq!(params["mode"], json!("form"));
    assert_eq!(params["message"], json!("Who are you?"));
    assert_eq!(
        params["requestedSchema"]["properties"]["name"]["type"],
        json!("string")
    );
    assert_eq!(
        params["requestedSchema"]["properties"]["age"]["type"],
        json!("integer")
    );
    let content = json!({"name": "Ada", "age": 36});
    peer.send(
        json!({"jsonrpc": "2.0", "id": request["id"], "result": {"action": "accept", "content": content}}),
    )
    .await;
    let accepted = peer.recv().await;
    assert_eq!(tool_text(&accepted), format!("action=accept content={content}"));

    let request = start_elicitation(&mut peer, 2).await;
    peer.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": {"action": "decline"}}))
        .await;
    assert_eq!(tool_text(&peer.recv().await), "action=decline");

    let request = start_elicitation(&mut peer, 3).await;
    let error = json!({"code": -32603, "message": "boom"});
    peer.send(json!({"jsonrpc": "2.0", "id": request["id"], "error": error}))
        .await;
    let rejected = peer.recv().await;
    assert_eq!(rejected["result"]["isError"], json!(true));
    assert!(tool_text(&rejected).contains("-32603"));
}

#[tokio::test]
async fn elicitation_needs_the_capability_and_2025_06_18() {
    let mut old = Peer::ready("2025-03-26", json!({"elicitation": {}})).await;
    assert_eq!(
        call_tool(&mut old, 1, "elicit", json!({})).await["result"]["isError"],
        json!(true)
    );
    let mut undeclared = Peer::ready("2025-06-18", json!({})).await;
    assert_eq!(
        call_tool(&mut undeclared, 1, "elicit", json!({})).await["result"]["isError"],
        json!(true)
    );
    let mut plain = Peer::ready("2025-06-18", json!({"elicitation": {}})).await;
    let request = start_elicitation(&mut plain, 1).await;
    assert!(
        request["params"].get("mode").is_none(),
        "2025-06-18 has no elicitation mode"
    );
}

#[tokio::test]
async fn ping_is_answered_while_an_elicitation_is_pending() {
    let mut peer = Peer::ready("2025-06-18", json!({"elicitation": {}})).await;
    let request = start_elicitation(&mut peer, 1).await;
    assert_eq!(peer.request(2, "ping", json!({})).await["result"], json!({}));
    peer.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": {"action": "cancel"}}))
        .await;
    let done = peer.recv().await;
    assert_eq!(
        (done["id"].clone(), tool_text(&done)),
        (json!(1), "action=cancel")
    );
}

#[tokio::test]
async fn sampling_preferences_arrive_exactly() {
    let mut peer = Peer::ready("2025-06-18", json!({"sampling": {}})).await;
    peer.start_tool(1, "sample", json!({"prompt": "Say hi"})).await;
    let request = peer.recv().await;
    assert_eq!(request["method"], json!("sampling/createMessage"));
    let params = &request["params"];
    assert_eq!(
        params["modelPreferences"],
        json!({
            "hints": [{"name": "reference-model"}],
            "intelligencePriority": 0.8,
            "speedPriority": 0.2,
            "costPriority": 0.1,
        })
    );
    assert_eq!(
        (params["maxTokens"].clone(), params["includeContext"].clone()),
        (json!(64), json!("none"))
    );
    assert!(params["systemPrompt"].is_string());
    assert_eq!(
        params["messages"][0]["content"],
        json!({"type": "text", "text": "Say hi"})
    );
    let result = json!({"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m1", "stopReason": "endTurn"});
    peer.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": result}))
        .await;
    assert_eq!(tool_text(&peer.recv().await), "hi (model=m1, stopReason=endTurn)");
}

#[tokio::test]
async fn cancellation_suppresses_the_response() {
    let mut peer = Peer::ready("2025-06-18", json!({})).await;
    peer.start_tool(7, "slow", json!({"ms": 600})).await;
    peer.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}))
        .await;
    assert_eq!(peer.request(8, "ping", json!({})).await["result"], json!({}));
    let late = peer.recv_within(Duration::from_millis(1200)).await;
    assert_eq!(late, None, "a cancelled request must get no response");
    // Uncancelled, the same call is answered.
    assert_eq!(
        tool_text(&call_tool(&mut peer, 9, "slow", json!({"ms": 10})).await),
        "slept 10 ms"
    );
}

#[tokio::test]
async fn progress_follows_the_callers_token() {
    let mut peer = Peer::ready("2025-03-26", json!({})).await;
    peer.send(json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "progress", "arguments": {"steps": 3}, "_meta": {"progressToken": "tok"}},
    }))
    .await;
    for step in 1..=3 {
        let note = peer.recv().await;
        assert_eq!(note["method"], json!("notifications/progress"));
        assert_eq!(
            (
                note["params"]["progressToken"].clone(),
                note["params"]["progress"].clone()
            ),
            (json!("tok"), json!(step))
        );
        assert_eq!(note["params"]["total"], json!(3));
        assert!(note["params"]["message"].is_string());
    }
    assert_eq!(peer.recv().await["id"], json!(1));
}

#[tokio::test]
async fn batches_are_accepted_only_under_2025_03_26() {
    let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":2,"method":"prompts/list"}]"#;
    let mut peer = Peer::ready("2025-03-26", json!({})).await;
    peer.send_raw(batch).await;
    let replies = peer.recv().await;
    let ids: Vec<Value> = replies
        .as_array()
        .expect("batch reply")
        .iter()
        .map(|r| r["id"].clone())
        .collect();
    assert_eq!(ids, vec![json!(1), json!(2)]);
    for version in ["2024-11-05", "2025-06-18", "2025-11-25"] {
        let mut peer = Peer::ready(version, json!({})).await;
        peer.send_raw(batch).await;
        let reply = peer.recv().await;
        assert_eq!(
            (reply["id"].clone(), reply["error"]["code"].clone()),
            (Value::Null, json!(-32600)),
            "{version}"
        );
    }
}

#[tokio::test]
async fn stdin_eof_ends_the_process_with_status_zero() {
    let mut peer = Peer::ready("2025-11-25", json!({})).await;
    drop(peer.stdin.take());
    let status = tokio::time::timeout(WAIT, peer.child.wait())
        .await
        .expect("exits promptly")
        .expect("wait");
    assert!(status.success(), "{status}");
}

#[tokio::test]
async fn resources_paginate_read_and_notify_subscribers() {
    let mut peer = Peer::ready("2025-11-25", json!({})).await;
    let mut uris = Vec::new();
    let mut params = json!({});
    for id in 1.. {
        let result = peer.request(id, "resources/list", params.clone()).await["result"].clone();
        let page = result["resources"].as_array().unwrap();
        assert!(page.len() <= 3);
        uris.extend(page.iter().map(|r| r["uri"].as_str().unwrap().to_owned()));
        match result.get("nextCursor") {
            Some(cursor) => params = json!({"cursor": cursor}),
            None => break,
        }
    }
    assert_eq!(uris.len(), 8, "every resource, page after page: {uris:?}");
    let read = peer.request(50, "resources/read", json!({"uri": uris[0]})).await;
    assert_eq!(read["result"]["contents"][0]["uri"], json!(uris[0]));
    let missing = peer
        .request(51, "resources/read", json!({"uri": "ref://missing"}))
        .await;
    assert_eq!(missing["error"]["code"], json!(-32002));
    let templates = peer.request(52, "resources/templates/list", json!({})).await;
    assert_eq!(
        templates["result"]["resourceTemplates"].as_array().unwrap().len(),
        1
    );

    assert_eq!(
        peer.request(53, "resources/subscribe", json!({"uri": uris[0]}))
            .await["result"],
        json!({})
    );
    peer.start_tool(54, "touch", json!({"uri": uris[0]})).await;
    let note = peer.recv().await;
    assert_eq!(
        (note["method"].clone(), note["params"]["uri"].clone()),
        (json!("notifications/resources/updated"), json!(uris[0]))
    );
    assert_eq!(peer.recv().await["id"], json!(54));
    assert_eq!(
        peer.request(55, "resources/unsubscribe", json!({"uri": uris[0]}))
            .await["result"],
        json!({})
    );
    assert!(
        tool_text(&call_tool(&mut peer, 56, "touch", json!({"uri": uris[0]})).await)
            .contains("no subscription")
    );
}

#[tokio::test]
async fn prompts_and_completion_follow_the_spec() {
    let mut peer = Peer::ready("2025-06-18", json!({})).await;
    let prompts = peer.request(1, "prompts/list", json!({})).await;
    assert_eq!(prompts["result"]["prompts"].as_array().unwrap().len(), 2);
    let missing = peer.request(2, "prompts/get", json!({"name": "greet"})).await;
    assert_eq!(missing["error"]["code"], json!(-32602));
    let unknown = peer.request(3, "prompts/get", json!({"name": "nope"})).await;
    assert_eq!(unknown["error"]["code"], json!(-32602));
    let greet = peer
        .request(
            4,
            "prompts/get",
            json!({"name": "greet", "arguments": {"name": "Ada"}}),
        )
        .await;
    assert_eq!(greet["result"]["messages"][0]["role"], json!("user"));
    let complete = peer
        .request(
            5,
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "Ca"}}),
        )
        .await;
    assert_eq!(
        complete["result"]["completion"],
        json!({"values": ["Carol"], "total": 1, "hasMore": false})
    );
}

#[tokio::test]
async fn logging_honours_set_level() {
    let mut peer = Peer::ready("2024-11-05", json!({})).await;
    peer.start_tool(1, "log", json!({"level": "info", "message": "hello"}))
        .await;
    let note = peer.recv().await;
    assert_eq!(note["method"], json!("notifications/message"));
    assert_eq!(
        (note["params"]["level"].clone(), note["params"]["data"].clone()),
        (json!("info"), json!("hello"))
    );
    assert_eq!(peer.recv().await["id"], json!(1));
    assert_eq!(
        peer.request(2, "logging/setLevel", json!({"level": "warning"}))
            .await["result"],
        json!({})
    );
    let filtered = call_tool(&mut peer, 3, "log", json!({"level": "info", "message": "quiet"})).await;
    assert!(tool_text(&filtered).contains("filtered"));
    let bad = peer
        .request(4, "logging/setLevel", json!({"level": "loud"}))
        .await;
    assert_eq!(bad["error"]["code"], json!(-32602));
}

#[tokio::test]
async fn add_tool_announces_and_serves_the_new_tool() {
    let mut peer = Peer::ready("2025-06-18", json!({})).await;
    peer.start_tool(1, "add_tool", json!({"name": "shout"})).await;
    assert_eq!(
        peer.recv().await["method"],
        json!("notifications/tools/list_changed")
    );
    assert_eq!(peer.recv().await["id"], json!(1));
    assert_eq!(
        tool_text(&call_tool(&mut peer, 2, "shout", json!({"text": "hey"})).await),
        "shout: hey"
    );
    let again = call_tool(&mut peer, 3, "add_tool", json!({"name": "echo"})).await;
    assert_eq!(again["result"]["isError"], json!(true));
}

#[tokio::test]
async fn cancelling_a_call_cancels_its_pending_client_request() {
    let mut peer = Peer::ready("2025-06-18", json!({"roots": {}})).await;
    peer.start_tool(1, "roots", json!({})).await;
    let request = peer.recv().await;
    assert_eq!(request["method"], json!("roots/list"));
    peer.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}))
        .await;
    let note = peer.recv().await;
    assert_eq!(note["method"], json!("notifications/cancelled"));
    assert_eq!(note["params"]["requestId"], request["id"]);
    assert_eq!(peer.recv_within(Duration::from_millis(300)).await, None);

    peer.start_tool(2, "roots", json!({})).await;
    let request = peer.recv().await;
    let roots = json!({"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]});
    peer.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": roots}))
        .await;
    assert_eq!(tool_text(&peer.recv().await), "file:///a\nfile:///b");
}
