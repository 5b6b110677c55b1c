//! `mcp-conform init` against real servers nobody here wrote (installed by
//! `scripts/install-peers.sh`): used as written, the profile it writes makes
//! at least 80% as many of the scenarios that need a trigger observable as
//! the hand-written profile of the same server, and fails no scenario the
//! hand-written one does not, but for the real findings listed. Prints the
//! figures.

use std::time::Duration;

use common::needs::{PeersEnv, Tests, peers};

mod common;

/// The share of the hand-written profile's observable scenarios init's
/// profile must reach (issue 21), both without the scenarios needing what
/// only calling a tool tells (the raw ratio is printed too).
const LEAST_RATIO: f64 = 0.8;

const PYTHON_PROFILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../fixtures/peers/python/profile.yaml"
);
const RMCP_PROFILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/peers/rust/profile.yaml");

/// What init's profile rightly fails where the hand-written profile leaves
/// the trigger unbound. rmcp 3.11's typed `Peer::list_roots` sends roots/list
/// without checking that the client declared roots (its `elicit` does
/// check), so the rmcp peer's `list_roots`, bound by init in the stateful
/// era too, asks a client that declared nothing (ROOT-001, LIST-006).
const RMCP_FINDINGS: &[&str] = &["roots.not-declared"];

fn observes_as_much(
    command_key: &'static str,
    hand_profile: &'static str,
    findings: &'static [&'static str],
) -> impl FnOnce(PeersEnv) {
    move |env| {
        let command = env
            .get(command_key)
            .unwrap_or_else(|| panic!("{command_key} missing from peers.env"));
        let comparison = common::observable::compare(
            &["--stdio", command],
            hand_profile,
            "2025-11-25",
            Duration::from_secs(600),
        );
        let figures = comparison.figures(command_key);
        println!("{figures}");
        assert!(comparison.knowable_ratio() >= LEAST_RATIO, "{figures}");
        let failing: Vec<&str> = comparison
            .failing_only_by_init
            .iter()
            .map(String::as_str)
            .collect();
        assert_eq!(failing, findings, "{figures}");
    }
}

fn main() -> std::process::ExitCode {
    let env = peers();
    Tests::default()
        .needing(
            &env,
            "init_on_the_everything_server",
            observes_as_much("EVERYTHING_SERVER_CMD", "everything", &[]),
        )
        .needing(
            &env,
            "init_on_the_python_sdk_server",
            observes_as_much("PYTHON_SERVER_CMD", PYTHON_PROFILE, &[]),
        )
        .needing(
            &env,
            "init_on_the_rmcp_sdk_server",
            observes_as_much("RMCP_SERVER_CMD", RMCP_PROFILE, RMCP_FINDINGS),
        )
        .run()
}
