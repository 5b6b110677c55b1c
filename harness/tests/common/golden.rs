//! Checked-in files a test generates whole or in part (the findings page,
//! the generated blocks of the docs). They follow insta's switch, so one
//! command accepts every golden of the repository: under
//! `INSTA_UPDATE=always` a stale file is written afresh (review the diff
//! with git), otherwise, in CI too, it fails with its diff.

use std::path::Path;

use similar::TextDiff;

/// Whether insta would write a changed snapshot without asking.
fn accepting() -> bool {
    std::env::var("INSTA_UPDATE").is_ok_and(|value| value == "always")
}

/// `Ok` when `path` holds `fresh`, or once it was written afresh under
/// `INSTA_UPDATE=always`; else how it differs.
pub fn current(path: &Path, fresh: &str) -> Result<(), String> {
    let checked_in = std::fs::read_to_string(path).unwrap_or_default();
    if checked_in == fresh {
        return Ok(());
    }
    if accepting() {
        std::fs::write(path, fresh).map_err(|e| format!("{}: {e}", path.display()))?;
        return Ok(());
    }
    Err(format!(
        "{} is out of date:\n{}",
        path.display(),
        TextDiff::from_lines(checked_in.as_str(), fresh)
            .unified_diff()
            .header("checked in", "generated")
    ))
}
