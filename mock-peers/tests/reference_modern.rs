//! The reference server's stateless mode (2026-07-28) over raw stdio lines:
//! the era chosen by the first request, the tour of every rule with the
//! frame checker finding nothing, and each fault leaving its evidence.

use std::time::{Duration, Instant};

use mcp_conform_core::wire::{Direction, Frame};
use serde_json::{Value, json};
use tokio::io::{BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};

mod modern;
mod stdio_server;

use modern::{EVIDENCE, Wire, call, request};

/// How long a response may take.
const WAIT: Duration = Duration::from_secs(5);

/// The client end of one server process, recording both directions.
struct Peer {
    _child: Child,
    stdin: Option<ChildStdin>,
    stdout: Lines<BufReader<ChildStdout>>,
    started: Instant,
    frames: Vec<Frame>,
    received: Vec<Value>,
}

impl Peer {
    fn spawn(fault: Option<&str>) -> Peer {
        let (child, stdin, stdout) = stdio_server::spawn(fault);
        Peer {
            _child: child,
            stdin,
            stdout,
            started: Instant::now(),
            frames: Vec::new(),
            received: Vec::new(),
        }
    }

    async fn send(&mut self, frame: &Value) {
        let line = frame.to_string();
        self.frames.push(Frame::new(
            Direction::Sent,
            line.clone().into_bytes(),
            self.started.elapsed(),
        ));
        stdio_server::write_line(self.stdin.as_mut().expect("stdin open"), &line).await;
    }

    /// The next frame within `wait`, recorded; `None` also once the server
    /// closed its output.
    async fn next(&mut self, wait: Duration) -> Option<Value> {
        let line = tokio::time::timeout(wait, self.stdout.next_line()).await.ok()?;
        let line = line.expect("read")?;
        self.frames.push(Frame::new(
            Direction::Received,
            line.clone().into_bytes(),
            self.started.elapsed(),
        ));
        let frame: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        self.received.push(frame.clone());
        Some(frame)
    }
}

impl Wire for Peer {
    async fn call(&mut self, request: Value) -> Option<Value> {
        self.send(&request).await;
        let deadline = Instant::now() + WAIT;
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            let frame = self.next(left).await?;
            if frame.get("method").is_none() && frame["id"] == request["id"] {
                return Some(frame);
            }
        }
        None
    }

    async fn start(&mut self, request: Value) {
        self.send(&request).await;
    }

    async fn cancel(&mut self, id: &Value) {
        let cancel =
            json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": id } });
        self.send(&cancel).await;
    }

    async fn settle(&mut self, ms: u64) {
        let until = Instant::now() + Duration::from_millis(ms);
        while let Some(left) = until.checked_duration_since(Instant::now()) {
            if self.next(left).await.is_none() {
                break;
            }
        }
    }

    fn received(&self) -> Vec<Value> {
        self.received.clone()
    }

    fn frames(&self) -> Vec<Frame> {
        self.frames.clone()
    }

    fn is_stdio(&self) -> bool {
        true
    }
}

#[tokio::test]
async fn the_correct_server_follows_every_stateless_rule() {
    let mut peer = Peer::spawn(None);
    let tour = modern::take(&mut peer).await;
    modern::assert_correct(&tour);
}

#[tokio::test]
async fn every_stateless_fault_leaves_its_evidence_on_stdio() {
    let runs = EVIDENCE.iter().map(|evidence| {
        tokio::spawn(async move {
            let mut peer = Peer::spawn(Some(evidence.fault));
            (evidence, modern::take(&mut peer).await)
        })
    });
    modern::assert_shown(runs.collect(), true).await;
}

#[tokio::test]
async fn the_correct_tour_shows_no_fault_evidence() {
    let mut peer = Peer::spawn(None);
    let tour = modern::take(&mut peer).await;
    let shown: Vec<&str> = EVIDENCE
        .iter()
        .filter(|evidence| (evidence.witness)(&tour))
        .map(|evidence| evidence.fault)
        .collect();
    assert!(shown.is_empty(), "evidence without a fault: {shown:?}");
}

#[tokio::test]
async fn the_first_request_chooses_the_era() {
    // A stateless request first: initialize is no longer a method.
    let mut modern = Peer::spawn(None);
    let discovered = modern
        .call(request(1, "server/discover", json!({}), json!({})))
        .await
        .unwrap();
    assert_eq!(discovered["result"]["resultType"], json!("complete"));
    let initialize = json!({ "jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "c", "version": "0" } } });
    let refused = modern.call(initialize.clone()).await.unwrap();
    assert_eq!(refused["error"]["code"], json!(-32601));
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("2025-11-25")
    );
    // initialize first, even offering 2026-07-28: a legacy session of 2025-11-25.
    let mut legacy = Peer::spawn(None);
    let mut offer = initialize;
    offer["params"]["protocolVersion"] = json!("2026-07-28");
    let answered = legacy.call(offer).await.unwrap();
    assert_eq!(answered["result"]["protocolVersion"], json!("2025-11-25"));
    legacy
        .send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
        .await;
    let listed = legacy
        .call(request(3, "tools/list", json!({}), json!({})))
        .await
        .unwrap();
    assert!(
        listed["result"].get("resultType").is_none(),
        "served as legacy: {listed}"
    );
    assert!(
        listed["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["name"] != "region_echo")
    );
    // A ping first decides nothing; the stateless request after it does.
    let mut undecided = Peer::spawn(None);
    let pong = undecided
        .call(json!({ "jsonrpc": "2.0", "id": 1, "method": "ping" }))
        .await
        .unwrap();
    assert_eq!(pong["result"], json!({}));
    let listed = undecided
        .call(request(2, "tools/list", json!({}), json!({})))
        .await
        .unwrap();
    assert_eq!(listed["result"]["resultType"], json!("complete"));
}

#[tokio::test]
async fn requests_stand_alone() {
    let mut peer = Peer::spawn(None);
    let declared = call(1, "elicit", json!({}), json!({ "elicitation": {} }));
    assert_eq!(
        peer.call(declared).await.unwrap()["result"]["resultType"],
        json!("input_required")
    );
    // What the first request declared does not carry over (MODN-004).
    let bare = peer.call(call(2, "elicit", json!({}), json!({}))).await.unwrap();
    assert_eq!(bare["error"]["code"], json!(-32021));
    // Lists do not depend on what earlier requests declared (LIST-004).
    let with = peer
        .call(request(
            3,
            "tools/list",
            json!({}),
            json!({ "sampling": {}, "roots": {} }),
        ))
        .await
        .unwrap();
    let without = peer
        .call(request(4, "tools/list", json!({}), json!({})))
        .await
        .unwrap();
    assert_eq!(with["result"]["tools"], without["result"]["tools"]);
}

#[tokio::test]
async fn interactive_tools_finish_on_the_retry() {
    let mut peer = Peer::spawn(None);
    let cases = [
        (
            "sample",
            json!({ "prompt": "hi" }),
            json!({ "sampling": {} }),
            "completion",
            json!({ "role": "assistant", "content": { "type": "text", "text": "hello" }, "model": "m" }),
            "hello (model=m",
        ),
        (
            "roots",
            json!({}),
            json!({ "roots": {} }),
            "roots",
            json!({ "roots": [{ "uri": "file:///tmp" }] }),
            "file:///tmp",
        ),
        (
            "connect",
            json!({}),
            json!({ "elicitation": { "url": {} } }),
            "connection",
            json!({ "action": "accept" }),
            "connected",
        ),
    ];
    for (id, (tool, arguments, capabilities, key, answer, expected)) in (1..).step_by(2).zip(cases) {
        let asked = peer
            .call(call(id, tool, arguments.clone(), capabilities.clone()))
            .await
            .unwrap();
        let state = asked["result"]["requestState"].clone();
        assert!(asked["result"]["inputRequests"].get(key).is_some(), "{asked}");
        let mut retry = call(id + 1, tool, arguments, capabilities);
        retry["params"]["requestState"] = state;
        retry["params"]["inputResponses"] = json!({ key: answer });
        let done = peer.call(retry).await.unwrap();
        let text = done["result"]["content"][0]["text"].as_str().unwrap_or_default();
        assert!(text.starts_with(expected), "{tool}: {done}");
        assert_eq!(done["result"]["resultType"], json!("complete"));
    }
    // A state is good only for the request it was issued for.
    let asked = peer
        .call(call(20, "roots", json!({}), json!({ "roots": {} })))
        .await
        .unwrap();
    let mut foreign = call(21, "elicit", json!({}), json!({ "elicitation": {} }));
    foreign["params"]["requestState"] = asked["result"]["requestState"].clone();
    let refused = peer.call(foreign).await.unwrap();
    assert_eq!(refused["error"]["code"], json!(-32602));
}

#[tokio::test]
async fn the_end_of_input_ends_listen_streams_gracefully() {
    let mut peer = Peer::spawn(None);
    peer.start(request(
        "L",
        "subscriptions/listen",
        json!({ "notifications": {} }),
        json!({}),
    ))
    .await;
    peer.settle(200).await;
    drop(peer.stdin.take());
    peer.settle(3000).await;
    let closing = peer
        .received
        .iter()
        .find(|f| f["id"] == json!("L"))
        .expect("a result for the stream");
    assert_eq!(closing["result"]["resultType"], json!("complete"));
    assert_eq!(
        closing["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        json!("L")
    );
}
