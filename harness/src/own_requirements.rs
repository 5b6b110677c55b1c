//! The user's own requirements and product checks in `list --requirements`
//! and `explain`: a section of their own, after the spec's, so no spec
//! figure counts them.

use std::fmt::Write as _;

use mcp_conform_core::requirements::{UserCatalogue, UserRequirement};
use mcp_conform_core::scenario::Scenario;

/// The scenarios citing `requirement`.
fn citing<'s>(requirement: &UserRequirement, scenarios: &'s [Scenario]) -> Vec<&'s Scenario> {
    scenarios
        .iter()
        .filter(|s| s.cited.contains(&requirement.id))
        .collect()
}

/// What `list --requirements` prints after the spec's requirements: the
/// user's own, with the scenarios citing each, and the scenarios citing
/// none (product checks). Empty when there are neither.
pub fn listing(catalogue: &UserCatalogue, scenarios: &[Scenario]) -> String {
    let mut out = String::new();
    if !catalogue.is_empty() {
        writeln!(
            out,
            "\nYour own requirements (not counted in the spec coverage above):"
        )
        .expect("String");
    }
    for requirement in catalogue.iter() {
        let by: Vec<&str> = citing(requirement, scenarios)
            .iter()
            .map(|s| s.id.as_str())
            .collect();
        let (status, detail) = match by.is_empty() {
            true => ("not yet", "no scenario cites it".to_owned()),
            false => ("covered", by.join(", ")),
        };
        let level = requirement.level.to_string();
        writeln!(out, "{:<11} {level:<6} {status:<16} {detail}", requirement.id).expect("String");
    }
    let uncited: Vec<&str> = scenarios
        .iter()
        .filter(|s| s.requirements.is_empty())
        .map(|s| s.id.as_str())
        .collect();
    if !uncited.is_empty() {
        writeln!(
            out,
            "\nProduct checks citing no requirement: {}",
            uncited.join(", ")
        )
        .expect("String");
    }
    out
}

/// What `mcp-conform explain ID` prints for one of the user's requirements.
pub fn explain(requirement: &UserRequirement, scenarios: &[Scenario]) -> String {
    let mut out = String::new();
    let r = requirement;
    writeln!(out, "{} ({}, your own requirement)", r.id, r.level).expect("String");
    writeln!(out, "  {}", r.summary).expect("String");
    writeln!(out, "  listed: {}:{}", r.file.display(), r.line).expect("String");
    if let Some(link) = &r.link {
        writeln!(out, "  link:   {link}").expect("String");
    }
    let by = citing(r, scenarios);
    if by.is_empty() {
        writeln!(out, "  not covered yet: no scenario cites it").expect("String");
    }
    for scenario in by {
        writeln!(
            out,
            "  scenario {} ({})",
            scenario.id,
            scenario.source.path.display()
        )
        .expect("String");
    }
    out
}
