//! Generates `requirements::id`: one constant per catalogue entry, so code
//! that cites a requirement names a constant, and an ID the catalogue does
//! not have is a compile error. An entry that does not say what its level
//! rests on (`basis:`) fails the build.

use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let catalogue = root.join("src/requirements/catalogue.yaml");
    println!("cargo:rerun-if-changed={}", catalogue.display());
    let text = std::fs::read_to_string(&catalogue).expect("the catalogue is readable");
    let mut code = String::new();
    // Entries start `- id: XXX-NNN` (the catalogue's parser checks the rest).
    let ids: Vec<&str> = text
        .lines()
        .filter_map(|line| line.strip_prefix("- id: "))
        .map(str::trim)
        .collect();
    let unfounded = without_basis(&text);
    assert!(
        unfounded.is_empty(),
        "{}: catalogue entries without `basis: keyword|prose|inference|harness`: {}",
        catalogue.display(),
        unfounded.join(", ")
    );
    for id in &ids {
        writeln!(
            code,
            "#[doc = \"`{id}`\"]\npub const {}: RequirementId = RequirementId({id:?});",
            id.replace('-', "_")
        )
        .expect("writing to a String");
    }
    code.push_str("/// Every ID, in catalogue order.\npub const ALL: &[RequirementId] = &[\n");
    for id in &ids {
        writeln!(code, "    {},", id.replace('-', "_")).expect("writing to a String");
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo")).join("requirement_ids.rs");
    std::fs::write(out, code).expect("OUT_DIR is writable");
}

/// The IDs of the entries with no valid `basis:` line.
fn without_basis(text: &str) -> Vec<&str> {
    const BASES: [&str; 4] = ["keyword", "prose", "inference", "harness"];
    text.split("\n- id: ")
        .skip(1)
        .filter(|entry| {
            !entry
                .lines()
                .filter_map(|line| line.strip_prefix("  basis: "))
                .any(|basis| BASES.contains(&basis.trim()))
        })
        .map(|entry| entry.lines().next().unwrap_or_default().trim())
        .collect()
}
