//! The `mcp-conform fuzz` driver: connects through the engine, lists the
//! server's tools, prompts and resource templates, sends requests to each
//! [`Subject`] with generated arguments (tools only when allowed), judges
//! each answer with the judge of generated requests (`core::judge::generated`) and every frame with the
//! frame checker, shrinks each finding and writes its reproducer.

use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use clap::ValueEnum as _;
use mcp_conform_core::Verdict;
use mcp_conform_core::scenario::Scenario;
use mcp_conform_core::scenario::load::load_str;
use mcp_conform_core::version::ProtocolVersion;
use mcp_conform_report::ExitCode;
use mcp_mock_peers::session::WaitError;
use proptest::prelude::*;
use serde_json::{Value, json};
use tokio::runtime::Runtime;

use super::arguments::{Flaw, near_valid, sample_trees, shrink, valid};
use super::reproducer;
use super::subject::{FRAME_ID, Kind, Subject, malformed_frames, raw_frame, subjects, unknown_method_names};
use crate::cli::{CliError, ServerArgs, at_least_one};
use crate::runner::{Check, Connected, RunConfig};
use crate::select::load_profile;
use crate::start::StartedServer;
use mcp_conform_core::judge::generated::{Answer, Finding, judge};

/// How long a tool call may take before the server is asked for a `ping`.
const CALL_TIMEOUT: Duration = Duration::from_secs(5);
/// How long the `ping` after an unanswered call may take.
const PING_TIMEOUT: Duration = Duration::from_secs(2);
/// Most calls spent shrinking one finding: a crash costs a restart each.
const SHRINK_CALLS: usize = 32;
/// Most time spent shrinking one finding: a hang costs both timeouts each.
const SHRINK_TIME: Duration = Duration::from_secs(15);
/// How long an answer to a malformed frame may trail the answer to the
/// `ping` sent after it.
const LATE_ANSWER: Duration = Duration::from_millis(200);
/// How long a server `--start` runs has to listen.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// Most pages of one list read (a server whose cursors never end).
const MAX_PAGES: usize = 20;
/// How much of a finding's arguments the summary shows.
const SHOWN_CHARS: usize = 200;
/// The profile trigger naming a tool that is safe to call with anything.
const SAFE_TOOL: &str = "safe_tool";

/// The session the fuzzer speaks in: the client the engine presents and
/// the capability it needs. Its step is what the driver does first; the
/// driver sends its own requests, it never runs the steps.
const SESSION_SCENARIO: &str = "\
id: fuzz.session
title: mcp-conform fuzz session
requirements: [RPC-004]
steps:
  - request: { method: ping }
";

#[derive(Debug, clap::Args)]
pub struct FuzzArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// A command that starts the server at `--url` (a loopback address):
    /// started before the first request and again whenever the server went
    /// away or got stuck; its process group is killed at the end.
    #[arg(long, value_name = "COMMAND", requires = "url")]
    pub start: Option<String>,
    /// The protocol version to speak.
    #[arg(long, default_value = "2025-11-25", value_name = "VERSION")]
    pub protocol: ProtocolVersion,
    /// What to send requests to (repeatable; default: all). Tools are
    /// called only when allowed.
    #[arg(long = "kind", value_enum, value_name = "KIND")]
    pub kinds: Vec<Kind>,
    /// How many requests to send to each subject (each allowed tool,
    /// prompt, resource template, completion argument, and unknown methods).
    #[arg(long, default_value_t = 100, value_parser = at_least_one::<usize>)]
    pub cases: usize,
    /// Stop starting calls after this many seconds.
    #[arg(long, value_name = "SECONDS", value_parser = at_least_one::<u64>)]
    pub time: Option<u64>,
    /// The generator's seed (default: from the clock; always printed). The
    /// same seed gives the same calls.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Where to write the reproducer scenario of each finding.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// A tool that may be called (repeatable). No tool is called unless
    /// allowed here or named by the profile's `safe_tool` trigger.
    #[arg(long = "allow-tool", value_name = "NAME")]
    pub allow_tools: Vec<String>,
    /// A bundled profile name or a profile file (its `safe_tool` is allowed).
    /// Default: `reference` for the bundled server, none otherwise.
    #[arg(long)]
    pub profile: Option<String>,
    /// Exit 1 on non-strict (SHOULD) findings too.
    #[arg(long)]
    pub strict: bool,
}

/// One generated call: the arguments, and what was broken in them.
type Case = (Value, Option<Flaw>);

/// A finding of the oracle, shrunk, with where its reproducer went.
struct Found {
    subject: String,
    /// What was sent, shrunk: method and params, or a malformed line.
    sent: String,
    finding: Finding,
    reproducer: Option<PathBuf>,
}

pub fn fuzz(args: FuzzArgs) -> Result<ExitCode, CliError> {
    let seed = args.seed.unwrap_or_else(clock_seed);
    println!("fuzz seed {seed} (replay these cases with --seed {seed})");
    let bundled_server = args.server.is_bundled();
    let mut config = RunConfig::new(args.server.target().map_err(CliError::Usage)?);
    config.protocol = args.protocol;
    let profile = args
        .profile
        .clone()
        .or_else(|| bundled_server.then(|| "reference".to_owned()));
    if let Some(profile) = profile {
        config.profile =
            Some(load_profile(&profile).map_err(|error| CliError::Usage(format!("--profile: {error}")))?);
    }
    let scenario = load_str(std::path::Path::new("fuzz-session.yaml"), SESSION_SCENARIO)
        .expect("the fuzz session scenario is valid");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::Infrastructure(format!("could not start a runtime: {e}")))?;
    let _entered = runtime.enter();
    let started = match (&args.start, &args.server.address.url) {
        (Some(command), Some(url)) => Some(
            StartedServer::start(command, url, STARTUP_TIMEOUT)
                .map_err(|message| CliError::Infrastructure(format!("--start: {message}")))?,
        ),
        _ => None,
    };
    let mut peer = Peer {
        runtime: &runtime,
        scenario: &scenario,
        config: &config,
        live: None,
        checks: Vec::new(),
        frames_sent: 0,
        ignored: Vec::new(),
        started,
    };
    let kinds = match args.kinds.is_empty() {
        true => Kind::ALL.to_vec(),
        false => args.kinds.clone(),
    };
    let listed = peer.listings(&kinds).map_err(CliError::Infrastructure)?;
    // Completion requests only to a server that declared completions: the
    // frame checker rightly fails one that serves them undeclared. Malformed
    // lines only on stdio: over HTTP a body is refused by status first
    // (HTTP-027), which the suite's scenarios judge.
    let stdio = config.target.frames_on_stdio();
    let kinds: Vec<Kind> = kinds
        .into_iter()
        .filter(|kind| *kind != Kind::Completions || listed.completions)
        .filter(|kind| *kind != Kind::Frames || stdio)
        .collect();
    let safe = config
        .profile
        .as_ref()
        .and_then(|p| p.triggers_for(config.protocol.era()).get(SAFE_TOOL).cloned())
        .and_then(|trigger| trigger["name"].as_str().map(str::to_owned));
    let allowed = allowed_tools(&listed.tools, &args.allow_tools, safe.as_deref())?;
    let subjects = subjects(&kinds, allowed, &listed.prompts, &listed.templates);
    if subjects.is_empty() {
        return Err(CliError::Usage(
            "nothing to fuzz: allow a tool with --allow-tool NAME (or a profile's safe_tool), \
             or ask for another --kind"
                .into(),
        ));
    }
    print_subjects(&subjects);
    let started = Instant::now();
    let deadline = args.time.map(|s| started + Duration::from_secs(s));
    let mut found = Vec::new();
    let mut cases = 0;
    // The subject and flaw of each request that left the server stuck: the
    // next ones like it would cost both timeouts each to show the same thing.
    let mut stuck: Vec<(usize, Option<Flaw>)> = Vec::new();
    let mut skipped = 0;
    for (index, subject) in subjects.iter().enumerate() {
        let subject_seed = seed.wrapping_add(index as u64);
        for tree in sample_trees(&case_strategy(subject), subject_seed, args.cases) {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            let (arguments, flaw) = tree.current();
            if !subject.admits(&arguments) {
                continue;
            }
            if stuck.contains(&(index, flaw)) {
                skipped += 1;
                continue;
            }
            cases += 1;
            let answer = peer.send(subject, &arguments).map_err(CliError::Infrastructure)?;
            if matches!(
                answer,
                Answer::NoAnswer {
                    still_answers_ping: false
                }
            ) {
                stuck.push((index, flaw));
            }
            let Some(finding) = judge(subject.sent(&arguments, flaw), &described(flaw), &answer) else {
                continue;
            };
            // One finding per subject and requirement: the cases after it
            // that break the same rule add nothing but time (a hang costs
            // seconds).
            let label = subject.to_string();
            if found
                .iter()
                .any(|f: &Found| f.subject == label && f.finding.requirement == finding.requirement)
            {
                continue;
            }
            let mut calls = 0;
            let shrinking = Instant::now();
            let (arguments, _) = shrink(tree, |(candidate, flaw)| {
                calls += 1;
                calls <= SHRINK_CALLS
                    && shrinking.elapsed() < SHRINK_TIME
                    && subject.admits(candidate)
                    && peer
                        .send(subject, candidate)
                        .ok()
                        .and_then(|answer| judge(subject.sent(candidate, *flaw), &described(*flaw), &answer))
                        .is_some_and(|again| again.requirement == finding.requirement)
            });
            let name = format!("seed-{seed}.case-{cases}");
            let reproducer = match &args.out {
                Some(dir) => Some(write_reproducer(dir, &name, subject, &arguments, &finding)?),
                None => None,
            };
            let sent = match subject {
                Subject::Frame => raw_frame(&arguments).0.to_owned(),
                _ => {
                    let (method, params) = subject.request(&arguments);
                    format!("{method} {params}")
                }
            };
            found.push(Found {
                subject: label,
                sent,
                finding,
                reproducer,
            });
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    let checks = peer.finish();
    print_summary(cases, elapsed, &found, &checks, args.out.is_some());
    if skipped > 0 {
        println!(
            "{skipped} cases not sent: each was like a request that left the server stuck \
             (same subject, same flaw), and would have cost {} s to show it again",
            (CALL_TIMEOUT + PING_TIMEOUT).as_secs()
        );
    }
    let verdicts = found
        .iter()
        .map(|f| f.finding.verdict)
        .chain(checks.iter().map(|c| c.verdict));
    Ok(exit_code(verdicts, args.strict))
}

/// The tools to call, with their input schemas: those allowed by name or
/// as the profile's safe tool (maybe none). Prints the ones skipped.
fn allowed_tools(
    tools: &[Value],
    allow: &[String],
    safe: Option<&str>,
) -> Result<Vec<(String, Value)>, CliError> {
    let listed: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    if let Some(unknown) = allow.iter().find(|name| !listed.contains(&name.as_str())) {
        return Err(CliError::Usage(format!(
            "--allow-tool {unknown}: the server lists no such tool ({})",
            listed.join(", ")
        )));
    }
    let is_allowed = |name: &str| allow.iter().any(|a| a == name) || safe == Some(name);
    let (chosen, skipped): (Vec<&Value>, Vec<&Value>) = tools
        .iter()
        .partition(|t| t["name"].as_str().is_some_and(is_allowed));
    if !skipped.is_empty() {
        let names: Vec<&str> = skipped.iter().filter_map(|t| t["name"].as_str()).collect();
        println!(
            "skipped (not allowed; --allow-tool NAME calls one): {}",
            names.join(", ")
        );
    }
    Ok(chosen
        .into_iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap_or_default().to_owned(),
                t["inputSchema"].clone(),
            )
        })
        .collect())
}

/// Valid and near-valid argument objects, half and half.
/// The generated cases of `subject`: argument objects from its schema,
/// method names, or malformed frames.
fn case_strategy(subject: &Subject) -> BoxedStrategy<Case> {
    match (subject, subject.schema()) {
        (_, Some(schema)) => argument_cases(&schema),
        (Subject::Frame, None) => malformed_frames().prop_map(|frame| (frame, None)).boxed(),
        (_, None) => unknown_method_names().prop_map(|name| (name, None)).boxed(),
    }
}

fn argument_cases(schema: &Value) -> BoxedStrategy<Case> {
    prop_oneof![
        valid(schema).prop_map(|arguments| (arguments, None)),
        near_valid(schema).prop_map(|near| (near.arguments, Some(near.flaw))),
    ]
    .boxed()
}

/// What the server lists, for [`subjects`].
struct Listed {
    /// Whether the server declared the `completions` capability.
    completions: bool,
    tools: Vec<Value>,
    prompts: Vec<Value>,
    templates: Vec<Value>,
}

/// The server under test, reconnected after it goes away.
struct Peer<'s> {
    runtime: &'s Runtime,
    scenario: &'s Scenario,
    config: &'s RunConfig,
    live: Option<Connected<'s>>,
    /// The frame checker's findings of the sessions closed so far.
    checks: Vec<Check>,
    /// Malformed frames sent so far, numbering their ids.
    frames_sent: u64,
    /// The error codes due to malformed frames that met no answer.
    ignored: Vec<i64>,
    /// The server process `--start` runs, started again when it is lost.
    started: Option<StartedServer>,
}

impl<'s> Peer<'s> {
    fn connected(&mut self) -> Result<&mut Connected<'s>, String> {
        if self.live.is_none() {
            let opened = self
                .runtime
                .block_on(Connected::open(self.scenario, self.config))?;
            self.live = Some(opened);
        }
        Ok(self.live.as_mut().expect("just connected"))
    }

    /// What the server lists of the `kinds` asked for, behind the
    /// capabilities it declared (tools are listed for `--allow-tool`'s
    /// check whatever the kinds).
    fn listings(&mut self, kinds: &[Kind]) -> Result<Listed, String> {
        let capabilities = self.connected()?.server()["capabilities"].clone();
        let declared = |name: &str| capabilities.get(name).is_some_and(|c| !c.is_null());
        let wants = |kind: Kind| kinds.contains(&kind);
        let mut list = |declared: bool, method: &str, member: &str| match declared {
            true => self.list(method, member),
            false => Ok(Vec::new()),
        };
        let completions = declared("completions");
        Ok(Listed {
            completions,
            tools: list(declared("tools"), "tools/list", "tools")?,
            prompts: list(
                declared("prompts") && (wants(Kind::Prompts) || (completions && wants(Kind::Completions))),
                "prompts/list",
                "prompts",
            )?,
            templates: list(
                declared("resources")
                    && (wants(Kind::Resources) || (completions && wants(Kind::Completions))),
                "resources/templates/list",
                "resourceTemplates",
            )?,
        })
    }

    /// Every page of `method`'s `member` list (at most [`MAX_PAGES`]).
    fn list(&mut self, method: &str, member: &str) -> Result<Vec<Value>, String> {
        let runtime = self.runtime;
        let connected = self.connected()?;
        let mut items = Vec::new();
        let mut params = json!({});
        for _ in 0..MAX_PAGES {
            let page = runtime
                .block_on(connected.request(method, params, CALL_TIMEOUT))
                .map_err(|error| format!("{method}: {error:?}"))?;
            let listed = page["result"][member]
                .as_array()
                .ok_or_else(|| format!("{method} answered without a {member} array: {page}"))?;
            items.extend(listed.iter().cloned());
            match page["result"]["nextCursor"].as_str() {
                Some(cursor) => params = json!({"cursor": cursor}),
                None => break,
            }
        }
        Ok(items)
    }

    /// Sends `subject`'s request for `arguments`; a server that went away
    /// or got stuck is closed, to be started again for the next request,
    /// and so is a session that has taken in half its budget of frames
    /// (thousands of requests are not a flood). `Err`: it could not be
    /// reached.
    fn send(&mut self, subject: &Subject, arguments: &Value) -> Result<Answer, String> {
        let runtime = self.runtime;
        if self.live.as_ref().is_some_and(Connected::worn) {
            self.close();
        }
        // Each malformed frame's id is new, as a sender's ids must be.
        self.frames_sent += 1;
        let unique_id = format!("\"{FRAME_ID}-{}\"", self.frames_sent);
        let (text, expects) = raw_frame(arguments);
        // Once a frame of this kind met no answer, the next ones cannot show
        // it again: only whether the server survives them, and the ping
        // says that without waiting for a late answer.
        let grace = match self.ignored.contains(&expects) {
            true => Duration::ZERO,
            false => LATE_ANSWER,
        };
        let connected = self.connected()?;
        let (method, params) = subject.request(arguments);
        let sent = match subject {
            Subject::Frame => runtime
                .block_on(connected.send_raw(
                    &text.replace(&format!("\"{FRAME_ID}\""), &unique_id),
                    CALL_TIMEOUT,
                    grace,
                ))
                .map(|answer| answer.unwrap_or(Value::Null)),
            _ => runtime.block_on(connected.request(&method, params, CALL_TIMEOUT)),
        };
        let answer = match sent {
            Ok(Value::Null) => Answer::Ignored,
            Ok(frame) => Answer::Response(frame),
            Err(WaitError::Stray(received)) => Answer::Response(received.message),
            // An answer that is no JSON-RPC is no answer the oracle can read.
            Err(WaitError::TimedOut | WaitError::Malformed { .. }) => Answer::NoAnswer {
                still_answers_ping: runtime
                    .block_on(connected.request("ping", json!({}), PING_TIMEOUT))
                    .is_ok(),
            },
            Err(WaitError::Closed(_) | WaitError::Transport(_)) => Answer::PeerGone,
        };
        if answer == Answer::Ignored {
            self.ignored.push(expects);
        }
        if matches!(
            answer,
            Answer::PeerGone
                | Answer::NoAnswer {
                    still_answers_ping: false
                }
        ) {
            self.close();
            if let Some(started) = &mut self.started {
                started
                    .restart()
                    .map_err(|message| format!("--start: {message}"))?;
            }
        }
        Ok(answer)
    }

    fn close(&mut self) {
        if let Some(connected) = self.live.take() {
            self.checks.extend(self.runtime.block_on(connected.close()));
        }
    }

    /// Closes the last session; the frame checker's findings of them all.
    fn finish(mut self) -> Vec<Check> {
        self.close();
        self.checks
            .into_iter()
            .filter(|check| matches!(check.verdict, Verdict::Fail | Verdict::NonStrict))
            .collect()
    }
}

fn write_reproducer(
    dir: &std::path::Path,
    name: &str,
    subject: &Subject,
    arguments: &Value,
    finding: &Finding,
) -> Result<PathBuf, CliError> {
    let path = dir.join(format!("fuzz-{name}.yaml"));
    std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&path, reproducer::scenario(name, subject, arguments, finding)))
        .map_err(|e| CliError::Infrastructure(format!("--out {}: {e}", path.display())))?;
    Ok(path)
}

fn print_summary(cases: usize, seconds: f64, found: &[Found], checks: &[Check], wrote: bool) {
    let rate = cases as f64 / seconds.max(f64::EPSILON);
    println!(
        "{cases} cases in {seconds:.1} s ({rate:.1} cases/s): {} findings, {} frame check findings",
        found.len(),
        checks.len()
    );
    for f in found {
        let requirement = f.finding.requirement;
        println!(
            "{} {requirement} ({}) {}: {}\n  sent (shrunk): {}",
            f.finding.verdict,
            requirement.requirement().level,
            f.subject,
            f.finding.what,
            shortened(&f.sent)
        );
        match &f.reproducer {
            Some(path) => println!("  reproducer: {} (mcp-conform run it)", path.display()),
            None if !wrote => println!("  (pass --out DIR to write its reproducer)"),
            None => {}
        }
    }
    for check in checks {
        println!(
            "{} {} ({}) {}: {}",
            check.verdict,
            check.requirement,
            check.level,
            check.name,
            check.message.as_deref().unwrap_or_default()
        );
    }
}

/// A case's arguments in words, for its findings.
fn described(flaw: Option<Flaw>) -> String {
    flaw.map_or("valid arguments".to_owned(), |flaw| format!("{flaw:?}"))
}

/// One line: how many subjects of each kind the cases are shared among.
fn print_subjects(subjects: &[Subject]) {
    let counts: Vec<String> = Kind::ALL
        .iter()
        .filter_map(|kind| {
            let count = subjects.iter().filter(|s| s.kind() == *kind).count();
            let name = kind.to_possible_value().map(|v| v.get_name().to_owned());
            (count > 0).then(|| format!("{} {count}", name.unwrap_or_default()))
        })
        .collect();
    println!("subjects: {}", counts.join(", "));
}

/// At most [`SHOWN_CHARS`] characters of `text`: a huge generated string
/// belongs in the reproducer, not on the terminal.
fn shortened(text: &str) -> String {
    match text.char_indices().nth(SHOWN_CHARS) {
        Some((end, _)) => format!("{}… ({} bytes)", &text[..end], text.len()),
        None => text.to_owned(),
    }
}

/// 1 on a failure (on a non-strict finding too with `--strict`), else 0.
fn exit_code(verdicts: impl IntoIterator<Item = Verdict>, strict: bool) -> ExitCode {
    let failing = |v: Verdict| v == Verdict::Fail || (strict && v == Verdict::NonStrict);
    match verdicts.into_iter().any(failing) {
        true => ExitCode::Failures,
        false => ExitCode::Ok,
    }
}

pub(crate) fn clock_seed() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_cases() {
        let schema =
            json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]});
        let cases = |seed| -> Vec<Case> {
            sample_trees(&argument_cases(&schema), seed, 20)
                .iter()
                .map(proptest::strategy::ValueTree::current)
                .collect()
        };
        assert_eq!(cases(7), cases(7));
        assert_ne!(cases(7), cases(8));
        assert!(cases(7).iter().any(|(_, flaw)| flaw.is_none()));
        assert!(cases(7).iter().any(|(_, flaw)| flaw.is_some()));
    }

    #[test]
    fn the_session_scenario_loads() {
        load_str(std::path::Path::new("fuzz-session.yaml"), SESSION_SCENARIO).unwrap();
    }

    #[test]
    fn only_allowed_and_safe_tools_are_called() {
        let tools = [
            json!({"name": "echo", "inputSchema": {}}),
            json!({"name": "rm", "inputSchema": {}}),
        ];
        let chosen = allowed_tools(&tools, &[], Some("echo")).unwrap();
        assert_eq!(chosen.len(), 1);
        assert_eq!(chosen[0].0, "echo");
        assert!(allowed_tools(&tools, &[], None).unwrap().is_empty());
        assert!(allowed_tools(&tools, &["nope".into()], None).is_err());
    }

    #[test]
    fn must_findings_fail_and_should_findings_only_under_strict() {
        assert_eq!(
            exit_code([Verdict::Pass, Verdict::Fail], false),
            ExitCode::Failures
        );
        assert_eq!(exit_code([Verdict::NonStrict], false), ExitCode::Ok);
        assert_eq!(exit_code([Verdict::NonStrict], true), ExitCode::Failures);
    }
}
