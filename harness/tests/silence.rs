//! A silence window that ends early on a ping round trip (stdio, only
//! responses forbidden: runner/steps/silence.rs) must still see a forbidden
//! response the server wrote late, before it read the ping.

use std::time::Duration;

use common::report::judge;
use mcp_conform_report::Verdict;

mod common;

#[test]
fn a_late_answer_to_a_notification_is_seen_before_the_barrier_answer() {
    let server = format!(
        "sh {}/../fixtures/servers/late-answer.sh 0.4",
        env!("CARGO_MANIFEST_DIR")
    );
    let args = [
        "run",
        "--stdio",
        &server,
        "--filter",
        "base.notification-no-response",
    ];
    let judged = judge(&args, Duration::from_secs(30));
    assert_eq!(judged.code(), Some(1), "{}", judged.stdout());
    let case = &judged.report.cases[0];
    assert_eq!(case.verdict, Verdict::Fail, "{}", judged.stdout());
    let breach = case
        .checks
        .iter()
        .find(|c| c.verdict == Verdict::Fail)
        .expect("a failed check");
    assert_eq!(breach.requirement, "RPC-008", "{}", judged.stdout());
}
