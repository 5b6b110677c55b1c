//! The client's own rules of Streamable HTTP, judged in core on what the
//! mock server recorded of it (`mcp_conform_core::protocol::client_http`);
//! here each judgement only becomes a check.

use mcp_conform_core::evidence::http::HttpClientRecord;
use mcp_conform_core::protocol::client_http::{self, Judgement};
use mcp_conform_core::scenario::Scenario;
use mcp_conform_core::span::Span;
use mcp_conform_core::version::ProtocolVersion;
use mcp_conform_core::wire::Frame;

use crate::runner::outcome::Check;

/// The checks of every client HTTP rule that applies at `version`.
pub fn judge(
    record: &HttpClientRecord,
    version: ProtocolVersion,
    scenario: &Scenario,
    transcript: &[Frame],
) -> Vec<Check> {
    client_http::judge(record, version, scenario, transcript)
        .into_iter()
        .map(to_check)
        .collect()
}

fn to_check(judgement: Judgement) -> Check {
    let check = Check::pass(
        judgement.name,
        judgement.requirement,
        judgement.level,
        Span::default(),
    );
    Check {
        message: judgement.message,
        ..check.with_verdict(judgement.verdict).at_frame(judgement.frame)
    }
}
