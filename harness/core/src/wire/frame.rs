use std::collections::BTreeMap;
use std::time::Duration;

/// Which way a frame travelled, seen from the peer under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// We (the mock peer) sent it to the peer under test.
    Sent,
    /// The peer under test sent it to us.
    Received,
}

/// Transport facts about a frame: empty on stdio; on HTTP the status, headers,
/// SSE event id and which stream carried it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrameMeta {
    pub http_status: Option<u16>,
    /// Header names are lower-case.
    pub headers: BTreeMap<String, String>,
    pub sse_event_id: Option<String>,
    pub sse_event: Option<String>,
    /// A label for the stream or connection (for example `post#3`, `get`).
    pub stream: Option<String>,
}

/// One message as it crossed the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub direction: Direction,
    /// Exactly the bytes of the message, without the line terminator on stdio.
    pub raw: Vec<u8>,
    /// Time since the connection started.
    pub at: Duration,
    pub meta: FrameMeta,
}

impl Frame {
    pub fn new(direction: Direction, raw: Vec<u8>, at: Duration) -> Self {
        Frame {
            direction,
            raw,
            at,
            meta: FrameMeta::default(),
        }
    }

    /// The bytes as text, with invalid UTF-8 shown as replacement characters.
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(&self.raw)
    }
}
