//! What the recorder sees of the traffic it relays: every frame, in order,
//! judged by the frame checker as it passes, with each finding printed on
//! stderr at once (traffic is never altered), and kept for the writer.

use std::io::Write;

use mcp_conform_core::protocol::{FrameChecker, PeerRole, Violation};
use mcp_conform_core::redact::Secrets;
use mcp_conform_core::wire::{Direction, Frame};
use mcp_conform_report::sanitize;

/// The relayed frames; `Sent` ones are the client's.
pub struct Tap<W> {
    checker: FrameChecker,
    transcript: Vec<Frame>,
    findings: usize,
    secrets: Secrets,
    out: W,
}

impl<W: Write> Tap<W> {
    /// A tap writing findings to `out`; `stdio` applies the stdio framing rules.
    pub fn new(stdio: bool, secrets: Secrets, out: W) -> Self {
        let checker = FrameChecker::new(PeerRole::Client);
        Tap {
            checker: if stdio { checker.on_stdio() } else { checker },
            transcript: Vec::new(),
            findings: 0,
            secrets,
            out,
        }
    }

    /// A frame the client sent.
    pub fn client_sent(&mut self, frame: &Frame) {
        self.pass(frame, Direction::Sent);
    }

    /// A frame the server sent.
    pub fn server_sent(&mut self, frame: &Frame) {
        self.pass(frame, Direction::Received);
    }

    fn pass(&mut self, frame: &Frame, direction: Direction) {
        let frame = Frame {
            direction,
            ..frame.clone()
        };
        for violation in self.checker.check(&frame) {
            self.findings += 1;
            let line = self.secrets.redact(&finding(&violation)).into_owned();
            // A closed stderr must not stop the relay.
            let _ = writeln!(self.out, "{}", sanitize::controls(&line));
        }
        self.transcript.push(frame);
    }

    /// How many findings were printed.
    pub fn findings(&self) -> usize {
        self.findings
    }

    /// Every frame so far, in the order it passed.
    pub fn take_transcript(&mut self) -> Vec<Frame> {
        std::mem::take(&mut self.transcript)
    }
}

/// One line per finding: who broke which requirement, where.
fn finding(violation: &Violation) -> String {
    let who = match violation.by_us {
        true => "client",
        false => "server",
    };
    let frame = violation
        .frame_index
        .map(|i| format!(" (frame {i})"))
        .unwrap_or_default();
    let at = match violation.pointer.as_deref() {
        Some("") | None => String::new(),
        Some(pointer) => format!(" at {pointer}"),
    };
    format!(
        "record: {who} broke {} ({}){frame}: {}{at}",
        violation.requirement, violation.level, violation.message
    )
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn findings_are_printed_as_frames_pass_and_frames_are_kept() {
        let mut out = Vec::new();
        let mut tap = Tap::new(true, Secrets::default(), &mut out);
        let request = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
        tap.client_sent(&Frame::new(Direction::Received, request.to_vec(), Duration::ZERO));
        tap.server_sent(&Frame::new(
            Direction::Received,
            b"not json".to_vec(),
            Duration::ZERO,
        ));
        let findings = tap.findings();
        let transcript = tap.take_transcript();
        let printed = String::from_utf8(out).expect("text");
        assert_eq!(findings, 1, "{printed}");
        assert!(printed.starts_with("record: server broke STDIO-002"), "{printed}");
        assert_eq!(transcript[0].direction, Direction::Sent);
        assert_eq!(transcript[1].direction, Direction::Received);
    }
}
