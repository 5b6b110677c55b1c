fn main() -> std::process::ExitCode {
    restore_sigpipe();
    mcp_conform::cli::main()
}

/// Rust ignores SIGPIPE, which turns `mcp-conform list | head` into a panic
/// on the next print; a command-line tool should just stop, as `cat` does.
#[expect(unsafe_code, reason = "resetting a signal disposition has no safe std API")]
fn restore_sigpipe() {
    // SAFETY: called first thing in main, before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
