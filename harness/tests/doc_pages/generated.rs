//! Blocks of a page written by a program, not by hand:
//!
//! ```text
//! <!-- generated: NAME ARGS… -->
//! (what NAME makes of ARGS)
//! <!-- end generated -->
//! ```
//!
//! `suite` (the bundled scenarios by role and era), `coverage VERSION` (the
//! catalogue's coverage on a version, as `list --requirements` shows it),
//! `verdicts SNAPSHOT…` (verdict counts of real-peer snapshot tables),
//! `calibration MAPPING` (where the mapping to the official suite stands).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use mcp_conform::coverage::{self, Coverage};
use mcp_conform::select::load_scenarios;
use mcp_conform_core::requirements::catalogue;
use mcp_conform_core::scenario::model::Role;
use mcp_conform_core::version::{Era, ProtocolVersion};

use super::{root, snapshot};

pub const START: &str = "<!-- generated:";
pub const END: &str = "<!-- end generated -->";

/// `text` with every generated block made afresh.
pub fn regenerate(text: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find(START) {
        let header_end = rest[start..].find("-->").ok_or("an unclosed generated header")? + start + 3;
        let header = &rest[start + START.len()..header_end - 3];
        let end = rest[header_end..]
            .find(END)
            .ok_or_else(|| format!("`{}` has no `{END}`", header.trim()))?
            + header_end;
        let mut words = header.split_whitespace();
        let name = words.next().ok_or("a generated block without a name")?;
        let args: Vec<&str> = words.collect();
        out.push_str(&rest[..header_end]);
        out.push('\n');
        out.push_str(&content(name, &args)?);
        rest = &rest[end..];
    }
    out.push_str(rest);
    Ok(out)
}

fn content(name: &str, args: &[&str]) -> Result<String, String> {
    match (name, args) {
        ("suite", []) => Ok(suite()),
        ("coverage", [version]) => coverage(version.parse().map_err(|e| format!("coverage: {e}"))?),
        ("verdicts", snapshots) if !snapshots.is_empty() => verdicts(snapshots),
        ("calibration", [mapping]) => calibration(mapping),
        _ => Err(format!("no generator `{name}` for {args:?}")),
    }
}

/// The bundled scenarios by role and by the eras they apply to.
fn suite() -> String {
    let scenarios = load_scenarios(&[], &[]).expect("the bundled suite loads");
    let mut out = String::from(
        "| role | scenarios | handshake era only | 2026-07-28 only | both eras |\n|---|---|---|---|---|\n",
    );
    for (role, name) in [
        (Role::Server, "server"),
        (Role::Client, "client"),
        (Role::Gateway, "gateway"),
    ] {
        let of_role: Vec<_> = scenarios.iter().filter(|s| s.role == role).collect();
        let in_era = |era: Era| {
            move |s: &&&mcp_conform_core::scenario::Scenario| {
                ProtocolVersion::ALL
                    .iter()
                    .any(|v| v.era() == era && s.versions.contains(*v))
            }
        };
        let stateful = of_role.iter().filter(in_era(Era::Stateful)).count();
        let stateless = of_role.iter().filter(in_era(Era::Stateless)).count();
        let both = of_role
            .iter()
            .filter(in_era(Era::Stateful))
            .filter(in_era(Era::Stateless))
            .count();
        writeln!(
            out,
            "| {name} | {} | {} | {} | {both} |",
            of_role.len(),
            stateful - both,
            stateless - both
        )
        .expect("String");
    }
    let total = scenarios.len();
    writeln!(out, "| all | {total} | | | |").expect("String");
    out
}

/// How many requirements of `version` are covered, and each one that is not, with why.
fn coverage(version: ProtocolVersion) -> Result<String, String> {
    let scenarios = load_scenarios(&[], &[]).expect("the bundled suite loads");
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    let mut rows = String::new();
    let applying: Vec<_> = catalogue().iter().filter(|r| r.applies_to(version)).collect();
    for requirement in &applying {
        let coverage = coverage::coverage(requirement, &scenarios, Some(version));
        let status = coverage::status(&coverage);
        *counts.entry(status).or_default() += 1;
        let why = match coverage {
            Coverage::Covered { .. } => continue,
            Coverage::NotYet(why) | Coverage::NotAutomatable(why) => why,
        };
        writeln!(
            rows,
            "| {} | {} | {status} | {} |",
            requirement.id,
            requirement.level,
            why.replace('|', "\\|")
        )
        .expect("String");
    }
    let summary: Vec<String> = counts.iter().map(|(status, n)| format!("{n} {status}")).collect();
    Ok(format!(
        "{} requirements apply to {version}: {}.\n\n| requirement | level | status | why |\n|---|---|---|---|\n{rows}",
        applying.len(),
        summary.join(", ")
    ))
}

/// Verdict counts of snapshot tables (`harness/tests/snapshots/NAME.snap`).
fn verdicts(snapshots: &[&str]) -> Result<String, String> {
    let columns = [
        "pass",
        "fail",
        "non-strict",
        "not-applicable",
        "not-observed",
        "error",
    ];
    let mut out = String::from(
        "| snapshot | pass | FAIL | non-strict | not-applicable | not-observed | ERROR |\n|---|---|---|---|---|---|---|\n",
    );
    for name in snapshots {
        let path = format!("harness/tests/snapshots/{name}.snap");
        let mut counts = [0usize; 6];
        for (case, verdict) in snapshot(name) {
            let column = columns
                .iter()
                .position(|c| *c == verdict)
                .ok_or_else(|| format!("{path}: `{case}` has no verdict"))?;
            counts[column] += 1;
        }
        let cells: Vec<String> = counts.iter().map(ToString::to_string).collect();
        writeln!(out, "| [{name}](../{path}) | {} |", cells.join(" | ")).expect("String");
    }
    Ok(out)
}

/// How many entries of the calibration mapping agree, differ on purpose, or are not compared.
fn calibration(mapping: &str) -> Result<String, String> {
    let text = std::fs::read_to_string(root().join(mapping)).map_err(|e| format!("{mapping}: {e}"))?;
    let count = |relation: &str| {
        text.lines()
            .filter(|l| l.trim() == format!("relation: {relation}"))
            .count()
    };
    Ok(format!(
        "| agree | deliberate differences | not compared |\n|---|---|---|\n| {} | {} | {} |\n",
        count("agree"),
        count("differs"),
        count("not-compared")
    ))
}
