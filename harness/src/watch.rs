//! `run --watch`: runs the scenarios, then polls their files' modification
//! times and runs again the scenarios whose files changed (all of them when
//! a `requirements.yaml` did), until Ctrl-C. Polling needs no watcher crate,
//! and a few hundred files are read in well under the interval.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use mcp_conform_core::scenario::load::discover;
use mcp_conform_report::ExitCode;

use crate::cli::{CliError, RunArgs};

/// How often the files are looked at.
const POLL: Duration = Duration::from_millis(300);

/// What a run's files were when last looked at: their modification times,
/// and which are catalogues (a change there concerns every scenario).
#[derive(Debug, Default, PartialEq)]
struct Files {
    modified: BTreeMap<PathBuf, Option<SystemTime>>,
    catalogues: Vec<PathBuf>,
}

impl Files {
    /// The scenario and catalogue files under `paths` now (none when they
    /// do not load: the next run says why).
    fn under(paths: &[PathBuf]) -> Files {
        let Ok(found) = discover(paths) else {
            return Files::default();
        };
        let modified = found
            .scenarios
            .iter()
            .chain(&found.catalogues)
            .map(|path| {
                (
                    path.clone(),
                    std::fs::metadata(path).and_then(|m| m.modified()).ok(),
                )
            })
            .collect();
        Files {
            modified,
            catalogues: found.catalogues,
        }
    }

    /// The files new or modified since `before`; every scenario path when a
    /// catalogue is among them.
    fn changed_since(&self, before: &Files, paths: &[PathBuf]) -> Vec<PathBuf> {
        let changed: Vec<PathBuf> = self
            .modified
            .iter()
            .filter(|(path, time)| before.modified.get(*path) != Some(time))
            .map(|(path, _)| path.clone())
            .collect();
        if changed.iter().any(|path| self.catalogues.contains(path)) {
            return paths.to_vec();
        }
        changed
    }
}

/// Runs `args` with `run`, then again on each change, until interrupted;
/// returns the exit code of the last run.
pub fn watch(
    args: RunArgs,
    run: impl Fn(RunArgs) -> Result<ExitCode, CliError>,
) -> Result<ExitCode, CliError> {
    let interrupted = crate::interrupt::flag();
    let paths = args.paths.clone();
    let mut seen = Files::under(&paths);
    let mut last = report(run(args.clone()));
    println!("watching {} files (Ctrl-C ends)", seen.modified.len());
    loop {
        std::thread::sleep(POLL);
        if interrupted.load(std::sync::atomic::Ordering::SeqCst) {
            println!("watch ended");
            return Ok(last);
        }
        let now = Files::under(&paths);
        let changed = now.changed_since(&seen, &paths);
        seen = now;
        if changed.is_empty() {
            continue;
        }
        let names: Vec<String> = changed.iter().map(|p| p.display().to_string()).collect();
        println!("\nchanged: {}", names.join(", "));
        let mut again = args.clone();
        again.paths = changed;
        last = report(run(again));
        println!("watching {} files (Ctrl-C ends)", seen.modified.len());
    }
}

/// A run's exit code; an error (a broken scenario file) is printed and
/// watching goes on, since the next save may fix it.
fn report(result: Result<ExitCode, CliError>) -> ExitCode {
    result.unwrap_or_else(|error| {
        eprint!("{}", error.render(false));
        error.exit_code()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(entries: &[(&str, u64)], catalogues: &[&str]) -> Files {
        Files {
            modified: entries
                .iter()
                .map(|(p, t)| {
                    (
                        PathBuf::from(p),
                        Some(SystemTime::UNIX_EPOCH + Duration::from_secs(*t)),
                    )
                })
                .collect(),
            catalogues: catalogues.iter().map(PathBuf::from).collect(),
        }
    }

    #[test]
    fn new_and_modified_files_changed_and_a_catalogue_changes_them_all() {
        let paths = [PathBuf::from("dir")];
        let before = files(
            &[("dir/a.yaml", 1), ("dir/b.yaml", 1), ("dir/requirements.yaml", 1)],
            &["dir/requirements.yaml"],
        );
        let now = files(
            &[
                ("dir/a.yaml", 2),
                ("dir/b.yaml", 1),
                ("dir/c.yaml", 1),
                ("dir/requirements.yaml", 1),
            ],
            &["dir/requirements.yaml"],
        );
        assert_eq!(
            now.changed_since(&before, &paths),
            [PathBuf::from("dir/a.yaml"), "dir/c.yaml".into()]
        );
        assert!(before.changed_since(&before, &paths).is_empty());
        let catalogue = files(
            &[("dir/a.yaml", 1), ("dir/b.yaml", 1), ("dir/requirements.yaml", 2)],
            &["dir/requirements.yaml"],
        );
        assert_eq!(catalogue.changed_since(&before, &paths), paths);
    }
}
