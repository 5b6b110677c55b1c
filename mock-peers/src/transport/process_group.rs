//! The process groups we start (a stdio peer, a `--start` server, a client
//! or gateway under test), and the guarantee that none outlives us.
//!
//! Every peer is started in its own process group, so that killing the
//! group also kills whatever the peer started. Our own code kills the group
//! on every path out (drops, Ctrl-C); for the paths where our code never
//! runs (SIGKILL, a crash) each group is also registered with a janitor: a
//! process forked from ours that holds one end of a socket, and kills every
//! group still registered when that socket closes, which the kernel does
//! when our process ends, however it ends.
//!
//! Why not `PR_SET_PDEATHSIG`: it reaches only the direct child, not what
//! the child started (a server behind `sh -c`, `npx`, `uv run`), and it
//! fires when the *thread* that spawned the child exits, not the process.

use std::os::fd::RawFd;
use std::sync::OnceLock;

/// Groups the janitor tracks at once; more are still killed by our own
/// code, just not if we are killed first. A run has one per job.
const MAX_WATCHED: usize = 1024;

/// Registers the process group `pgid` (a child started with
/// `process_group(0)`) with the janitor.
pub fn watch_process_group(pgid: u32) {
    if let Ok(pgid) = i32::try_from(pgid) {
        tell_janitor(pgid);
    }
}

#[expect(
    unsafe_code,
    reason = "kill(2) on our own child's process group; no memory is touched"
)]
/// Kills every process of the group `pgid` (a child started with
/// `process_group(0)`, and whatever it started), and tells the janitor it
/// is gone.
pub fn kill_process_group(pgid: i32) {
    // SAFETY: kill has no memory-safety preconditions; a stale pgid only yields ESRCH.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
    tell_janitor(-pgid);
}

/// Ends the janitor (it kills any group still registered) and waits for it:
/// called last thing before the process exits, so that nothing of ours is
/// left when our parent sees us gone.
#[expect(unsafe_code, reason = "shutdown(2) and waitpid(2) on our own janitor")]
pub fn dismiss_janitor() {
    if let Some(Some(janitor)) = JANITOR.get() {
        // SAFETY: plain syscalls on the socket and child this module owns.
        // Shut down rather than closed: the descriptor stays ours, so a late
        // record from another thread fails instead of reaching a reused fd.
        unsafe {
            libc::shutdown(janitor.socket, libc::SHUT_WR);
            libc::waitpid(janitor.pid, std::ptr::null_mut(), 0);
        }
    }
}

/// Our end of the janitor's socket, and its pid.
#[derive(Debug, Clone, Copy)]
struct Janitor {
    socket: RawFd,
    pid: libc::pid_t,
}

static JANITOR: OnceLock<Option<Janitor>> = OnceLock::new();

/// Sends one record, a pgid to watch (positive) or to forget (negative).
/// Without a janitor (it could not be started) our own kills still run.
#[expect(unsafe_code, reason = "send(2) of four bytes on a socket this module owns")]
fn tell_janitor(record: i32) {
    let Some(janitor) = JANITOR.get_or_init(start_janitor) else {
        return;
    };
    let bytes = record.to_ne_bytes();
    // SAFETY: `bytes` outlives the call. MSG_NOSIGNAL: a janitor that died
    // must not kill us with SIGPIPE. A seqpacket send is atomic, so records
    // from several threads never interleave.
    unsafe {
        libc::send(
            janitor.socket,
            bytes.as_ptr().cast(),
            bytes.len(),
            libc::MSG_NOSIGNAL,
        );
    }
}

#[expect(unsafe_code, reason = "socketpair(2) and fork(2)")]
fn start_janitor() -> Option<Janitor> {
    let mut ends = [0; 2];
    // SAFETY: `ends` has room for the two descriptors. Close-on-exec: no
    // peer we start inherits either end (it would keep the socket open).
    let made = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
            0,
            ends.as_mut_ptr(),
        )
    };
    if made != 0 {
        return None;
    }
    let [ours, theirs] = ends;
    // SAFETY: the child runs only async-signal-safe calls (no allocation,
    // no lock), as a fork of a multi-threaded process must.
    match unsafe { libc::fork() } {
        0 => unsafe { janitor_main(theirs) },
        -1 => {
            // SAFETY: both descriptors are ours and used nowhere else.
            unsafe {
                libc::close(ours);
                libc::close(theirs);
            }
            None
        }
        pid => {
            // SAFETY: the janitor has its copy; ours would keep its socket open.
            unsafe { libc::close(theirs) };
            Some(Janitor { socket: ours, pid })
        }
    }
}

/// The janitor: collects the groups it is told about until its socket
/// closes, then kills those still registered.
///
/// # Safety
///
/// Only in the child of `fork`, with `socket` its end of the pair.
#[expect(unsafe_code, reason = "the forked janitor's syscalls")]
unsafe fn janitor_main(socket: RawFd) -> ! {
    // SAFETY: async-signal-safe syscalls on our own process and descriptors.
    unsafe {
        // Its own group: Ctrl-C on the terminal, or a kill of our group,
        // must not take the janitor before it has done its job.
        libc::setpgid(0, 0);
        for signal in [
            libc::SIGINT,
            libc::SIGTERM,
            libc::SIGHUP,
            libc::SIGQUIT,
            libc::SIGPIPE,
        ] {
            libc::signal(signal, libc::SIG_IGN);
        }
        close_all_but(socket);
        let mut watched = [0_i32; MAX_WATCHED];
        let mut record = [0_u8; 4];
        loop {
            let read = libc::recv(socket, record.as_mut_ptr().cast(), record.len(), 0);
            if read < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                continue;
            }
            if read != 4 {
                break;
            }
            let pgid = i32::from_ne_bytes(record);
            let (find, put) = if pgid > 0 { (0, pgid) } else { (-pgid, 0) };
            if let Some(slot) = watched.iter_mut().find(|slot| **slot == find) {
                *slot = put;
            }
        }
        for pgid in watched.into_iter().filter(|pgid| *pgid > 0) {
            libc::kill(-pgid, libc::SIGKILL);
        }
        libc::_exit(0)
    }
}

/// Closes every descriptor but `keep`: the janitor must hold no pipe of a
/// peer (that peer's reader would never see the end) and not our stdout
/// (whoever reads our output would wait for the janitor too).
#[expect(unsafe_code, reason = "close(2) in the forked janitor")]
unsafe fn close_all_but(keep: RawFd) {
    // SAFETY: closing descriptors of our own process touches no memory.
    unsafe {
        #[cfg(target_os = "linux")]
        {
            let keep = libc::c_uint::try_from(keep).unwrap_or(0);
            let below = keep == 0 || libc::syscall(libc::SYS_close_range, 0, keep - 1, 0) == 0;
            if below && libc::syscall(libc::SYS_close_range, keep + 1, libc::c_uint::MAX, 0) == 0 {
                return;
            }
        }
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        let last = match libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) {
            0 => limit.rlim_cur.min(1 << 16),
            _ => 1024,
        };
        for fd in (0..last).filter_map(|fd| libc::c_int::try_from(fd).ok()) {
            if fd != keep {
                libc::close(fd);
            }
        }
    }
}
