//! The hostile-peer matrix (issue 16): the `mcp-conform` binary against
//! peers that flood, stall, lie and misbehave, as servers over stdio
//! (fixtures/hostile/peer.sh) and HTTP (http_peer.py), and as clients under
//! `test-client` over stdio (client.sh) and HTTP (http_client.py). Each case
//! runs under an address-space limit and a wall-clock guard, a few at a
//! time, and must end with the exit code and finding it states, within the
//! guard, under the memory cap, without panic text, with report.json
//! written and readable, no secret of the command line in any output, and
//! nothing of the peer's process group left running. The table printed
//! (`--no-capture`) is the one the closing note carries.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::report;
use mcp_conform::runner::free_loopback_port;
use mcp_conform_report::{Report, TRANSCRIPT_FRAMES, Verdict};

mod common;

/// Generous: a case is judged on a few scenarios with a short startup budget.
const WALL_GUARD: Duration = Duration::from_secs(90);
/// The address-space cap `mcp-conform` runs under.
const ADDRESS_SPACE: u64 = 4_000_000_000;
/// Peak resident memory a case may use (the target).
const PEAK_RSS_KIB: u64 = 256 * 1024;
/// Cases run at once: most of them wait on a stalled peer.
const AT_ONCE: usize = 4;
/// Given as `--header` and `--secret`: no output may contain them.
const BEARER: &str = "hostile-bearer-0123456789";
const SECRET: &str = "hostile-token-abcdef";

/// Who the peer is and how it is reached.
#[derive(Debug, Clone, Copy)]
enum Peer {
    /// `run --stdio 'peer.sh FAULT'`.
    StdioServer,
    /// `run --url … --start 'http_peer.py FAULT PORT'`, with `--transport`.
    HttpServer(&'static str),
    /// `test-client --command 'client.sh FAULT {server}'`.
    StdioClient,
    /// `test-client --command 'http_client.py {url}'`.
    HttpClient,
}

impl Peer {
    fn label(self) -> &'static str {
        match self {
            Peer::StdioServer => "server/stdio",
            Peer::HttpServer("sse") => "server/http+sse",
            Peer::HttpServer(_) => "server/http",
            Peer::StdioClient => "client/stdio",
            Peer::HttpClient => "client/http",
        }
    }
}

/// One fault and the outcome it must get.
struct Case {
    fault: &'static str,
    peer: Peer,
    /// The scenarios it runs (`--filter`): the ones that judge the fault.
    filter: &'static str,
    exit: i32,
    /// A requirement a non-passing check cites, or `ERROR` for a case
    /// reported as an error, or `not-observed`.
    finding: &'static str,
}

const fn case(
    fault: &'static str,
    peer: Peer,
    filter: &'static str,
    exit: i32,
    finding: &'static str,
) -> Case {
    Case {
        fault,
        peer,
        filter,
        exit,
        finding,
    }
}

const PING: &str = "lifecycle.ping";
const CLIENT: &str = "client.lifecycle";
const STREAMABLE: Peer = Peer::HttpServer("streamable");

/// Exit 1 is a failure the finding names. Exit 3: the first two cases
/// showed the peer unusable and fail-fast reported the rest as errors, the
/// client never started our server, or the server's answer could not be
/// read at all (headers past the HTTP client's limit).
const CASES: &[Case] = &[
    case("garbage-flood", Peer::StdioServer, PING, 1, "LIFE-003"),
    case("notification-flood", Peer::StdioServer, PING, 1, "LIFE-003"),
    case("request-flood", Peer::StdioServer, PING, 1, "PING-001"),
    case("huge-line", Peer::StdioServer, PING, 1, "LIFE-003"),
    case("endless-stderr", Peer::StdioServer, PING, 1, "LIFE-003"),
    case("stdout-closed", Peer::StdioServer, PING, 1, "LIFE-003"),
    case("immortal", Peer::StdioServer, PING, 1, "LIFE-003"),
    case("never-answering", Peer::StdioServer, PING, 1, "LIFE-003"),
    case("wrong-id", Peer::StdioServer, PING, 1, "LIFE-003"),
    case("duplicate-id", Peer::StdioServer, PING, 1, "RPC-004"),
    case("slow-bytes", Peer::StdioServer, PING, 1, "LIFE-003"),
    case("escapes", Peer::StdioServer, PING, 1, "LIFE-003"),
    case("never-answers", STREAMABLE, PING, 1, "LIFE-003"),
    case("trickle-sse", STREAMABLE, PING, 1, "LIFE-003"),
    case("huge-headers", STREAMABLE, PING, 3, "ERROR"),
    case(
        "wrong-content-type",
        STREAMABLE,
        "http.post-answer-forms",
        1,
        "HTTP-007",
    ),
    case(
        "off-origin-endpoint",
        Peer::HttpServer("sse"),
        PING,
        1,
        "ORIGIN-001",
    ),
    case("echo-secrets", STREAMABLE, PING, 1, "PING-001"),
    case("escapes", STREAMABLE, PING, 1, "PING-001"),
    case("sse-flood", STREAMABLE, PING, 1, "PING-001"),
    case("request-flood", STREAMABLE, PING, 1, "PING-001"),
    case("garbage-flood", Peer::StdioClient, CLIENT, 3, "LIFE-001"),
    case("notification-flood", Peer::StdioClient, CLIENT, 1, "PING-001"),
    case("request-flood", Peer::StdioClient, CLIENT, 1, "LIFE-007"),
    case("huge-line", Peer::StdioClient, CLIENT, 3, "LIFE-001"),
    case("never-connects", Peer::StdioClient, CLIENT, 3, "ERROR"),
    case("stdin-closed", Peer::StdioClient, CLIENT, 3, "LIFE-001"),
    case("immortal", Peer::StdioClient, CLIENT, 3, "ERROR"),
    case("post-flood", Peer::HttpClient, CLIENT, 1, "LIFE-007"),
];

#[derive(Debug)]
struct Outcome {
    exit: Option<i32>,
    wall: Duration,
    peak_rss_kib: u64,
    orphans: usize,
    /// `report.json` as read back, or why it could not be.
    report: Result<Report, String>,
    report_bytes: u64,
    problems: Vec<String>,
}

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/hostile")
        .join(name);
    path.display().to_string()
}

/// The command line after `mcp-conform` for `case`.
fn arguments(case: &Case) -> Vec<String> {
    let fault = case.fault;
    let mut args: Vec<String> = match case.peer {
        Peer::StdioServer => vec![
            "run".into(),
            "--stdio".into(),
            format!("{} {fault}", fixture("peer.sh")),
        ],
        Peer::HttpServer(transport) => {
            let port = free_loopback_port().unwrap();
            let path = if transport == "sse" { "/sse" } else { "/mcp" };
            vec![
                "run".into(),
                "--url".into(),
                format!("http://127.0.0.1:{port}{path}"),
                "--start".into(),
                format!("python3 {} {fault} {port}", fixture("http_peer.py")),
                "--transport".into(),
                transport.into(),
                "-H".into(),
                format!("Authorization: Bearer {BEARER}"),
                "-H".into(),
                format!("X-Custom: {SECRET}"),
            ]
        }
        Peer::StdioClient => vec![
            "test-client".into(),
            "--command".into(),
            format!("sh {} {fault} {{server}}", fixture("client.sh")),
        ],
        Peer::HttpClient => vec![
            "test-client".into(),
            "--command".into(),
            format!("python3 {} {{url}}", fixture("http_client.py")),
        ],
    };
    args.extend(
        [
            "--filter",
            case.filter,
            "--startup-timeout",
            "5",
            "--secret",
            SECRET,
        ]
        .map(String::from),
    );
    args
}

/// Processes still running in process group `pgid`. Zombies do not count:
/// they have exited, and wait only for init to reap them.
fn members_of(pgid: &str) -> usize {
    let out = Command::new("ps").args(["-eo", "pgid=,stat="]).output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.trim().split_once(char::is_whitespace))
        .filter(|(g, stat)| *g == pgid && !stat.trim().starts_with('Z'))
        .count()
}

/// Every file under `dir`, with its bytes.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter_map(|path| std::fs::read(&path).ok().map(|bytes| (path, bytes)))
                .collect()
        })
        .unwrap_or_default()
}

/// What the report shows: the requirement of every check that did not
/// pass, and the verdicts of cases that ended without checks.
fn findings(report: &Report) -> Vec<String> {
    let mut found = Vec::new();
    for case in &report.cases {
        for check in case.checks.iter().chain(&case.remarks) {
            if matches!(check.verdict, Verdict::Fail | Verdict::NonStrict) {
                found.push(check.requirement.clone());
            }
        }
        match case.verdict {
            Verdict::Error => found.push("ERROR".into()),
            Verdict::NotObserved => found.push("not-observed".into()),
            _ => {}
        }
    }
    found.sort();
    found.dedup();
    found
}

fn run_case(case: &Case, dir: &Path) -> Outcome {
    let pgid_file = dir.join("pgid");
    let leak_file = dir.join("leak");
    let report_dir = dir.join("report");
    let rss_file = dir.join("rss");
    let started = Instant::now();
    let output = Command::new("timeout")
        .args(["--kill-after=5", &WALL_GUARD.as_secs().to_string()])
        .arg("prlimit")
        .arg(format!("--as={ADDRESS_SPACE}"))
        .args(["/usr/bin/time", "-f", "%M", "-o"])
        .arg(&rss_file)
        .arg(env!("CARGO_BIN_EXE_mcp-conform"))
        .args(arguments(case))
        .arg("--report-dir")
        .arg(&report_dir)
        .env("HOSTILE_PGID_FILE", &pgid_file)
        .env("HOSTILE_LEAK_FILE", &leak_file)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let wall = started.elapsed();
    // The peer's group gets a moment to go after the harness exits.
    std::thread::sleep(Duration::from_millis(500));
    let orphans = std::fs::read_to_string(&pgid_file)
        .map(|g| members_of(g.trim()))
        .unwrap_or(0);
    let peak_rss_kib = std::fs::read_to_string(&rss_file)
        .ok()
        .and_then(|t| t.lines().last().and_then(|l| l.trim().parse().ok()))
        .unwrap_or(0);
    let exit = output.status.code();
    let report = report::read(&report_dir);
    let mut problems = Vec::new();
    match exit {
        Some(124 | 137) | None => problems.push(format!("still running after {WALL_GUARD:?}")),
        Some(code) if code != case.exit => problems.push(format!("exit {code}, expected {}", case.exit)),
        _ => {}
    }
    if peak_rss_kib > PEAK_RSS_KIB {
        problems.push(format!("peak RSS {} MiB", peak_rss_kib / 1024));
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    if stderr.contains("panicked at") || stdout.contains("panicked at") {
        problems.push("panic text".to_owned());
    }
    if stdout.contains('\u{1b}') {
        problems.push("peer's escape sequences reach the terminal raw".to_owned());
    }
    let written = files(&report_dir);
    // On a terminal `<script>` is text; in the Markdown and HTML reports it
    // would be live.
    let live_html = written.iter().any(|(path, bytes)| {
        path.extension().is_some_and(|e| e == "md" || e == "html")
            && String::from_utf8_lossy(bytes).contains("<script>alert")
    });
    if live_html {
        problems.push("peer's HTML is live in a report".to_owned());
    }
    let outputs = [
        (PathBuf::from("stdout"), output.stdout.clone()),
        (PathBuf::from("stderr"), output.stderr.clone()),
    ];
    for (path, bytes) in written.iter().chain(&outputs) {
        let text = String::from_utf8_lossy(bytes);
        if text.contains(BEARER) || text.contains(SECRET) {
            problems.push(format!("a secret in {}", path.display()));
        }
    }
    if case.fault == "echo-secrets" {
        // Not vacuous: the echoes reached the report, redacted.
        let json = written.iter().find(|(path, _)| path.ends_with("report.json"));
        if !json.is_some_and(|(_, bytes)| String::from_utf8_lossy(bytes).contains("<redacted>")) {
            problems.push("no redacted echo in report.json".to_owned());
        }
    }
    if leak_file.exists() {
        problems.push("a request reached the off-origin endpoint".to_owned());
    }
    if orphans > 0 {
        problems.push(format!("{orphans} processes of the peer left"));
    }
    match &report {
        Ok(report) => {
            if report
                .cases
                .iter()
                .any(|c| c.transcript.len() > TRANSCRIPT_FRAMES)
            {
                problems.push(format!("a transcript longer than {TRANSCRIPT_FRAMES} frames"));
            }
            let found = findings(report);
            if !found.iter().any(|f| f == case.finding) {
                problems.push(format!("findings {found:?}, expected {}", case.finding));
            }
        }
        Err(error) => problems.push(format!("report.json: {error}")),
    }
    Outcome {
        exit,
        wall,
        peak_rss_kib,
        orphans,
        report_bytes: std::fs::metadata(report_dir.join("report.json")).map_or(0, |m| m.len()),
        report,
        problems,
    }
}

fn table_row(case: &Case, outcome: &Outcome) -> String {
    let report = match &outcome.report {
        Ok(report) => {
            let cut: usize = report
                .cases
                .iter()
                .filter_map(|c| c.transcript_cut)
                .map(|cut| cut.frames)
                .sum();
            let cut = if cut > 0 {
                format!(", {cut} frames cut")
            } else {
                String::new()
            };
            format!(
                "ok, {} KiB{cut}, {}",
                outcome.report_bytes / 1024,
                findings(report).join(" ")
            )
        }
        Err(_) => "unreadable".to_owned(),
    };
    let verdict = match &outcome.problems[..] {
        [] => "ok".to_owned(),
        problems => format!("FAIL: {}", problems.join("; ")),
    };
    format!(
        "| {} | {} | {} | {:.1} | {} | {} | {report} | {verdict} |\n",
        case.fault,
        case.peer.label(),
        outcome.exit.map_or("-".to_owned(), |c| c.to_string()),
        outcome.wall.as_secs_f64(),
        outcome.peak_rss_kib / 1024,
        outcome.orphans,
    )
}

#[test]
fn hostile_peers_get_a_clear_verdict_within_bounds() {
    let next = Mutex::new(CASES.iter());
    let rows = Mutex::new(vec![String::new(); CASES.len()]);
    let unexpected = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..AT_ONCE {
            scope.spawn(|| {
                loop {
                    let Some((index, case)) = ({
                        let mut next = next.lock().unwrap();
                        let index = CASES.len() - next.len();
                        next.next().map(|case| (index, case))
                    }) else {
                        return;
                    };
                    let dir = tempfile::tempdir().unwrap();
                    let outcome = run_case(case, dir.path());
                    if !outcome.problems.is_empty() {
                        unexpected.lock().unwrap().push(format!(
                            "{} ({}): {}",
                            case.fault,
                            case.peer.label(),
                            outcome.problems.join("; ")
                        ));
                    }
                    rows.lock().unwrap()[index] = table_row(case, &outcome);
                }
            });
        }
    });
    let mut table = String::from(
        "| fault | role/transport | exit | wall s | peak RSS MiB | orphans | report | outcome |\n|---|---|---|---|---|---|---|---|\n",
    );
    table.extend(rows.into_inner().unwrap());
    println!("{table}");
    let unexpected = unexpected.into_inner().unwrap();
    assert!(CASES.len() >= 20, "the issue asks for at least 20 faults");
    assert!(unexpected.is_empty(), "{table}\n{}", unexpected.join("\n"));
}
