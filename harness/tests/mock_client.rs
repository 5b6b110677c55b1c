//! The mock client from an ordinary `#[test]`: the reference server's
//! multi-turn tool, in both eras, with queued answers; and a server that
//! never asks its second question, caught.

use mcp_conform::assert_conformant;
use mcp_conform::mock_client::{Exchange, MockClient};
use mcp_conform_core::Verdict;
use mcp_conform_core::version::ProtocolVersion;
use serde_json::json;

fn book(server: &str, protocol: ProtocolVersion) -> Exchange {
    MockClient::command(&format!("{} {server}", env!("CARGO_BIN_EXE_mcp-conform")))
        .protocol(protocol)
        .capabilities(json!({ "elicitation": {}, "sampling": {} }))
        .elicit_accept(json!({ "seat": "aisle" }))
        .sample_text("A quiet trip.")
        .elicit_accept(json!({ "confirm": true }))
        .call_tool("book", json!({ "destination": "Porto" }))
        .unwrap()
}

#[test]
fn a_multi_turn_tool_answers_from_the_queues_in_both_eras() {
    for protocol in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
        let exchange = book("reference-server", protocol);
        let text = "booked Porto: seat=aisle; summary=A quiet trip.; confirmed=true";
        assert_eq!(exchange.text(), text, "{protocol}");
        assert_conformant!(exchange);
    }
}

#[test]
fn a_server_that_skips_a_question_leaves_queued_answers_unused() {
    let exchange = book(
        "reference-server --fault multi-turn-skips-sampling",
        ProtocolVersion::V2025_11_25,
    );
    assert_eq!(exchange.verdict(), Verdict::Fail);
    let unused: Vec<&str> = exchange.findings().iter().map(|c| c.name.as_str()).collect();
    assert!(
        unused.contains(&"the peer asks for sampling/createMessage"),
        "{unused:?}"
    );
    assert!(!exchange.is_conformant());
}

#[test]
fn a_client_without_the_capabilities_is_refused_by_the_tool() {
    let exchange = MockClient::command(&format!("{} reference-server", env!("CARGO_BIN_EXE_mcp-conform")))
        .elicit_accept(json!({ "seat": "aisle" }))
        .call_tool("book", json!({ "destination": "Porto" }))
        .unwrap();
    assert!(
        exchange.text().contains("declared form elicitation and sampling"),
        "{}",
        exchange.text()
    );
    assert_eq!(exchange.result().unwrap()["isError"], json!(true));
    assert_eq!(
        exchange.verdict(),
        Verdict::Fail,
        "the queued answer was never asked for"
    );
}

/// What `docs/rust-api.md` says the checker adds to a hand-made mock:
/// a nested form and a request for an undeclared capability are findings.
#[test]
fn nested_forms_and_undeclared_asks_are_findings() {
    let server = |fault: &str| {
        format!(
            "{} reference-server --fault {fault}",
            env!("CARGO_BIN_EXE_mcp-conform")
        )
    };
    let nested = MockClient::command(&server("elicit-nested-schema"))
        .capabilities(json!({ "elicitation": {} }))
        .elicit_cancel()
        .call_tool("elicit", json!({}))
        .unwrap();
    let undeclared = MockClient::command(&server("sample-undeclared"))
        .capabilities(json!({ "elicitation": {} }))
        .call_tool("sample", json!({ "prompt": "hi" }))
        .unwrap();
    for (exchange, requirement) in [(nested, "ELIC-005"), (undeclared, "SAMP-001")] {
        let cited: Vec<&str> = exchange
            .findings()
            .iter()
            .map(|c| c.requirement.as_str())
            .collect();
        assert!(
            cited.contains(&requirement),
            "{requirement}: {}",
            exchange.findings_report()
        );
    }
}

/// A server of the test's own, in-process, that asks three forms in one
/// call: with two answers queued, the third ask is a finding naming it.
#[tokio::test]
async fn an_ask_past_the_queue_is_a_finding() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (ours, theirs) = tokio::io::duplex(64 * 1024);
    let (input, mut output) = tokio::io::split(theirs);
    tokio::spawn(async move {
        let mut lines = BufReader::new(input).lines();
        let mut send = async |message: serde_json::Value| {
            output.write_all(format!("{message}\n").as_bytes()).await.unwrap();
        };
        while let Ok(Some(line)) = lines.next_line().await {
            let message: serde_json::Value = serde_json::from_str(&line).unwrap();
            let id = message["id"].clone();
            match message["method"].as_str() {
                Some("initialize") => {
                    let info = json!({ "name": "three-asks", "version": "1" });
                    let result = json!({ "protocolVersion": "2025-11-25", "capabilities": { "tools": {} }, "serverInfo": info });
                    send(json!({ "jsonrpc": "2.0", "id": id, "result": result })).await;
                }
                Some("tools/call") => {
                    for ask in 1..=3 {
                        let form = json!({ "message": format!("ask {ask}"), "requestedSchema": { "type": "object", "properties": {} } });
                        send(json!({ "jsonrpc": "2.0", "id": format!("ask-{ask}"), "method": "elicitation/create", "params": form })).await;
                        lines.next_line().await.unwrap();
                    }
                    let result = json!({ "content": [{ "type": "text", "text": "asked three times" }] });
                    send(json!({ "jsonrpc": "2.0", "id": id, "result": result })).await;
                }
                _ => {}
            }
        }
    });
    let (reader, writer) = tokio::io::split(ours);
    let exchange = MockClient::stream(reader, writer)
        .capabilities(json!({ "elicitation": {} }))
        .elicit_accept(json!({}))
        .elicit_decline()
        .call_tool_async("ask", json!({}))
        .await
        .unwrap();
    assert_eq!(exchange.text(), "asked three times");
    let messages: Vec<&str> = exchange
        .findings()
        .iter()
        .filter_map(|c| c.message.as_deref())
        .collect();
    assert!(
        messages
            .iter()
            .any(|m| m.contains("elicitation/create for the 3rd time") && m.contains("holds 2 answers")),
        "{}",
        exchange.findings_report()
    );
}
