//! `run --watch`: the first run, a second one of the scenario whose file
//! changed (and only it), and a clean end on Ctrl-C (SIGINT).

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const ECHO: &str = "\
id: watch.echo
title: echo answers
requirements: [TOOL-002]
requires: { capabilities: [tools] }
steps:
  - request:
      method: tools/call
      params: { name: echo, arguments: { text: hi } }
      expect: { result: { isError: false } }
";

const UNTOUCHED: &str = "\
id: watch.untouched
title: ping answers
requirements: [PING-001]
steps:
  - request: { method: ping }
";

/// Reads lines from `lines` until one contains `wanted`; all read so far.
fn until(lines: &mpsc::Receiver<String>, wanted: &str, seen: &mut Vec<String>) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while let Ok(line) = lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        let found = line.contains(wanted);
        seen.push(line);
        if found {
            return;
        }
    }
    panic!("no line with `{wanted}` in:\n{}", seen.join("\n"));
}

#[test]
fn a_changed_file_runs_again_and_ctrl_c_ends_the_watch() {
    let dir = tempfile::TempDir::new().unwrap();
    let echo = dir.path().join("echo.yaml");
    std::fs::write(&echo, ECHO).unwrap();
    std::fs::write(dir.path().join("untouched.yaml"), UNTOUCHED).unwrap();
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("mcp-conform"))
        .args(["run", "--watch", "-v"])
        .arg(dir.path())
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (send, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = send.send(line);
        }
    });
    let mut seen = Vec::new();
    until(&lines, "watching 2 files", &mut seen);
    assert!(seen.iter().any(|l| l.contains("2 scenarios")), "{seen:#?}");

    std::fs::write(&echo, ECHO.replace("text: hi", "text: again")).unwrap();
    let first_run = seen.len();
    until(&lines, "watching 2 files", &mut seen);
    let second: &[String] = &seen[first_run..];
    assert!(
        second
            .iter()
            .any(|l| l.starts_with("changed: ") && l.ends_with("echo.yaml")),
        "{second:#?}"
    );
    assert!(
        second.iter().any(|l| l.contains("· 1 scenarios ·")),
        "{second:#?}"
    );
    assert!(
        second
            .iter()
            .any(|l| l.starts_with("pass") && l.contains("watch.echo")),
        "{second:#?}"
    );
    assert!(
        !second.iter().any(|l| l.contains("watch.untouched")),
        "{second:#?}"
    );

    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    until(&lines, "watch ended", &mut seen);
    assert_eq!(child.wait().unwrap().code(), Some(0), "{seen:#?}");
}
