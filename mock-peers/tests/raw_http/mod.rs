//! A minimal HTTP/1.1 client on a raw TCP stream, for driving the reference
//! server over HTTP without any client library between the test and the wire.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;

use mcp_mock_peers::reference::{Fault, serve_http};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

pub const WAIT: Duration = Duration::from_secs(5);
pub const BOTH: &str = "application/json, text/event-stream";

/// One SSE event.
#[derive(Debug, Default, Clone)]
pub struct Event {
    pub id: Option<String>,
    pub event: Option<String>,
    pub data: String,
}

impl Event {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap_or_else(|e| panic!("event data {:?}: {e}", self.data))
    }
}

/// An HTTP response whose body is read as it arrives.
pub struct Reply {
    pub status: u16,
    pub headers: HashMap<String, String>,
    reader: BufReader<TcpStream>,
    chunked: bool,
    remaining: Option<usize>,
    buffer: Vec<u8>,
    ended: bool,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }

    /// Reads more of the body into the buffer; false at its end.
    async fn fill(&mut self) -> bool {
        if self.ended {
            return false;
        }
        if self.chunked {
            let mut size_line = String::new();
            self.reader.read_line(&mut size_line).await.expect("chunk size");
            let size = usize::from_str_radix(size_line.trim(), 16).unwrap_or(0);
            if size == 0 {
                self.ended = true;
                return false;
            }
            let mut chunk = vec![0; size + 2];
            self.reader.read_exact(&mut chunk).await.expect("chunk");
            self.buffer.extend_from_slice(&chunk[..size]);
            return true;
        }
        let want = self.remaining.unwrap_or(usize::MAX).min(8192);
        if want == 0 {
            self.ended = true;
            return false;
        }
        let mut chunk = vec![0; want];
        let n = self.reader.read(&mut chunk).await.expect("body");
        if n == 0 {
            self.ended = true;
            return false;
        }
        self.buffer.extend_from_slice(&chunk[..n]);
        if let Some(remaining) = &mut self.remaining {
            *remaining -= n;
        }
        true
    }

    pub async fn text(mut self) -> String {
        tokio::time::timeout(WAIT, async { while self.fill().await {} })
            .await
            .expect("body ends in time");
        String::from_utf8(self.buffer).expect("utf-8 body")
    }

    pub async fn json(self) -> Value {
        let text = self.text().await;
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("body {text:?}: {e}"))
    }

    /// The next SSE event, or `None` when the stream ends.
    pub async fn event(&mut self) -> Option<Event> {
        tokio::time::timeout(WAIT, self.next_event())
            .await
            .expect("an event or the end of the stream in time")
    }

    /// The next SSE event, however long it takes; `None` at the end.
    pub async fn next_event(&mut self) -> Option<Event> {
        loop {
            if let Some(end) = self.buffer.windows(2).position(|w| w == b"\n\n") {
                let block: Vec<u8> = self.buffer.drain(..end + 2).collect();
                let block = String::from_utf8(block).expect("utf-8 event");
                let mut event = Event::default();
                let mut data = Vec::new();
                for line in block.lines() {
                    let (field, value) = line.split_once(':').unwrap_or((line, ""));
                    let value = value.strip_prefix(' ').unwrap_or(value);
                    match field {
                        "id" => event.id = Some(value.to_owned()),
                        "event" => event.event = Some(value.to_owned()),
                        "data" => data.push(value),
                        _ => {}
                    }
                }
                event.data = data.join("\n");
                return Some(event);
            }
            if !self.fill().await {
                return None;
            }
        }
    }

    /// The next event carrying a message (skips priming events).
    pub async fn message(&mut self) -> Value {
        loop {
            let event = self.event().await.expect("stream still open");
            if !event.data.is_empty() {
                return event.json();
            }
        }
    }
}

/// Sends one request on a fresh connection.
pub async fn send(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> Reply {
    let mut tcp = TcpStream::connect(addr).await.expect("connect");
    let mut head = format!("{method} {path} HTTP/1.1\r\nconnection: close\r\n");
    if !headers.iter().any(|(name, _)| name.eq_ignore_ascii_case("host")) {
        head.push_str(&format!("host: {addr}\r\n"));
    }
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    let body = body.unwrap_or_default();
    head.push_str(&format!("content-length: {}\r\n\r\n{body}", body.len()));
    tcp.write_all(head.as_bytes()).await.expect("send request");
    let mut reader = BufReader::new(tcp);
    let mut status_line = String::new();
    tokio::time::timeout(WAIT, reader.read_line(&mut status_line))
        .await
        .expect("status in time")
        .expect("status line");
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("status code");
    let mut headers = HashMap::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).await.expect("header line");
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').expect("header");
        headers.insert(name.to_ascii_lowercase(), value.trim().to_owned());
    }
    let chunked = headers
        .get("transfer-encoding")
        .is_some_and(|v| v.contains("chunked"));
    let remaining = headers.get("content-length").and_then(|v| v.parse().ok());
    Reply {
        status,
        headers,
        reader,
        chunked,
        remaining,
        buffer: Vec::new(),
        ended: false,
    }
}

/// A reference server on a free port of this process's runtime.
pub async fn start(fault: Option<Fault>) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    tokio::spawn(serve_http(listener, fault));
    addr
}
