//! The checked-in `scenarios/scenario.schema.json` is what the types
//! generate, and every bundled scenario points editors at it.

use std::path::Path;

use mcp_conform_core::scenario::schema::scenario_json_schema;
use similar::TextDiff;

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// The schema is a file users point their editors at, so it stays a plain
/// file; on a difference the test shows it and the command that rewrites it.
#[test]
fn the_checked_in_schema_is_current() {
    let path = repo().join("scenarios/scenario.schema.json");
    let generated = serde_json::to_string_pretty(&scenario_json_schema()).unwrap() + "\n";
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "scenarios/scenario.schema.json is out of date:\n{}\nto accept: \
         cargo run -p mcp-conform -- schema > scenarios/scenario.schema.json",
        TextDiff::from_lines(&checked_in, &generated)
            .unified_diff()
            .header("checked in", "generated")
    );
}

#[test]
fn every_bundled_scenario_has_the_schema_modeline() {
    let mut missing = Vec::new();
    let mut stack = vec![repo().join("scenarios")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if !path.ends_with("profiles") {
                    stack.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "yaml") {
                let text = std::fs::read_to_string(&path).unwrap();
                let first = text.lines().next().unwrap_or_default();
                if !first.starts_with("# yaml-language-server: $schema=")
                    || !first.ends_with("scenario.schema.json")
                {
                    missing.push(path.display().to_string());
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "scenarios without the schema modeline: {missing:?}"
    );
}

/// `file::Step` owns the step kinds and their names (serde and the schema
/// derive them from it; validation, the runner and `explain` match on every
/// kind, so the compiler points at each). The one list kept by hand is the
/// steps table of scenarios/README.md: it names every kind, and no other.
#[test]
fn the_steps_table_names_every_step_kind() {
    let schema = serde_json::to_value(scenario_json_schema()).unwrap();
    let definitions = schema.get("definitions").or_else(|| schema.get("$defs")).unwrap();
    let mut kinds: Vec<String> = definitions["Step"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|kind| kind["required"][0].as_str().unwrap().to_owned())
        .collect();
    kinds.sort();
    let readme = std::fs::read_to_string(repo().join("scenarios/README.md")).unwrap();
    let table = readme
        .split_once("\n| step | does |\n")
        .expect("the steps table")
        .1
        .lines()
        .skip(1)
        .take_while(|line| line.starts_with('|'));
    let mut documented: Vec<String> = table
        .flat_map(|row| {
            let first_cell = row.split('|').nth(1).unwrap_or_default();
            first_cell
                .split(',')
                .map(|name| name.trim().trim_matches('`').to_owned())
                .collect::<Vec<_>>()
        })
        .collect();
    documented.sort();
    assert_eq!(
        documented, kinds,
        "scenarios/README.md's steps table against file::Step"
    );
}
