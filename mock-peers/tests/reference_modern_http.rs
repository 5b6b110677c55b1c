//! The reference server's stateless mode (2026-07-28) over raw HTTP: the
//! tour of every rule with the frame checker finding nothing, each fault
//! leaving its evidence, and the transport's own rules (status codes,
//! mirrored headers, no sessions, POST only).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_conform_core::wire::{Direction, Frame};
use mcp_mock_peers::reference::Fault;
use serde_json::{Value, json};
use tokio::task::JoinHandle;

mod modern;
mod raw_http;

use modern::{EVIDENCE, Wire, call, request};
use raw_http::{BOTH, Reply, send, start};

/// Faults whose effect needs one connection carrying many requests, or
/// `notifications/cancelled`: stdio only.
const STDIO_ONLY: [&str; 1] = ["modern-answers-cancelled"];

/// The headers a correct client mirrors from a request's body.
fn mirrored(body: &Value) -> Vec<(String, String)> {
    let params = &body["params"];
    let mut headers = vec![
        ("accept".to_owned(), BOTH.to_owned()),
        ("content-type".to_owned(), "application/json".to_owned()),
        (
            "mcp-method".to_owned(),
            body["method"].as_str().unwrap_or_default().to_owned(),
        ),
    ];
    if let Some(version) = params["_meta"]["io.modelcontextprotocol/protocolVersion"].as_str() {
        headers.push(("mcp-protocol-version".to_owned(), version.to_owned()));
    }
    if let Some(name) = params
        .get("name")
        .or_else(|| params.get("uri"))
        .and_then(Value::as_str)
    {
        headers.push(("mcp-name".to_owned(), name.to_owned()));
    }
    if let Some(region) = params["arguments"]["region"].as_str() {
        headers.push(("mcp-param-region".to_owned(), region.to_owned()));
    }
    headers
}

/// POSTs `body` with `headers` to the endpoint.
async fn post_with(addr: SocketAddr, headers: &[(String, String)], body: &Value) -> Reply {
    let pairs: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    send(addr, "POST", "/mcp", &pairs, Some(&body.to_string())).await
}

async fn post(addr: SocketAddr, body: &Value) -> Reply {
    post_with(addr, &mirrored(body), body).await
}

/// Every frame of a reply: its JSON body, or each event of its stream.
async fn frames(mut reply: Reply) -> Vec<Value> {
    if reply.header("content-type") == Some("application/json") {
        return vec![reply.json().await];
    }
    let mut frames = Vec::new();
    while let Some(event) = reply.event().await {
        frames.push(event.json());
    }
    frames
}

/// The client side of the tour over HTTP: one POST per request, streams
/// read in the background.
struct HttpWire {
    addr: SocketAddr,
    started: Instant,
    frames: Arc<Mutex<Vec<Frame>>>,
    received: Arc<Mutex<Vec<Value>>>,
    streams: HashMap<String, JoinHandle<()>>,
}

impl HttpWire {
    fn new(addr: SocketAddr) -> HttpWire {
        HttpWire {
            addr,
            started: Instant::now(),
            frames: Arc::default(),
            received: Arc::default(),
            streams: HashMap::new(),
        }
    }

    fn record_sent(&self, request: &Value) {
        let frame = Frame::new(
            Direction::Sent,
            request.to_string().into_bytes(),
            self.started.elapsed(),
        );
        self.frames.lock().unwrap().push(frame);
    }
}

fn record_received(
    frames: &Mutex<Vec<Frame>>,
    received: &Mutex<Vec<Value>>,
    started: Instant,
    frame: &Value,
) {
    let raw = Frame::new(
        Direction::Received,
        frame.to_string().into_bytes(),
        started.elapsed(),
    );
    frames.lock().unwrap().push(raw);
    received.lock().unwrap().push(frame.clone());
}

impl Wire for HttpWire {
    async fn call(&mut self, request: Value) -> Option<Value> {
        self.record_sent(&request);
        let answered = frames(post(self.addr, &request).await).await;
        for frame in &answered {
            record_received(&self.frames, &self.received, self.started, frame);
        }
        answered
            .into_iter()
            .find(|f| f.get("method").is_none() && f["id"] == request["id"])
    }

    async fn start(&mut self, request: Value) {
        self.record_sent(&request);
        let (addr, started) = (self.addr, self.started);
        let (frames, received) = (Arc::clone(&self.frames), Arc::clone(&self.received));
        let key = request["id"].to_string();
        let reading = tokio::spawn(async move {
            let mut reply = post(addr, &request).await;
            while let Some(event) = reply.next_event().await {
                record_received(&frames, &received, started, &event.json());
            }
        });
        self.streams.insert(key, reading);
    }

    async fn cancel(&mut self, id: &Value) {
        if let Some(reading) = self.streams.remove(&id.to_string()) {
            // Dropping the connection closes the stream: the cancellation.
            reading.abort();
        }
    }

    async fn settle(&mut self, ms: u64) {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }

    fn received(&self) -> Vec<Value> {
        self.received.lock().unwrap().clone()
    }

    fn frames(&self) -> Vec<Frame> {
        self.frames.lock().unwrap().clone()
    }

    fn is_stdio(&self) -> bool {
        false
    }
}

#[tokio::test]
async fn the_correct_server_follows_every_stateless_rule_over_http() {
    let mut wire = HttpWire::new(start(None).await);
    let tour = modern::take(&mut wire).await;
    modern::assert_correct(&tour);
}

#[tokio::test]
async fn every_stateless_fault_leaves_its_evidence_over_http() {
    let evidence = EVIDENCE.iter().filter(|e| !STDIO_ONLY.contains(&e.fault));
    let runs: Vec<_> = evidence
        .map(|evidence| {
            tokio::spawn(async move {
                let fault: Fault = evidence.fault.parse().expect("a fault");
                let mut wire = HttpWire::new(start(Some(fault)).await);
                (evidence, modern::take(&mut wire).await)
            })
        })
        .collect();
    modern::assert_shown(runs, false).await;
}

fn header_list(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
        .collect()
}

#[tokio::test]
async fn refusals_carry_their_status_and_code() {
    let addr = start(None).await;
    let cases = [
        (
            "missing _meta key",
            {
                let mut bare = request(1, "tools/list", json!({}), json!({}));
                bare["params"]["_meta"]
                    .as_object_mut()
                    .unwrap()
                    .remove("io.modelcontextprotocol/clientCapabilities");
                bare
            },
            400,
            -32602,
        ),
        (
            "unsupported version",
            {
                let mut old = request(2, "tools/list", json!({}), json!({}));
                old["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
                old
            },
            400,
            -32022,
        ),
        (
            "removed method",
            request(3, "ping", json!({}), json!({})),
            404,
            -32601,
        ),
        (
            "unknown method",
            request(4, "no/such", json!({}), json!({})),
            404,
            -32601,
        ),
        (
            "undeclared capability",
            call(5, "sample", json!({ "prompt": "x" }), json!({})),
            400,
            -32021,
        ),
    ];
    for (what, body, status, code) in cases {
        let reply = post(addr, &body).await;
        assert_eq!(reply.status, status, "{what}");
        assert_eq!(reply.header("content-type"), Some("application/json"), "{what}");
        let answer = reply.json().await;
        assert_eq!(
            (answer["id"].clone(), answer["error"]["code"].clone()),
            (body["id"].clone(), json!(code)),
            "{what}: {answer}"
        );
    }
}

#[tokio::test]
async fn mirrored_headers_must_match_the_body() {
    let addr = start(None).await;
    let body = call(
        1,
        "region_echo",
        json!({ "region": "us-west1", "text": "hi" }),
        json!({}),
    );
    let good = mirrored(&body);
    let ok = post_with(addr, &good, &body).await;
    assert_eq!(ok.status, 200);
    assert_eq!(
        frames(ok).await.last().unwrap()["result"]["content"][0]["text"],
        json!("us-west1: hi")
    );
    let altered = |name: &str, value: Option<&str>| {
        let mut headers: Vec<(String, String)> = good.iter().filter(|(n, _)| n != name).cloned().collect();
        if let Some(value) = value {
            headers.push((name.to_owned(), value.to_owned()));
        }
        headers
    };
    for (name, value) in [
        ("mcp-protocol-version", None),
        ("mcp-protocol-version", Some("2025-11-25")),
        ("mcp-method", None),
        ("mcp-method", Some("tools/list")),
        ("mcp-name", None),
        ("mcp-name", Some("echo")),
        ("mcp-param-region", None),
        ("mcp-param-region", Some("eu-north1")),
        ("mcp-param-region", Some("=?base64?not base64?=")),
    ] {
        let reply = post_with(addr, &altered(name, value), &body).await;
        assert_eq!(reply.status, 400, "{name}: {value:?}");
        assert_eq!(
            reply.json().await["error"]["code"],
            json!(-32020),
            "{name}: {value:?}"
        );
    }
    // Values that are not header-safe travel base64-encoded.
    let wide = call(
        2,
        "region_echo",
        json!({ "region": "Hello, 世界", "text": "hi" }),
        json!({}),
    );
    let mut headers = mirrored(&wide);
    headers.retain(|(name, _)| name != "mcp-param-region");
    headers.push((
        "mcp-param-region".to_owned(),
        "=?base64?SGVsbG8sIOS4lueVjA==?=".to_owned(),
    ));
    headers.retain(|(name, _)| name != "mcp-name");
    headers.push(("mcp-name".to_owned(), "=?base64?cmVnaW9uX2VjaG8=?=".to_owned()));
    let reply = post_with(addr, &headers, &wide).await;
    assert_eq!(reply.status, 200);
    let answer = frames(reply).await.pop().unwrap();
    assert_eq!(answer["result"]["content"][0]["text"], json!("Hello, 世界: hi"));
}

#[tokio::test]
async fn no_sessions_no_get_no_resumption() {
    let addr = start(None).await;
    let discover = request(1, "server/discover", json!({}), json!({}));
    let mut headers = mirrored(&discover);
    headers.extend(header_list(&[
        ("mcp-session-id", "no-such-session"),
        ("last-event-id", "1-1"),
    ]));
    let reply = post_with(addr, &headers, &discover).await;
    assert_eq!(reply.status, 200, "a session id is ignored, not looked up");
    assert_eq!(reply.header("mcp-session-id"), None);
    assert_eq!(reply.json().await["result"]["resultType"], json!("complete"));
    let modern = [
        ("mcp-protocol-version", "2026-07-28"),
        ("accept", "text/event-stream"),
    ];
    for method in ["GET", "DELETE"] {
        let reply = send(addr, method, "/mcp", &modern, None).await;
        assert_eq!(reply.status, 405, "{method}");
        assert_eq!(reply.header("allow"), Some("POST"), "{method}");
    }
    // Streams are not buffered by proxies, and carry no event ids.
    let mut stream = post(addr, &call(2, "echo", json!({ "text": "x" }), json!({}))).await;
    assert_eq!(stream.header("content-type"), Some("text/event-stream"));
    assert_eq!(stream.header("x-accel-buffering"), Some("no"));
    let event = stream.event().await.expect("the answer");
    assert!(event.id.is_none());
    assert_eq!(event.json()["result"]["content"][0]["text"], json!("x"));
    assert!(stream.event().await.is_none(), "the stream ends with the answer");
}

#[tokio::test]
async fn streams_carry_only_their_own_request() {
    let addr = start(None).await;
    let mut listen = post(
        addr,
        &request(
            "L",
            "subscriptions/listen",
            json!({ "notifications": { "toolsListChanged": true } }),
            json!({}),
        ),
    )
    .await;
    let ack = listen.message().await;
    assert_eq!(ack["method"], json!("notifications/subscriptions/acknowledged"));
    // Another request's stream: its own notifications and answer only.
    let mut progress = call(1, "progress", json!({ "steps": 2 }), json!({}));
    progress["params"]["_meta"]["progressToken"] = json!("t");
    let on_call = frames(post(addr, &progress).await).await;
    let methods: Vec<&Value> = on_call.iter().map(|f| &f["method"]).collect();
    assert_eq!(
        methods,
        [
            &json!("notifications/progress"),
            &json!("notifications/progress"),
            &Value::Null
        ]
    );
    let added = frames(post(addr, &call(2, "add_tool", json!({ "name": "x1" }), json!({}))).await).await;
    assert_eq!(
        added.len(),
        1,
        "the change goes to the listen stream only: {added:?}"
    );
    let change = listen.message().await;
    assert_eq!(change["method"], json!("notifications/tools/list_changed"));
    // Lists are the server's, not a connection's (LIST-004).
    let mut names = Vec::new();
    let mut cursor = None;
    for id in 4..20 {
        let params = cursor.map_or(json!({}), |c: Value| json!({ "cursor": c }));
        let page = frames(post(addr, &request(id, "tools/list", params, json!({}))).await)
            .await
            .remove(0);
        names.extend(
            page["result"]["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["name"].clone()),
        );
        cursor = page["result"].get("nextCursor").cloned();
        if cursor.is_none() {
            break;
        }
    }
    assert!(names.contains(&json!("x1")), "{names:?}");
}

#[tokio::test]
async fn closing_a_listen_stream_ends_it() {
    let addr = start(None).await;
    let listen = request(
        "gone",
        "subscriptions/listen",
        json!({ "notifications": { "toolsListChanged": true } }),
        json!({}),
    );
    let mut stream = post(addr, &listen).await;
    assert_eq!(
        stream.message().await["method"],
        json!("notifications/subscriptions/acknowledged")
    );
    drop(stream);
    // The next notification meets a closed connection and ends the stream.
    post(
        addr,
        &call(1, "add_tool", json!({ "name": "after-close" }), json!({})),
    )
    .await;
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let ended = frames(
            post(
                addr,
                &call(2, "end_listen", json!({ "subscriptionId": "gone" }), json!({})),
            )
            .await,
        )
        .await;
        let text = ended[0]["result"]["content"][0]["text"].clone();
        if text == json!("ended 0 listen stream(s)") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the closed stream is still open: {text}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn stateless_and_legacy_clients_share_one_endpoint() {
    let addr = start(None).await;
    let initialize = json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2026-07-28", "capabilities": {}, "clientInfo": { "name": "c", "version": "0" } } });
    let headers = header_list(&[("accept", BOTH), ("content-type", "application/json")]);
    let mut legacy = post_with(addr, &headers, &initialize).await;
    assert!(legacy.header("mcp-session-id").is_some());
    assert_eq!(
        legacy.message().await["result"]["protocolVersion"],
        json!("2025-11-25")
    );
    let reply = post(addr, &request(1, "server/discover", json!({}), json!({}))).await;
    assert_eq!(
        reply.json().await["result"]["supportedVersions"][0],
        json!("2026-07-28")
    );
}

#[tokio::test]
async fn http_faults_of_the_stateless_mode_change_the_wire() {
    let discover = request(1, "server/discover", json!({}), json!({}));
    let addr = start(Some(Fault::ModernHttpSessionMinted)).await;
    assert!(post(addr, &discover).await.header("mcp-session-id").is_some());

    let addr = start(Some(Fault::ModernHttpGetAllowed)).await;
    let modern = [
        ("mcp-protocol-version", "2026-07-28"),
        ("accept", "text/event-stream"),
    ];
    assert_eq!(send(addr, "GET", "/mcp", &modern, None).await.status, 200);
    assert_eq!(send(addr, "DELETE", "/mcp", &modern, None).await.status, 200);

    let addr = start(Some(Fault::ModernHttpHeaderMismatchIgnored)).await;
    let mut headers = mirrored(&discover);
    headers.retain(|(name, _)| name != "mcp-method");
    headers.push(("mcp-method".to_owned(), "tools/list".to_owned()));
    let reply = post_with(addr, &headers, &discover).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.json().await["result"]["resultType"], json!("complete"));

    let addr = start(Some(Fault::ModernHttpUnknownMethod200)).await;
    let reply = post(addr, &request(2, "ping", json!({}), json!({}))).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.json().await["error"]["code"], json!(-32601));
}
