//! Correct servers with unusual habits pass, and verdicts stay no stronger
//! than the spec: a scripted Streamable HTTP server (raw TCP on 127.0.0.1)
//! that refuses input it cannot accept its own way is judged by the
//! bundled `http.parse-error` and `http.invalid-request`.

use std::net::{TcpListener, TcpStream};
use std::time::Duration;

use common::report::{Judged, judge};
use common::scripted_http::{answer_plainly, read_post, respond};
use mcp_conform_report::Verdict;
use serde_json::json;

mod common;

/// How the scripted server answers a POST that is not JSON-RPC 2.0.
#[derive(Clone, Copy)]
enum Refusal {
    /// 415 with a text body: an HTTP error status, as the spec asks.
    UnsupportedText,
    /// 400 with a JSON-RPC error whose code is not the one for the input.
    WrongCode,
    /// 200 with a result: the input is not refused at all.
    Accepted,
}

fn serve(mut stream: TcpStream, refusal: Refusal) {
    let Some(message) = read_post(&mut stream) else {
        return;
    };
    if message.get("jsonrpc") != Some(&json!("2.0")) {
        return match refusal {
            Refusal::UnsupportedText => respond(
                &mut stream,
                "415 Unsupported Media Type",
                "text/plain",
                "Unsupported Media Type: expected a JSON-RPC 2.0 message",
            ),
            Refusal::WrongCode => {
                let error =
                    json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32603, "message": "bad input"}});
                respond(
                    &mut stream,
                    "400 Bad Request",
                    "application/json",
                    &error.to_string(),
                );
            }
            Refusal::Accepted => {
                let answer = json!({"jsonrpc": "2.0", "id": null, "result": {}});
                respond(&mut stream, "200 OK", "application/json", &answer.to_string());
            }
        };
    }
    answer_plainly(&mut stream, &message);
}

/// The bundled `scenario` (`http/parse-error`) run against a scripted
/// server refusing the way `refusal` says.
fn judged(refusal: Refusal, scenario: &str) -> Judged {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || serve(stream, refusal));
        }
    });
    let scenario = format!(
        "{}/../scenarios/server/{scenario}.yaml",
        env!("CARGO_MANIFEST_DIR")
    );
    judge(
        &["run", "--url", &url, "--transport", "streamable", &scenario],
        Duration::from_secs(60),
    )
}

/// The one case's verdict and the verdict of each of its checks, by requirement.
fn verdicts(run: &Judged) -> (Verdict, Vec<(String, Verdict)>) {
    let [case] = run.report.cases.as_slice() else {
        panic!("one case: {}", run.stdout());
    };
    let checks = case
        .checks
        .iter()
        .map(|c| (c.requirement.clone(), c.verdict))
        .collect();
    (case.verdict, checks)
}

const SCENARIOS: [(&str, &str); 2] = [
    ("http/parse-error", "RPC-009"),
    ("http/invalid-request", "RPC-010"),
];

#[test]
fn a_415_with_a_text_body_is_a_conformant_refusal() {
    for (scenario, _) in SCENARIOS {
        let run = judged(Refusal::UnsupportedText, scenario);
        assert_eq!(verdicts(&run).0, Verdict::Pass, "{scenario}:\n{}", run.stdout());
        assert_eq!(run.code(), Some(0));
    }
}

#[test]
fn a_json_rpc_refusal_with_another_code_is_a_finding_not_a_failure() {
    for (scenario, code_rule) in SCENARIOS {
        let run = judged(Refusal::WrongCode, scenario);
        let (verdict, checks) = verdicts(&run);
        assert_eq!(
            verdict,
            Verdict::NonStrict,
            "{scenario}: {checks:?}\n{:#?}",
            run.report.cases[0].checks
        );
        assert!(checks.contains(&("HTTP-027".into(), Verdict::Pass)), "{checks:?}");
        assert!(
            checks.contains(&(code_rule.into(), Verdict::NonStrict)),
            "{checks:?}"
        );
        assert_eq!(run.code(), Some(0));
    }
}

#[test]
fn input_served_as_if_it_were_a_request_fails() {
    for (scenario, _) in SCENARIOS {
        let run = judged(Refusal::Accepted, scenario);
        let (verdict, checks) = verdicts(&run);
        assert_eq!(verdict, Verdict::Fail, "{scenario}:\n{}", run.stdout());
        assert!(checks.contains(&("HTTP-027".into(), Verdict::Fail)), "{checks:?}");
        assert_eq!(run.code(), Some(1));
    }
}
