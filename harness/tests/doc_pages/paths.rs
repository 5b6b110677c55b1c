//! The source paths a page names in code spans, and whether each exists.
//! ARCHITECTURE.md names files and folders the way a reader of the crate
//! at hand says them (`core/src/protocol/mod.rs` in the harness,
//! `transport/http` in mock-peers), so a path may stand from the root or
//! from a crate's source folder.

use regex::Regex;

use super::{Page, prose_lines, root};

/// Where a path written in a page may start.
const BASES: [&str; 4] = ["", "harness/", "harness/src/", "mock-peers/src/"];

/// Every path of `page` that exists under none of the bases: where it is.
pub fn missing(page: &Page) -> Vec<String> {
    let span = Regex::new(r"`([^`\s]+)`").expect("regex");
    let mut missing = Vec::new();
    for (number, line) in prose_lines(&page.text) {
        for written in span.captures_iter(line).map(|c| c[1].to_owned()) {
            for path in expanded(&written).into_iter().filter(|p| is_path(p)) {
                if !BASES.iter().any(|base| root().join(base).join(&path).exists()) {
                    missing.push(format!(
                        "{}:{number}: `{written}`: no {path}",
                        page.path.display()
                    ));
                }
            }
        }
    }
    missing
}

/// A span is a path when it has a folder and names a file by its ending, or
/// ends in `/`, or starts with a folder of the tree: `tools/call` and
/// `server/discover` are methods, not paths.
fn is_path(span: &str) -> bool {
    let Some((first, _)) = span.split_once('/') else {
        return false;
    };
    if first.is_empty() || span.contains("::") || span.starts_with('-') {
        return false;
    }
    let file = span.rsplit('/').next().unwrap_or_default();
    let named_by_ending = file
        .rsplit_once('.')
        .is_some_and(|(stem, ending)| !stem.is_empty() && ending.chars().all(|c| c.is_ascii_alphanumeric()));
    named_by_ending || span.ends_with('/') || BASES.iter().any(|base| root().join(base).join(first).is_dir())
}

/// `reports/src/{json,junit}.rs` as its two paths; a placeholder such as
/// `scenarios/server/<area>/` as the folder before it.
fn expanded(span: &str) -> Vec<String> {
    let span = span.split_once('<').map_or(span, |(before, _)| before);
    match (span.find('{'), span.find('}')) {
        (Some(open), Some(close)) if open < close => span[open + 1..close]
            .split(',')
            .flat_map(|choice| expanded(&format!("{}{choice}{}", &span[..open], &span[close + 1..])))
            .collect(),
        _ => vec![span.to_owned()],
    }
}
