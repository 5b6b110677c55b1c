//! How well `mcp-conform init` does: it writes a profile for a server, and
//! the scenarios that need a trigger run once with that profile and once
//! with the hand-written one. A scenario is observable when it is judged
//! (pass, fail, non-strict or error), not left not-observed or not-applicable.

use std::collections::BTreeSet;
use std::time::Duration;

use mcp_conform::init::triggers::UNKNOWABLE;
use mcp_conform::select::load_scenarios;
use mcp_conform_core::scenario::model::Role;
use mcp_conform_report::{Report, Verdict};
use tempfile::TempDir;

use super::cli::{mcp_conform, ran};
use super::report::judge;

/// The cases of the two runs that were judged, by scenario id.
pub struct Comparison {
    pub by_init: BTreeSet<String>,
    pub by_hand: BTreeSet<String>,
    /// The scenarios needing a trigger member that only calling the tool
    /// tells (`init::triggers::UNKNOWABLE`): no profile written without
    /// calling a tool can make them observable.
    pub unknowable: BTreeSet<String>,
    /// Failed (or erred) with init's profile but not with the hand-written
    /// one: a binding that is wrong.
    pub failing_only_by_init: BTreeSet<String>,
}

impl Comparison {
    /// init's count over the hand-written profile's.
    pub fn ratio(&self) -> f64 {
        self.by_init.len() as f64 / self.by_hand.len().max(1) as f64
    }

    /// The same, both counts without the scenarios that need what only
    /// calling a tool tells.
    pub fn knowable_ratio(&self) -> f64 {
        let knowable = |set: &BTreeSet<String>| set.difference(&self.unknowable).count();
        knowable(&self.by_init) as f64 / knowable(&self.by_hand).max(1) as f64
    }

    /// The figures, printed by the test.
    pub fn figures(&self, server: &str) -> String {
        format!(
            "{server}: init's profile makes {} scenarios needing a trigger observable, the hand-written one {} \
             ({:.0}%; {:.0}% without those needing what only calling a tool tells); only by hand: {:?}; \
             only by init: {:?}; failing by init only: {:?}",
            self.by_init.len(),
            self.by_hand.len(),
            self.ratio() * 100.0,
            self.knowable_ratio() * 100.0,
            self.by_hand.difference(&self.by_init).collect::<Vec<_>>(),
            self.by_init.difference(&self.by_hand).collect::<Vec<_>>(),
            self.failing_only_by_init,
        )
    }
}

/// Runs `init` on the server of `server` (`--stdio CMD` or nothing for the
/// bundled one), then the server scenarios that need a trigger with its
/// profile and with `hand_profile`, speaking `protocol`.
pub fn compare(server: &[&str], hand_profile: &str, protocol: &str, budget: Duration) -> Comparison {
    let dir = TempDir::new().unwrap();
    let written = dir.path().join("profile.yaml");
    let init = ran(
        mcp_conform()
            .arg("init")
            .args(server)
            .args(["--protocol", protocol, "-o"])
            .arg(&written),
        Duration::from_secs(60),
    );
    assert_eq!(init.code, Some(0), "init: {}", init.stderr);
    let needing: Vec<_> = load_scenarios(&[], &[])
        .unwrap()
        .into_iter()
        .filter(|s| s.role == Role::Server && !s.requires.triggers.is_empty())
        .collect();
    let unknowable = needing
        .iter()
        .filter(|s| {
            s.requires.triggers.iter().any(|t| {
                UNKNOWABLE
                    .iter()
                    .any(|(trigger, member, _)| *t == format!("{trigger}.{member}"))
            })
        })
        .map(|s| s.id.clone())
        .collect();
    let filters: Vec<String> = needing
        .into_iter()
        .flat_map(|s| ["--filter".to_owned(), s.id])
        .collect();
    let run = |profile: &str| {
        let mut args = vec!["run"];
        args.extend_from_slice(server);
        args.extend(["--profile", profile, "--protocol", protocol, "--jobs", "2"]);
        args.extend(filters.iter().map(String::as_str));
        judge(&args, budget).report
    };
    let by_init = run(written.to_str().unwrap());
    let by_hand = run(hand_profile);
    let failing = [Verdict::Fail, Verdict::Error];
    let failing_only_by_init = with(&by_init, &failing)
        .difference(&with(&by_hand, &failing))
        .cloned()
        .collect();
    Comparison {
        by_init: observable(&by_init),
        by_hand: observable(&by_hand),
        unknowable,
        failing_only_by_init,
    }
}

fn observable(report: &Report) -> BTreeSet<String> {
    with(
        report,
        &[Verdict::Pass, Verdict::Fail, Verdict::NonStrict, Verdict::Error],
    )
}

fn with(report: &Report, verdicts: &[Verdict]) -> BTreeSet<String> {
    report
        .cases
        .iter()
        .filter(|c| verdicts.contains(&c.verdict))
        .map(|c| c.scenario.clone())
        .collect()
}
