//! Structured fuzzing of the SSE decoder: streams of events written with every
//! line terminator, comments and odd fields, then cut at random points. The
//! events decoded must not depend on where the stream was cut, and whatever
//! arrives (noise included) must decode without panicking.

use mcp_mock_peers::transport::http::sse::{SseDecoder, SseEvent};
use proptest::prelude::*;

/// One event as a server means it: data lines, an optional name and id.
#[derive(Debug, Clone)]
struct Sent {
    data: Vec<String>,
    event: Option<String>,
    id: Option<String>,
    comment: bool,
}

fn field_value() -> impl Strategy<Value = String> + Clone {
    // Line terminators cannot appear inside a field value; NUL and UTF-8 can.
    prop_oneof![
        "[^\r\n]{0,12}",
        Just(String::new()),
        Just(" leading space".to_owned()),
        Just("{\"jsonrpc\":\"2.0\"}".to_owned())
    ]
}

fn sent_event() -> impl Strategy<Value = Sent> {
    (
        prop::collection::vec(field_value(), 1..4),
        prop::option::of("[a-z]{1,8}"),
        prop::option::of("[a-z0-9]{1,8}"),
        any::<bool>(),
    )
        .prop_map(|(data, event, id, comment)| Sent {
            data,
            event,
            id,
            comment,
        })
}

fn terminator() -> impl Strategy<Value = &'static str> + Clone {
    prop_oneof![Just("\n"), Just("\r\n"), Just("\r")]
}

/// The stream's bytes and the events a conforming decoder dispatches from it.
fn stream() -> impl Strategy<Value = (Vec<u8>, Vec<SseEvent>)> {
    (
        prop::collection::vec((sent_event(), terminator()), 0..6),
        any::<bool>(),
    )
        .prop_map(|(events, bom)| {
            let mut bytes = Vec::new();
            // A BOM alone stays pending as an unfinished line (reported in issue 16's
            // hostile part): only open streams that carry events with one.
            if bom && !events.is_empty() {
                bytes.extend_from_slice(b"\xEF\xBB\xBF");
            }
            let mut expected = Vec::new();
            let mut last_id = None;
            for (sent, eol) in events {
                let mut line = |text: String| {
                    bytes.extend_from_slice(text.as_bytes());
                    bytes.extend_from_slice(eol.as_bytes());
                };
                if sent.comment {
                    line(": keep-alive".to_owned());
                }
                if let Some(event) = &sent.event {
                    line(format!("event: {event}"));
                }
                if let Some(id) = &sent.id {
                    line(format!("id: {id}"));
                    last_id = Some(id.clone());
                }
                for data in &sent.data {
                    line(format!("data: {data}"));
                }
                line(String::new());
                expected.push(SseEvent {
                    id: last_id.clone(),
                    event: sent.event.clone(),
                    data: sent.data.join("\n"),
                });
            }
            (bytes, expected)
        })
}

/// Feeds `bytes` cut at `cuts` (indices into it, in any order).
fn decode_in_chunks(bytes: &[u8], cuts: &[prop::sample::Index]) -> (Vec<SseEvent>, SseDecoder) {
    let mut points: Vec<usize> = cuts.iter().map(|cut| cut.index(bytes.len() + 1)).collect();
    points.push(0);
    points.push(bytes.len());
    points.sort_unstable();
    let mut decoder = SseDecoder::new();
    let events = points
        .windows(2)
        .flat_map(|w| decoder.feed(&bytes[w[0]..w[1]]))
        .collect();
    (events, decoder)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 3000,
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::WithSource("regressions"),
        )),
        ..ProptestConfig::default()
    })]

    #[test]
    fn events_do_not_depend_on_where_the_stream_is_cut(
        (bytes, expected) in stream(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..8),
    ) {
        let (events, decoder) = decode_in_chunks(&bytes, &cuts);
        prop_assert_eq!(events, expected);
        prop_assert!(!decoder.mid_event());
        prop_assert!(!decoder.truncated());
    }

    #[test]
    fn a_stream_cut_short_never_dispatches_its_last_event(
        (bytes, expected) in stream(),
        end in any::<prop::sample::Index>(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..4),
    ) {
        let prefix = &bytes[..end.index(bytes.len() + 1)];
        let (events, _) = decode_in_chunks(prefix, &cuts);
        // What a prefix dispatches is a prefix of what the whole stream does.
        prop_assert!(events.len() <= expected.len());
        prop_assert_eq!(&events[..], &expected[..events.len()]);
    }

    #[test]
    fn noise_decodes_without_panicking(
        bytes in prop::collection::vec(prop_oneof![any::<u8>(), Just(b'\n'), Just(b'\r'), Just(b':')], 0..512),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..8),
    ) {
        let (events, _) = decode_in_chunks(&bytes, &cuts);
        // Each dispatched event needs at least a `data` line and a blank line.
        prop_assert!(events.len() <= bytes.len() / 2);
        prop_assert!(events.iter().all(|e| e.data.len() <= bytes.len()));
    }
}
