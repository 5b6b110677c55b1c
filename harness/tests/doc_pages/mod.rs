//! The project's documentation pages as the docs tests read them: the
//! README, ARCHITECTURE.md and every page under `docs/`.

pub mod generated;
pub mod links;
pub mod paths;
pub mod verdict_tables;

use std::path::{Path, PathBuf};

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A page: its path from the root and its text.
#[derive(Debug)]
pub struct Page {
    pub path: PathBuf,
    pub text: String,
}

/// README.md, ARCHITECTURE.md and `docs/*.md`, in that order.
pub fn pages() -> Vec<Page> {
    let mut paths = vec![PathBuf::from("README.md"), PathBuf::from("ARCHITECTURE.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .map(|entry| entry.expect("docs/ entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .map(|path| Path::new("docs").join(path.file_name().expect("a file")))
        .collect();
    docs.sort();
    paths.extend(docs);
    paths
        .into_iter()
        .map(|path| Page {
            text: std::fs::read_to_string(root().join(&path))
                .unwrap_or_else(|e| panic!("{}: {e}", path.display())),
            path,
        })
        .collect()
}

/// The lines of `text` a reader sees as prose, with their 1-based numbers:
/// without fenced code blocks, generated blocks and the bench block (their
/// content is code, or made by a program).
pub fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut skipping: Option<&str> = None;
    let mut lines = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        match skipping {
            Some(end) if trimmed.starts_with(end) => skipping = None,
            Some(_) => {}
            None if trimmed.starts_with("```") => skipping = Some("```"),
            None if trimmed.starts_with(generated::START) => skipping = Some(generated::END),
            None if trimmed.starts_with("<!-- bench:start -->") => skipping = Some("<!-- bench:end -->"),
            None => lines.push((index + 1, line)),
        }
    }
    lines
}

/// The verdict table a real-peer test snapshotted
/// (`harness/tests/snapshots/NAME.snap`): each case (`id` or `id@version`)
/// with its verdict in the table's words (`pass`, `fail`, `non-strict`, …).
pub fn snapshot(name: &str) -> Vec<(String, String)> {
    let path = root().join(format!("harness/tests/snapshots/{name}.snap"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    // After the front matter between two `---` lines.
    let table = text.splitn(3, "---\n").nth(2).unwrap_or_default();
    table
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            Some((words.next()?.to_owned(), words.next_back()?.to_owned()))
        })
        .collect()
}
