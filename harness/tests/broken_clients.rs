//! The client oracle, proven: the bundled reference client passes every
//! `role: client` scenario on every version, over stdio and over HTTP, and
//! each broken variant (`reference-client --fault NAME`) is flagged under
//! the requirement its fault breaks (the `http-` faults over HTTP, the
//! `modern-` faults on 2026-07-28; a broken MAY counts, though its verdict
//! is not-observed).
//! fixtures/broken-clients/README.md lists the faults; a test keeps it true.

use mcp_mock_peers::reference_client::ClientFault;
use regex::Regex;

mod faults;

/// How the reference client reaches the mock server: by `{url}` over HTTP,
/// else by the `{server}` command over stdio.
fn placeholder(over_http: bool) -> &'static str {
    if over_http { "--url {url}" } else { "{server}" }
}

/// Every case (scenario × version) passes, but those of the HTTP
/// transport over stdio, which do not apply.
fn assert_all_pass(over_http: bool) {
    let placeholder = placeholder(over_http);
    let judged = faults::judge_fixture(
        "test-client",
        "reference-client",
        None,
        placeholder,
        &["--protocol", "all"],
    );
    let stdout = judged.stdout;
    let case = Regex::new(r"(?m)^\s*(\S+)\s+(client\.\S+)").unwrap();
    let verdicts: Vec<(&str, &str)> = case
        .captures_iter(&stdout)
        .map(|c| (c.get(1).unwrap().as_str(), c.get(2).unwrap().as_str()))
        .collect();
    assert!(
        verdicts.len() >= 100,
        "every scenario ran on every version it applies to:\n{stdout}"
    );
    for era in ["@2025-11-25", "@2026-07-28"] {
        assert!(
            verdicts.iter().any(|(_, id)| id.ends_with(era)),
            "no case {era}:\n{stdout}"
        );
    }
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
    faults::assert_each_caught("clients", &faults::fault_list!(ClientFault), |name| {
        let fault = ClientFault::ALL
            .iter()
            .find(|f| f.name() == name)
            .expect("a listed fault");
        // A fault of 2026-07-28 shows only when the mock server speaks it.
        let protocol = if fault.is_modern() {
            "2026-07-28"
        } else {
            "2025-11-25"
        };
        faults::judge_fixture(
            "test-client",
            "reference-client",
            Some(name),
            placeholder(fault.is_http()),
            &["--protocol", protocol],
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
