//! `text/event-stream`, both ways: `encode` writes the events our servers
//! send, and a decoder reads bodies, fed whatever chunks the network
//! delivers. It follows the event-stream interpretation rules of the HTML
//! standard: lines end in CRLF, LF or CR; a line starting with `:` is a
//! comment; `data:` lines accumulate; an empty line dispatches the event;
//! `id:` sets the last event id (kept across events); `retry:` takes digits
//! only; unknown fields are ignored.

/// One SSE event as our servers write it: its id when it has one, then a
/// `message` carrying `data`, or without data an empty one (a priming event).
pub(crate) fn encode(id: Option<&str>, data: Option<&str>) -> String {
    let mut text = String::new();
    if let Some(id) = id {
        text.push_str(&format!("id: {id}\n"));
    }
    match data {
        None => text.push_str("data:\n"),
        Some(data) => {
            text.push_str("event: message\n");
            for line in data.split('\n') {
                text.push_str("data: ");
                text.push_str(line.trim_end_matches('\r'));
                text.push('\n');
            }
        }
    }
    text.push('\n');
    text
}

/// The longest line or event data we buffer; past it the rest is dropped,
/// so a runaway stream cannot exhaust memory.
const MAX_BYTES: usize = 16 * 1024 * 1024;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The stream's last event id when the event was dispatched.
    pub id: Option<String>,
    /// The `event:` name, if the event had one.
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`; may be empty (`data:` alone).
    pub data: String,
}

/// Incremental event-stream decoder.
#[derive(Debug, Default)]
pub struct SseDecoder {
    /// Bytes of a line not yet terminated.
    pending: Vec<u8>,
    /// Whether the previous chunk ended in CR (a following LF belongs to it).
    after_cr: bool,
    /// Whether a line was complete yet (a BOM opening the first is skipped,
    /// even when it arrived over several chunks).
    started: bool,
    data: String,
    has_data: bool,
    event: Option<String>,
    last_event_id: Option<String>,
    retry: Option<u64>,
    /// Lines or data cut at [`MAX_BYTES`].
    truncated: bool,
}

impl SseDecoder {
    pub fn new() -> Self {
        SseDecoder::default()
    }

    /// The id of the last `id:` field seen (what `Last-Event-ID` resumes from).
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_event_id.as_deref()
    }

    /// The last `retry:` value, in milliseconds.
    pub fn retry_ms(&self) -> Option<u64> {
        self.retry
    }

    /// Whether something was cut because it was too long.
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// Whether bytes of an event that was never dispatched are pending (the
    /// stream was cut in the middle of an event if it ends now).
    pub fn mid_event(&self) -> bool {
        !self.pending.is_empty() || self.has_data
    }

    /// Feeds the next chunk; returns the events it completed.
    pub fn feed(&mut self, mut chunk: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        if self.after_cr && !chunk.is_empty() {
            self.after_cr = false;
            if let Some(rest) = chunk.strip_prefix(b"\n") {
                chunk = rest;
            }
        }
        while let Some(end) = chunk.iter().position(|b| *b == b'\n' || *b == b'\r') {
            self.push_pending(&chunk[..end]);
            let line = std::mem::take(&mut self.pending);
            if let Some(event) = self.line(&line) {
                events.push(event);
            }
            let terminator_len = if chunk[end] == b'\r' {
                match chunk.get(end + 1) {
                    Some(b'\n') => 2,
                    Some(_) => 1,
                    None => {
                        self.after_cr = true;
                        1
                    }
                }
            } else {
                1
            };
            chunk = &chunk[end + terminator_len..];
        }
        self.push_pending(chunk);
        events
    }

    fn push_pending(&mut self, bytes: &[u8]) {
        let room = MAX_BYTES.saturating_sub(self.pending.len());
        if bytes.len() > room {
            self.truncated = true;
        }
        self.pending.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    /// Interprets one complete line.
    fn line(&mut self, mut line: &[u8]) -> Option<SseEvent> {
        if !self.started {
            self.started = true;
            line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        }
        if line.is_empty() {
            return self.dispatch();
        }
        if line[0] == b':' {
            return None;
        }
        let text = String::from_utf8_lossy(line);
        let (field, value) = match text.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (text.as_ref(), ""),
        };
        match field {
            "data" => {
                if self.data.len() + value.len() + 1 > MAX_BYTES {
                    self.truncated = true;
                } else {
                    self.data.push_str(value);
                    self.data.push('\n');
                }
                self.has_data = true;
            }
            "event" => self.event = Some(value.to_owned()),
            "id" if !value.contains('\0') => self.last_event_id = Some(value.to_owned()),
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                self.retry = value.parse().ok();
            }
            _ => {}
        }
        None
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let event = self.event.take();
        if !self.has_data {
            return None;
        }
        self.has_data = false;
        let mut data = std::mem::take(&mut self.data);
        if data.ends_with('\n') {
            data.pop();
        }
        Some(SseEvent {
            id: self.last_event_id.clone(),
            event,
            data,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_in_chunks(input: &[u8], size: usize) -> (Vec<SseEvent>, SseDecoder) {
        let mut decoder = SseDecoder::new();
        let events = input.chunks(size).flat_map(|c| decoder.feed(c)).collect();
        (events, decoder)
    }

    fn ev(id: Option<&str>, event: Option<&str>, data: &str) -> SseEvent {
        SseEvent {
            id: id.map(str::to_owned),
            event: event.map(str::to_owned),
            data: data.to_owned(),
        }
    }

    #[test]
    fn plain_events_with_ids_and_names() {
        let input = b"id: 1\nevent: message\ndata: {\"a\":1}\n\ndata:{\"b\":2}\n\n";
        let (events, decoder) = decode_in_chunks(input, 1000);
        assert_eq!(
            events,
            vec![
                ev(Some("1"), Some("message"), r#"{"a":1}"#),
                // The last event id carries over; the event name does not.
                ev(Some("1"), None, r#"{"b":2}"#),
            ]
        );
        assert_eq!(decoder.last_event_id(), Some("1"));
    }

    #[test]
    fn every_line_ending_and_every_chunking_give_the_same_events() {
        let lf = b": comment\nid: 7\nretry: 1500\ndata: line one\ndata:  line two\n\nevent: endpoint\ndata: /message?s=1\n\n".to_vec();
        let crlf: Vec<u8> = String::from_utf8(lf.clone())
            .unwrap()
            .replace('\n', "\r\n")
            .into_bytes();
        let cr: Vec<u8> = String::from_utf8(lf.clone())
            .unwrap()
            .replace('\n', "\r")
            .into_bytes();
        let expected = vec![
            ev(Some("7"), None, "line one\n line two"),
            ev(Some("7"), Some("endpoint"), "/message?s=1"),
        ];
        for input in [&lf, &crlf, &cr] {
            for size in 1..=input.len() {
                let (mut events, mut decoder) = decode_in_chunks(input, size);
                if input == &cr {
                    // A lone CR at the very end is only known to end the line once more bytes come.
                    events.extend(decoder.feed(b""));
                }
                assert_eq!(events, expected, "chunks of {size}");
                assert_eq!(decoder.retry_ms(), Some(1500));
                assert!(!decoder.mid_event());
            }
        }
    }

    #[test]
    fn priming_event_sets_the_id_and_carries_empty_data() {
        let (events, decoder) = decode_in_chunks(b"id: abc\ndata:\n\nid: abc2\n\n", 3);
        assert_eq!(events, vec![ev(Some("abc"), None, "")]);
        // An event without data is not dispatched but its id still counts.
        assert_eq!(decoder.last_event_id(), Some("abc2"));
    }

    #[test]
    fn malformed_lines_are_ignored_and_bad_retry_is_dropped() {
        let input = b"{\"jsonrpc\":\"2.0\"}\nretry: 12x\nnonsense\nid: a\0b\ndata\n\n";
        let (events, decoder) = decode_in_chunks(input, 5);
        // `data` alone is a data field with an empty value.
        assert_eq!(events, vec![ev(None, None, "")]);
        assert_eq!(decoder.retry_ms(), None);
        assert_eq!(decoder.last_event_id(), None);
    }

    #[test]
    fn a_cut_stream_leaves_an_undispatched_event() {
        let (events, decoder) = decode_in_chunks(b"id: 1\ndata: {\"partial\"", 4);
        assert!(events.is_empty());
        assert!(decoder.mid_event());
        let (_, decoder) = decode_in_chunks(b"id: 1\ndata: {}\n", 4);
        assert!(decoder.mid_event(), "data without the closing blank line");
    }

    #[test]
    fn a_leading_bom_is_skipped_and_utf8_kept() {
        let (events, _) = decode_in_chunks("\u{feff}data: héllo ✓\n\n".as_bytes(), 2);
        assert_eq!(events, vec![ev(None, None, "héllo ✓")]);
    }
}
