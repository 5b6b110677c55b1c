//! What a run flagged, read from its report.

use std::collections::BTreeSet;

use regex::Regex;

/// The requirement IDs a run's stdout flags (fail or non-strict).
pub fn flagged_requirements(stdout: &str) -> BTreeSet<String> {
    let finding = Regex::new(r"^\s+(?:FAIL|non-strict) .*\[([A-Z]+-[0-9]{3}) (?:MUST|SHOULD|MAY)\]").unwrap();
    stdout
        .lines()
        .filter_map(|line| finding.captures(line))
        .map(|c| c[1].to_owned())
        .collect()
}
