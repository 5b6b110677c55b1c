//! Golden files for what scenario authors see: every broken scenario in
//! `fixtures/invalid-scenarios` renders (without color) exactly as its
//! `.stderr` file, with `path:line:col`. `UPDATE_GOLDEN=1` rewrites the
//! goldens (never when `CI=true`).

use std::path::{Path, PathBuf};

use mcp_conform_core::scenario::load::load_str;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/invalid-scenarios")
}

#[test]
fn every_broken_scenario_renders_as_its_golden_file() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some() && std::env::var("CI").is_err();
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "at least 10 broken scenarios");
    let mut differing = Vec::new();
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
        let golden = file.with_extension("stderr");
        if update {
            std::fs::write(&golden, &rendered).unwrap();
        } else if std::fs::read_to_string(&golden).ok().as_deref() != Some(rendered.as_str()) {
            differing.push(format!("{}:\n{rendered}", golden.display()));
        }
    }
    assert!(
        differing.is_empty(),
        "rendered diagnostics differ from the goldens (UPDATE_GOLDEN=1 to accept):\n{}",
        differing.join("\n")
    );
}
