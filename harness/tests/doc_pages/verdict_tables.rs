//! The verdict words of hand-written tables, checked against the snapshot
//! tables the real-peer tests write. A table says which snapshots its
//! columns are in a comment above it:
//!
//! ```text
//! <!-- verdicts-of: real_peers__everything_stdio | real_clients__ts_client_stdio+real_clients__ts_client_http -->
//! | scenario | everything | TypeScript | why |
//! ```
//!
//! Each cell that is a bare verdict (`pass`, `FAIL`, `non-strict`, `n/a`,
//! `not-observed`) must be the verdict of the row's scenarios in that
//! column's snapshots: at least one of them has it, and the others have it
//! too or do not apply there. Cells with words of their own are prose.

use std::collections::BTreeMap;

use regex::Regex;

use super::{Page, snapshot};

const MARKER: &str = "<!-- verdicts-of:";

/// Every cell of `page` that its snapshots contradict, with where it is.
pub fn contradictions(page: &Page) -> Vec<String> {
    let id = Regex::new(r"`([a-z0-9-]+(?:\.[a-z0-9-]+)+)`").expect("regex");
    let mut found = Vec::new();
    let lines: Vec<&str> = page.text.lines().collect();
    for (index, line) in lines.iter().enumerate() {
        let Some(columns) = line.strip_prefix(MARKER).and_then(|l| l.strip_suffix("-->")) else {
            continue;
        };
        let columns: Vec<BTreeMap<String, String>> = columns
            .split('|')
            .map(|column| column.split('+').flat_map(|name| snapshot(name.trim())).collect())
            .collect();
        // The header and the separator, then the rows.
        for (offset, row) in lines[index + 3..]
            .iter()
            .take_while(|l| l.starts_with('|'))
            .enumerate()
        {
            let cells: Vec<&str> = row.split(" | ").map(|c| c.trim_matches(['|', ' '])).collect();
            let ids: Vec<&str> = id
                .captures_iter(cells[0])
                .map(|c| c.get(1).unwrap().as_str())
                .collect();
            for (cell, column) in cells[1..].iter().zip(&columns) {
                let Some(claimed) = verdict(cell) else { continue };
                let actual: Vec<&str> = ids
                    .iter()
                    .filter_map(|id| column.get(*id).map(String::as_str))
                    .collect();
                let holds = actual.contains(&claimed)
                    && actual.iter().all(|v| *v == claimed || *v == "not-applicable");
                if !holds {
                    found.push(format!(
                        "{}:{}: {ids:?} `{cell}`, the snapshots say {actual:?}",
                        page.path.display(),
                        index + 4 + offset
                    ));
                }
            }
        }
    }
    found
}

/// A cell's verdict in the snapshots' words, if the cell is a bare verdict.
fn verdict(cell: &str) -> Option<&'static str> {
    match cell.trim_end_matches(" (inferred)") {
        "pass" => Some("pass"),
        "FAIL" => Some("fail"),
        "non-strict" => Some("non-strict"),
        "n/a" => Some("not-applicable"),
        "not-observed" => Some("not-observed"),
        _ => None,
    }
}
