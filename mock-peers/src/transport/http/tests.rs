//! The HTTP transports against a scripted HTTP/1.1 server on 127.0.0.1:
//! every request gets its own connection, closed after the scripted answer.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::*;

#[derive(Debug, Clone)]
struct Req {
    method: String,
    path: String,
    headers: BTreeMap<String, String>,
    body: String,
}

/// An answer: the head (status line and headers), then body chunks each
/// after a pause; the connection closes after the last.
struct Reply {
    /// Milliseconds before the head is written.
    head_pause: u64,
    status: &'static str,
    headers: Vec<(&'static str, String)>,
    chunks: Vec<(u64, String)>,
}

impl Reply {
    fn new(status: &'static str) -> Reply {
        Reply {
            head_pause: 0,
            status,
            headers: Vec::new(),
            chunks: Vec::new(),
        }
    }
    fn header(mut self, name: &'static str, value: impl Into<String>) -> Reply {
        self.headers.push((name, value.into()));
        self
    }
    fn json(self, body: &str) -> Reply {
        self.header("content-type", "application/json").chunk(0, body)
    }
    fn sse(self) -> Reply {
        self.header("content-type", "text/event-stream")
    }
    fn chunk(mut self, pause_ms: u64, text: &str) -> Reply {
        self.chunks.push((pause_ms, text.to_owned()));
        self
    }
}

type Script = Arc<dyn Fn(&Req, usize) -> Reply + Send + Sync>;

struct Server {
    url: String,
    requests: Arc<Mutex<Vec<Req>>>,
}

impl Server {
    fn requests(&self) -> Vec<Req> {
        self.requests.lock().unwrap().clone()
    }
}

async fn serve(script: impl Fn(&Req, usize) -> Reply + Send + Sync + 'static) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let requests = Arc::new(Mutex::new(Vec::new()));
    let script: Script = Arc::new(script);
    let log = Arc::clone(&requests);
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let script = Arc::clone(&script);
            let log = Arc::clone(&log);
            tokio::spawn(async move {
                let Some(req) = read_request(&mut socket).await else {
                    return;
                };
                let n = {
                    let mut log = log.lock().unwrap();
                    log.push(req.clone());
                    log.len() - 1
                };
                let reply = script(&req, n);
                tokio::time::sleep(Duration::from_millis(reply.head_pause)).await;
                let mut head = format!("HTTP/1.1 {}\r\nconnection: close\r\n", reply.status);
                for (name, value) in &reply.headers {
                    head.push_str(&format!("{name}: {value}\r\n"));
                }
                head.push_str("\r\n");
                if socket.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                for (pause, text) in reply.chunks {
                    tokio::time::sleep(Duration::from_millis(pause)).await;
                    if socket.write_all(text.as_bytes()).await.is_err() {
                        return;
                    }
                    let _ = socket.flush().await;
                }
            });
        }
    });
    Server { url, requests }
}

async fn read_request(socket: &mut tokio::net::TcpStream) -> Option<Req> {
    let mut data = Vec::new();
    let mut buf = [0u8; 4096];
    let head_end = loop {
        let n = socket.read(&mut buf).await.ok()?;
        if n == 0 {
            return None;
        }
        data.extend_from_slice(&buf[..n]);
        if let Some(i) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
    };
    let head = String::from_utf8_lossy(&data[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let (method, path) = (first.next()?.to_owned(), first.next()?.to_owned());
    let headers: BTreeMap<String, String> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let length: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = data[head_end + 4..].to_vec();
    while body.len() < length {
        let n = socket.read(&mut buf).await.ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&buf[..n]);
    }
    Some(Req {
        method,
        path,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

fn method_of(req: &Req) -> String {
    serde_json::from_str::<Value>(&req.body)
        .ok()
        .and_then(|m| m.get("method").and_then(Value::as_str).map(str::to_owned))
        .unwrap_or_default()
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
const INIT_RESULT: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn options(url: &str, mode: HttpMode) -> HttpOptions {
    HttpOptions {
        headers: vec![("Authorization".into(), "Bearer s3cr3t".into())],
        mode,
        answer_timeout: Duration::from_secs(3),
        ..HttpOptions::new(url)
    }
}

/// The next event within two seconds.
async fn next(t: &mut HttpTransport) -> TransportEvent {
    tokio::time::timeout(Duration::from_secs(2), t.recv())
        .await
        .expect("an event in time")
        .expect("not closed")
}

fn frame(event: TransportEvent) -> Frame {
    match event {
        TransportEvent::Frame(frame) => frame,
        other => panic!("expected a frame, got {other:?}"),
    }
}

#[tokio::test]
async fn streamable_json_answers_sessions_and_headers() {
    let server = serve(|req, _| match (req.method.as_str(), method_of(req).as_str()) {
        ("POST", "initialize") => Reply::new("200 OK")
            .header("mcp-session-id", "sess-1")
            .json(INIT_RESULT),
        ("POST", "notifications/initialized") => Reply::new("202 Accepted"),
        ("POST", "tools/list") => {
            Reply::new("200 OK").json(r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}"#)
        }
        ("GET", _) => Reply::new("405 Method Not Allowed"),
        ("DELETE", _) => Reply::new("200 OK"),
        _ => Reply::new("500 Internal Server Error"),
    })
    .await;
    let mut t = HttpTransport::new(options(&server.url, HttpMode::Streamable)).unwrap();
    let sent = t.send(INIT.as_bytes()).await.unwrap();
    assert_eq!(sent.meta.stream.as_deref(), Some("post#1"));
    assert_eq!(sent.meta.headers["authorization"], headers::REDACTED);
    let init = frame(next(&mut t).await);
    assert_eq!(init.meta.http_status, Some(200));
    assert_eq!(init.meta.headers["mcp-session-id"], "sess-1");
    assert_eq!(t.session_id().as_deref(), Some("sess-1"));
    t.send(INITIALIZED.as_bytes()).await.unwrap();
    t.send(br#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#)
        .await
        .unwrap();
    let list = frame(next(&mut t).await);
    assert!(list.text().contains("tools"));
    let exit = t.shutdown(Duration::from_secs(1)).await;
    assert!(
        exit.description.contains("DELETE answered 200"),
        "{}",
        exit.description
    );

    let requests = server.requests();
    let init_req = &requests[0];
    assert_eq!(init_req.headers["accept"], "application/json, text/event-stream");
    assert_eq!(init_req.headers["content-type"], "application/json");
    assert_eq!(init_req.headers["authorization"], "Bearer s3cr3t");
    assert!(!init_req.headers.contains_key("mcp-session-id"));
    assert!(!init_req.headers.contains_key("mcp-protocol-version"));
    for later in &requests[1..] {
        assert_eq!(later.headers["mcp-session-id"], "sess-1", "{later:?}");
        assert_eq!(later.headers["mcp-protocol-version"], "2025-06-18", "{later:?}");
    }
    let get = requests
        .iter()
        .find(|r| r.method == "GET")
        .expect("the standalone GET");
    assert_eq!(get.headers["accept"], "text/event-stream");
    assert!(requests.iter().any(|r| r.method == "DELETE"));
}

#[tokio::test]
async fn sse_answers_carry_server_requests_and_resume_after_a_cut() {
    let server = serve(|req, _| match (req.method.as_str(), method_of(req).as_str()) {
        ("POST", "initialize") => Reply::new("200 OK")
            .sse()
            .chunk(0, &format!("id: p0\r\ndata:\r\n\r\nid: e1\r\nevent: message\r\ndata: {INIT_RESULT}\r\n\r\n")),
        // A server request on the stream, then the stream is cut (retry 50 ms).
        ("POST", "tools/call") => Reply::new("200 OK").sse().chunk(
            0,
            "retry: 50\nid: e2\ndata: {\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}\n\n: keep\nid: e3\ndata: {\"partial",
        ),
        ("POST", _) => Reply::new("202 Accepted"),
        ("GET", _) if req.headers.get("last-event-id").map(String::as_str) == Some("e3") => Reply::new("200 OK")
            .sse()
            .chunk(0, "id: e4\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\n"),
        ("GET", _) => Reply::new("405 Method Not Allowed"),
        _ => Reply::new("404 Not Found"),
    })
    .await;
    let mut t = HttpTransport::new(options(&server.url, HttpMode::Auto)).unwrap();
    t.send(INIT.as_bytes()).await.unwrap();
    let init = frame(next(&mut t).await);
    assert_eq!(init.meta.sse_event_id.as_deref(), Some("e1"));
    assert_eq!(init.meta.sse_event.as_deref(), Some("message"));
    t.send(INITIALIZED.as_bytes()).await.unwrap();
    t.send(br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x"}}"#)
        .await
        .unwrap();
    let ping = frame(next(&mut t).await);
    assert!(ping.text().contains("ping"));
    assert_eq!(ping.meta.stream.as_deref(), Some("post#3"));
    t.send(br#"{"jsonrpc":"2.0","id":9,"result":{}}"#).await.unwrap();
    let result = frame(next(&mut t).await);
    assert_eq!(result.text(), r#"{"jsonrpc":"2.0","id":2,"result":{}}"#);
    assert_eq!(result.meta.stream.as_deref(), Some("post#3/resume#1"));
    assert!(!t.is_legacy());
}

#[tokio::test]
async fn http_errors_end_waits_and_json_errors_are_frames() {
    let server = serve(|req, _| match method_of(req).as_str() {
        "initialize" => Reply::new("200 OK").json(INIT_RESULT),
        "tools/list" => Reply::new("500 Internal Server Error")
            .header("content-type", "text/plain")
            .chunk(0, "boom"),
        "bad" => Reply::new("400 Bad Request")
            .json(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"no"}}"#),
        _ => Reply::new("202 Accepted"),
    })
    .await;
    let mut t = HttpTransport::new(options(&server.url, HttpMode::Streamable)).unwrap();
    t.send(INIT.as_bytes()).await.unwrap();
    frame(next(&mut t).await);
    t.send(br#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#)
        .await
        .unwrap();
    match next(&mut t).await {
        TransportEvent::Http(incident) => {
            assert_eq!(incident.status, Some(500));
            assert_eq!(incident.unanswered, vec![RequestId::Int(5)]);
            assert!(
                incident.description.contains("`boom`"),
                "{}",
                incident.description
            );
        }
        other => panic!("expected an incident, got {other:?}"),
    }
    t.send(br#"{"jsonrpc":"2.0","id":6,"method":"bad"}"#)
        .await
        .unwrap();
    let error = frame(next(&mut t).await);
    assert_eq!(error.meta.http_status, Some(400));
    // The JSON error has no id, so request 6 is still reported unanswered.
    match next(&mut t).await {
        TransportEvent::Http(incident) => assert_eq!(incident.unanswered, vec![RequestId::Int(6)]),
        other => panic!("expected an incident, got {other:?}"),
    }
}

#[tokio::test]
async fn auto_falls_back_to_http_with_sse() {
    let server = serve(|req, _| match (req.method.as_str(), req.path.as_str()) {
        ("POST", "/mcp") => Reply::new("405 Method Not Allowed"),
        ("GET", "/mcp") => Reply::new("200 OK")
            .sse()
            .chunk(0, "event: endpoint\ndata: /message?sessionId=abc\n\n")
            .chunk(300, &format!("event: message\ndata: {INIT_RESULT}\n\n"))
            .chunk(300, ""),
        ("POST", "/message?sessionId=abc") => Reply::new("202 Accepted").chunk(0, "Accepted"),
        _ => Reply::new("404 Not Found"),
    })
    .await;
    let mut t = HttpTransport::new(options(&server.url, HttpMode::Auto)).unwrap();
    let sent = t.send(INIT.as_bytes()).await.unwrap();
    assert!(t.is_legacy());
    assert_eq!(sent.meta.stream.as_deref(), Some("post#2"));
    let init = frame(next(&mut t).await);
    assert_eq!(init.meta.stream.as_deref(), Some("sse"));
    assert_eq!(init.meta.sse_event.as_deref(), Some("message"));
    // The end of the SSE stream is the end of the session.
    match next(&mut t).await {
        TransportEvent::Closed(exit) => assert!(exit.description.contains("ended")),
        other => panic!("expected the end, got {other:?}"),
    }
    let posted: Vec<String> = server
        .requests()
        .iter()
        .map(|r| format!("{} {}", r.method, r.path))
        .collect();
    assert_eq!(posted, ["POST /mcp", "GET /mcp", "POST /message?sessionId=abc"]);
}

#[tokio::test]
async fn an_endpoint_on_another_origin_is_refused_and_sent_nothing() {
    // The other origin: a listener that records every request it gets.
    let elsewhere = serve(|_, _| Reply::new("202 Accepted")).await;
    let elsewhere_url = elsewhere.url.replace("/mcp", "/message");
    for mode in [HttpMode::Sse, HttpMode::Auto] {
        let named = elsewhere_url.clone();
        let server = serve(move |req, _| match req.method.as_str() {
            "POST" => Reply::new("405 Method Not Allowed"),
            _ => Reply::new("200 OK")
                .sse()
                .chunk(0, &format!("event: endpoint\ndata: {named}\n\n"))
                .chunk(2000, ""),
        })
        .await;
        let mut t = HttpTransport::new(options(&server.url, mode)).unwrap();
        let sent = t.send(INIT.as_bytes()).await;
        match mode {
            HttpMode::Sse => {
                let error = sent.unwrap_err().to_string();
                assert!(
                    error.contains("outside") && error.contains(&elsewhere_url),
                    "{error}"
                );
            }
            // The POST's own 405 stands.
            _ => assert!(!t.is_legacy()),
        }
        let refused = t.facts().refused;
        assert_eq!(refused.len(), 1, "{mode}");
        assert_eq!(refused[0].url, elsewhere_url);
        assert_eq!(refused[0].origin, server.url.trim_end_matches("/mcp"));
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(elsewhere.requests().is_empty(), "{:?}", elsewhere.requests());
}

#[tokio::test]
async fn a_server_that_never_answers_does_not_hang_send() {
    let server = serve(|_, _| Reply {
        head_pause: 60_000,
        ..Reply::new("200 OK")
    })
    .await;
    let mut opts = options(&server.url, HttpMode::Streamable);
    opts.answer_timeout = Duration::from_millis(300);
    let mut t = HttpTransport::new(opts).unwrap();
    let started = std::time::Instant::now();
    t.send(INIT.as_bytes()).await.unwrap();
    t.send(br#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#)
        .await
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(3));
    assert!(
        tokio::time::timeout(Duration::from_millis(200), t.recv())
            .await
            .is_err()
    );
}

#[tokio::test]
async fn unreachable_servers_and_bad_urls_are_errors() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    drop(listener);
    let mut t = HttpTransport::new(options(&url, HttpMode::Auto)).unwrap();
    let error = t.send(INIT.as_bytes()).await.unwrap_err().to_string();
    assert!(error.starts_with("could not reach"), "{error}");
    assert!(HttpTransport::new(HttpOptions::new("ftp://x/")).is_err());
    assert!(HttpTransport::new(HttpOptions::new("not a url")).is_err());
}

#[tokio::test]
async fn stateless_posts_mirror_their_body_and_closing_a_stream_cancels() {
    const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let server = serve(|req, _| match method_of(req).as_str() {
        // A session id minted anyway is ignored.
        "tools/list" => Reply::new("200 OK").header("mcp-session-id", "sess-9").json(
            r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"sql","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}}]}}"#,
        ),
        "tools/call" => Reply::new("200 OK")
            .sse()
            .chunk(0, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n")
            .chunk(3000, "data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\n"),
        _ => Reply::new("404 Not Found"),
    })
    .await;
    let options = HttpOptions {
        stateless: true,
        ..options(&server.url, HttpMode::Auto)
    };
    let mut t = HttpTransport::new(options).unwrap();
    t.send(format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{META}}}}}"#).as_bytes())
        .await
        .unwrap();
    assert!(frame(next(&mut t).await).text().contains("sql"));
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"sql","arguments":{{"region":"us-west1"}},{META}}}}}"#
    );
    let sent = t.send(call.as_bytes()).await.unwrap();
    assert_eq!(sent.meta.headers["mcp-param-region"], "us-west1");
    assert!(frame(next(&mut t).await).text().contains("progress"));
    assert!(t.cancel_request(&RequestId::Int(2)));
    match next(&mut t).await {
        TransportEvent::Http(incident) => {
            assert!(
                incident.description.contains("cancelled request 2"),
                "{incident:?}"
            );
            assert!(incident.unanswered.is_empty());
        }
        other => panic!("expected the cancellation incident, got {other:?}"),
    }
    // The stream is gone: its response never arrives, and no incident says it was cut.
    assert!(
        tokio::time::timeout(Duration::from_millis(3500), t.recv())
            .await
            .is_err()
    );
    assert!(!t.cancel_request(&RequestId::Int(7)), "not a request of ours");
    // A body naming no version still says the connection's.
    t.send(br#"{"jsonrpc":"2.0","method":"notifications/mcp-conform/unknown"}"#)
        .await
        .unwrap();
    let _ = next(&mut t).await;
    t.shutdown(Duration::from_millis(200)).await;

    let requests = server.requests();
    assert_eq!(requests.len(), 3, "no GET stream, no DELETE: {requests:?}");
    for req in &requests {
        assert_eq!(req.method, "POST");
        assert_eq!(req.headers["mcp-protocol-version"], "2026-07-28");
        assert!(!req.headers.contains_key("mcp-session-id"), "{req:?}");
    }
    assert_eq!(requests[0].headers["mcp-method"], "tools/list");
    assert!(!requests[0].headers.contains_key("mcp-name"));
    assert_eq!(requests[1].headers["mcp-method"], "tools/call");
    assert_eq!(requests[1].headers["mcp-name"], "sql");
    assert_eq!(requests[1].headers["mcp-param-region"], "us-west1");
    assert_eq!(t.facts().tools["sql"][0].name, "Region");
    assert_eq!(t.facts().protocol_version.as_deref(), Some("2026-07-28"));
}

/// A server that answers the first request with an SSE stream of events
/// written as fast as the socket takes them; returns its URL and the bytes
/// written so far.
async fn flooding_server() -> (String, Arc<std::sync::atomic::AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let written = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = Arc::clone(&written);
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        read_request(&mut socket).await;
        let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n";
        let event = "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}\n\n";
        let batch = event.repeat(100);
        let mut out = head.to_owned();
        while socket.write_all(out.as_bytes()).await.is_ok() {
            count.fetch_add(out.len(), std::sync::atomic::Ordering::Relaxed);
            out.clone_from(&batch);
        }
    });
    (url, written)
}

#[tokio::test]
async fn a_server_streaming_faster_than_the_session_reads_waits_on_its_socket() {
    let (url, written) = flooding_server().await;
    let mut t = HttpTransport::new(options(&url, HttpMode::Streamable)).unwrap();
    t.send(INIT.as_bytes()).await.unwrap();
    assert!(frame(next(&mut t).await).text().contains("notifications/message"));
    // Nobody reads for a while: the reader stops once the queue is full,
    // and the server once the socket's buffers are.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let stalled = written.load(std::sync::atomic::Ordering::Relaxed);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let later = written.load(std::sync::atomic::Ordering::Relaxed);
    assert_eq!(stalled, later, "the server kept writing: nothing holds it back");
    assert!(
        stalled < 64 * 1024 * 1024,
        "{stalled} bytes taken in before the queue filled"
    );
    // What was queued is still delivered.
    for _ in 0..1000 {
        frame(next(&mut t).await);
    }
}
