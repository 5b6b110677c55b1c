//! Private directories for the relays' Unix sockets. Each is removed when
//! its guard drops, so also when a case is cancelled mid-launch (fail-fast,
//! Ctrl-C); what a killed harness left behind, the next run sweeps.

use std::path::{Path, PathBuf};
use std::sync::Once;
use std::time::{Duration, SystemTime};

const PREFIX: &str = "mcp-conform-";

/// How old a dead process's directory must be before it is swept: a
/// process in another pid namespace sharing the temp dir looks dead from
/// here, and an hour is far beyond the moment its socket is needed.
const STALE_AFTER: Duration = Duration::from_secs(3600);

/// A fresh directory name under the temp dir, removed (with what was made
/// in it) when this drops.
#[derive(Debug)]
pub(crate) struct SocketDir {
    path: PathBuf,
}

impl SocketDir {
    pub(crate) fn new() -> Self {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        static SWEPT: Once = Once::new();
        let temp = std::env::temp_dir();
        SWEPT.call_once(|| sweep(&temp, SystemTime::now()));
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        Self::at(temp.join(format!("{PREFIX}{}-{n}", std::process::id())))
    }

    /// Claims `path`, clearing what is there: only a killed process that
    /// had our pid can have left it, and its stale socket would refuse our
    /// bind ("address already in use").
    fn at(path: PathBuf) -> Self {
        let _ = std::fs::remove_dir_all(&path);
        SocketDir { path }
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for SocketDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Removes the socket directories in `temp` of processes that are gone and
/// that are older than [`STALE_AFTER`] at `now`.
fn sweep(temp: &Path, now: SystemTime) {
    // Without a process table, nobody can be told to be gone.
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(temp) else {
        return;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(owner) else {
            continue;
        };
        let alive = pid == std::process::id() || Path::new("/proc").join(pid.to_string()).exists();
        let stale = entry
            .metadata()
            .and_then(|meta| meta.modified())
            .ok()
            .and_then(|modified| now.duration_since(modified).ok())
            .is_some_and(|age| age >= STALE_AFTER);
        if !alive && stale {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The pid in a name `mcp-conform-<pid>-<n>`.
fn owner(name: &str) -> Option<u32> {
    let (pid, n) = name.strip_prefix(PREFIX)?.split_once('-')?;
    n.parse::<usize>().ok()?;
    pid.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dropped_guard_removes_its_directory() {
        let dir = SocketDir::new();
        std::fs::create_dir_all(dir.path()).unwrap();
        std::fs::write(dir.path().join("serve.sock"), "").unwrap();
        let path = dir.path().to_owned();
        drop(dir);
        assert!(!path.exists());
    }

    #[test]
    fn a_leftover_of_an_earlier_process_with_our_pid_is_cleared() {
        let temp = tempfile::tempdir().unwrap();
        let path = temp.path().join(format!("{PREFIX}{}-0", std::process::id()));
        std::fs::create_dir(&path).unwrap();
        std::fs::write(path.join("serve.sock"), "").unwrap();
        let dir = SocketDir::at(path.clone());
        assert!(!path.exists(), "the leftover is gone before the dir is used");
        std::fs::create_dir(dir.path()).unwrap();
    }

    #[test]
    fn only_old_directories_of_gone_processes_are_swept() {
        let temp = tempfile::tempdir().unwrap();
        let gone = format!("{PREFIX}{}-0", u32::MAX);
        let mine = format!("{PREFIX}{}-7", std::process::id());
        let other = "mcp-conform-report".to_owned();
        for name in [&gone, &mine, &other] {
            std::fs::create_dir(temp.path().join(name)).unwrap();
        }
        sweep(temp.path(), SystemTime::now());
        assert!(temp.path().join(&gone).exists(), "a fresh directory stays");
        sweep(temp.path(), SystemTime::now() + 2 * STALE_AFTER);
        assert!(!temp.path().join(&gone).exists());
        assert!(temp.path().join(&mine).exists());
        assert!(temp.path().join(&other).exists());
    }
}
