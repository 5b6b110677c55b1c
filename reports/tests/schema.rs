//! The checked-in `reports/report.schema.json` is the schema of the types.
//! After changing the model: `MCP_CONFORM_UPDATE_SCHEMA=1 cargo test -p mcp-conform-report --test schema`.

use mcp_conform_report::report_schema;

#[test]
fn the_checked_in_schema_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/report.schema.json");
    let generated = serde_json::to_string_pretty(&report_schema()).unwrap() + "\n";
    if std::env::var_os("MCP_CONFORM_UPDATE_SCHEMA").is_some() && std::env::var_os("CI").is_none() {
        std::fs::write(path, &generated).unwrap();
    }
    let checked_in = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "reports/report.schema.json is out of date: run MCP_CONFORM_UPDATE_SCHEMA=1 cargo test -p mcp-conform-report --test schema"
    );
}
