//! The two halves of a scripted HTTP server on a raw TCP stream: read one
//! request, write one answer that closes the connection; and what such a
//! server answers when it plays a plain MCP server.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;

use serde_json::{Value, json};

/// One request as a scripted server reads it.
pub struct Request {
    pub method: String,
    /// Each header's name (lower-cased) and value.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(known, _)| known == name)
            .map(|(_, value)| value.as_str())
    }
}

/// One request: method and body.
pub fn read_request(stream: &mut TcpStream) -> Option<(String, Vec<u8>)> {
    read_request_with_headers(stream).map(|request| (request.method, request.body))
}

/// One request, its headers too.
pub fn read_request_with_headers(stream: &mut TcpStream) -> Option<Request> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let method = line.split_whitespace().next()?.to_owned();
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok()?;
        if header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let mut request = Request {
        method,
        headers,
        body: Vec::new(),
    };
    let length = request
        .header("content-length")
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    request.body = vec![0; length];
    reader.read_exact(&mut request.body).ok()?;
    Some(request)
}

pub fn respond(stream: &mut TcpStream, status: &str, content_type: &str, body: &str) {
    respond_with(stream, status, &[("Content-Type", content_type)], body);
}

/// `status` with `headers` and `body`, closing the connection.
pub fn respond_with(stream: &mut TcpStream, status: &str, headers: &[(&str, &str)], body: &str) {
    let head: String = headers
        .iter()
        .map(|(name, value)| format!("{name}: {value}\r\n"))
        .collect();
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\n{head}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

/// The message of one POST (`Null` when its body is not JSON); any other
/// method is answered 405 and gives `None`.
pub fn read_post(stream: &mut TcpStream) -> Option<Value> {
    let (method, body) = read_request(stream)?;
    if method != "POST" {
        respond(stream, "405 Method Not Allowed", "text/plain", "");
        return None;
    }
    Some(serde_json::from_slice(&body).unwrap_or(Value::Null))
}

/// What a plain 2025-11-25 server answers `message`: its `initialize`
/// result, an empty result to any other request, 202 to anything else.
pub fn answer_plainly(stream: &mut TcpStream, message: &Value) {
    let result = match message.get("method").and_then(Value::as_str) {
        Some("initialize") => json!({"protocolVersion": "2025-11-25", "capabilities": {},
            "serverInfo": {"name": "scripted", "version": "0"}}),
        Some(_) if message.get("id").is_some() => json!({}),
        _ => return respond(stream, "202 Accepted", "text/plain", ""),
    };
    let answer = json!({"jsonrpc": "2.0", "id": message["id"], "result": result});
    respond(stream, "200 OK", "application/json", &answer.to_string());
}
