//! The command line end to end: exit codes, located diagnostics, bad peers
//! that never answer or crash, and the bundled reference server all green
//! over stdio and both HTTP transports.

use std::time::Duration;

use common::cli::mcp_conform;
use common::report::{Judged, judge};
use http_server::{free_port, start};
use mcp_conform_report::{CheckResult, Report, Verdict};

mod common;
mod http_server;

fn fixture(path: &str) -> String {
    format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"))
}

fn stdout_of(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Every selected scenario ran once, and each passed or says why it does
/// not apply.
fn assert_all_green(report: &Report, context: &str) {
    assert_eq!(report.summary.cases, report.run.suite.scenarios, "{context}");
    let not_green: Vec<String> = report
        .cases
        .iter()
        .filter(|case| !matches!(case.verdict, Verdict::Pass | Verdict::NotApplicable))
        .map(|case| format!("{} {}", case.scenario, case.verdict))
        .collect();
    assert_eq!(not_green, Vec::<String>::new(), "{context}");
}

#[test]
fn the_bundled_suite_passes_against_the_reference_server() {
    let run = judge(&["run", "--jobs", "2"], Duration::from_secs(300));
    assert_eq!(run.code(), Some(0), "{}", run.stdout());
    assert_all_green(&run.report, "over stdio");
    assert!(
        run.report
            .cases
            .iter()
            .any(|case| case.scenario == "elicitation.accept"),
        "the client-feature scenarios ran"
    );
}

/// What `cargo install --path harness` gives: the binary carries its
/// scenarios, profiles and reference server, so run from a directory far
/// from the repository it runs the whole bundled suite green, the same
/// scenarios as from the repository.
#[test]
fn the_binary_runs_the_bundled_suite_green_from_any_directory() {
    let elsewhere = tempfile::tempdir().unwrap();
    let reports = elsewhere.path().join("reports");
    let run = mcp_conform()
        .current_dir(elsewhere.path())
        .env_remove("CARGO_MANIFEST_DIR")
        .args(["run", "--jobs", "2", "--report-dir"])
        .arg(&reports)
        .timeout(Duration::from_secs(300))
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0), "{}", stdout_of(&run));
    let report =
        mcp_conform_report::json::read(&std::fs::read_to_string(reports.join("report.json")).unwrap())
            .unwrap();
    assert_all_green(&report, "from a directory outside the repository");
    let from_repo = judge(&["run", "--jobs", "2"], Duration::from_secs(300));
    let ids = |report: &Report| {
        report
            .cases
            .iter()
            .map(|c| c.scenario.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(&report), ids(&from_repo.report));
}

/// The correct reference server over both HTTP transports: every scenario
/// passes, or says why it does not apply.
#[test]
fn the_bundled_suite_passes_against_the_reference_server_over_http() {
    for (transport, path) in [("streamable", "/mcp"), ("sse", "/sse")] {
        let port = free_port();
        let server = start(&http_server::reference_server(port, None), port, path);
        let run = judge(
            &[
                "run",
                "--url",
                &server.url,
                "--transport",
                transport,
                "--profile",
                "reference",
            ],
            Duration::from_secs(300),
        );
        assert_eq!(run.code(), Some(0), "over {transport}:\n{}", run.stdout());
        assert_all_green(&run.report, &format!("over {transport}"));
    }
}

/// `--start` starts the server, waits for its port, runs, and kills it.
#[test]
fn run_starts_and_stops_the_server_it_is_given() {
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let server = http_server::reference_server(port, None).join(" ");
    let run = judge(
        &[
            "run",
            "--url",
            &url,
            "--start",
            &server,
            "--profile",
            "reference",
            "--filter",
            "http.notification",
        ],
        Duration::from_secs(60),
    );
    assert_eq!(run.code(), Some(0), "{}", run.stdout());
    assert_eq!(
        common::report::verdict_table(&run.report),
        format!(
            "{:<40} pass\n{:<40} not-applicable",
            "http.notification-202", "http.notification-202-stateless"
        )
    );
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
        "the started server still listens after the run"
    );
}

#[test]
fn a_broken_scenario_file_is_a_located_diagnostic_and_exit_2() {
    let output = mcp_conform()
        .args(["run", &fixture("fixtures/invalid-scenarios")])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("error"), "{stderr}");
    assert!(
        stderr.contains("invalid-scenarios/") && stderr.contains(".yaml:"),
        "{stderr}"
    );
}

#[test]
fn a_server_that_never_answers_gets_a_timeout_verdict_within_budget() {
    let (code, stdout) = run_ping("sleep 600", &["--startup-timeout", "1"]);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stdout.contains("no answer to initialize within 1000 ms"),
        "{stdout}"
    );
}

/// A run of `fixtures/servers/unusual.py` with `bug` switched on, over stdio.
fn run_unusual(bug: &str, args: &[&str]) -> Judged {
    let profile = fixture("fixtures/servers/unusual.profile.yaml");
    let server = format!("python3 {} bug={bug}", fixture("fixtures/servers/unusual.py"));
    let mut all = vec!["run", "--profile", &profile, "--stdio", &server];
    all.extend_from_slice(args);
    judge(&all, Duration::from_secs(60))
}

/// `check` failed under `requirement`, its message ending in `says`.
fn assert_fails_under(check: &CheckResult, requirement: &str, says: &str) {
    assert_eq!(
        (check.requirement.as_str(), check.verdict),
        (requirement, Verdict::Fail)
    );
    let message = check.message.as_deref().unwrap_or_default();
    assert!(message.ends_with(says), "{message}");
}

/// The server answers `initialize` under its id, without `jsonrpc`: an
/// answer, broken (RPC-001), not silence. Its cases fail at once, those not
/// started say why, and the run is a failure (1), not an infrastructure
/// error (3). Before, each case waited out the startup timeout.
#[test]
fn a_server_answering_initialize_without_jsonrpc_fails_and_the_rest_say_why() {
    let run = run_unusual("no-jsonrpc", &[]);
    assert_eq!(run.code(), Some(1), "{}", run.stdout());
    let verdicts = |verdict| run.report.cases.iter().filter(move |c| c.verdict == verdict);
    assert!(verdicts(Verdict::Fail).count() >= 2, "{}", run.stdout());
    for case in verdicts(Verdict::Fail) {
        let initialize = case.checks.iter().find(|c| c.name == "answer to initialize");
        let initialize = initialize.unwrap_or_else(|| panic!("{}: no initialize check", case.scenario));
        assert_fails_under(
            initialize,
            "RPC-001",
            "the server answered initialize with a message that is not JSON-RPC 2.0: `jsonrpc` member is missing",
        );
    }
    let not_run: Vec<_> = verdicts(Verdict::NotObserved).collect();
    assert!(!not_run.is_empty(), "{}", run.stdout());
    for case in not_run {
        let note = case.note.as_deref().unwrap_or_default();
        assert!(
            note.starts_with("not run: the peer answered only with messages that are not JSON-RPC 2.0"),
            "{}: {note}",
            case.scenario
        );
    }
    assert_eq!(verdicts(Verdict::Error).count(), 0, "{}", run.stdout());
}

/// A step's request answered under its id with both `result` and `error`:
/// the answer came, broken (RPC-005, as the frame checker cites it), and the
/// step says so at once instead of waiting out its timeout for another.
#[test]
fn a_step_answered_with_a_message_that_is_not_json_rpc_fails_under_its_envelope_rule() {
    let run = run_unusual("error-with-result", &["--filter", "tools.unknown-tool"]);
    assert_eq!(run.code(), Some(1), "{}", run.stdout());
    let checks = run.report.cases.iter().flat_map(|case| &case.checks);
    let step = checks
        .filter(|c| c.name == "response to tools/call")
        .collect::<Vec<_>>();
    let [step] = step.as_slice() else {
        panic!("not one check of the step: {}", run.stdout());
    };
    assert_fails_under(
        step,
        "RPC-005",
        "is not JSON-RPC 2.0: a response has both `result` and `error`",
    );
}

#[test]
fn a_server_that_crashes_mid_scenario_is_reported_with_its_exit_status() {
    let script = fixture("fixtures/servers/crash-after-initialize.sh");
    let (code, stdout) = run_ping(&format!("sh {script}"), &[]);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(stdout.contains("exited with status 7"), "{stdout}");
    assert!(
        stdout.contains("about to crash"),
        "the stderr tail is shown: {stdout}"
    );
}

/// Runs the ping scenario against `server`; returns the exit code and stdout.
fn run_ping(server: &str, extra: &[&str]) -> (Option<i32>, String) {
    let output = mcp_conform()
        .args(["run", "--stdio", server, "--filter", "lifecycle.ping"])
        .args(extra)
        .timeout(std::time::Duration::from_secs(30))
        .output()
        .unwrap();
    (output.status.code(), stdout_of(&output))
}

#[test]
fn a_server_that_cannot_start_is_an_infrastructure_error() {
    let output = mcp_conform()
        .args([
            "run",
            "--stdio",
            "/nonexistent/mcp-server",
            "--filter",
            "lifecycle.ping",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3), "{}", stdout_of(&output));
}

#[test]
fn a_run_that_selects_nothing_is_an_error_not_green() {
    let output = mcp_conform()
        .args(["run", "--filter", "no-such-scenario-id"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn the_schema_command_prints_the_checked_in_schema() {
    let output = mcp_conform().arg("schema").output().unwrap();
    let printed: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let checked_in: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("scenarios/scenario.schema.json")).unwrap())
            .unwrap();
    assert_eq!(printed, checked_in);
}

#[test]
fn ctrl_c_stops_the_run_kills_the_peer_and_still_reports() {
    let marker = format!("mcp-conform-ctrl-c-{}", std::process::id());
    let server = format!("sh -c 'sleep 600; echo {marker}'");
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("mcp-conform"))
        .args([
            "run",
            "--stdio",
            &server,
            "--filter",
            "lifecycle.ping",
            "--startup-timeout",
            "60",
        ])
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let started = std::time::Instant::now();
    let output = child.wait_with_output().unwrap();
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "stopped promptly"
    );
    assert_eq!(output.status.code(), Some(3));
    let stdout = stdout_of(&output);
    assert!(
        stdout.contains("ERROR") && stdout.contains("interrupted"),
        "{stdout}"
    );
    let leftover = std::process::Command::new("pgrep")
        .args(["-f", &marker])
        .output()
        .unwrap();
    assert!(leftover.stdout.is_empty(), "the peer's process group is gone");
}

#[test]
fn requirements_are_listed_with_coverage_and_explained() {
    let output = mcp_conform()
        .args(["list", "--requirements", "--version", "2025-11-25"])
        .output()
        .unwrap();
    let stdout = stdout_of(&output);
    assert_eq!(output.status.code(), Some(0));
    let tool_002 = stdout
        .lines()
        .find(|l| l.starts_with("TOOL-002"))
        .unwrap_or_default();
    assert!(
        tool_002.contains("covered") && tool_002.contains("tools.list"),
        "{stdout}"
    );
    assert!(stdout.contains("not automatable"), "{stdout}");
    let explained = mcp_conform().args(["explain", "TOOL-002"]).output().unwrap();
    let text = stdout_of(&explained);
    assert!(
        text.contains("modelcontextprotocol.io/specification/2025-11-25/server/tools"),
        "{text}"
    );
    assert!(text.contains("scenario tools.list"), "{text}");
    assert_eq!(
        mcp_conform()
            .args(["explain", "NOPE-000"])
            .output()
            .unwrap()
            .status
            .code(),
        Some(2)
    );
}

/// `explain` given a scenario ID tells its purpose, what it checks and its
/// steps in words, nested steps under their loop.
#[test]
fn a_scenario_is_explained_in_words() {
    let explained = mcp_conform()
        .args(["explain", "resources.read-listed"])
        .output()
        .unwrap();
    let text = stdout_of(&explained);
    assert_eq!(explained.status.code(), Some(0), "{text}");
    assert!(text.contains("Every listed resource can be read"), "{text}");
    assert!(text.contains("read-listed.yaml"), "{text}");
    assert!(text.contains("checks RES-002: "), "{text}");
    assert!(text.contains("needs capability resources"), "{text}");
    assert!(
        text.contains("1. page through resources/list collecting `resources`"),
        "{text}"
    );
    assert!(text.contains("2. for each `resource` in `listed`:"), "{text}");
    assert!(
        text.contains("      1. send request resources/read, expecting a matching result"),
        "{text}"
    );
}

/// `new scenario` writes a skeleton that loads, runs to a not-applicable
/// that names it a skeleton (never a pass), and runs its steps once the
/// marked line is deleted; it never overwrites a file.
#[test]
fn a_new_scenario_skeleton_loads_and_is_not_passed_until_written() {
    let dir = tempfile::tempdir().unwrap();
    let dir_arg = dir.path().display().to_string();
    let made = mcp_conform()
        .args(["new", "scenario", "acme.echo", "--dir", &dir_arg])
        .output()
        .unwrap();
    assert_eq!(made.status.code(), Some(0), "{}", stdout_of(&made));
    let path = dir.path().join("acme.echo.yaml");
    let skeleton = std::fs::read_to_string(&path).unwrap();
    assert!(skeleton.starts_with("# yaml-language-server: $schema=scenario.schema.json"));
    assert!(dir.path().join("scenario.schema.json").exists());
    let run = mcp_conform().args(["run", &dir_arg]).output().unwrap();
    let text = stdout_of(&run);
    assert!(
        text.contains("not-applicable acme.echo") && text.contains("unwritten-skeleton"),
        "{text}"
    );
    assert!(!text.contains("1 pass"), "{text}");
    let written: String = skeleton
        .lines()
        .filter(|l| !l.starts_with("requires:"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&path, written).unwrap();
    let run = mcp_conform().args(["run", &dir_arg]).output().unwrap();
    assert!(stdout_of(&run).contains("1 pass"), "{}", stdout_of(&run));
    let again = mcp_conform()
        .args(["new", "scenario", "acme.echo", "--dir", &dir_arg])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(2));
}

/// `--protocol all` asks the server which versions it speaks and runs each
/// scenario once per version it applies to; every report says so.
#[test]
fn protocol_all_runs_each_scenario_on_every_version_the_server_speaks() {
    let dir = tempfile::tempdir().unwrap();
    let output = mcp_conform()
        .args([
            "run",
            "--protocol",
            "all",
            "--filter",
            "tools.list",
            "--show",
            "pass",
            "--report-dir",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = stdout_of(&output);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
    let (markdown, junit, html) = (read("report.md"), read("junit.xml"), read("report.html"));
    let json: serde_json::Value = serde_json::from_str(&read("report.json")).unwrap();
    let versions = [
        "2024-11-05",
        "2025-03-26",
        "2025-06-18",
        "2025-11-25",
        "2026-07-28",
    ];
    let cases: Vec<&str> = json["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|case| case["protocol_version"].as_str().unwrap())
        .collect();
    assert_eq!(cases, versions);
    for version in versions {
        assert!(stdout.contains(&format!("tools.list@{version}")), "{stdout}");
        assert!(stdout.contains(&format!("\n  {version}   1 pass")), "{stdout}");
        assert!(
            markdown.contains(&format!("| {version} | 0 | 0 | 0 | 0 | 0 | 1 |")),
            "{markdown}"
        );
        assert!(junit.contains(&format!("tools.list@{version}")), "{junit}");
        assert!(
            html.contains(&format!("<th>{version}</th>")),
            "the matrix has a column per version"
        );
    }
    let unknown = mcp_conform()
        .args(["run", "--protocol", "2099-01-01"])
        .output()
        .unwrap();
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("or `all`"));
}

/// A legacy server (one that answers any request, with legacy results, and
/// refuses server/discover) is not judged by the rules of 2026-07-28: its
/// scenarios do not apply, or what they need is not observed; none fails.
#[test]
fn a_legacy_server_is_not_judged_by_the_stateless_rules() {
    let legacy = r#"sh -c 'while read -r line; do id=$(printf "%s" "$line" | sed -n "s/.*\"id\":\(\"[^\"]*\"\|[0-9]*\).*/\1/p"); case "$line" in *server/discover*) echo "{\"jsonrpc\":\"2.0\",\"id\":$id,\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}";; *) echo "{\"jsonrpc\":\"2.0\",\"id\":$id,\"result\":{\"tools\":[]}}";; esac; done'"#;
    let run = judge(
        &[
            "run",
            "--stdio",
            legacy,
            "--protocol",
            "2026-07-28",
            "--filter",
            "stateless.discover",
            "--filter",
            "tools.list",
        ],
        Duration::from_secs(60),
    );
    assert_eq!(run.code(), Some(0), "{}", run.stdout());
    assert_eq!(
        common::report::verdict_table(&run.report),
        format!(
            "{:<40} not-observed\n{:<40} not-applicable",
            "stateless.discover", "tools.list"
        )
    );
    let notes: Vec<&str> = run
        .report
        .cases
        .iter()
        .filter_map(|case| case.note.as_deref())
        .collect();
    assert!(
        notes
            .iter()
            .any(|note| note.contains("a legacy server: server/discover is not a method it knows")),
        "{notes:?}"
    );
}

#[test]
fn zero_jobs_and_zero_startup_timeout_are_refused() {
    for (command, option) in [
        ("run", "--jobs"),
        ("run", "--startup-timeout"),
        ("test-client", "--jobs"),
        ("test-client", "--startup-timeout"),
        ("test-gateway", "--jobs"),
        ("test-gateway", "--startup-timeout"),
    ] {
        let target = match command {
            "run" => "--url=http://127.0.0.1:9/mcp",
            _ => "--command=x {server}",
        };
        let output = mcp_conform()
            .args([command, target, option, "0"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{command} {option} 0: {stderr}");
        assert!(
            stderr.contains(&format!("invalid value '0' for '{option}"))
                && stderr.contains("must be 1 or more"),
            "{command} {option} 0: {stderr}"
        );
    }
}

#[test]
fn a_symlink_cycle_in_a_scenario_directory_exits_2_without_hanging() {
    let dir = tempfile::TempDir::new().unwrap();
    std::fs::copy(
        fixture("scenarios/server/lifecycle/ping.yaml"),
        dir.path().join("ping.yaml"),
    )
    .unwrap();
    std::os::unix::fs::symlink(".", dir.path().join("loop")).unwrap();
    for command in ["run", "list"] {
        let output = mcp_conform()
            .arg(command)
            .arg(dir.path())
            .timeout(Duration::from_secs(20))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{command}: {stderr}");
        assert!(
            stderr.contains("symlink cycle") && stderr.contains("/loop:"),
            "{stderr}"
        );
    }
}

/// `serve --http` on any loopback address prints a URL its own Host check
/// accepts (it refused all but 127.0.0.1 with 403).
#[test]
fn serve_on_another_loopback_address_accepts_its_own_url() {
    use std::io::{BufRead as _, Read as _, Write as _};
    let mut serve = std::process::Command::new(assert_cmd::cargo::cargo_bin("mcp-conform"))
        .args([
            "serve",
            &fixture("scenarios/client/lifecycle/lifecycle.yaml"),
            "--http",
            "127.0.0.2:0",
            "--startup-timeout",
            "5",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut url = String::new();
    std::io::BufReader::new(serve.stdout.take().unwrap())
        .read_line(&mut url)
        .unwrap();
    let authority = url
        .trim()
        .strip_prefix("http://")
        .and_then(|rest| rest.split_once('/'))
        .map(|(authority, _)| authority.to_owned())
        .unwrap_or_else(|| panic!("not a URL: {url}"));
    let mut connection = std::net::TcpStream::connect(&authority).unwrap();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    write!(
        connection,
        "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    let _ = connection.read_to_string(&mut answer);
    let _ = serve.kill();
    let _ = serve.wait();
    let status = answer.lines().next().unwrap_or_default();
    assert!(
        status.starts_with("HTTP/1.1 ") && !status.contains(" 403"),
        "{url}: {answer}"
    );
}

/// A server that accepts connections and never sends headers costs the
/// startup timeout once (it cost twice: the send waited for the headers,
/// then the wait for the answer started over).
#[test]
fn a_server_that_never_sends_headers_costs_the_startup_timeout_once() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let held: Vec<_> = listener.incoming().collect();
        drop(held);
    });
    let started = std::time::Instant::now();
    let run = judge(
        &[
            "run",
            "--url",
            &url,
            "--transport",
            "streamable",
            "--filter",
            "lifecycle.ping",
            "--startup-timeout",
            "2",
        ],
        Duration::from_secs(30),
    );
    let took = started.elapsed();
    assert_eq!(run.code(), Some(1), "{}", run.stdout());
    assert!(
        run.stdout().contains("no answer to initialize within 2000 ms"),
        "{}",
        run.stdout()
    );
    assert!(
        took < Duration::from_millis(3500),
        "took {took:?} for a 2 s limit"
    );
}

/// `serve --protocol 2026-07-28` answers `server/discover` as a server of
/// that era; by default it is a 2025-11-25 server, for which the method
/// does not exist (-32601: a dual-era client then falls back to initialize).
#[test]
fn serve_answers_server_discover_in_the_stateless_era_only() {
    use std::io::{BufRead as _, Write as _};
    let discover = r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    let answer = |protocol: &[&str]| {
        let mut serve = std::process::Command::new(assert_cmd::cargo::cargo_bin("mcp-conform"))
            .arg("serve")
            .arg(fixture("scenarios/client/list-changed/tools.yaml"))
            .args(protocol)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        writeln!(serve.stdin.as_mut().unwrap(), "{discover}").unwrap();
        let mut line = String::new();
        std::io::BufReader::new(serve.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let _ = serve.kill();
        let _ = serve.wait();
        serde_json::from_str::<serde_json::Value>(&line).unwrap_or_else(|_| panic!("not JSON: {line}"))
    };
    let modern = answer(&["--protocol", "2026-07-28"]);
    assert_eq!(
        modern["result"]["supportedVersions"],
        serde_json::json!(["2026-07-28"]),
        "{modern}"
    );
    assert_eq!(modern["result"]["resultType"], "complete", "{modern}");
    let legacy = answer(&[]);
    assert_eq!(legacy["error"]["code"], -32601, "{legacy}");
}
