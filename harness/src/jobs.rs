//! How many scenarios run at once when `--jobs` is not given. A scenario
//! mostly waits (on the peer, on a silence window, on a slow tool), so
//! against a server that is already up (HTTP) more run at once than there
//! are cores. Over stdio each scenario starts its own peer process, and a
//! start is CPU work (a Python SDK server takes half a second of a core):
//! more starts at once than cores only slow each one down, until a loaded
//! machine misses the start-up timeout. So a run that starts a process per
//! scenario keeps one per core. Either way the count is bounded by memory.

/// Scenarios per core against a server that is already up.
pub const JOBS_PER_CORE: usize = 4;
/// At most this many at once, whatever the cores and memory.
pub const MAX_JOBS: usize = 16;
/// Memory set aside per scenario: a peer process of a scripting runtime
/// and our side of the session.
pub const MEMORY_PER_JOB: u64 = 256 * 1024 * 1024;

/// The default for `cores` cores and `available` bytes of memory (`None`:
/// not known, no bound by memory), when each scenario `starts_a_process`
/// or not; at least one.
pub fn default_jobs(cores: usize, available: Option<u64>, starts_a_process: bool) -> usize {
    let per_core = match starts_a_process {
        true => 1,
        false => JOBS_PER_CORE,
    };
    let by_memory = available.map_or(usize::MAX, |bytes| {
        usize::try_from(bytes / MEMORY_PER_JOB).unwrap_or(usize::MAX)
    });
    (cores * per_core).min(MAX_JOBS).min(by_memory).max(1)
}

/// The default on this machine.
pub fn default_jobs_here(starts_a_process: bool) -> usize {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    default_jobs(cores, available_memory(), starts_a_process)
}

/// `MemAvailable` of /proc/meminfo, in bytes (Linux; `None` elsewhere).
fn available_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::{MAX_JOBS, MEMORY_PER_JOB, default_jobs};

    #[test]
    fn jobs_against_a_running_server_grow_with_cores_up_to_the_limit() {
        assert_eq!(default_jobs(1, None, false), 4);
        assert_eq!(default_jobs(2, None, false), 8);
        assert_eq!(default_jobs(64, None, false), MAX_JOBS);
    }

    #[test]
    fn a_process_per_scenario_keeps_one_per_core() {
        assert_eq!(default_jobs(2, None, true), 2);
        assert_eq!(default_jobs(64, None, true), MAX_JOBS);
    }

    #[test]
    fn memory_bounds_the_jobs_and_one_always_runs() {
        assert_eq!(default_jobs(2, Some(3 * MEMORY_PER_JOB), false), 3);
        assert_eq!(default_jobs(2, Some(0), false), 1);
    }
}
