//! The checked-in `reports/report.schema.json`, a file users read, is the
//! schema of the types. On a difference the test shows it and writes the
//! generated schema where the failure message says to copy it from.

use mcp_conform_report::report_schema;
use similar::TextDiff;

#[test]
fn the_checked_in_schema_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/report.schema.json");
    let generated = serde_json::to_string_pretty(&report_schema()).unwrap() + "\n";
    let checked_in = std::fs::read_to_string(path).unwrap_or_default();
    if checked_in != generated {
        let fresh = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("report.schema.json");
        std::fs::write(&fresh, &generated).unwrap();
        let diff = TextDiff::from_lines(&checked_in, &generated);
        panic!(
            "reports/report.schema.json is out of date:\n{}\nto accept: cp {} reports/report.schema.json",
            diff.unified_diff().header("checked in", "generated"),
            fresh.display()
        );
    }
}
