//! Starting the `mcp-conform` binary from a test, the one way every test
//! binary does it.

use std::process::Output;
use std::time::Duration;

use assert_cmd::Command;

/// The binary's path, for command lines that start it as a peer
/// (`… reference-server --fault F`).
pub fn bin() -> String {
    assert_cmd::cargo::cargo_bin("mcp-conform").display().to_string()
}

/// `mcp-conform` without colour, and without the runner's `CI`: what a test
/// expects of the CLI must not depend on where the tests run.
pub fn mcp_conform() -> Command {
    let mut command = Command::cargo_bin("mcp-conform").expect("binary built");
    command.env_remove("CI").env("NO_COLOR", "1");
    command
}

/// How a finished command exited and what it printed.
pub struct Ran {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Ran {
    fn from(output: Output) -> Self {
        let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
        Ran {
            code: output.status.code(),
            stdout: text(&output.stdout),
            stderr: text(&output.stderr),
        }
    }
}

/// `command` run to its end, killed after `budget`.
pub fn ran(command: &mut Command, budget: Duration) -> Ran {
    command.timeout(budget).output().expect("mcp-conform runs").into()
}
