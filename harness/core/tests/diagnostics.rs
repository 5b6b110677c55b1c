//! What scenario authors see: every broken scenario in
//! `fixtures/invalid-scenarios` renders (without color) as its snapshot,
//! with `path:line:col` (review changes with `cargo insta review`).

use std::path::{Path, PathBuf};

use mcp_conform_core::scenario::load::load_str;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/invalid-scenarios")
}

#[test]
fn every_broken_scenario_renders_as_its_snapshot() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    for file in &files {
        let shown = Path::new("fixtures/invalid-scenarios").join(file.file_name().unwrap());
        let text = std::fs::read_to_string(file).unwrap();
        let diagnostics = load_str(&shown, &text).expect_err("the fixture is broken");
        let rendered: String = diagnostics.iter().map(|d| d.render(false) + "\n").collect();
        let location = format!("{}:", shown.display());
        assert!(
            rendered.contains(&location),
            "{} has no path:line:col:\n{rendered}",
            shown.display()
        );
        let name = file.file_stem().unwrap().to_string_lossy();
        insta::assert_snapshot!(name.as_ref(), rendered);
    }
}
