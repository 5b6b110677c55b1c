//! The `mcp-conform fuzz` driver: connects through the engine, lists the
//! server's tools, calls the allowed ones with generated arguments, judges
//! each answer with the [`oracle`](super::oracle) and every frame with the
//! frame checker, shrinks each finding and writes its reproducer.

use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

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
use super::oracle::{Answer, Finding, judge_tool_call};
use super::reproducer;
use crate::cli::{CliError, ServerArgs, at_least_one};
use crate::runner::{Check, Connected, RunConfig};
use crate::select::load_profile;

/// How long a tool call may take before the server is asked for a `ping`.
const CALL_TIMEOUT: Duration = Duration::from_secs(5);
/// How long the `ping` after an unanswered call may take.
const PING_TIMEOUT: Duration = Duration::from_secs(2);
/// Most calls spent shrinking one finding: a crash costs a restart each.
const SHRINK_CALLS: usize = 32;
/// Most time spent shrinking one finding: a hang costs both timeouts each.
const SHRINK_TIME: Duration = Duration::from_secs(15);
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
requirements: [TOOL-006]
requires:
  capabilities: [tools]
steps:
  - request: { method: tools/list }
";

#[derive(Debug, clap::Args)]
pub struct FuzzArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// The protocol version to speak.
    #[arg(long, default_value = "2025-11-25", value_name = "VERSION")]
    pub protocol: ProtocolVersion,
    /// How many calls to make in all.
    #[arg(long, default_value_t = 200, value_parser = at_least_one::<usize>)]
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
    tool: String,
    arguments: Value,
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
    let mut peer = Peer {
        runtime: &runtime,
        scenario: &scenario,
        config: &config,
        live: None,
        checks: Vec::new(),
    };
    let tools = peer.tools().map_err(CliError::Infrastructure)?;
    let safe = config
        .profile
        .as_ref()
        .and_then(|p| p.triggers_for(config.protocol.era()).get(SAFE_TOOL).cloned())
        .and_then(|trigger| trigger["name"].as_str().map(str::to_owned));
    let allowed = allowed_tools(&tools, &args.allow_tools, safe.as_deref())?;
    let started = Instant::now();
    let deadline = args.time.map(|s| started + Duration::from_secs(s));
    let mut found = Vec::new();
    let mut cases = 0;
    // The tool and flaw of each call that left the server stuck: the next
    // calls like it would cost both timeouts each to show the same thing.
    let mut stuck: Vec<(&str, Option<Flaw>)> = Vec::new();
    let mut skipped = 0;
    for (index, (tool, schema)) in allowed.iter().enumerate() {
        let share = args.cases / allowed.len() + usize::from(index < args.cases % allowed.len());
        let tool_seed = seed.wrapping_add(index as u64);
        for tree in sample_trees(&case_strategy(schema), tool_seed, share) {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            let (arguments, flaw) = tree.current();
            if stuck.contains(&(tool.as_str(), flaw)) {
                skipped += 1;
                continue;
            }
            cases += 1;
            let answer = peer.call(tool, &arguments).map_err(CliError::Infrastructure)?;
            if matches!(
                answer,
                Answer::NoAnswer {
                    still_answers_ping: false
                }
            ) {
                stuck.push((tool.as_str(), flaw));
            }
            let Some(finding) = judge_tool_call(flaw, &answer) else {
                continue;
            };
            // One finding per tool and requirement: the cases after it that
            // break the same rule add nothing but time (a hang costs seconds).
            if found
                .iter()
                .any(|f: &Found| f.tool == *tool && f.finding.requirement == finding.requirement)
            {
                continue;
            }
            let mut calls = 0;
            let shrinking = Instant::now();
            let (arguments, _) = shrink(tree, |(candidate, flaw)| {
                calls += 1;
                calls <= SHRINK_CALLS
                    && shrinking.elapsed() < SHRINK_TIME
                    && peer
                        .call(tool, candidate)
                        .ok()
                        .and_then(|answer| judge_tool_call(*flaw, &answer))
                        .is_some_and(|again| again.requirement == finding.requirement)
            });
            let name = format!("seed-{seed}.case-{cases}");
            let reproducer = match &args.out {
                Some(dir) => Some(write_reproducer(dir, &name, tool, &arguments, &finding)?),
                None => None,
            };
            found.push(Found {
                tool: tool.clone(),
                arguments,
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
            "{skipped} cases not sent: each was like a call that left the server stuck \
             (same tool, same flaw), and would have cost {} s to show it again",
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
/// as the profile's safe tool. Prints the ones skipped.
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
    if chosen.is_empty() {
        return Err(CliError::Usage(
            "no tool may be called: allow one with --allow-tool NAME (or a profile's safe_tool)".into(),
        ));
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
fn case_strategy(schema: &Value) -> BoxedStrategy<Case> {
    prop_oneof![
        valid(schema).prop_map(|arguments| (arguments, None)),
        near_valid(schema).prop_map(|near| (near.arguments, Some(near.flaw))),
    ]
    .boxed()
}

/// The server under test, reconnected after it goes away.
struct Peer<'s> {
    runtime: &'s Runtime,
    scenario: &'s Scenario,
    config: &'s RunConfig,
    live: Option<Connected<'s>>,
    /// The frame checker's findings of the sessions closed so far.
    checks: Vec<Check>,
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

    fn tools(&mut self) -> Result<Vec<Value>, String> {
        let runtime = self.runtime;
        let connected = self.connected()?;
        let listed = runtime
            .block_on(connected.request("tools/list", json!({}), CALL_TIMEOUT))
            .map_err(|error| format!("tools/list: {error:?}"))?;
        listed["result"]["tools"]
            .as_array()
            .cloned()
            .ok_or_else(|| format!("tools/list answered without a tools array: {listed}"))
    }

    /// Calls `tool`; a server that went away or got stuck is closed, to be
    /// started again for the next call, and so is a session that has taken
    /// in half its budget of frames (thousands of calls are not a flood). `Err`: it could not be reached.
    fn call(&mut self, tool: &str, arguments: &Value) -> Result<Answer, String> {
        let runtime = self.runtime;
        if self.live.as_ref().is_some_and(Connected::worn) {
            self.close();
        }
        let connected = self.connected()?;
        let params = json!({"name": tool, "arguments": arguments});
        let answer = match runtime.block_on(connected.request("tools/call", params, CALL_TIMEOUT)) {
            Ok(frame) => Answer::Response(frame),
            Err(WaitError::Stray(received)) => Answer::Response(received.message),
            Err(WaitError::TimedOut) => Answer::NoAnswer {
                still_answers_ping: runtime
                    .block_on(connected.request("ping", json!({}), PING_TIMEOUT))
                    .is_ok(),
            },
            Err(WaitError::Closed(_) | WaitError::Transport(_)) => Answer::PeerGone,
        };
        if matches!(
            answer,
            Answer::PeerGone
                | Answer::NoAnswer {
                    still_answers_ping: false
                }
        ) {
            self.close();
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
    tool: &str,
    arguments: &Value,
    finding: &Finding,
) -> Result<PathBuf, CliError> {
    let path = dir.join(format!("fuzz-{name}.yaml"));
    std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&path, reproducer::scenario(name, tool, arguments, finding)))
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
            "{} {requirement} ({}) tool {}: {}\n  arguments (shrunk): {}",
            f.finding.verdict,
            requirement.requirement().level,
            f.tool,
            f.finding.what,
            shortened(&f.arguments.to_string())
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

fn clock_seed() -> u64 {
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
            sample_trees(&case_strategy(&schema), seed, 20)
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
        assert!(allowed_tools(&tools, &[], None).is_err());
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
