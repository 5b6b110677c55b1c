//! Starts the reference server binary on piped stdio, killed when dropped.

use std::process::Stdio;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// The server process (with `--fault NAME` if given), its stdin and its
/// stdout as lines.
pub fn spawn(fault: Option<&str>) -> (Child, Option<ChildStdin>, Lines<BufReader<ChildStdout>>) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcp-reference-server"));
    if let Some(fault) = fault {
        command.args(["--fault", fault]);
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn reference server");
    let stdin = child.stdin.take();
    let stdout = BufReader::new(child.stdout.take().expect("stdout")).lines();
    (child, stdin, stdout)
}

/// Writes one line (a newline is added) and flushes it.
pub async fn write_line(stdin: &mut ChildStdin, line: &str) {
    stdin
        .write_all(format!("{line}\n").as_bytes())
        .await
        .expect("write");
    stdin.flush().await.expect("flush");
}
