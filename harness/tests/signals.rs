//! Stopping a run from outside, checked with the process table: SIGTERM and
//! SIGHUP stop a run like Ctrl-C (partial report, exit 3) for every kind
//! of child (a stdio server, a `--start` server, a client under
//! `test-client`, a gateway under `test-gateway`), and even SIGKILL of the
//! harness leaves none of them, nor what they started, running.
//!
//! Each peer ignores stdin EOF, starts a grandchild and writes its pid
//! (its process group's id, as the harness starts every peer in a group of
//! its own) to a file, so the test knows which group must be gone.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mcp_conform_report::Verdict;
use tempfile::TempDir;

mod common;

/// A shell peer that outlives stdin EOF and starts a grandchild.
fn stubborn_peer(pid_file: &Path) -> String {
    format!("sh -c 'echo $$ > {}; sleep 600 & sleep 600'", pid_file.display())
}

/// A `--start` server: accepts connections on `port` and never answers;
/// writes its group to `pid_file` once it listens.
fn mute_http_server(pid_file: &Path, port: u16) -> String {
    let python = [
        "import os,socket,sys,time",
        "s=socket.socket()",
        "s.bind((\\\"127.0.0.1\\\",int(sys.argv[1])))",
        "s.listen()",
        "open(sys.argv[2],\\\"w\\\").write(str(os.getpgrp()))",
        "time.sleep(600)",
    ]
    .join("; ");
    format!(
        "sh -c 'sleep 600 & exec python3 -c \"{python}\" {port} {}'",
        pid_file.display()
    )
}

/// A run of `args` with its report directory, started in the background.
struct Running {
    child: Child,
    dir: TempDir,
    pid_file: PathBuf,
}

impl Running {
    fn start(args: impl FnOnce(&Path) -> Vec<String>) -> Running {
        let dir = TempDir::new().unwrap();
        let pid_file = dir.path().join("peer.pid");
        let child = Command::new(assert_cmd::cargo::cargo_bin("mcp-conform"))
            .args(args(&pid_file))
            .arg("--report-dir")
            .arg(dir.path().join("report"))
            .env("NO_COLOR", "1")
            .stdout(Stdio::piped())
            // Not a pipe: a `--start` server shares our stderr, and a test
            // failing to kill it would then wait for it instead of failing.
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        Running { child, dir, pid_file }
    }

    /// The peer's process group, once the peer has started.
    fn peer_group(&self) -> i32 {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(pid) = std::fs::read_to_string(&self.pid_file)
                .ok()
                .and_then(|text| text.trim().parse().ok())
            {
                return pid;
            }
            assert!(Instant::now() < deadline, "the peer never started");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn signal(&self, signal: &str) {
        let sent = Command::new("kill")
            .args([&format!("-{signal}"), &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
    }
}

/// The processes of group `pgid` that are still alive (zombies are dead,
/// reaping them is PID 1's job). `ps -g` selects a session, not a group.
fn alive_in_group(pgid: i32) -> Vec<String> {
    let ps = Command::new("ps")
        .args(["-e", "-o", "pgid=,stat=,args="])
        .output()
        .unwrap();
    String::from_utf8_lossy(&ps.stdout)
        .lines()
        .filter(|line| {
            let mut fields = line.split_whitespace();
            fields.next().and_then(|group| group.parse().ok()) == Some(pgid)
                && !fields.next().unwrap_or_default().starts_with('Z')
        })
        .map(str::to_owned)
        .collect()
}

/// Waits up to a few seconds for group `pgid` to be gone; what is left.
fn left_after_a_while(pgid: i32) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let left = alive_in_group(pgid);
        if left.is_empty() || Instant::now() > deadline {
            return left;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The peer's group is alive, `signal` stops the run promptly with exit 3
/// and a written report whose cases are errors, and the group is gone.
fn stops_cleanly(signal: &str, args: impl FnOnce(&Path) -> Vec<String>) {
    let run = Running::start(args);
    let group = run.peer_group();
    assert!(
        !alive_in_group(group).is_empty(),
        "the peer runs before the signal"
    );
    run.signal(signal);
    let stopped = Instant::now();
    let output = run.child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stopped.elapsed() < Duration::from_secs(10),
        "SIG{signal}: stopped promptly"
    );
    assert_eq!(output.status.code(), Some(3), "SIG{signal}: {stdout}");
    let report = common::report::read(&run.dir.path().join("report")).expect("a report");
    assert!(
        report.cases.iter().any(|case| case.verdict == Verdict::Error),
        "SIG{signal}: the interrupted case is an error"
    );
    assert_eq!(
        left_after_a_while(group),
        Vec::<String>::new(),
        "SIG{signal}: left running"
    );
}

/// `words`, with a startup timeout long enough that only the signal ends
/// the run.
fn waiting(words: &[&str]) -> Vec<String> {
    words
        .iter()
        .chain(&["--startup-timeout", "60"])
        .map(|word| (*word).to_owned())
        .collect()
}

fn stdio_run(pid_file: &Path) -> Vec<String> {
    let peer = stubborn_peer(pid_file);
    waiting(&["run", "--stdio", &peer, "--filter", "lifecycle.ping"])
}

#[test]
fn sigterm_and_sighup_stop_a_stdio_run_like_ctrl_c() {
    for signal in ["TERM", "HUP"] {
        stops_cleanly(signal, stdio_run);
    }
}

#[test]
fn sigterm_kills_the_started_server() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    stops_cleanly("TERM", |pid_file| {
        let server = mute_http_server(pid_file, port);
        waiting(&[
            "run",
            "--url",
            &url,
            "--start",
            &server,
            "--filter",
            "lifecycle.ping",
        ])
    });
}

#[test]
fn sigterm_kills_a_client_and_a_gateway_under_test() {
    stops_cleanly("TERM", |pid_file| {
        waiting(&["test-client", "--command", &stubborn_peer(pid_file)])
    });
    stops_cleanly("TERM", |pid_file| {
        let gateway = format!("{} {{server}}", stubborn_peer(pid_file));
        waiting(&[
            "test-gateway",
            "--command",
            &gateway,
            "--filter",
            "lifecycle.ping",
        ])
    });
}

#[test]
fn sigkill_of_the_harness_leaves_no_peer_behind() {
    let run = Running::start(stdio_run);
    let group = run.peer_group();
    assert!(
        !alive_in_group(group).is_empty(),
        "the peer runs before the signal"
    );
    run.signal("KILL");
    let output = run.child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), None, "killed, not exited");
    assert_eq!(left_after_a_while(group), Vec::<String>::new(), "orphans");
}
