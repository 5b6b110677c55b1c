//! The oracle over HTTP: the reference server served over HTTP with one
//! fault of the HTTP transports (`reference-server --http ADDR --fault
//! NAME`) is flagged by the transport scenarios (`scenarios/http`) under
//! the requirement the fault breaks, within the run's budget.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use mcp_mock_peers::reference::Fault;

mod findings;
mod http_server;

use http_server::{free_port, start};

/// Broken servers judged at once.
const PARALLEL: usize = 2;
/// The longest one faulty server's run may take.
const BUDGET: Duration = Duration::from_secs(120);

/// The transport, URL path and protocol version that expose `fault`.
fn exposure(fault: Fault) -> (&'static str, &'static str, &'static str) {
    match fault {
        Fault::HttpEndpointEventLate => ("sse", "/sse", "2024-11-05"),
        _ => ("streamable", "/mcp", "2025-11-25"),
    }
}

fn run_against(fault: Fault) -> (bool, Duration, String) {
    let (transport, path, protocol) = exposure(fault);
    let port = free_port();
    let server = start(
        &http_server::reference_server(port, Some(fault.name())),
        port,
        path,
    );
    let started = Instant::now();
    let (_, stdout) = http_server::run(
        &[
            "--url",
            &server.url,
            "--transport",
            transport,
            "--protocol",
            protocol,
            "--profile",
            "reference",
            "--jobs",
            "2",
            "--filter",
            "http.",
        ],
        BUDGET,
    );
    let took = started.elapsed();
    let caught = findings::flagged_requirements(&stdout).contains(fault.requirement());
    (caught, took, stdout)
}

#[test]
fn every_broken_http_server_is_caught_under_the_requirement_it_breaks() {
    // The stateless revision's faults wait for a mock client that speaks it.
    let faults: Vec<Fault> = Fault::ALL
        .iter()
        .copied()
        .filter(|f| f.is_http() && !f.is_modern())
        .collect();
    assert!(faults.len() >= 8, "the HTTP faults: {faults:?}");
    let queue = Mutex::new(faults);
    let results = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..PARALLEL {
            scope.spawn(|| {
                while let Some(fault) = queue.lock().unwrap().pop() {
                    let result = run_against(fault);
                    results.lock().unwrap().push((fault, result));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(fault, _)| fault.name());
    let mut missed = Vec::new();
    for (fault, (caught, took, stdout)) in &results {
        eprintln!(
            "{:<30} {:<10} {:>5.1} s{}",
            fault.name(),
            fault.requirement(),
            took.as_secs_f64(),
            if *caught { "" } else { "   <- MISSED" }
        );
        assert!(*took < BUDGET, "{} ran past its budget:\n{stdout}", fault.name());
        if !caught {
            missed.push(format!("{} ({}):\n{stdout}", fault.name(), fault.requirement()));
        }
    }
    assert!(missed.is_empty(), "missed HTTP faults:\n{}", missed.join("\n"));
}

/// A server that answers plain JSON-RPC over POST (JSON bodies, 204 for
/// notifications) is judged precisely by the whole suite: HTTP-006 and
/// nothing else, no error.
#[test]
fn plain_json_rpc_over_post_is_judged_precisely() {
    let port = free_port();
    let fault = Fault::HttpPlainJsonRpc;
    let server = start(
        &http_server::reference_server(port, Some(fault.name())),
        port,
        "/mcp",
    );
    let (_, stdout) = http_server::run(
        &[
            "--url",
            &server.url,
            "--transport",
            "streamable",
            "--profile",
            "reference",
            "--jobs",
            "2",
        ],
        BUDGET,
    );
    let flagged: Vec<String> = findings::flagged_requirements(&stdout).into_iter().collect();
    assert_eq!(flagged, [fault.requirement()], "{stdout}");
    assert!(!stdout.contains("ERROR"), "{stdout}");
}
