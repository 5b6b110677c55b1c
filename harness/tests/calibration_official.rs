//! Calibration against the official MCP conformance suite, the "referee": npm
//! `@modelcontextprotocol/conformance@0.1.16`, run with the Node 22 that
//! `scripts/install-peers.sh` installs next to it.
//!
//! Both suites judge the same server, the npm everything server in
//! `streamableHttp` mode on 127.0.0.1 (a free port; the loopback shim keeps it
//! off every other interface), ours with `--profile everything` (see
//! [`our_target`]).
//!
//! `fixtures/calibration/official-0.1.16.yaml` maps each of their scenarios to
//! ours with a relation, `agree`, `differs` or `not-compared`; its header
//! defines how verdicts are read and paired. The test fails on a disagreement,
//! on a difference that changed or went stale, on a check of theirs that no
//! entry maps, and on an entry that matches nothing. Without the peers it is
//! ignored with the reason (see `common::needs`).
//!
//! The same for clients: `fixtures/calibration/official-0.1.16-client.yaml`
//! maps each of their client authorization scenarios to ours, both suites
//! judging the same fixture hosts on the official SDKs in their OAuth modes
//! (theirs through `fixtures/calibration/official-client.cjs`, which
//! translates their conventions to the fixtures').
//!
//! Also here: the reference server judged with the official schemas
//! (`--schema-dir`, from the official spec files laid beside the repository).

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use assert_cmd::Command;
use common::needs::{PeersEnv, Tests, official_spec, peers_with};
use common::report::judge;
use mcp_conform_report::{Report, Verdict};
use serde::Deserialize;

mod common;

const MAPPING: &str = "fixtures/calibration/official-0.1.16.yaml";
const CLIENT_MAPPING: &str = "fixtures/calibration/official-0.1.16-client.yaml";
/// Runs a fixture host as their client command (see its header).
const CLIENT_ADAPTER: &str = "fixtures/calibration/official-client.cjs";
/// How many of their client scenarios run at once, for each client.
const THEIR_CLIENT_WORKERS: usize = 2;
/// Each of their client scenarios waits this long for the client (their default).
const THEIR_CLIENT_TIMEOUT_MS: &str = "30000";
/// How long our client runs give a client to reach the mock server: the
/// two clients' runs share two cores with their suite's.
const OUR_CLIENT_STARTUP_SECS: &str = "30";
/// The clients of the client calibration: their name in the mapping, and
/// the peers.env key of their OAuth command (`… --oauth {url}`).
const CLIENTS: [(&str, &str); 2] = [
    ("python", "PY_OAUTH_CLIENT_CMD"),
    ("typescript", "TS_OAUTH_CLIENT_CMD"),
];
const CATALOGUE: &str = "harness/core/src/requirements/catalogue.yaml";
/// How long the HTTP server has to accept connections.
const SERVER_START: Duration = Duration::from_secs(30);
/// Their whole suite takes about 3 s; ours about 15 s.
const THEIR_TIMEOUT: Duration = Duration::from_secs(180);
const OUR_TIMEOUT: Duration = Duration::from_secs(600);

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn var<'a>(env: &'a PeersEnv, key: &str) -> &'a str {
    env.get(key)
        .unwrap_or_else(|| panic!("{key} missing from peers.env; rerun scripts/install-peers.sh"))
}

/// How our suite reaches the everything server: the same Streamable HTTP
/// endpoint theirs judges.
fn our_target(http_url: &str) -> [&str; 4] {
    ["--url", http_url, "--transport", "streamable"]
}

// ---------------------------------------------------------------- mapping

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Mapping {
    suite: String,
    /// The server both suites judge (the server mapping).
    #[serde(default)]
    server: Option<String>,
    /// The clients both suites judge, by name (the client mapping).
    #[serde(default)]
    clients: BTreeMap<String, String>,
    entries: Vec<Entry>,
}

impl Mapping {
    fn read(path: &str) -> Mapping {
        let text = std::fs::read_to_string(repo().join(path)).unwrap();
        serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    /// The entries that apply to `client` (all of them for the server).
    fn entries_for<'a>(&'a self, client: Option<&'a str>) -> impl Iterator<Item = &'a Entry> {
        self.entries
            .iter()
            .filter(move |entry| entry.client.is_none() || entry.client.as_deref() == client)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    /// Their scenario.
    official: String,
    /// One check id of that scenario; all of its checks when absent.
    #[serde(default)]
    check: Option<String>,
    /// Our scenario id.
    #[serde(default)]
    ours: Option<String>,
    /// Only our steps citing these requirement IDs count.
    #[serde(default)]
    requirements: Vec<String>,
    relation: Relation,
    /// For `differs`: the pair of verdicts seen.
    #[serde(default)]
    theirs: Option<String>,
    #[serde(default)]
    ours_verdict: Option<String>,
    #[serde(default)]
    reason: Option<String>,
    /// `http-only`: the entry compares the HTTP transport itself.
    #[serde(default)]
    transport: Option<String>,
    /// The client mapping: the one client the entry is for (all without).
    #[serde(default)]
    client: Option<String>,
    /// The client mapping: the version our run answers for this entry, for a
    /// scenario of ours that applies to no other (2025-11-25 without).
    #[serde(default)]
    version: Option<String>,
}

impl Entry {
    fn label(&self) -> String {
        let scenario = match &self.check {
            Some(check) => format!("{}:{check}", self.official),
            None => self.official.clone(),
        };
        match &self.client {
            Some(client) => format!("{scenario} [{client}]"),
            None => scenario,
        }
    }

    fn matches(&self, check: &TheirCheck) -> bool {
        self.official == check.scenario && self.check.as_ref().is_none_or(|id| *id == check.id)
    }
}

#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
enum Relation {
    Agree,
    Differs,
    NotCompared,
}

impl Relation {
    fn name(self) -> &'static str {
        match self {
            Relation::Agree => "agree",
            Relation::Differs => "differs",
            Relation::NotCompared => "not-compared",
        }
    }
}

/// The pairs that count as the same judgement (see the mapping's header).
fn verdicts_agree(theirs: &str, ours: &str) -> bool {
    matches!(
        (theirs, ours),
        ("SUCCESS", "pass") | ("FAILURE", "fail" | "non-strict") | ("WARNING", "non-strict")
    )
}

/// Problems in the mapping itself, before anything runs.
fn lint_mapping(mapping: &Mapping) -> Vec<String> {
    let catalogue = std::fs::read_to_string(repo().join(CATALOGUE)).unwrap();
    let known: BTreeSet<&str> = catalogue
        .lines()
        .filter_map(|line| line.strip_prefix("- id: "))
        .map(str::trim)
        .collect();
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for entry in &mapping.entries {
        let label = entry.label();
        let mut problem = |text: &str| problems.push(format!("mapping entry {label}: {text}"));
        if !seen.insert(label.clone()) {
            problem("listed twice");
        }
        for requirement in &entry.requirements {
            if !known.contains(requirement.as_str()) {
                problem(&format!("unknown requirement {requirement}"));
            }
        }
        if entry.transport.as_deref().is_some_and(|t| t != "http-only") {
            problem("transport can only be http-only");
        }
        if let Some(client) = &entry.client
            && !mapping.clients.contains_key(client)
        {
            problem(&format!("client {client} is not one of the mapping's clients"));
        }
        if entry.version.is_some() && entry.ours.is_none() {
            problem("version needs `ours`");
        }
        let pair = (entry.theirs.as_deref(), entry.ours_verdict.as_deref());
        match entry.relation {
            Relation::Agree if entry.ours.is_none() => problem("agree needs `ours`"),
            Relation::Agree if pair != (None, None) => problem("agree takes no `theirs`/`ours_verdict`"),
            Relation::Differs => match pair {
                (Some(theirs), Some(ours)) if verdicts_agree(theirs, ours) => {
                    problem("the recorded pair agrees; that is not a difference")
                }
                (Some(_), Some(_)) if entry.ours.is_some() && entry.reason.is_some() => {}
                _ => problem("differs needs `ours`, `theirs`, `ours_verdict` and `reason`"),
            },
            Relation::NotCompared if entry.reason.is_none() => problem("not-compared needs `reason`"),
            Relation::NotCompared if pair != (None, None) => {
                problem("not-compared takes no `theirs`/`ours_verdict`")
            }
            _ => {}
        }
    }
    problems
}

// ---------------------------------------------------------------- theirs

/// The everything server over Streamable HTTP on 127.0.0.1; killed on drop.
#[derive(Debug)]
struct HttpServer {
    child: Child,
    url: String,
}

impl HttpServer {
    fn start(env: &PeersEnv, log: &Path) -> HttpServer {
        let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .and_then(|listener| listener.local_addr())
            .unwrap()
            .port();
        let log_file = File::create(log).unwrap();
        let child = std::process::Command::new(var(env, "NODE22"))
            .arg("--require")
            .arg(var(env, "LOOPBACK_SHIM"))
            .arg(var(env, "EVERYTHING_SERVER_JS"))
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdin(Stdio::null())
            .stdout(log_file.try_clone().unwrap())
            .stderr(log_file)
            .spawn()
            .expect("start the everything server over HTTP");
        let mut server = HttpServer {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        };
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        let deadline = Instant::now() + SERVER_START;
        while TcpStream::connect_timeout(&address, Duration::from_millis(200)).is_err() {
            let log = || std::fs::read_to_string(log).unwrap_or_default();
            if let Some(status) = server.child.try_wait().unwrap() {
                panic!("the HTTP server exited ({status}) before accepting:\n{}", log());
            }
            assert!(
                Instant::now() < deadline,
                "the HTTP server did not accept on port {port} within {SERVER_START:?}:\n{}",
                log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        server
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[derive(Debug)]
struct TheirCheck {
    scenario: String,
    id: String,
    status: String,
    error: String,
}

/// Runs their server suite against `url`; returns every check of every
/// `checks.json` it wrote.
fn run_theirs(env: &PeersEnv, url: &str, out: &Path) -> Vec<TheirCheck> {
    let output = Command::new(var(env, "NODE22"))
        .arg(var(env, "CONFORMANCE_CLI"))
        .args(["server", "--url", url, "-o"])
        .arg(out)
        .timeout(THEIR_TIMEOUT)
        .output()
        .expect("their suite ran");
    let stdout = String::from_utf8_lossy(&output.stdout);
    // 0: all passed, 1: some check failed; anything else is a crash.
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "their suite crashed ({}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let checks = read_checks(out, "server-", "");
    assert!(!checks.is_empty(), "their suite wrote no checks.json:\n{stdout}");
    checks
}

/// Every check of the `checks.json` files in the result folders of `dir`,
/// each folder named `<folder_prefix><scenario>-<timestamp>`; their
/// scenario is `<scenario_prefix><scenario>`.
fn read_checks(dir: &Path, folder_prefix: &str, scenario_prefix: &str) -> Vec<TheirCheck> {
    let folder = regex::Regex::new(&format!(
        r"^{folder_prefix}(.+)-\d{{4}}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{{3}}Z$"
    ))
    .unwrap();
    let mut checks = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let scenario = folder
            .captures(&name)
            .unwrap_or_else(|| panic!("unexpected result folder {name} (format changed?)"))[1]
            .to_owned();
        let text = std::fs::read_to_string(dir.join(&name).join("checks.json")).unwrap();
        let list: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
        for check in list {
            let field = |key: &str| check[key].as_str().unwrap_or_default().to_owned();
            checks.push(TheirCheck {
                scenario: format!("{scenario_prefix}{scenario}"),
                id: field("id"),
                status: field("status"),
                error: field("errorMessage"),
            });
        }
    }
    checks.sort_by(|a, b| (&a.scenario, &a.id).cmp(&(&b.scenario, &b.id)));
    checks
}

/// Their client command for the fixture host whose OAuth command is
/// `oauth_command` (`[VAR=VALUE ...] PROGRAM ARGS... --oauth {url}`): the
/// adapter in front of the program, the mode and URL left to the adapter.
fn their_client_command(oauth_command: &str) -> String {
    let fixture = oauth_command
        .strip_suffix(" --oauth {url}")
        .unwrap_or_else(|| panic!("not an OAuth command: {oauth_command}"));
    let words: Vec<&str> = fixture.split(' ').collect();
    let program = words
        .iter()
        .position(|word| !word.contains('='))
        .expect("a program");
    let adapter = repo().join(CLIENT_ADAPTER);
    format!(
        "{} node {} {}",
        words[..program].join(" "),
        adapter.display(),
        words[program..].join(" ")
    )
    .trim_start()
    .to_owned()
}

/// Their client scenarios whose name starts with `auth/`, as their CLI
/// lists them.
fn their_auth_scenarios(env: &PeersEnv) -> BTreeSet<String> {
    let output = Command::new(var(env, "NODE22"))
        .arg(var(env, "CONFORMANCE_CLI"))
        .args(["list", "--client"])
        .timeout(THEIR_TIMEOUT)
        .output()
        .expect("their suite listed its scenarios");
    let listing = String::from_utf8_lossy(&output.stdout);
    let scenarios: BTreeSet<String> = listing
        .lines()
        .filter_map(|line| line.trim().strip_prefix("- "))
        .filter_map(|item| item.split_whitespace().next())
        .filter(|name| name.starts_with("auth/"))
        .map(str::to_owned)
        .collect();
    assert!(
        !scenarios.is_empty(),
        "their listing has no auth/ scenario:\n{listing}"
    );
    scenarios
}

/// Runs `scenarios` of their client suite against `command`, a few at a
/// time; returns every check they wrote.
fn run_their_clients(env: &PeersEnv, command: &str, scenarios: &[&str], out: &Path) -> Vec<TheirCheck> {
    std::fs::create_dir_all(out).unwrap();
    let queue = Mutex::new(scenarios.iter());
    std::thread::scope(|scope| {
        for _ in 0..THEIR_CLIENT_WORKERS {
            scope.spawn(|| {
                while let Some(scenario) = queue.lock().unwrap().next() {
                    run_their_client(env, command, scenario, out);
                }
            });
        }
    });
    let checks = read_checks(&out.join("auth"), "", "auth/");
    assert!(!checks.is_empty(), "their client scenarios wrote no checks.json");
    checks
}

fn run_their_client(env: &PeersEnv, command: &str, scenario: &str, out: &Path) {
    let output = Command::new(var(env, "NODE22"))
        .arg(var(env, "CONFORMANCE_CLI"))
        .args([
            "client",
            "--scenario",
            scenario,
            "--timeout",
            THEIR_CLIENT_TIMEOUT_MS,
        ])
        .args(["--command", command, "-o"])
        .arg(out)
        .timeout(THEIR_TIMEOUT)
        .output()
        .expect("their client scenario ran");
    // 0: all passed, 1: some check failed; anything else is a crash.
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "their {scenario} crashed ({}):\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    // A client they killed leaves partial checks, whose FAILUREs would read
    // as a disagreement: say what happened instead.
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stderr.contains("Client timed out"),
        "their {scenario}: the client did not finish within {THEIR_CLIENT_TIMEOUT_MS} ms \
         (a machine too busy?), so its checks are partial:\n{stderr}"
    );
}

/// FAILURE over WARNING over SUCCESS over the rest.
fn their_status<'a>(checks: impl Iterator<Item = &'a TheirCheck>) -> String {
    const ORDER: [&str; 5] = ["FAILURE", "WARNING", "SUCCESS", "SKIPPED", "INFO"];
    let statuses: BTreeSet<&str> = checks.map(|c| c.status.as_str()).collect();
    ORDER
        .iter()
        .find(|status| statuses.contains(*status))
        .or(statuses.first())
        .map(|status| status.to_string())
        .unwrap_or_else(|| "(none)".into())
}

// ---------------------------------------------------------------- ours

#[derive(Debug, Default)]
struct OurRun {
    /// Scenario id → verdict.
    verdicts: BTreeMap<String, Verdict>,
    /// Scenario id → (verdict, requirement) of each check that fell short.
    flagged: BTreeMap<String, Vec<(Verdict, String)>>,
    /// How many scenarios the run selected.
    selected: usize,
    stdout: String,
}

fn run_ours(http_url: &str) -> OurRun {
    let mut args = vec!["run"];
    args.extend(our_target(http_url));
    args.extend(["--profile", "everything", "--jobs", "2"]);
    let run = judge(&args, OUR_TIMEOUT);
    OurRun {
        stdout: run.stdout(),
        ..ours(&run.report)
    }
}

/// The verdicts of our report, and the checks that fell short.
fn ours(report: &Report) -> OurRun {
    let mut run = OurRun {
        selected: report.run.suite.scenarios,
        ..OurRun::default()
    };
    for case in &report.cases {
        run.verdicts.insert(case.scenario.clone(), case.verdict);
        let short = case
            .checks
            .iter()
            .filter(|check| check.verdict >= Verdict::NonStrict);
        run.flagged.insert(
            case.scenario.clone(),
            short
                .map(|check| (check.verdict, check.requirement.clone()))
                .collect(),
        );
    }
    run
}

/// Our verdict for an entry (see the mapping's header); None when our run
/// has no such scenario.
fn our_verdict(run: &OurRun, entry: &Entry) -> Option<Verdict> {
    let scenario = entry.ours.as_ref()?;
    let verdict = *run.verdicts.get(scenario)?;
    if entry.requirements.is_empty() || !matches!(verdict, Verdict::Pass | Verdict::Fail | Verdict::NonStrict)
    {
        return Some(verdict);
    }
    let steps: Vec<Verdict> = run.flagged[scenario]
        .iter()
        .filter(|(_, requirement)| entry.requirements.contains(requirement))
        .map(|(verdict, _)| *verdict)
        .collect();
    Some(
        [Verdict::Fail, Verdict::NonStrict]
            .into_iter()
            .find(|v| steps.contains(v))
            .unwrap_or(Verdict::Pass),
    )
}

// ---------------------------------------------------------------- comparing

/// One row of the printed comparison.
type Row = [String; 6];

/// Compares `theirs` and `ours` entry by entry (the entries for `client`),
/// adding what is wrong to `problems`; returns the printed table's rows.
fn compare(
    mapping: &Mapping,
    client: Option<&str>,
    theirs: &[TheirCheck],
    ours: &OurRun,
    problems: &mut Vec<String>,
) -> Vec<Row> {
    // The client calibration runs only the scenarios it compares.
    let ran = |entry: &Entry| client.is_none() || entry.relation != Relation::NotCompared;
    let entries: Vec<&Entry> = mapping.entries_for(client).collect();
    // Every check of theirs is mapped once; every entry matches a check.
    for check in theirs {
        let matching = entries.iter().filter(|e| e.matches(check)).count();
        if matching != 1 {
            problems.push(format!(
                "their check {}:{} ({}) matches {matching} entries{}; it needs one",
                check.scenario,
                check.id,
                check.status,
                client.map(|c| format!(" for {c}")).unwrap_or_default()
            ));
        }
    }

    let mut rows = vec![[
        "their scenario".to_owned(),
        "theirs".into(),
        "our scenario".into(),
        "ours".into(),
        "relation".into(),
        "result".into(),
    ]];
    for entry in entries {
        let label = entry.label();
        let matched: Vec<&TheirCheck> = theirs.iter().filter(|c| entry.matches(c)).collect();
        let their = if matched.is_empty() && !ran(entry) {
            "not run".to_owned()
        } else {
            if matched.is_empty() {
                problems.push(format!("stale entry: their run reported nothing for {label}"));
            }
            their_status(matched.iter().copied())
        };
        let our = our_verdict(ours, entry);
        if let (Some(scenario), None) = (&entry.ours, &our) {
            problems.push(format!("{label}: our run has no scenario {scenario}"));
        }
        let our = our.map_or_else(|| "-".to_owned(), |verdict| verdict.to_string());
        let result = match entry.relation {
            Relation::NotCompared => "-".to_owned(),
            Relation::Agree if verdicts_agree(&their, &our) => "ok".into(),
            Relation::Agree => {
                problems.push(format!("DISAGREE {label}: theirs {their}, ours {our}"));
                "DISAGREE".into()
            }
            Relation::Differs => {
                let recorded = (entry.theirs.as_deref(), entry.ours_verdict.as_deref());
                if verdicts_agree(&their, &our) {
                    problems.push(format!(
                        "STALE difference {label}: theirs {their}, ours {our} now agree; \
                         make it `agree` in the mapping"
                    ));
                    "STALE".into()
                } else if recorded != (Some(their.as_str()), Some(our.as_str())) {
                    problems.push(format!(
                        "CHANGED difference {label}: recorded theirs {:?}, ours {:?}; \
                         seen theirs {their}, ours {our}",
                        recorded.0.unwrap_or_default(),
                        recorded.1.unwrap_or_default()
                    ));
                    "CHANGED".into()
                } else {
                    "ok".into()
                }
            }
        };
        let ours_label = match (&entry.ours, entry.requirements.is_empty()) {
            (None, _) => "-".to_owned(),
            (Some(scenario), true) => scenario.clone(),
            (Some(scenario), false) => format!("{scenario} [{}]", entry.requirements.join(",")),
        };
        rows.push([
            label,
            their,
            ours_label,
            our,
            entry.relation.name().into(),
            result,
        ]);
    }
    rows
}

fn print_rows(rows: &[Row]) {
    let widths: Vec<usize> = (0..6)
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap())
        .collect();
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        eprintln!("{}", cells.join("  ").trim_end());
    }
}

/// How many scenarios and checks each side judged, and in how long.
fn print_figures(theirs: &[TheirCheck], their_time: Duration, ours: &OurRun, our_time: Duration) {
    let count = |status: &str| theirs.iter().filter(|c| c.status == status).count();
    let scenarios: BTreeSet<&str> = theirs.iter().map(|c| c.scenario.as_str()).collect();
    let green = scenarios
        .iter()
        .filter(|s| {
            theirs
                .iter()
                .filter(|c| c.scenario == **s)
                .all(|c| matches!(c.status.as_str(), "SUCCESS" | "INFO"))
        })
        .count();
    eprintln!(
        "\ntheirs: {} scenarios ({green} green), {} checks: {} SUCCESS, {} FAILURE, {} WARNING, in {:.1}s",
        scenarios.len(),
        theirs.len(),
        count("SUCCESS"),
        count("FAILURE"),
        count("WARNING"),
        their_time.as_secs_f64()
    );
    eprintln!(
        "ours:   {} scenarios in {:.1}s",
        ours.verdicts.len(),
        our_time.as_secs_f64()
    );
}

/// The mapping's figures (of the entries for `client`), and their failures
/// with their messages.
fn print_relations(mapping: &Mapping, client: Option<&str>, theirs: &[TheirCheck]) {
    let relations = |relation: Relation| {
        mapping
            .entries_for(client)
            .filter(|e| e.relation == relation)
            .count()
    };
    eprintln!(
        "entries: {} agree, {} differs, {} not-compared",
        relations(Relation::Agree),
        relations(Relation::Differs),
        relations(Relation::NotCompared)
    );
    for check in theirs.iter().filter(|c| c.status == "FAILURE") {
        eprintln!("  their FAILURE {}:{}: {}", check.scenario, check.id, check.error);
    }
}

// ---------------------------------------------------------------- the test

fn verdicts_agree_with_the_official_suite(env: PeersEnv) {
    let mapping = Mapping::read(MAPPING);
    let mut problems = lint_mapping(&mapping);
    assert!(problems.is_empty(), "{MAPPING}:\n{}", problems.join("\n"));

    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("results");
    let server = HttpServer::start(&env, &work.path().join("server.log"));

    let t0 = Instant::now();
    let theirs = run_theirs(&env, &server.url, &out);
    let their_time = t0.elapsed();
    let t0 = Instant::now();
    let ours = run_ours(&server.url);
    let our_time = t0.elapsed();
    drop(server);
    assert_eq!(
        ours.verdicts.len(),
        ours.selected,
        "our whole suite ran:\n{}",
        ours.stdout
    );

    let rows = compare(&mapping, None, &theirs, &ours, &mut problems);
    eprintln!(
        "\ncalibration: {} vs mcp-conform on {}",
        mapping.suite,
        mapping.server.as_deref().unwrap_or_default()
    );
    eprintln!("(both over Streamable HTTP on 127.0.0.1)\n");
    print_rows(&rows);
    print_figures(&theirs, their_time, &ours, our_time);
    print_relations(&mapping, None, &theirs);

    assert!(
        problems.is_empty(),
        "calibration against {} failed:\n{}\n\nour output:\n{}",
        mapping.suite,
        problems.join("\n"),
        ours.stdout
    );
}

// ---------------------------------------------------------------- the client test

/// One client judged by both suites.
struct ClientRun {
    name: &'static str,
    theirs: Vec<TheirCheck>,
    their_time: Duration,
    ours: OurRun,
    our_time: Duration,
}

/// Runs their authorization scenarios the mapping compares for the
/// client whose OAuth command is peers.env's `key`, then ours.
fn run_client(env: &PeersEnv, mapping: &Mapping, name: &'static str, key: &str, work: &Path) -> ClientRun {
    let command = var(env, key);
    let compared: BTreeSet<&str> = mapping
        .entries_for(Some(name))
        .filter(|entry| entry.relation != Relation::NotCompared)
        .map(|entry| entry.official.as_str())
        .collect();
    let compared: Vec<&str> = compared.into_iter().collect();
    let t0 = Instant::now();
    let theirs = run_their_clients(env, &their_client_command(command), &compared, &work.join(name));
    let their_time = t0.elapsed();
    let t0 = Instant::now();
    let ours = run_our_client(command, mapping, name);
    ClientRun {
        name,
        theirs,
        their_time,
        ours,
        our_time: t0.elapsed(),
    }
}

/// Our scenarios the mapping names for `client`, against its OAuth command:
/// on 2025-11-25 (the version of their authorization scenarios), and those
/// of an entry with a `version` on that version alone.
fn run_our_client(command: &str, mapping: &Mapping, client: &str) -> OurRun {
    let mut by_version: BTreeMap<Option<&str>, BTreeSet<&str>> = BTreeMap::new();
    for entry in mapping.entries_for(Some(client)) {
        if let Some(ours) = entry.ours.as_deref() {
            by_version
                .entry(entry.version.as_deref())
                .or_default()
                .insert(ours);
        }
    }
    let mut merged = OurRun::default();
    for (version, scenarios) in by_version {
        let mut args = vec![
            "test-client",
            "--command",
            command,
            "--jobs",
            "2",
            "--startup-timeout",
            OUR_CLIENT_STARTUP_SECS,
        ];
        // `all` answers each scenario with each version it applies to; the
        // cases of other versions are left out below.
        if version.is_some() {
            args.extend(["--protocol", "all"]);
        }
        for scenario in scenarios {
            args.extend(["--filter", scenario]);
        }
        let mut run = judge(&args, OUR_TIMEOUT);
        if let Some(version) = version {
            run.report
                .cases
                .retain(|case| case.protocol_version.as_deref() == Some(version));
        }
        let ours = ours(&run.report);
        merged.selected += ours.selected;
        merged.verdicts.extend(ours.verdicts);
        merged.flagged.extend(ours.flagged);
        merged.stdout.push_str(&run.stdout());
    }
    merged
}

fn client_verdicts_agree_with_the_official_suite(env: PeersEnv) {
    let mapping = Mapping::read(CLIENT_MAPPING);
    let mut problems = lint_mapping(&mapping);
    assert!(problems.is_empty(), "{CLIENT_MAPPING}:\n{}", problems.join("\n"));
    // Every scenario of theirs has an entry, and every entry a scenario: the
    // not-compared ones are not run.
    let listed = their_auth_scenarios(&env);
    let mapped: BTreeSet<String> = mapping.entries.iter().map(|e| e.official.clone()).collect();
    for scenario in listed.difference(&mapped) {
        problems.push(format!(
            "unmapped: their scenario {scenario}; add it to {CLIENT_MAPPING}"
        ));
    }
    for scenario in mapped.difference(&listed) {
        problems.push(format!("stale entry: their suite no longer lists {scenario}"));
    }

    // The two clients side by side: each suite's time goes mostly to
    // waiting on the clients' interpreters.
    let work = tempfile::tempdir().unwrap();
    let runs: Vec<ClientRun> = std::thread::scope(|scope| {
        let handles: Vec<_> = CLIENTS
            .map(|(name, key)| scope.spawn(|| run_client(&env, &mapping, name, key, work.path())))
            .into_iter()
            .collect();
        handles.into_iter().map(|handle| handle.join().unwrap()).collect()
    });

    eprintln!("\nclient calibration: {} vs mcp-conform", mapping.suite);
    let mut outputs = String::new();
    for run in &runs {
        eprintln!("\n{}: {}\n", run.name, mapping.clients[run.name]);
        let mut found = Vec::new();
        if run.ours.verdicts.len() != run.ours.selected {
            found.push("our run did not judge every scenario it selected".to_owned());
        }
        let rows = compare(&mapping, Some(run.name), &run.theirs, &run.ours, &mut found);
        print_rows(&rows);
        print_figures(&run.theirs, run.their_time, &run.ours, run.our_time);
        problems.extend(
            found
                .into_iter()
                .map(|problem| format!("{}: {problem}", run.name)),
        );
        outputs.push_str(&run.ours.stdout);
    }
    for run in &runs {
        eprintln!("\n{}:", run.name);
        print_relations(&mapping, Some(run.name), &run.theirs);
    }

    assert!(
        problems.is_empty(),
        "client calibration against {} failed:\n{}\n\nour output:\n{outputs}",
        mapping.suite,
        problems.join("\n")
    );
}

// ---------------------------------------------------------------- the official schemas

/// With the official schemas (`--schema-dir`), the reference server still
/// passes every scenario: the schemas add no false failures.
fn the_reference_server_passes_with_the_official_schemas(spec: PathBuf) {
    let spec = spec.display().to_string();
    let run = judge(&["run", "--jobs", "2", "--schema-dir", &spec], OUR_TIMEOUT);
    assert_eq!(run.code(), Some(0), "{}", run.stdout());
}

// ---------------------------------------------------------------- without peers

fn entry(ours: &str, requirements: &[&str]) -> Entry {
    Entry {
        official: "x".into(),
        check: None,
        ours: Some(ours.into()),
        requirements: requirements.iter().map(|r| r.to_string()).collect(),
        relation: Relation::Agree,
        theirs: None,
        ours_verdict: None,
        reason: None,
        transport: None,
        client: None,
        version: None,
    }
}

/// Our run with `logging.set-level` non-strict under LOG-004 only.
fn sample_run() -> OurRun {
    let verdicts = [
        ("lifecycle.ping", Verdict::Pass),
        ("logging.set-level", Verdict::NonStrict),
        ("list-changed.tools", Verdict::NotObserved),
    ];
    OurRun {
        verdicts: verdicts.map(|(id, verdict)| (id.to_owned(), verdict)).into(),
        flagged: verdicts
            .map(|(id, _)| {
                let short = match id {
                    "logging.set-level" => vec![(Verdict::NonStrict, "LOG-004".to_owned())],
                    _ => Vec::new(),
                };
                (id.to_owned(), short)
            })
            .into(),
        selected: 3,
        stdout: String::new(),
    }
}

fn our_verdicts_narrow_to_the_cited_requirements() {
    let run = sample_run();
    let verdict = |ours, requirements: &[&str]| our_verdict(&run, &entry(ours, requirements));
    assert_eq!(verdict("logging.set-level", &[]), Some(Verdict::NonStrict));
    assert_eq!(
        verdict("logging.set-level", &["LOG-004"]),
        Some(Verdict::NonStrict)
    );
    assert_eq!(verdict("logging.set-level", &["SCHEMA-001"]), Some(Verdict::Pass));
    assert_eq!(
        verdict("list-changed.tools", &["LIST-001"]),
        Some(Verdict::NotObserved)
    );
    assert_eq!(verdict("no.such-scenario", &[]), None);
}

fn the_mapping_is_well_formed() {
    let mapping = Mapping::read(MAPPING);
    assert_eq!(lint_mapping(&mapping), Vec::<String>::new());
    assert!(verdicts_agree("FAILURE", "non-strict") && !verdicts_agree("SUCCESS", "not-observed"));
    let mut bad = entry("tools.unknown-tool", &["NOPE-001"]);
    bad.relation = Relation::Differs;
    bad.theirs = Some("SUCCESS".into());
    bad.ours_verdict = Some("pass".into());
    let problems = lint_mapping(&Mapping {
        suite: String::new(),
        server: None,
        clients: BTreeMap::new(),
        entries: vec![bad],
    });
    assert_eq!(problems.len(), 2, "{problems:?}");
}

fn the_client_mapping_is_well_formed() {
    let mapping = Mapping::read(CLIENT_MAPPING);
    assert_eq!(lint_mapping(&mapping), Vec::<String>::new());
    let names: BTreeSet<&str> = CLIENTS.iter().map(|(name, _)| *name).collect();
    assert_eq!(names, mapping.clients.keys().map(String::as_str).collect());
    for entry in &mapping.entries {
        assert!(entry.official.starts_with("auth/"), "{}", entry.label());
    }
    // An entry for a client the mapping does not list is flagged.
    let mut stray = entry("client.auth.step-up", &[]);
    stray.client = Some("rust".into());
    let problems = lint_mapping(&Mapping {
        entries: vec![stray],
        ..mapping
    });
    assert_eq!(problems.len(), 1, "{problems:?}");
}

fn the_adapter_goes_before_the_fixture_program() {
    let adapter = repo().join(CLIENT_ADAPTER).display().to_string();
    assert_eq!(
        their_client_command("/venv/bin/python py-client.py --oauth {url}"),
        format!("node {adapter} /venv/bin/python py-client.py")
    );
    assert_eq!(
        their_client_command("MCP_CONFORM_NODE_MODULES=/m node ts-client.cjs --oauth {url}"),
        format!("MCP_CONFORM_NODE_MODULES=/m node {adapter} node ts-client.cjs")
    );
}

fn main() -> std::process::ExitCode {
    // A peers.env from before the referee was installed counts as missing.
    let referee = peers_with(&[
        "NODE22",
        "CONFORMANCE_CLI",
        "EVERYTHING_SERVER_JS",
        "LOOPBACK_SHIM",
    ]);
    let clients = peers_with(&[
        "NODE22",
        "CONFORMANCE_CLI",
        "PY_OAUTH_CLIENT_CMD",
        "TS_OAUTH_CLIENT_CMD",
    ]);
    Tests::default()
        .test("the_mapping_is_well_formed", the_mapping_is_well_formed)
        .test(
            "the_client_mapping_is_well_formed",
            the_client_mapping_is_well_formed,
        )
        .test(
            "the_adapter_goes_before_the_fixture_program",
            the_adapter_goes_before_the_fixture_program,
        )
        .test(
            "our_verdicts_narrow_to_the_cited_requirements",
            our_verdicts_narrow_to_the_cited_requirements,
        )
        .needing(
            &referee,
            "verdicts_agree_with_the_official_suite",
            verdicts_agree_with_the_official_suite,
        )
        .needing(
            &clients,
            "client_verdicts_agree_with_the_official_suite",
            client_verdicts_agree_with_the_official_suite,
        )
        .needing(
            &official_spec(),
            "the_reference_server_passes_with_the_official_schemas",
            the_reference_server_passes_with_the_official_schemas,
        )
        .run()
}
