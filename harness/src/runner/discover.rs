//! The stateless era's stand-in for the handshake: `server/discover`. The
//! server names the versions it speaks and its capabilities, which the
//! scenario's preconditions and `${server}` read. A server that refuses the
//! probe with anything but a modern error speaks only legacy versions
//! (MODN-009), so the scenario does not apply to it; the decision never
//! rests on one particular error code (MODN-010).

use mcp_conform_core::Verdict;
use mcp_conform_core::judge::discover::{self, Probe, classify, version_listed};
use mcp_mock_peers::session::WaitError;
use serde_json::json;
use tokio::time::Instant;

use super::RunConfig;
use super::handshake::{Handshaken, server_known};
use super::outcome::Check;
use super::steps::{StepRunner, Stop, Wait};

const DISCOVER: &str = "server/discover";

/// Sends `server/discover`, judges the answer, checks the scenario's
/// capability preconditions and defines `${server}`.
pub async fn discover(runner: &mut StepRunner<'_>, config: &RunConfig) -> Handshaken {
    let scenario = runner.scenario;
    // Counted from the send, which over HTTP may wait for the headers.
    let deadline = Instant::now() + config.startup_timeout;
    let id = match runner.session.request(DISCOVER, None, None).await {
        Ok(id) => id,
        Err(error) => return Handshaken::Stopped(Stop::halted(Verdict::Error, error.to_string())),
    };
    let answer = match runner.wait(Wait::Response(&id), deadline, &[]).await {
        Ok(got) => Ok(got.message()),
        Err(WaitError::Transport(refusal)) => Err(refusal),
        Err(WaitError::TimedOut) => {
            let note = format!(
                "no answer to {DISCOVER} within {} ms: neither a modern server's answer nor a legacy server's refusal (a client reads silence as legacy, MODN-009)",
                config.startup_timeout.as_millis()
            );
            return Handshaken::Stopped(Stop::halted(Verdict::NotObserved, note));
        }
        Err(error @ (WaitError::Stray(_) | WaitError::Malformed { .. })) => {
            // The frame checker reports the stray id (RPC-004).
            let note = format!("{DISCOVER} was not answered: {}", runner.describe(&error));
            return Handshaken::Stopped(Stop::halted(Verdict::Pass, note));
        }
        Err(WaitError::Closed(exit)) => {
            let note = format!(
                "the server went away before answering {DISCOVER} ({})",
                exit.description
            );
            return Handshaken::Stopped(Stop::halted(Verdict::Error, note));
        }
    };
    let version = runner.version.as_str();
    let tag = discover::tag(scenario.span);
    let result = match classify(answer) {
        Probe::Modern(result) => result,
        Probe::Unsupported { supported } => {
            runner.other_era = true;
            let note = format!(
                "the server speaks {} of the stateless era, not {version}",
                supported.join(", ")
            );
            return Handshaken::Stopped(Stop::halted(Verdict::NotApplicable, note));
        }
        Probe::Legacy(answered) => {
            runner.other_era = true;
            let note = format!(
                "a legacy server: {DISCOVER} is not a method it knows ({answered}); it speaks no version of the stateless era"
            );
            return Handshaken::Stopped(Stop::halted(Verdict::NotApplicable, note));
        }
        Probe::Refused(error) => {
            let message = format!("{DISCOVER} was refused with {error}");
            runner
                .checks
                .push(Check::broken_for("answer to server/discover", &tag, message));
            return Handshaken::Stopped(Stop::Done);
        }
    };
    runner.checks.push(version_listed(&result, version, &tag));
    let server = json!({
        "capabilities": result.get("capabilities"),
        "info": result.pointer("/_meta/io.modelcontextprotocol~1serverInfo"),
        "protocolVersion": version,
        "supportedVersions": result.get("supportedVersions"),
        "instructions": result.get("instructions"),
    });
    match server_known(runner, server) {
        Some(stop) => Handshaken::Stopped(stop),
        None => Handshaken::Ready,
    }
}
