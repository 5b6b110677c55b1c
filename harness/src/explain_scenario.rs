//! `explain <scenario-id>`: a scenario's purpose, requirements and steps in
//! words, so an author can check what a file does without running it.

use std::fmt::Write;

use mcp_conform_core::requirements::Catalogue;
use mcp_conform_core::scenario::Scenario;
use mcp_conform_core::scenario::model::{ResponseCheck, ResponseExpect, Step, StepKind};

/// The scenario described: title, purpose, what it cites and needs, then one
/// line per step (nested steps indented under their `for_each`).
pub fn explain(scenario: &Scenario, catalogue: &Catalogue) -> String {
    let mut out = String::new();
    let s = scenario;
    writeln!(out, "{} ({:?}, {})", s.id, s.role, s.versions).expect("String");
    writeln!(out, "  {}", s.title).expect("String");
    writeln!(out, "  file: {}", s.source.path.display()).expect("String");
    if let Some(description) = &s.description {
        for line in description.trim().lines() {
            writeln!(out, "  | {line}").expect("String");
        }
    }
    for id in &s.cited {
        let summary = catalogue
            .get(id)
            .map(|r| r.summary.as_str())
            .unwrap_or("(not in the catalogue)");
        writeln!(out, "  checks {id}: {summary}").expect("String");
    }
    let needs = &s.requires;
    for capability in &needs.capabilities {
        writeln!(out, "  needs capability {capability}").expect("String");
    }
    for trigger in &needs.triggers {
        writeln!(out, "  needs profile trigger {trigger} (unbound: not-observed)").expect("String");
    }
    writeln!(out, "  steps:").expect("String");
    describe_steps(&mut out, &s.steps, 2);
    out
}

fn describe_steps(out: &mut String, steps: &[Step], depth: usize) {
    for (n, step) in steps.iter().enumerate() {
        let indent = "  ".repeat(depth);
        writeln!(out, "{indent}{}. {}", n + 1, describe(&step.kind)).expect("String");
        if let StepKind::ForEach { steps, .. } = &step.kind {
            describe_steps(out, steps, depth + 1);
        }
    }
}

fn describe(kind: &StepKind) -> String {
    match kind {
        StepKind::Request(request) => {
            let waits = if request.wait { "" } else { " without waiting" };
            let expect = request.expect.as_ref().map(expectation).unwrap_or_default();
            let precondition = if request.require { " (a precondition)" } else { "" };
            format!("send request {}{waits}{expect}{precondition}", request.method)
        }
        StepKind::Notify { method, .. } => format!("send notification {method}"),
        StepKind::SendRaw { expect, .. } => {
            format!(
                "send raw bytes{}",
                expect.as_ref().map(expectation).unwrap_or_default()
            )
        }
        StepKind::ExpectNotifications { patterns, within, .. } => {
            let methods: Vec<&str> = patterns.iter().map(|p| p.method.as_str()).collect();
            format!("expect notifications {} within {within:?}", methods.join(", "))
        }
        StepKind::ExpectSilence { within, .. } => format!("expect no message for {within:?}"),
        StepKind::ExpectRequest { method, within, .. } => {
            format!("expect the peer to send request {method} within {within:?}")
        }
        StepKind::Await { request, expect, .. } => {
            format!(
                "await the answer to `{request}`{}",
                expect.as_ref().map(expectation).unwrap_or_default()
            )
        }
        StepKind::Respond { to, .. } => format!("answer the peer's request `{to}`"),
        StepKind::Paginate(page) => format!("page through {} collecting `{}`", page.method, page.items),
        StepKind::ForEach { list, binding, .. } => format!("for each `{binding}` in `{list}`:"),
        StepKind::Set(vars) => {
            let names: Vec<&str> = vars.keys().map(String::as_str).collect();
            format!("set {}", names.join(", "))
        }
        StepKind::Sleep(duration) => format!("wait {duration:?}"),
        StepKind::Close { .. } => "close the connection".to_string(),
        StepKind::Http(exchange) => format!("send a raw HTTP {}", exchange.method),
        StepKind::Cancel { request, .. } => format!("cancel the pending request `{request}`"),
        StepKind::Subscribe(subscribe) => format!("subscribe as `{}`", subscribe.name),
        StepKind::Unsubscribe { name, .. } => format!("unsubscribe `{name}`"),
        StepKind::Alive { .. } => "check the peer still answers".to_string(),
        StepKind::ExpectSubscriptionEnd { name, .. } => format!("expect subscription `{name}` to end"),
        StepKind::ExpectValue { name, .. } => format!("expect `{name}` to match"),
        StepKind::Backend(step) => format!("on backend `{}`: a backend step", step.backend),
        StepKind::Task(task) => format!(
            "call {} as task `{}`, polling until it ends within {:?}{}",
            task.method,
            task.name,
            task.within,
            task.expect.as_ref().map(expectation).unwrap_or_default()
        ),
    }
}

/// `, expecting a result` and the like; empty when any answer will do.
fn expectation(check: &ResponseCheck) -> String {
    match &check.expect {
        ResponseExpect::Any => String::new(),
        ResponseExpect::Result(_) => ", expecting a matching result".to_string(),
        ResponseExpect::Error(_) => ", expecting a matching error".to_string(),
        ResponseExpect::AnyOf(alternatives) => format!(", expecting one of {} answers", alternatives.len()),
        ResponseExpect::NoResponse => ", expecting no response".to_string(),
    }
}
