//! The reference client over HTTP, against the in-process reference server
//! behind a TCP relay that keeps every byte each way. The relay can play a
//! legacy server to the probe: a POST of `server/discover` gets 400 with a
//! legacy server's JSON-RPC error, as a server without the stateless era
//! answers a request outside its session.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use mcp_mock_peers::reference::serve_http;
use mcp_mock_peers::reference_client::{self, ClientFault, Plan, ServerAddress};
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A legacy Streamable HTTP server's answer to a request without a session.
const LEGACY_REFUSAL: &str =
    r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad Request: Missing session ID"}}"#;

/// One HTTP request of the client.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    /// By lower-case name.
    pub headers: HashMap<String, String>,
    pub body: Value,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }
}

/// What went over the wire, and how the client's run ended.
#[derive(Debug)]
pub struct Wire {
    /// Every request of the client, in the order they began.
    pub requests: Vec<Request>,
    /// Everything the server sent, as text.
    pub received: String,
    pub outcome: Result<(), String>,
}

impl Wire {
    /// The POSTs carrying a request with `method`, in order.
    pub fn posts_of(&self, method: &str) -> Vec<&Request> {
        self.requests
            .iter()
            .filter(|r| r.method == "POST" && super::method(&r.body) == method)
            .collect()
    }
}

/// The bytes of one direction of one connection, as they came.
type Chunks = Arc<Mutex<Vec<(Instant, Vec<u8>)>>>;

#[derive(Debug, Default)]
struct Recording {
    /// Per connection: what the client sent, and what the server sent.
    connections: Mutex<Vec<(Chunks, Chunks)>>,
}

/// Runs the client with `plan` (and `fault`) against the reference server;
/// with `legacy_probe`, the relay refuses the probe as a legacy server would.
pub async fn run(legacy_probe: bool, plan: Value, fault: Option<ClientFault>) -> Wire {
    let server = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let target = server.local_addr().expect("address");
    tokio::spawn(serve_http(server, None));
    let relay = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/mcp", relay.local_addr().expect("address"));
    let recording = Arc::new(Recording::default());
    let recorder = Arc::clone(&recording);
    tokio::spawn(async move {
        while let Ok((client, _)) = relay.accept().await {
            let (sent, received) = (Chunks::default(), Chunks::default());
            recorder
                .connections
                .lock()
                .unwrap()
                .push((Arc::clone(&sent), Arc::clone(&received)));
            tokio::spawn(relay_connection(client, target, legacy_probe, sent, received));
        }
    });
    let outcome = reference_client::run(&ServerAddress::Url(url), Plan::new(plan), fault).await;
    let connections = recording.connections.lock().unwrap();
    let mut requests = Vec::new();
    let mut received = String::new();
    for (sent, answers) in connections.iter() {
        requests.extend(parse_requests(&sent.lock().unwrap()));
        let bytes: Vec<u8> = answers
            .lock()
            .unwrap()
            .iter()
            .flat_map(|(_, b)| b.clone())
            .collect();
        received.push_str(&String::from_utf8_lossy(&bytes));
    }
    requests.sort_by_key(|(at, _)| *at);
    Wire {
        requests: requests.into_iter().map(|(_, request)| request).collect(),
        received,
        outcome,
    }
}

/// Relays one connection of the client, recording both directions; a
/// probe is refused instead when the relay plays a legacy server.
async fn relay_connection(
    mut client: TcpStream,
    target: std::net::SocketAddr,
    legacy_probe: bool,
    sent: Chunks,
    received: Chunks,
) {
    let mut first = Vec::new();
    let mut buffer = [0u8; 8192];
    while request_end(&first).is_none() {
        match client.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(n) => first.extend_from_slice(&buffer[..n]),
        }
    }
    sent.lock().unwrap().push((Instant::now(), first.clone()));
    if legacy_probe && String::from_utf8_lossy(&first).contains("\"server/discover\"") {
        let refusal = format!(
            "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{LEGACY_REFUSAL}",
            LEGACY_REFUSAL.len()
        );
        let _ = client.write_all(refusal.as_bytes()).await;
        return;
    }
    let Ok(mut server) = TcpStream::connect(target).await else {
        return;
    };
    if server.write_all(&first).await.is_err() {
        return;
    }
    let (client_read, client_write) = client.into_split();
    let (server_read, server_write) = server.into_split();
    tokio::spawn(copy(client_read, server_write, sent));
    tokio::spawn(copy(server_read, client_write, received));
}

/// Copies one direction until it ends, keeping every chunk.
async fn copy(mut from: impl AsyncRead + Unpin, mut to: impl AsyncWrite + Unpin, log: Chunks) {
    let mut buffer = [0u8; 8192];
    loop {
        let n = match from.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        log.lock().unwrap().push((Instant::now(), buffer[..n].to_vec()));
        if to.write_all(&buffer[..n]).await.is_err() {
            break;
        }
    }
    let _ = to.shutdown().await;
}

/// Where the first whole request in `bytes` ends (head and
/// `content-length` body), if it has all come.
fn request_end(bytes: &[u8]) -> Option<usize> {
    let head_end = bytes.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let head = String::from_utf8_lossy(&bytes[..head_end]).to_ascii_lowercase();
    let length = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .and_then(|n| n.trim().parse::<usize>().ok())
        .unwrap_or(0);
    let end = head_end + length;
    (bytes.len() >= end).then_some(end)
}

/// The requests of one connection, each with when its first byte came.
fn parse_requests(chunks: &[(Instant, Vec<u8>)]) -> Vec<(Instant, Request)> {
    let mut bytes = Vec::new();
    let mut starts = Vec::new();
    for (at, chunk) in chunks {
        starts.push((bytes.len(), *at));
        bytes.extend_from_slice(chunk);
    }
    let mut requests = Vec::new();
    let mut offset = 0;
    while let Some(length) = request_end(&bytes[offset..]) {
        let at = starts
            .iter()
            .rev()
            .find(|(start, _)| *start <= offset)
            .map(|(_, at)| *at)
            .expect("a chunk holds the request");
        requests.push((at, parse(&bytes[offset..offset + length])));
        offset += length;
    }
    requests
}

fn parse(raw: &[u8]) -> Request {
    let text = String::from_utf8_lossy(raw);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let method = lines
        .next()
        .and_then(|line| line.split_whitespace().next())
        .unwrap_or_default()
        .to_owned();
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    Request {
        method,
        headers,
        body: serde_json::from_str(body).unwrap_or(Value::Null),
    }
}
