//! The table of faults in a fixture README, kept true to the declarations.

use std::collections::BTreeSet;

use crate::faults::Fault;

/// A fault's row: name, requirement, the scenarios that catch it, what it does.
fn row(fault: &Fault) -> String {
    let caught_by: Vec<String> = fault.caught_by.iter().map(|id| format!("`{id}`")).collect();
    format!(
        "| `{}` | {} | {} | {} |",
        fault.name,
        fault.requirement,
        caught_by.join(", "),
        fault.description
    )
}

/// Fails unless the table rows of the README (under the repository root)
/// are exactly the faults.
pub fn assert_lists(readme: &str, faults: &[Fault]) {
    let path = format!("{}/../{readme}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let rows: BTreeSet<&str> = text.lines().filter(|line| line.starts_with("| `")).collect();
    let expected: BTreeSet<String> = faults.iter().map(row).collect();
    let expected: BTreeSet<&str> = expected.iter().map(String::as_str).collect();
    let missing: Vec<&&str> = expected.difference(&rows).collect();
    let stale: Vec<&&str> = rows.difference(&expected).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "{readme} is out of date\nmissing rows:\n{missing:#?}\nstale rows:\n{stale:#?}"
    );
}
