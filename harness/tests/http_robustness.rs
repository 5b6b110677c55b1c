//! A server that misbehaves at the HTTP level never hangs or crashes a run:
//! a scripted server (raw TCP on 127.0.0.1, answering the handshake
//! correctly) answers every ping, whether an `http` step's or the engine
//! transport's, by staying silent, cutting its SSE stream mid-event, or
//! sending malformed SSE, and the verdict is a located FAIL within budget.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use serde_json::{Value, json};

/// The transport scenario whose own POST (a ping) meets the misbehaviour.
const POST_ANSWER: &str = "server/http/post-answer-forms.yaml";

/// How the scripted server answers a ping.
#[derive(Clone, Copy)]
enum Misbehaviour {
    /// Reads the request and never answers.
    Silent,
    /// Starts an SSE answer and closes the connection mid-event.
    CutMidEvent,
    /// An SSE answer whose events are not JSON-RPC at all.
    MalformedSse,
}

/// One request: method, path, body.
fn read_request(stream: &mut TcpStream) -> Option<(String, Vec<u8>)> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let method = line.split_whitespace().next()?.to_owned();
    let mut length = 0;
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok()?;
        if header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some((method, body))
}

fn respond(stream: &mut TcpStream, status: &str, content_type: &str, body: &str) {
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

fn serve(mut stream: TcpStream, misbehaviour: Misbehaviour) {
    let Some((method, body)) = read_request(&mut stream) else {
        return;
    };
    let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    if method != "POST" {
        return respond(&mut stream, "405 Method Not Allowed", "text/plain", "");
    }
    match message.get("method").and_then(Value::as_str) {
        Some("initialize") => {
            let answer = json!({"jsonrpc": "2.0", "id": message["id"], "result": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "serverInfo": {"name": "scripted", "version": "0"}}});
            respond(&mut stream, "200 OK", "application/json", &answer.to_string());
        }
        Some("ping") => match misbehaviour {
            Misbehaviour::Silent => std::thread::sleep(Duration::from_secs(30)),
            Misbehaviour::CutMidEvent => {
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: 500\r\n\r\ndata: {{\"jsonrpc\":\"2.0\",\"id\":\"mcp-"
                );
            }
            Misbehaviour::MalformedSse => respond(
                &mut stream,
                "200 OK",
                "text/event-stream",
                "data {not a field\n\nevent: message\ndata: {\"jsonrpc\": 2.0, oops\n\n",
            ),
        },
        Some(_) if message.get("id").is_some() => {
            let answer = json!({"jsonrpc": "2.0", "id": message["id"], "result": {}});
            respond(&mut stream, "200 OK", "application/json", &answer.to_string());
        }
        _ => respond(&mut stream, "202 Accepted", "text/plain", ""),
    }
}

/// Runs a bundled scenario against a scripted server; returns how long it
/// took and its stdout.
fn judge(misbehaviour: Misbehaviour, scenario: &str) -> (Duration, String) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || serve(stream, misbehaviour));
        }
    });
    let scenario = format!("{}/../scenarios/{scenario}", env!("CARGO_MANIFEST_DIR"));
    let started = Instant::now();
    let output = Command::cargo_bin("mcp-conform")
        .unwrap()
        .env("NO_COLOR", "1")
        .args(["run", "--url", &url, "--transport", "streamable", &scenario])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(
        output.status.code(),
        Some(1),
        "a failing run, not a crash:\n{stdout}"
    );
    (started.elapsed(), stdout)
}

fn assert_located_failure(stdout: &str, why: &str) {
    assert!(
        stdout.contains("FAIL           http.post-answer-forms"),
        "{stdout}"
    );
    assert!(
        stdout.contains("[HTTP-007 MUST] at ")
            && stdout.contains("scenarios/server/http/post-answer-forms.yaml:"),
        "located under HTTP-007:\n{stdout}"
    );
    assert!(stdout.contains(why), "says why ({why}):\n{stdout}");
}

#[test]
fn a_server_that_never_answers_fails_within_the_step_budget() {
    let (took, stdout) = judge(Misbehaviour::Silent, POST_ANSWER);
    assert_located_failure(&stdout, "no answer within 5000 ms");
    assert!(took < Duration::from_secs(15), "took {took:?}");
}

#[test]
fn a_stream_cut_mid_event_fails_located() {
    let (took, stdout) = judge(Misbehaviour::CutMidEvent, POST_ANSWER);
    assert_located_failure(&stdout, "the body was cut");
    assert!(took < Duration::from_secs(15), "took {took:?}");
}

#[test]
fn malformed_sse_fails_located() {
    let (took, stdout) = judge(Misbehaviour::MalformedSse, POST_ANSWER);
    assert_located_failure(&stdout, "no element matches");
    assert!(took < Duration::from_secs(15), "took {took:?}");
}

/// The same misbehaviours on the session's own POST (`lifecycle.ping`
/// through the engine's transport) end in a located verdict too.
#[test]
fn the_engine_transport_reports_each_misbehaviour_located() {
    for misbehaviour in [
        Misbehaviour::Silent,
        Misbehaviour::CutMidEvent,
        Misbehaviour::MalformedSse,
    ] {
        let (took, stdout) = judge(misbehaviour, "server/lifecycle/ping.yaml");
        assert!(stdout.contains("FAIL           lifecycle.ping"), "{stdout}");
        assert!(stdout.contains("[PING-001 MUST] at "), "{stdout}");
        assert!(took < Duration::from_secs(15), "took {took:?}:\n{stdout}");
    }
}
