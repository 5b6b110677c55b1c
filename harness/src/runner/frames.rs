//! Every frame of a transcript through the protocol checker (and the
//! official schemas, when given), turned into one check per requirement.

use std::collections::BTreeMap;

use mcp_conform_core::Level;
use mcp_conform_core::protocol::{FrameChecker, PeerRole, Violation};
use mcp_conform_core::span::Span;
use mcp_conform_core::version::ProtocolVersion;
use mcp_conform_core::wire::{Direction, Frame};
use serde_json::Value;

use super::outcome::Check;
use super::{RunConfig, Target};

/// At most this many violations are spelled out per requirement.
const SHOWN: usize = 5;

/// Checks a transcript after the fact. Only the peer's frames yield
/// findings; a violation in a frame we sent is the scenario's own business
/// (tests of malformed input send them on purpose).
pub fn check_frames(
    transcript: &[Frame],
    version: ProtocolVersion,
    config: &RunConfig,
    us: PeerRole,
) -> Vec<Check> {
    // The stdio framing rules apply to stdio only (a client under test speaks stdio to
    // `serve`, unless it reaches the mock server over HTTP).
    let mut checker = match &config.target {
        Target::Client(client) if client.over_http => FrameChecker::new(us),
        Target::Stdio(_) | Target::Client(_) => FrameChecker::new(us).on_stdio(),
        Target::Http { .. } => FrameChecker::new(us),
    };
    checker.set_version(version);
    let mut by_requirement: BTreeMap<(&'static str, Level), Vec<Violation>> = BTreeMap::new();
    // Our requests by id, so a result can be checked against its method's result schema.
    let mut asked: BTreeMap<String, String> = BTreeMap::new();
    for (index, frame) in transcript.iter().enumerate() {
        let mut violations = checker.check(frame);
        let message = serde_json::from_slice::<Value>(&frame.raw).ok();
        if let Some(message) = &message
            && frame.direction == Direction::Sent
            && let Some(method) = message.get("method").and_then(Value::as_str)
        {
            asked.insert(message["id"].to_string(), method.to_owned());
        }
        if let Some(official) = &config.official
            && frame.direction == Direction::Received
            && let Some(message) = &message
            && let Some(errors) = official.check(
                version,
                message,
                false,
                asked.get(&message["id"].to_string()).map(String::as_str),
            )
        {
            violations.extend(errors.into_iter().map(|error| {
                let mut violation = Violation::must("SCHEMA-002", format!("official schema: {error}"));
                violation.frame_index = Some(index);
                violation
            }));
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
                    let at = v
                        .pointer
                        .as_deref()
                        .map(|p| format!(" at {p}"))
                        .unwrap_or_default();
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
