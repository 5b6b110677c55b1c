//! Stopping a judged run from outside. SIGINT (Ctrl-C), SIGTERM (`timeout`,
//! CI cancellation, container stop) and SIGHUP (the terminal went away) all
//! mean the same: running scenarios stop and kill their peers, what finished
//! is reported and written, and the run exits 3 (an interrupted case is an
//! error). A second signal ends the process at once, without a report; the
//! janitor still kills every peer.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use mcp_conform_report::ExitCode;
use tokio::signal::unix::{Signal, SignalKind, signal};

static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();

/// The process's interrupt flag, set by the first of those signals. The
/// first call starts listening: from then on, none of them kills us
/// outright.
pub fn flag() -> Arc<AtomicBool> {
    FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        listen(Arc::clone(&flag));
        flag
    })
    .clone()
}

/// Whether a signal asked the run to stop (never, before [`flag`] listens).
pub fn requested() -> bool {
    FLAG.get().is_some_and(|flag| flag.load(Ordering::SeqCst))
}

/// Registers the handlers now (a signal right after [`flag`] returns must
/// not find the default action), then waits for them on a thread of its own.
fn listen(flag: Arc<AtomicBool>) {
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_io().build() else {
        return;
    };
    let streams = {
        let _entered = runtime.enter();
        [
            SignalKind::interrupt(),
            SignalKind::terminate(),
            SignalKind::hangup(),
        ]
        .map(|kind| signal(kind).map(|stream| (kind, stream)))
    };
    let Ok(streams) = streams.into_iter().collect::<Result<Vec<_>, _>>() else {
        return;
    };
    // Asked now: once the terminal hangs up it no longer says it is one.
    let terminals = terminal_streams();
    std::thread::spawn(move || runtime.block_on(on_signals(streams, &terminals, &flag)));
}

async fn on_signals(mut streams: Vec<(SignalKind, Signal)>, terminals: &[libc::c_int], flag: &AtomicBool) {
    loop {
        let received = next_signal(&mut streams).await;
        if received == SignalKind::hangup() {
            silence(terminals);
        }
        if flag.swap(true, Ordering::SeqCst) {
            eprintln!("interrupted again: stopping now, without a report");
            mcp_mock_peers::transport::dismiss_janitor();
            std::process::exit(i32::from(ExitCode::Error.code()));
        }
    }
}

/// The kind of the next signal of any of `streams`.
async fn next_signal(streams: &mut [(SignalKind, Signal)]) -> SignalKind {
    std::future::poll_fn(|context| {
        for (kind, stream) in streams.iter_mut() {
            if stream.poll_recv(context).is_ready() {
                return std::task::Poll::Ready(*kind);
            }
        }
        std::task::Poll::Pending
    })
    .await
}

/// Which of stdout and stderr are terminals.
#[expect(unsafe_code, reason = "isatty(3) on our own standard streams")]
fn terminal_streams() -> Vec<libc::c_int> {
    [libc::STDOUT_FILENO, libc::STDERR_FILENO]
        .into_iter()
        // SAFETY: isatty only inspects the descriptor.
        .filter(|stream| unsafe { libc::isatty(*stream) } == 1)
        .collect()
}

/// After a hangup the terminal is gone and writing to it fails (a panic in
/// `println!`, before the report is written): what we still print to it
/// goes nowhere instead. Output to a file or pipe is kept.
#[expect(unsafe_code, reason = "open(2) and dup2(2) on our own standard streams")]
fn silence(terminals: &[libc::c_int]) {
    // SAFETY: plain syscalls on descriptors of our own; dup2 replaces a
    // standard stream atomically, so a concurrent write goes to one or the
    // other.
    unsafe {
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if null < 0 {
            return;
        }
        for stream in terminals {
            libc::dup2(null, *stream);
        }
        libc::close(null);
    }
}
