//! Tests that need a tool from outside the repository. Without the tool such
//! a test is listed as ignored and the reason is printed, so it never passes
//! green having checked nothing; under `CI=true`, where the test command
//! (scripts/test-all.sh) has installed every tool, it runs and fails with
//! the reason. Binaries built on [`Tests`] are `harness = false`, which
//! `cargo test` and nextest both run. (The core crate's calibration tests
//! include this file too.)

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use libtest_mimic::{Arguments, Failed, Trial};

/// A tool that was found, or why it was not.
pub type Found<T> = Result<T, String>;

/// The variables of `peers.env`, written by scripts/install-peers.sh.
pub type PeersEnv = BTreeMap<String, String>;

/// The workspace's root: the nearest directory above the crate with a
/// `Cargo.lock`.
fn workspace() -> PathBuf {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = crate_dir.ancestors().find(|dir| dir.join("Cargo.lock").is_file());
    root.unwrap_or(crate_dir).to_owned()
}

/// Where scripts/install-peers.sh installs the real peers: one directory per
/// machine, outside any clone (`$MCP_CONFORM_PEERS`, else
/// `$XDG_CACHE_HOME/mcp-conform/peers`, else `~/.cache/mcp-conform/peers`).
fn peers_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("MCP_CONFORM_PEERS") {
        return PathBuf::from(dir);
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))
        .unwrap_or_else(|| workspace().join("target"));
    cache.join("mcp-conform/peers")
}

/// The real peers' environment, from `peers.env` in [`peers_dir`]. The
/// peers are installed once per machine, the fixtures they run are this
/// clone's: `{repo}` in a value stands for this workspace.
pub fn peers() -> Found<PeersEnv> {
    let dir = peers_dir();
    let path = dir.join("peers.env");
    let text = std::fs::read_to_string(&path).map_err(|_| {
        format!(
            "the real peers are not installed ({} missing; run scripts/install-peers.sh)",
            path.display()
        )
    })?;
    let repo = workspace().display().to_string();
    let pairs = text.lines().filter_map(|line| {
        let (key, value) = line.trim().strip_prefix("export ")?.split_once('=')?;
        let value = value.trim_matches(['"', '\'']).replace("{repo}", &repo);
        Some((key.to_owned(), value))
    });
    Ok(pairs.collect())
}

/// The real peers' environment with every variable in `keys`: a
/// `peers.env` from before a peer was added counts as missing.
pub fn peers_with(keys: &[&str]) -> Found<PeersEnv> {
    let env = peers()?;
    match keys.iter().find(|key| !env.contains_key(**key)) {
        Some(key) => Err(format!(
            "{key} is missing from peers.env (rerun scripts/install-peers.sh)"
        )),
        None => Ok(env),
    }
}

/// The official MCP specification files (schemas and requirement tables)
/// for calibration: `$MCP_CONFORM_SPEC_DIR`, or `shared/spec` beside the
/// repository, where CI lays it. Users' machines do not have it.
pub fn official_spec() -> Found<PathBuf> {
    let dir = std::env::var_os("MCP_CONFORM_SPEC_DIR")
        .map_or_else(|| workspace().join("../shared/spec"), PathBuf::from);
    if dir.join("REQUIREMENTS.md").is_file() {
        Ok(dir)
    } else {
        Err(format!(
            "the official spec files are not in {} (set MCP_CONFORM_SPEC_DIR)",
            dir.display()
        ))
    }
}

/// Debian's chromium, or `$MCP_CONFORM_CHROMIUM`.
pub fn chromium() -> Found<PathBuf> {
    let path = std::env::var_os("MCP_CONFORM_CHROMIUM")
        .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "{} is not installed (scripts/install-peers.sh runs apt-get install chromium)",
            path.display()
        ))
    }
}

/// The tests of one binary, each maybe needing a tool.
#[derive(Default)]
pub struct Tests {
    trials: Vec<Trial>,
    /// Why tests were marked ignored, one line per test (`binary test: why`).
    skipped: Vec<String>,
}

impl Tests {
    /// A test that needs nothing outside the repository.
    pub fn test(mut self, name: &str, test: impl FnOnce() + Send + 'static) -> Self {
        self.trials.push(Trial::test(name, move || {
            test();
            Ok(())
        }));
        self
    }

    /// A test that needs `tool`: ignored when it is missing (except under
    /// `CI=true`), and failing with the reason when run all the same.
    pub fn needing<T>(mut self, tool: &Found<T>, name: &str, test: impl FnOnce(T) + Send + 'static) -> Self
    where
        T: Clone + Send + 'static,
    {
        let ignored = tool.is_err() && std::env::var("CI").is_err();
        if let (true, Err(reason)) = (ignored, tool) {
            self.skipped
                .push(format!("{} {name}: {reason}", env!("CARGO_CRATE_NAME")));
        }
        let tool = tool.clone();
        let trial = Trial::test(name, move || {
            let tool = tool.map_err(|reason| Failed::from(format!("cannot run: {reason}")))?;
            test(tool);
            Ok(())
        });
        self.trials.push(trial.with_ignored_flag(ignored));
        self
    }

    /// Runs the tests selected by the command line (libtest's flags), after
    /// saying which are ignored and why. Listing (nextest does) prints only
    /// the list.
    pub fn run(self) -> ExitCode {
        let args = Arguments::from_args();
        if !(args.list || args.ignored || args.include_ignored) {
            for line in &self.skipped {
                println!("SKIPPED {line}");
            }
        }
        libtest_mimic::run(&args, self.trials).exit_code()
    }
}
