//! A judged run, the one pipeline of every command that judges a peer
//! (`run`, `test-client`, `test-gateway`): the runner's events
//! ([`RunEvent`](crate::runner::RunEvent)) become the report model's cases
//! as they arrive ([`report::CaseLog`]); the terminal renders those cases
//! ([`output`]); the same cases, gated by the baseline, make the
//! [`Report`](mcp_conform_report::Report) that every file is written from
//! ([`report::write_dir`]); its gate decides the exit code.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::sync::atomic::Ordering;
use std::time::Instant;

use mcp_conform_core::redact::{REDACTED, Secrets};
use mcp_conform_core::scenario::Scenario;
use mcp_conform_core::scenario::profile::unbound;
use mcp_conform_core::version::ProtocolVersion;
use mcp_conform_report::{Case, ExitCode, Verdict};

use crate::auth::{AuthContext, TokenSource};
use crate::cli::{CliError, GateArgs};
use crate::output::{self, LiveOutput};
use crate::quiet;
use crate::report::{self, baseline::Baseline};
use crate::runner::{RunConfig, Target, case_count, stream_matrix};

/// A run about to be judged: the selected scenarios and how to run them.
#[derive(Debug)]
pub struct Judged<'a> {
    pub scenarios: &'a [Scenario],
    pub config: &'a RunConfig,
    /// The versions to run each scenario on (one, or with `--protocol all`
    /// those the server speaks).
    pub versions: Vec<ProtocolVersion>,
    pub jobs: usize,
    /// The whole selection's fingerprint (before sharding).
    pub suite: mcp_conform_report::Suite,
    pub shard: Option<mcp_conform_report::Shard>,
}

impl Judged<'_> {
    /// Runs the scenarios with a line per scenario (and a progress bar on a
    /// terminal), prints failures, summary and gate, writes the report
    /// files; returns the gate's exit code.
    pub fn run(&self, gate: &GateArgs) -> Result<ExitCode, CliError> {
        let baseline = gate
            .baseline
            .as_deref()
            .map(Baseline::load)
            .transpose()
            .map_err(|diagnostics| CliError::Diagnostics {
                diagnostics,
                what: "the baseline",
            })?;
        let config = &RunConfig {
            fail_fast: !gate.keep_going,
            timings: gate.timings,
            ..self.config.clone()
        };
        let secrets = self.secrets(gate);
        let target = secrets.redact(&config.target.display()).into_owned();
        let profile_name = config.profile.as_ref().map_or("none".into(), |p| p.name.clone());
        let versions: Vec<String> = self.versions.iter().map(ToString::to_string).collect();
        println!(
            "mcp-conform {} · {} · protocol {} · profile {profile_name} · {} scenarios · {} jobs\n",
            env!("CARGO_PKG_VERSION"),
            target,
            versions.join(", "),
            self.scenarios.len(),
            self.jobs
        );
        let interrupted = crate::interrupt::flag();
        let started = Instant::now();
        let named = self.versions.len() > 1;
        let total = case_count(self.scenarios, &self.versions);
        let mut live = LiveOutput::new(total, named, secrets, gate.listing.clone());
        let mut hidden = config.auth.as_ref().map_or(0, |auth| auth.tokens().len());
        // The cases come from the run's events, each converted (and its
        // transcript cut) as it ends, hiding the tokens minted by then.
        stream_matrix(
            self.scenarios,
            config,
            &self.versions,
            self.jobs,
            &interrupted,
            |event| {
                if let Some(auth) = &config.auth {
                    let tokens = auth.tokens();
                    for token in &tokens[hidden..] {
                        hide_token(live.secrets_mut(), auth, token);
                    }
                    hidden = tokens.len();
                }
                live.on_event(&event);
            },
        );
        let cases = live.finish();
        anstream::print!("{}", gate.listing.folded(&cases, named));
        anstream::print!("{}", output::failure_details(&cases, named));
        let (unbound, waiting) = self.unbound_triggers(&cases);
        if let Some(hint) = quiet::trigger_hint(&unbound, waiting) {
            println!("\n{hint}");
        }
        println!("{}", output::summary(&cases, started.elapsed(), named));
        print!("{}", output::product_checks(&cases));
        let run_info = mcp_conform_report::RunInfo {
            target,
            protocol_versions: versions,
            profile: config.profile.as_ref().map(|p| p.name.clone()),
            suite: self.suite.clone(),
            strict: gate.strict,
            shard: self.shard,
            baseline: baseline.as_ref().map(|b| b.info.clone()),
        };
        let report = report::build(cases, run_info, baseline.as_ref());
        print!("{}", output::gate_lines(&report));
        let _ = std::io::stdout().flush();
        if interrupted.load(Ordering::SeqCst) {
            eprintln!("interrupted: the results above are those of the scenarios that finished");
        }
        if let Some(dir) = &gate.report_dir {
            report::write_dir(dir, &report).map_err(|error| {
                CliError::Infrastructure(format!("--report-dir {}: {error}", dir.display()))
            })?;
            println!("reports written to {}", dir.display());
        }
        Ok(report.gate.exit_code)
    }

    /// The triggers the not-observed cases wanted and the profile did not
    /// bind, with how many cases wanted each; and how many cases wanted one.
    fn unbound_triggers<'s>(&'s self, cases: &[Case]) -> (BTreeMap<&'s str, usize>, usize) {
        let mut wanted = BTreeMap::new();
        let mut waiting = 0;
        for case in cases.iter().filter(|c| c.verdict == Verdict::NotObserved) {
            let Some(scenario) = self.scenarios.iter().find(|s| s.id == case.scenario) else {
                continue;
            };
            let version = case
                .protocol_version
                .as_deref()
                .and_then(|v| v.parse::<ProtocolVersion>().ok())
                .unwrap_or(self.config.protocol);
            let profile = self.config.profile.as_ref();
            let missing = unbound(&scenario.requires.triggers, profile, version.era());
            waiting += usize::from(!missing.is_empty());
            for trigger in missing {
                *wanted.entry(trigger).or_insert(0) += 1;
            }
        }
        (wanted, waiting)
    }

    /// What no output may show: the `--secret`s, the values of the
    /// secret-looking headers sent to the peer, and the tokens minted for it.
    fn secrets(&self, gate: &GateArgs) -> Secrets {
        let mut secrets = gate.secrets();
        if let Some(auth) = &self.config.auth {
            for token in auth.tokens() {
                hide_token(&mut secrets, auth, &token);
            }
        }
        if let Target::Http { headers, .. } = &self.config.target {
            for (name, value) in headers {
                secrets.add_header(name, value);
            }
        }
        secrets
    }
}

/// Keeps `token` out of every output: a minted token is shown decoded, its
/// signature elided; the user's token (and those built from it) not at all.
fn hide_token(secrets: &mut Secrets, auth: &AuthContext, token: &str) {
    let shown = match auth.source {
        TokenSource::MockIssuer => mcp_conform_core::auth::readable(token),
        TokenSource::UsersToken => None,
    };
    secrets.add_shown_as(token, shown.as_deref().unwrap_or(REDACTED));
}
