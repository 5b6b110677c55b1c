//! Every frame of a transcript through the protocol checker (and the
//! official schemas, when given), turned into one check per requirement.

use std::collections::{BTreeMap, BTreeSet};

use mcp_conform_core::Level;
use mcp_conform_core::protocol::official::{Answering, OfficialSchemas};
use mcp_conform_core::protocol::{FrameChecker, PeerRole, Violation};
use mcp_conform_core::requirements::RequirementId;
use mcp_conform_core::span::Span;
use mcp_conform_core::version::ProtocolVersion;
use mcp_conform_core::wire::{Direction, Frame};
use serde_json::Value;

use super::RunConfig;
use super::outcome::Check;

/// At most this many violations are spelled out per requirement.
const SHOWN: usize = 5;
/// How `expect_silence` names a response to no request of ours (and how
/// `forbid` names such responses).
pub const STRAY_RESPONSE: &str = "response";

/// What the peer sent in the frames whose index `keep` admits: method
/// names, and `response (id N)` for a response to no request of ours (the
/// answers to our own requests do not count, unless we cancelled them);
/// only the kinds in `forbid`, or everything when it is empty.
pub fn heard(transcript: &[Frame], keep: impl Fn(usize) -> bool, forbid: &[String]) -> Vec<String> {
    let sent: Vec<Value> = transcript
        .iter()
        .filter(|f| f.direction == Direction::Sent)
        .filter_map(|f| serde_json::from_slice::<Value>(&f.raw).ok())
        .collect();
    let cancelled: BTreeSet<String> = sent
        .iter()
        .filter(|m| m.get("method").and_then(Value::as_str) == Some("notifications/cancelled"))
        .filter_map(|m| m.pointer("/params/requestId").map(Value::to_string))
        .collect();
    let ours: BTreeSet<String> = sent
        .iter()
        .filter(|m| m.get("method").is_some())
        .filter_map(|m| m.get("id").map(Value::to_string))
        .filter(|id| !cancelled.contains(id))
        .collect();
    transcript
        .iter()
        .enumerate()
        .filter(|(i, f)| f.direction == Direction::Received && keep(*i))
        .filter_map(|(_, f)| serde_json::from_slice::<Value>(&f.raw).ok())
        .filter_map(|m| match m.get("method").and_then(Value::as_str) {
            Some(method) => Some(method.to_owned()),
            None => {
                let id = m.get("id").unwrap_or(&Value::Null).to_string();
                (!ours.contains(&id)).then(|| format!("{STRAY_RESPONSE} (id {id})"))
            }
        })
        .filter(|heard| {
            let kind = heard.split(' ').next().unwrap_or_default();
            forbid.is_empty() || forbid.iter().any(|f| f == kind)
        })
        .collect()
}

/// Checks a transcript after the fact. Only the peer's frames yield
/// findings; a violation in a frame we sent is the scenario's own business
/// (tests of malformed input send them on purpose).
pub fn check_frames(
    transcript: &[Frame],
    version: ProtocolVersion,
    stdio: bool,
    config: &RunConfig,
    us: PeerRole,
) -> Vec<Check> {
    // The stdio framing rules apply to stdio only.
    let mut checker = match stdio {
        true => FrameChecker::new(us).on_stdio(),
        false => FrameChecker::new(us),
    };
    checker.set_version(version);
    let mut by_requirement: BTreeMap<(RequirementId, Level), Vec<Violation>> = BTreeMap::new();
    // Our requests by id (method, augmented with a task), so a result can be
    // checked against the result schema of what it answers.
    let mut asked: BTreeMap<String, (String, bool)> = BTreeMap::new();
    for (index, frame) in transcript.iter().enumerate() {
        let mut violations = checker.check(frame);
        let message = serde_json::from_slice::<Value>(&frame.raw).ok();
        if let Some(message) = &message
            && frame.direction == Direction::Sent
            && let Some(method) = message.get("method").and_then(Value::as_str)
        {
            let as_task = message["params"]["task"].is_object();
            asked.insert(message["id"].to_string(), (method.to_owned(), as_task));
        }
        if let Some(official) = &config.official
            && frame.direction == Direction::Received
            && let Some(message) = &message
            && let Some(errors) = official.check(
                version,
                message,
                false,
                asked
                    .get(&message["id"].to_string())
                    .map(|(method, as_task)| Answering {
                        method,
                        as_task: *as_task,
                    }),
            )
        {
            violations.extend(OfficialSchemas::violations(errors, index));
        }
        for violation in violations.into_iter().filter(|v| !v.by_us) {
            by_requirement
                .entry((violation.requirement, violation.level))
                .or_default()
                .push(violation);
        }
    }
    by_requirement
        .into_iter()
        .map(|((requirement, level), violations)| {
            let mut lines: Vec<String> = violations
                .iter()
                .take(SHOWN)
                .map(|v| {
                    let at = match v.pointer.as_deref() {
                        // The empty JSON Pointer names the whole message.
                        Some("") => " at (document root)".to_owned(),
                        Some(pointer) => format!(" at {pointer}"),
                        None => String::new(),
                    };
                    let frame = v.frame_index.map(|i| format!("frame {i}")).unwrap_or_default();
                    format!("{frame}{at}: {}", v.message)
                })
                .collect();
            if violations.len() > SHOWN {
                lines.push(format!("… and {} more", violations.len() - SHOWN));
            }
            let first = violations.first().and_then(|v| v.frame_index);
            Check::broken(
                format!("frames follow {requirement}"),
                requirement,
                level,
                Span::default(),
                lines.join("\n"),
            )
            .at_frame(first)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use mcp_mock_peers::transport::StdioCommand;

    use super::*;
    use crate::runner::Target;

    #[test]
    fn a_finding_about_the_whole_message_says_so() {
        let transcript = [Frame::new(Direction::Received, b"[]".to_vec(), Duration::ZERO)];
        let config = RunConfig::new(Target::Stdio(StdioCommand::parse("server").unwrap()));
        let checks = check_frames(
            &transcript,
            ProtocolVersion::V2025_11_25,
            true,
            &config,
            PeerRole::Client,
        );
        let shown = format!("{checks:?}");
        assert!(
            shown.contains("frame 0 at (document root): an empty batch"),
            "{shown}"
        );
    }
}
