//! A run's verdicts, read from the `report.json` it wrote (`--report-dir`),
//! never parsed from its terminal text.

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use mcp_conform_report::{Report, json};
use tempfile::TempDir;

/// A finished `mcp-conform` command and the report it wrote.
pub struct Judged {
    pub output: Output,
    pub report: Report,
    /// Where the report files are (removed on drop).
    pub dir: TempDir,
}

impl Judged {
    pub fn code(&self) -> Option<i32> {
        self.output.status.code()
    }

    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }

    /// [`verdict_table`] of the report.
    pub fn table(&self) -> String {
        verdict_table(&self.report)
    }

    /// The findings behind the table's non-pass verdicts, as JSON: a real-peer
    /// test snapshots them as `<snapshot>_findings`, the input of
    /// `docs/findings.md`.
    pub fn findings(&self) -> String {
        serde_json::to_string_pretty(&super::findings::of(&self.report)).unwrap()
    }
}

/// `mcp-conform ARGS --report-dir <a temporary directory>` without colour,
/// killed after `budget`.
pub fn judge(args: &[&str], budget: Duration) -> Judged {
    let dir = TempDir::new().unwrap();
    let output = super::cli::mcp_conform()
        .args(args)
        .arg("--report-dir")
        .arg(dir.path())
        .timeout(budget)
        .output()
        .unwrap();
    let report = read(dir.path()).unwrap_or_else(|e| {
        panic!(
            "{e}\nstdout:\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    Judged { output, report, dir }
}

/// The checks every real-peer run ends with: its verdict table and the
/// findings behind it snapshotted (`SNAPSHOT`, `SNAPSHOT_findings`: the
/// input of `docs/findings.md`), and no case in error. A macro, so that
/// insta names the snapshots after the test binary that asserts them.
/// (Like the rest of `common`, unused in the binaries that need no peer.)
#[allow(unused_macros)]
macro_rules! assert_real_peer_run {
    ($run:expr, $snapshot:expr) => {{
        let run: &$crate::common::report::Judged = &$run;
        let snapshot: &str = &$snapshot;
        insta::assert_snapshot!(snapshot, run.table());
        insta::assert_snapshot!(format!("{snapshot}_findings"), run.findings());
        assert_eq!(
            run.report.summary.count(mcp_conform_report::Verdict::Error),
            0,
            "no error verdicts against a real peer:\n{}",
            run.stdout()
        );
    }};
}
#[allow(unused_imports)]
pub(crate) use assert_real_peer_run;

/// What in `report` breaks the checked-in `reports/report.schema.json`.
pub fn schema_errors(report: &Report) -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../reports/report.schema.json");
    let schema: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let instance = serde_json::to_value(report).unwrap();
    jsonschema::validator_for(&schema)
        .unwrap()
        .iter_errors(&instance)
        .map(|error| error.to_string())
        .collect()
}

/// The `report.json` of `dir`.
pub fn read(dir: &Path) -> Result<Report, String> {
    let path = dir.join("report.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    json::read(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// One line per case, `name verdict`, sorted: the table the verdict
/// snapshots keep. A case is named `scenario@version` when the run spoke
/// several versions, as in every output.
pub fn verdict_table(report: &Report) -> String {
    let versioned = report.run.protocol_versions.len() > 1;
    let mut lines: Vec<String> = report
        .cases
        .iter()
        .map(|case| {
            let name = if versioned {
                case.name()
            } else {
                case.scenario.clone()
            };
            format!("{name:<40} {}", case.verdict)
        })
        .collect();
    lines.sort();
    lines.join("\n")
}
