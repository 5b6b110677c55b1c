//! `report.json`: the report model, pretty-printed, fields in declaration order.

use crate::model::{FORMAT_VERSION, Report};

/// The report as `report.json` text (ends with a newline).
pub fn write(report: &Report) -> String {
    let mut text = serde_json::to_string_pretty(report).expect("a report serializes");
    text.push('\n');
    text
}

/// Reads a `report.json`, refusing another format version.
pub fn read(text: &str) -> Result<Report, String> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let version = value.get("format_version").and_then(serde_json::Value::as_u64);
    if version != Some(u64::from(FORMAT_VERSION)) {
        return Err(format!(
            "format_version {} is not {FORMAT_VERSION}, the one this mcp-conform reads",
            version.map_or("(missing)".into(), |v| v.to_string())
        ));
    }
    serde_json::from_value(value).map_err(|e| e.to_string())
}
