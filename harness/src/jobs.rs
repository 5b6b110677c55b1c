//! How many scenarios run at once when `--jobs` is not given. A scenario
//! mostly waits (on the peer, on a silence window, on a slow tool), so more
//! run at once than there are cores. Over stdio each one starts its own
//! peer process (a Node or Python server holds 50–100 MB), so the count is
//! also bounded by a number of processes and by the memory available.

/// Scenarios per core: most of a scenario's time is spent waiting.
pub const JOBS_PER_CORE: usize = 4;
/// At most this many at once, whatever the cores and memory.
pub const MAX_JOBS: usize = 16;
/// Memory set aside per scenario: a peer process of a scripting runtime
/// and our side of the session.
pub const MEMORY_PER_JOB: u64 = 256 * 1024 * 1024;

/// The default for `cores` cores and `available` bytes of memory (`None`:
/// not known, no bound by memory); at least one.
pub fn default_jobs(cores: usize, available: Option<u64>) -> usize {
    let by_memory = available.map_or(usize::MAX, |bytes| {
        usize::try_from(bytes / MEMORY_PER_JOB).unwrap_or(usize::MAX)
    });
    (cores * JOBS_PER_CORE).min(MAX_JOBS).min(by_memory).max(1)
}

/// The default on this machine.
pub fn default_jobs_here() -> usize {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    default_jobs(cores, available_memory())
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
    fn jobs_grow_with_cores_up_to_the_process_limit() {
        assert_eq!(default_jobs(1, None), 4);
        assert_eq!(default_jobs(2, None), 8);
        assert_eq!(default_jobs(64, None), MAX_JOBS);
    }

    #[test]
    fn memory_bounds_the_jobs_and_one_always_runs() {
        assert_eq!(default_jobs(2, Some(3 * MEMORY_PER_JOB)), 3);
        assert_eq!(default_jobs(2, Some(0)), 1);
    }
}
