//! A server that misbehaves at the HTTP level never hangs or crashes a run:
//! a scripted server (raw TCP on 127.0.0.1, answering the handshake
//! correctly) answers every ping, whether an `http` step's or the engine
//! transport's, by staying silent, cutting its SSE stream mid-event, or
//! sending malformed SSE, and the verdict is a located fail within budget.

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

use common::report::{Judged, judge};
use common::scripted_http::{answer_plainly, read_post, respond};
use mcp_conform_report::Verdict;
use serde_json::Value;

mod common;

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

fn serve(mut stream: TcpStream, misbehaviour: Misbehaviour) {
    let Some(message) = read_post(&mut stream) else {
        return;
    };
    match message.get("method").and_then(Value::as_str) {
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
        _ => answer_plainly(&mut stream, &message),
    }
}

/// Runs a bundled scenario against a scripted server; returns how long it
/// took and the run.
fn judge_scripted(misbehaviour: Misbehaviour, scenario: &str) -> (Duration, Judged) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || serve(stream, misbehaviour));
        }
    });
    let scenario = format!("{}/../scenarios/{scenario}", env!("CARGO_MANIFEST_DIR"));
    let started = Instant::now();
    let run = judge(
        &["run", "--url", &url, "--transport", "streamable", &scenario],
        Duration::from_secs(60),
    );
    assert_eq!(
        run.code(),
        Some(1),
        "a failing run, not a crash:\n{}",
        run.stdout()
    );
    (started.elapsed(), run)
}

/// The one case of `run` fails, under `requirement`, at a line of its
/// scenario file, saying `why`.
fn assert_located_failure(run: &Judged, scenario: &str, requirement: &str, why: &str) {
    let [case] = run.report.cases.as_slice() else {
        panic!("one case: {}", run.stdout());
    };
    assert_eq!((case.scenario.as_str(), case.verdict), (scenario, Verdict::Fail));
    let failed: Vec<_> = case
        .checks
        .iter()
        .filter(|c| c.verdict == Verdict::Fail)
        .collect();
    assert!(
        failed.iter().any(|check| check.requirement == requirement
            && check.location.is_some()
            && check.message.as_deref().is_some_and(|m| m.contains(why))),
        "a failure under {requirement}, located, saying {why:?}: {failed:#?}"
    );
}

#[test]
fn a_server_that_never_answers_fails_within_the_step_budget() {
    let (took, run) = judge_scripted(Misbehaviour::Silent, POST_ANSWER);
    assert_located_failure(
        &run,
        "http.post-answer-forms",
        "HTTP-007",
        "no answer within 5000 ms",
    );
    assert!(took < Duration::from_secs(15), "took {took:?}");
}

#[test]
fn a_stream_cut_mid_event_fails_located() {
    let (took, run) = judge_scripted(Misbehaviour::CutMidEvent, POST_ANSWER);
    assert_located_failure(&run, "http.post-answer-forms", "HTTP-007", "the body was cut");
    assert!(took < Duration::from_secs(15), "took {took:?}");
}

#[test]
fn malformed_sse_fails_located() {
    let (took, run) = judge_scripted(Misbehaviour::MalformedSse, POST_ANSWER);
    assert_located_failure(&run, "http.post-answer-forms", "HTTP-007", "no element matches");
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
        let (took, run) = judge_scripted(misbehaviour, "server/lifecycle/ping.yaml");
        assert_located_failure(&run, "lifecycle.ping", "PING-001", "");
        assert!(took < Duration::from_secs(15), "took {took:?}:\n{}", run.stdout());
    }
}
