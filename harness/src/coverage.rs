//! Which requirements the suite checks: cited by a scenario, by the frame
//! checker or by the engine itself; not yet; or not automatable.

use std::fmt::Write as _;

use mcp_conform_core::Basis;
use mcp_conform_core::protocol::CHECKED_REQUIREMENTS;
use mcp_conform_core::requirements::{CheckKind, Requirement, Role};
use mcp_conform_core::scenario::Scenario;
use mcp_conform_core::version::{ProtocolVersion, VersionSet};

/// How a requirement is covered.
#[derive(Debug, Clone, PartialEq)]
pub enum Coverage {
    /// Scenarios citing it, and whether built-in checks cite it.
    Covered { scenarios: Vec<String>, built_in: bool },
    /// Not checked yet, and why.
    NotYet(String),
    /// Listed for completeness only.
    NotAutomatable(String),
}

/// The coverage of one requirement by these scenarios and the built-in
/// checks, at `version` when one is given (a scenario covers it there when
/// it [`judges_at`] that version). A built-in rule cites a requirement for
/// the versions the requirement applies to.
pub fn coverage(
    requirement: &Requirement,
    scenarios: &[Scenario],
    version: Option<ProtocolVersion>,
) -> Coverage {
    if requirement.check == CheckKind::Manual {
        return Coverage::NotAutomatable(requirement.manual_reason.clone().unwrap_or_default());
    }
    let (citing, elsewhere): (Vec<&Scenario>, Vec<&Scenario>) = scenarios
        .iter()
        .filter(|s| s.cited.contains(&requirement.id))
        .partition(|s| version.is_none_or(|v| judges_at(s, requirement, v)));
    let id = requirement.id.as_str();
    let built_in = CHECKED_REQUIREMENTS.iter().any(|cited| *cited == id)
        && version.is_none_or(|v| requirement.applies_to(v));
    if !citing.is_empty() || built_in {
        let scenarios = citing.iter().map(|s| s.id.clone()).collect();
        return Coverage::Covered { scenarios, built_in };
    }
    if !elsewhere.is_empty() {
        let ids: Vec<&str> = elsewhere.iter().map(|s| s.id.as_str()).collect();
        return Coverage::NotYet(format!(
            "cited only by scenarios that run at other versions ({})",
            ids.join(", ")
        ));
    }
    Coverage::NotYet(
        requirement
            .pending
            .clone()
            .unwrap_or_else(|| why_not_yet(requirement).to_owned()),
    )
}

/// Whether `scenario`, which cites `requirement`, judges it at `version`:
/// when it runs at that version (its `versions:` hold it), or when it runs
/// at none of the requirement's versions, as a scenario that plays an
/// older version to a peer of the requirement's does (a client of
/// 2026-07-28 falling back to a server of 2025-11-25, MODN-010).
fn judges_at(scenario: &Scenario, requirement: &Requirement, version: ProtocolVersion) -> bool {
    scenario.versions.contains(version) || scenario.versions.intersect(requirement.versions).is_empty()
}

/// What a requirement nothing checks yet is waiting for.
fn why_not_yet(requirement: &Requirement) -> &'static str {
    let id = requirement.id.as_str();
    if requirement.role == Role::Client {
        "a client's duty no client scenario judges yet"
    } else if id.starts_with("HTTP-") {
        "an HTTP transport rule no scenario of scenarios/server/http reaches yet"
    } else if !requirement.versions.intersect(VersionSet::LEGACY).is_empty() {
        "no scenario or check cites it yet"
    } else {
        "stateless era (2026-07-28): judged once that era is modelled"
    }
}

/// The short status word of a coverage.
pub fn status(coverage: &Coverage) -> &'static str {
    match coverage {
        Coverage::Covered { .. } => "covered",
        Coverage::NotYet(_) => "not yet",
        Coverage::NotAutomatable(_) => "not automatable",
    }
}

/// How `explain` words a basis.
fn basis_text(basis: Basis) -> &'static str {
    match basis {
        Basis::Keyword => "the spec's keyword",
        Basis::Prose => "the spec's lower-case prose (a finding at most, never a failure)",
        Basis::Inference => "our inference, no spec sentence says it (a finding at most, never a failure)",
        Basis::Harness => "a rule of mcp-conform itself, where the spec has none",
    }
}

/// What `mcp-conform explain ID` prints.
pub fn explain(requirement: &Requirement, scenarios: &[Scenario]) -> String {
    let mut out = String::new();
    let r = requirement;
    writeln!(out, "{} ({}, {}, {:?})", r.id, r.level, r.versions, r.role).expect("String");
    writeln!(out, "  {}", r.summary).expect("String");
    writeln!(out, "  source: {}", r.source).expect("String");
    writeln!(out, "  basis:  {}", basis_text(r.basis)).expect("String");
    if let Some(reasoning) = &r.reasoning {
        writeln!(out, "  why:    {reasoning}").expect("String");
    }
    if let Some(page) = spec_page(&r.source) {
        writeln!(out, "  spec:   {page}").expect("String");
    }
    match coverage(r, scenarios, None) {
        Coverage::NotAutomatable(reason) => writeln!(out, "  not automatable: {reason}").expect("String"),
        Coverage::NotYet(why) => writeln!(out, "  not covered yet: {why}").expect("String"),
        Coverage::Covered {
            scenarios: citing,
            built_in,
        } => {
            if built_in {
                writeln!(out, "  checked on every frame or handshake by the engine").expect("String");
            }
            for id in citing {
                let path = scenarios
                    .iter()
                    .find(|s| s.id == id)
                    .map(|s| s.source.path.display().to_string());
                writeln!(out, "  scenario {id} ({})", path.unwrap_or_default()).expect("String");
            }
        }
    }
    out
}

/// `2025-11-25/basic/lifecycle.mdx § Initialization` → its page on the spec site.
fn spec_page(source: &str) -> Option<String> {
    let page = source.split([' ', ';']).next()?.strip_suffix(".mdx")?;
    let (version, path) = page.split_once('/')?;
    Some(format!(
        "https://modelcontextprotocol.io/specification/{version}/{path}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_pages_are_derived_from_sources() {
        assert_eq!(
            spec_page("2025-11-25/basic/lifecycle.mdx § Initialization").as_deref(),
            Some("https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle")
        );
        assert_eq!(spec_page("schema.json `ModelPreferences`"), None);
    }

    /// At a version, only a scenario that runs at it covers: one of
    /// another version citing the requirement is named, not counted.
    #[test]
    fn a_requirement_is_covered_at_a_version_only_by_scenarios_that_run_there() {
        let text = "id: prompts.only-later\ntitle: t\nversions: 2025-06-18+\n\
                    requirements: [PROM-002]\nsteps:\n  - request: { method: prompts/list }\n";
        let scenario = mcp_conform_core::scenario::load::load_str(std::path::Path::new("t.yaml"), text)
            .expect("a valid scenario");
        let requirement = mcp_conform_core::requirements::catalogue()
            .get("PROM-002")
            .expect("in the catalogue");
        let scenarios = [scenario];
        let covered = Coverage::Covered {
            scenarios: vec!["prompts.only-later".into()],
            built_in: false,
        };
        assert_eq!(coverage(requirement, &scenarios, None), covered);
        assert_eq!(
            coverage(requirement, &scenarios, Some(ProtocolVersion::V2025_11_25)),
            covered
        );
        assert_eq!(
            coverage(requirement, &scenarios, Some(ProtocolVersion::V2025_03_26)),
            Coverage::NotYet(
                "cited only by scenarios that run at other versions (prompts.only-later)".into()
            )
        );
    }

    /// An ID in prose or a comment covers nothing; `requirements` and an
    /// expectation's own `requirement` do.
    #[test]
    fn only_cited_requirements_are_covered() {
        let text = "id: t\ntitle: t\ndescription: unlike PING-001, nothing here pings\n\
                    requirements: [TOOL-002]\nsteps:\n  # TOOL-007 is not checked\n  \
                    - request: { method: tools/list, expect: { requirement: TOOL-003, result: {} } }\n";
        let scenario = mcp_conform_core::scenario::load::load_str(std::path::Path::new("t.yaml"), text)
            .expect("a valid scenario");
        let cited: Vec<&str> = scenario.cited.iter().map(String::as_str).collect();
        assert_eq!(cited, ["TOOL-002", "TOOL-003"]);
    }
}
