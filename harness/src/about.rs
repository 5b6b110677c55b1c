//! What `mcp-conform --version` says: the tool's version, the protocol
//! versions it speaks, and the id of the bundled suite, so that a report can
//! be traced to the binary that wrote it (a report's `run.suite.digest` is
//! the digest of the scenarios that run selected: for a plain `run`, the
//! server scenarios' digest printed here).

use std::fmt::Write as _;

use mcp_conform_core::requirements::catalogue;
use mcp_conform_core::scenario::Scenario;
use mcp_conform_core::scenario::model::Role;
use mcp_conform_core::version::ProtocolVersion;

use crate::report;

/// The text of `--version` for the bundled `scenarios` (every role).
pub fn version_text(scenarios: &[Scenario]) -> String {
    let versions: Vec<&str> = ProtocolVersion::ALL.iter().map(|v| v.as_str()).collect();
    let mut out = format!("mcp-conform {}\n", env!("CARGO_PKG_VERSION"));
    writeln!(
        out,
        "protocol versions: {} (default {})",
        versions.join(", "),
        ProtocolVersion::LATEST_STATEFUL
    )
    .expect("String");
    let all = report::suite(scenarios);
    writeln!(
        out,
        "bundled suite {}: {} scenarios, {} requirements",
        all.digest,
        all.scenarios,
        catalogue().len()
    )
    .expect("String");
    for (role, command) in [
        (Role::Server, "run"),
        (Role::Client, "test-client"),
        (Role::Gateway, "test-gateway"),
    ] {
        let of_role: Vec<Scenario> = scenarios.iter().filter(|s| s.role == role).cloned().collect();
        let suite = report::suite(&of_role);
        writeln!(
            out,
            "  {:<13} {} ({} scenarios)",
            command, suite.digest, suite.scenarios
        )
        .expect("String");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::load_scenarios;

    #[test]
    fn names_every_version_and_a_digest_per_role_that_adds_up() {
        let scenarios = load_scenarios(&[], &[]).unwrap();
        let text = version_text(&scenarios);
        for version in ProtocolVersion::ALL {
            assert!(text.contains(version.as_str()), "{text}");
        }
        let counts: usize = text
            .lines()
            .skip(3)
            .map(|line| {
                let n = line.split('(').nth(1).and_then(|rest| rest.split(' ').next());
                n.and_then(|n| n.parse::<usize>().ok()).expect(line)
            })
            .sum();
        assert_eq!(counts, scenarios.len(), "{text}");
        let server: Vec<Scenario> = scenarios.into_iter().filter(|s| s.role == Role::Server).collect();
        assert!(
            text.contains(&format!("  run           {} ", report::suite(&server).digest)),
            "the digest a plain run's report carries: {text}"
        );
    }
}
