//! `cargo test` against any server: one libtest test per scenario.
//!
//! A downstream crate adds `mcp-conform` as a dev-dependency and a test
//! target with `harness = false`:
//!
//! ```ignore
//! // tests/conformance.rs
//! fn main() -> std::process::ExitCode {
//!     mcp_conform::libtest::Suite::binary(env!("CARGO_BIN_EXE_my-server")).run()
//! }
//! ```
//! Test names are scenario ids (`id@version` on several versions), so name
//! filters, `--list` and nextest work.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::process::ExitCode;

use libtest_mimic::{Arguments, Failed, Trial};
use mcp_conform_core::Verdict;
use mcp_conform_core::redact::Secrets;
use mcp_conform_core::scenario::Scenario;
use mcp_conform_core::version::ProtocolVersion;
use mcp_conform_report::ExitCode as Exit;
use mcp_mock_peers::transport::StdioCommand;

use crate::output;
use crate::report;
use crate::runner::{RunConfig, Target, run_scenario};
use crate::select::{keep_role, load_profile, load_scenarios};
use crate::snapshot::normalize;
use mcp_conform_core::scenario::model::Role;

/// The suite as a set of libtest tests.
#[derive(Debug, Clone)]
pub struct Suite {
    command: Result<StdioCommand, String>,
    paths: Vec<PathBuf>,
    profile: Option<String>,
    protocols: Vec<ProtocolVersion>,
    snapshots: Option<PathBuf>,
}

impl Suite {
    /// A server started from a program and its arguments (no shell).
    pub fn program<I, S>(program: impl Into<String>, args: I) -> Suite
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let command = StdioCommand {
            program: program.into(),
            args: args.into_iter().map(Into::into).collect(),
            env: Vec::new(),
            cwd: None,
        };
        Suite::with_command(Ok(command))
    }

    /// A server binary started with no arguments.
    pub fn binary(path: impl Into<String>) -> Suite {
        Suite::program(path, Vec::<String>::new())
    }

    /// A server started from a command line, split like a shell would.
    pub fn stdio(command_line: &str) -> Suite {
        Suite::with_command(StdioCommand::parse(command_line).map_err(|e| e.to_string()))
    }

    fn with_command(command: Result<StdioCommand, String>) -> Suite {
        Suite {
            command,
            paths: Vec::new(),
            profile: None,
            protocols: vec![ProtocolVersion::V2025_11_25],
            snapshots: None,
        }
    }

    /// Scenario files or directories instead of the bundled suite.
    pub fn scenarios(mut self, path: impl Into<PathBuf>) -> Suite {
        self.paths.push(path.into());
        self
    }

    /// A bundled profile name or a profile file.
    pub fn profile(mut self, name_or_path: impl Into<String>) -> Suite {
        self.profile = Some(name_or_path.into());
        self
    }

    /// The protocol version to speak (default 2025-11-25).
    pub fn protocol(mut self, version: ProtocolVersion) -> Suite {
        self.protocols = vec![version];
        self
    }

    /// Several protocol versions: each scenario is a test per version it
    /// applies to, named `id@version`.
    pub fn protocols(mut self, versions: impl IntoIterator<Item = ProtocolVersion>) -> Suite {
        self.protocols = versions.into_iter().collect();
        self
    }

    /// Snapshot each scenario's normalized transcript with insta into this
    /// directory (review with `cargo insta review`; never written when `CI=true`).
    pub fn snapshots(mut self, dir: impl Into<PathBuf>) -> Suite {
        self.snapshots = Some(dir.into());
        self
    }

    /// Parses libtest's command line, runs the selected scenarios, and
    /// returns the process exit code.
    pub fn run(self) -> ExitCode {
        let arguments = Arguments::from_args();
        let trials = match self.trials() {
            Ok(trials) => trials,
            Err(message) => {
                eprintln!("{message}");
                return Exit::Usage.into();
            }
        };
        libtest_mimic::run(&arguments, trials).exit_code()
    }

    fn trials(self) -> Result<Vec<Trial>, String> {
        let mut scenarios = load_scenarios(&self.paths, &[]).map_err(|diagnostics| {
            diagnostics
                .iter()
                .map(|d| d.render(false))
                .collect::<Vec<_>>()
                .join("\n")
        })?;
        keep_role(&mut scenarios, Role::Server);
        let mut config = RunConfig::new(Target::Stdio(self.command?));
        if let Some(profile) = &self.profile {
            config.profile = Some(load_profile(profile)?);
        }
        let several = self.protocols.len() > 1;
        let mut trials = Vec::new();
        for scenario in scenarios {
            // On one version every scenario is a test (and says why it does not apply).
            let versions = self
                .protocols
                .iter()
                .filter(|v| !several || scenario.versions.contains(**v));
            for version in versions {
                let config = RunConfig {
                    protocol: *version,
                    ..config.clone()
                };
                let (scenario, snapshots) = (scenario.clone(), self.snapshots.clone());
                let name = match several {
                    true => format!("{}@{version}", scenario.id),
                    false => scenario.id.clone(),
                };
                trials.push(Trial::test(name.clone(), move || {
                    run_trial(&scenario, &name, &config, snapshots)
                }));
            }
        }
        Ok(trials)
    }
}

fn run_trial(
    scenario: &Scenario,
    name: &str,
    config: &RunConfig,
    snapshots: Option<PathBuf>,
) -> Result<(), Failed> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failed::from(format!("could not start a runtime: {e}")))?;
    let outcome = runtime.block_on(run_scenario(scenario, config));
    let case = [report::case(&outcome, &Secrets::default())];
    match case[0].verdict {
        Verdict::Fail | Verdict::Error => {
            return Err(Failed::from(output::failure_details(&case, false)));
        }
        Verdict::NonStrict => eprintln!("{}", output::failure_details(&case, false)),
        Verdict::NotApplicable | Verdict::NotObserved => {
            eprintln!(
                "{}: {}",
                output::label(case[0].verdict),
                case[0].note.as_deref().unwrap_or("")
            );
        }
        Verdict::Pass => {}
    }
    let Some(dir) = snapshots.filter(|_| !outcome.transcript.is_empty()) else {
        return Ok(());
    };
    let text = normalize(&outcome.transcript);
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(dir);
    settings.set_prepend_module_to_snapshot(false);
    settings.set_input_file(&scenario.source.path);
    settings.set_omit_expression(true);
    let compared = catch_unwind(AssertUnwindSafe(|| {
        settings.bind(|| insta::assert_snapshot!(name, text));
    }));
    compared.map_err(|_| {
        Failed::from(format!(
            "the transcript of {name} differs from its snapshot (diff above); review with `cargo insta review`"
        ))
    })
}
