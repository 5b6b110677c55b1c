//! Product checks (the user's own requirements, or none) in every format:
//! a section of their own, never in the spec's requirement matrix; the gate
//! counts their failures like any other.

use mcp_conform_report::{
    Basis, Case, CheckResult, FORMAT_VERSION, Gate, Level, Report, RunInfo, Scope, Suite, Summary, Tool,
    Verdict, html, json, junit, markdown,
};

fn check(requirement: &str, scope: Scope, verdict: Verdict) -> CheckResult {
    CheckResult {
        requirement: requirement.into(),
        scope,
        name: "response to tools/call".into(),
        level: Level::Must,
        basis: Basis::Keyword,
        verdict,
        message: (verdict != Verdict::Pass).then(|| "expected 5".into()),
        expected: None,
        actual: None,
        location: Some("9:9".into()),
        frame: None,
        accepted: None,
    }
}

fn case(scenario: &str, checks: Vec<CheckResult>) -> Case {
    Case {
        scenario: scenario.into(),
        title: format!("title of {scenario}"),
        area: scenario.split('.').next().unwrap().into(),
        file: format!("{scenario}.yaml"),
        protocol_version: Some("2025-11-25".into()),
        verdict: checks.iter().map(|c| c.verdict).max().unwrap_or(Verdict::Pass),
        note: None,
        checks,
        remarks: Vec::new(),
        transcript: Vec::new(),
        transcript_cut: None,
        stderr_tail: None,
        startup_ms: None,
    }
}

fn report(cases: Vec<Case>) -> Report {
    Report {
        format_version: FORMAT_VERSION,
        generated_at: "2026-11-27T00:00:00Z".into(),
        tool: Tool {
            name: "mcp-conform".into(),
            version: "0.1.0".into(),
        },
        run: RunInfo {
            target: "stdio: ./server".into(),
            protocol_versions: vec!["2025-11-25".into()],
            profile: None,
            suite: Suite {
                digest: "fnv1a64:0123456789abcdef".into(),
                scenarios: cases.len(),
            },
            strict: false,
            shard: None,
            baseline: None,
        },
        summary: Summary::of(&cases),
        gate: Gate::decide(&cases, false, Vec::new(), Vec::new()),
        cases,
    }
}

/// A spec scenario, and a product scenario whose own check fails while the
/// frame checker's spec rule passes.
fn mixed() -> Report {
    report(vec![
        case("tools.call", vec![check("TOOL-005", Scope::Spec, Verdict::Pass)]),
        case(
            "acme.add",
            vec![
                check("RPC-004", Scope::Spec, Verdict::Pass),
                check("", Scope::Product, Verdict::Fail),
                check("ACME-001", Scope::Product, Verdict::Pass),
            ],
        ),
    ])
}

#[test]
fn the_gate_fails_on_a_failing_product_check() {
    let gate = &mixed().gate;
    assert_eq!(gate.exit_code, 1);
    let failures: Vec<(&str, Scope)> = gate.new_failures.iter().map(|f| (f.cited(), f.scope)).collect();
    assert_eq!(failures, [("–", Scope::Product)]);
}

#[test]
fn json_marks_product_checks_only() {
    let text = json::write(&mixed());
    assert_eq!(
        text.matches("\"scope\": \"product\"").count(),
        3,
        "two checks and the gate's failure"
    );
    assert!(
        !text.contains("\"scope\": \"spec\""),
        "the spec's scope is left out"
    );
    assert_eq!(json::read(&text).unwrap(), mixed());
}

#[test]
fn html_keeps_product_checks_out_of_the_spec_matrix() {
    let page = html::write(&mixed());
    let matrix = &page[page.find("id=\"matrix\"").unwrap()..page.find("id=\"product\"").unwrap()];
    assert!(
        matrix.contains("TOOL-005") && matrix.contains("RPC-004"),
        "{matrix}"
    );
    assert!(
        !matrix.contains("ACME-001") && !matrix.contains("–</th>"),
        "{matrix}"
    );
    let product = &page[page.find("id=\"product\"").unwrap()..page.find("id=\"cases\"").unwrap()];
    assert!(product.contains("<td>ACME-001</td>"), "{product}");
    assert!(product.contains("<td>–</td>"), "{product}");
    assert!(!product.contains("RPC-004"), "{product}");
    assert!(!html::write(&report(vec![mixed().cases[0].clone()])).contains("id=\"product\""));
}

#[test]
fn markdown_has_a_product_section() {
    let text = markdown::write(&mixed());
    assert!(
        text.contains("Your own requirements, or none; not in the spec's figures: 1 fail, 1 pass."),
        "{text}"
    );
    assert!(text.contains("| `acme.add@2025-11-25` | ACME-001 |"), "{text}");
    assert!(text.contains("| `acme.add@2025-11-25` | – |"), "{text}");
    assert!(!text.contains("| `acme.add@2025-11-25` | RPC-004 |"), "{text}");
    assert!(!markdown::write(&report(vec![mixed().cases[0].clone()])).contains("Product checks"));
}

#[test]
fn junit_gives_product_checks_a_suite_of_their_own() {
    let xml = junit::write(&mixed(), None);
    assert!(
        xml.contains(r#"<testsuite name="acme.add@2025-11-25" tests="1""#),
        "{xml}"
    );
    assert!(
        xml.contains(r#"<testsuite name="acme.add@2025-11-25 (product checks)" tests="2""#),
        "{xml}"
    );
    assert!(
        xml.contains(r#"<testcase name="ACME-001 response to tools/call""#),
        "{xml}"
    );
    assert!(
        xml.contains(r#"<testcase name="– response to tools/call""#),
        "{xml}"
    );
    assert_eq!(
        xml.matches("<system-out>").count(),
        2,
        "one transcript per case:\n{xml}"
    );
}
