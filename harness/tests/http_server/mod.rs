//! Servers the HTTP tests start on a free 127.0.0.1 port.

// Every test binary compiles this module and uses a part of it.
#![allow(dead_code)]

use std::net::TcpStream;
use std::process::{Child, Command as Process, Stdio};
use std::time::{Duration, Instant};

/// A server process listening on 127.0.0.1, killed when dropped.
pub struct Server {
    child: Child,
    pub url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A loopback port for a server to bind: the harness's own pick, which
/// stays out of the kernel's ephemeral range and is never handed to two
/// test binaries at once (a port bound at 0 and released could be).
pub fn free_port() -> u16 {
    mcp_conform::runner::free_loopback_port().expect("a free loopback port")
}

/// Starts `argv` with `PORT` set and waits until the port accepts connections.
pub fn start(argv: &[String], port: u16, path: &str) -> Server {
    let mut child = Process::new(&argv[0])
        .args(&argv[1..])
        .env("PORT", port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("could not start {argv:?}: {e}"));
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("{argv:?} exited before listening: {status}");
        }
        assert!(
            Instant::now() < deadline,
            "{argv:?} did not listen on {port} within 30 s"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    Server {
        child,
        url: format!("http://127.0.0.1:{port}{path}"),
    }
}

/// The command line of the bundled reference server over HTTP on
/// 127.0.0.1:`port`, with one deliberate fault when given.
pub fn reference_server(port: u16, fault: Option<&str>) -> Vec<String> {
    let mut argv = vec![
        crate::common::cli::bin(),
        "reference-server".into(),
        "--http".into(),
        format!("127.0.0.1:{port}"),
    ];
    if let Some(fault) = fault {
        argv.extend(["--fault".into(), fault.into()]);
    }
    argv
}

/// `mcp-conform run ARGS` without colour, killed after `budget`: its
/// output and stdout.
pub fn run(args: &[&str], budget: Duration) -> (std::process::Output, String) {
    let output = crate::common::cli::mcp_conform()
        .arg("run")
        .args(args)
        .timeout(budget)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    (output, stdout)
}
