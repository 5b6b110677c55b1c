//! The client oracle, proven: the bundled reference client passes every
//! `role: client` scenario, over stdio and over HTTP, and each broken
//! variant (`reference-client --fault NAME`) is flagged under the
//! requirement its fault breaks (the `http-` faults over HTTP; a broken
//! MAY counts, though its verdict is not-observed; the `modern-` faults
//! wait for a mock server of 2026-07-28).
//! fixtures/broken-clients/README.md lists the faults; a test keeps it true.

use mcp_mock_peers::reference_client::ClientFault;
use regex::Regex;

mod faults;

/// How the reference client reaches the mock server: by `{url}` over HTTP,
/// else by the `{server}` command over stdio.
fn placeholder(over_http: bool) -> &'static str {
    if over_http { "--url {url}" } else { "{server}" }
}

/// Every scenario passes, but those of the HTTP transport over stdio, which
/// do not apply.
fn assert_all_pass(over_http: bool) {
    let stdout =
        faults::judge_fixture("test-client", "reference-client", None, placeholder(over_http)).stdout;
    let scenario = Regex::new(r"(?m)^\s*(\S+)\s+(client\.\S+)").unwrap();
    let verdicts: Vec<(&str, &str)> = scenario
        .captures_iter(&stdout)
        .map(|c| (c.get(1).unwrap().as_str(), c.get(2).unwrap().as_str()))
        .collect();
    assert!(verdicts.len() >= 26, "every scenario ran:\n{stdout}");
    for (verdict, id) in verdicts {
        let http_only = id.starts_with("client.http.") && verdict == "not-applicable";
        assert!(
            verdict == "pass" || (http_only && !over_http),
            "{id} {verdict}:\n{stdout}"
        );
    }
}

#[test]
fn the_reference_client_passes_every_client_scenario() {
    assert_all_pass(false);
}

#[test]
fn the_reference_client_passes_every_client_scenario_over_http() {
    assert_all_pass(true);
}

#[test]
fn every_broken_client_is_caught_under_the_requirement_it_breaks() {
    // The mock server does not serve 2026-07-28 to clients yet, so the
    // `modern-` faults, which show only there, cannot be judged.
    let legacy: Vec<faults::Fault> = faults::fault_list!(ClientFault)
        .into_iter()
        .filter(|f| {
            !ClientFault::ALL
                .iter()
                .any(|c| c.name() == f.name && c.is_modern())
        })
        .collect();
    faults::assert_each_caught("clients", &legacy, |name| {
        let over_http = ClientFault::ALL.iter().any(|f| f.name() == name && f.is_http());
        faults::judge_fixture(
            "test-client",
            "reference-client",
            Some(name),
            placeholder(over_http),
        )
    });
}

#[test]
fn the_fixture_list_names_every_fault() {
    faults::assert_readme_lists(
        "fixtures/broken-clients/README.md",
        &faults::fault_list!(ClientFault),
    );
}
