//! Relative links of a page, and whether each leads somewhere: the file
//! exists and, for a `#fragment` into a Markdown page, that page has the
//! heading (GitHub's anchors).

use std::path::{Component, Path, PathBuf};

use regex::Regex;

use super::{Page, prose_lines, root};

/// A link that leads nowhere: where it is and why.
pub fn broken(page: &Page) -> Vec<String> {
    let link = Regex::new(r"\]\(([^)\s]+)\)").expect("regex");
    let mut broken = Vec::new();
    for (number, line) in prose_lines(&page.text) {
        for target in link.captures_iter(line).map(|c| c[1].to_owned()) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            if let Err(why) = resolves(&page.path, &target) {
                broken.push(format!("{}:{number}: ({target}) {why}", page.path.display()));
            }
        }
    }
    broken
}

fn resolves(from: &Path, target: &str) -> Result<(), String> {
    let (path, fragment) = target
        .split_once('#')
        .map_or((target, None), |(p, f)| (p, Some(f)));
    let file = if path.is_empty() {
        from.to_owned()
    } else {
        normalized(&from.parent().unwrap_or(Path::new("")).join(path))
    };
    let on_disk = root().join(&file);
    if !on_disk.exists() {
        return Err(format!("{} does not exist", file.display()));
    }
    match fragment {
        Some(fragment) if file.extension().is_some_and(|e| e == "md") => {
            let text = std::fs::read_to_string(&on_disk).map_err(|e| e.to_string())?;
            if anchors(&text).iter().any(|a| a == fragment) {
                Ok(())
            } else {
                Err(format!("{} has no heading #{fragment}", file.display()))
            }
        }
        _ => Ok(()),
    }
}

/// `docs/../README.md` as `README.md`: a link may climb out of its page's directory.
fn normalized(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The anchors GitHub gives a page's headings: lower case, spaces as
/// hyphens, punctuation but hyphens and underscores dropped.
pub fn anchors(text: &str) -> Vec<String> {
    prose_lines(text)
        .into_iter()
        .filter_map(|(_, line)| line.strip_prefix('#'))
        .map(|heading| {
            heading
                .trim_start_matches('#')
                .trim()
                .to_lowercase()
                .chars()
                .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
                .map(|c| if c == ' ' { '-' } else { c })
                .collect()
        })
        .collect()
}
