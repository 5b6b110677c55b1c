//! Structured fuzzing of the parts of the core that read untrusted input: the
//! frame classifier (bytes from a peer), the matcher (patterns from scenario
//! files, values from a peer) and the scenario loader (YAML from users).
//! Each generated case must finish without panicking, within a per-case
//! guard, and produce output bounded by its input.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use mcp_conform_core::matcher::{MatchContext, Matcher};
use mcp_conform_core::scenario::load::load_str;
use mcp_conform_core::wire::{Classified, classify};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// A case that takes longer than this is a hang, not a slow input.
const CASE_GUARD: Duration = Duration::from_secs(5);

/// Runs `work` on its own thread and fails the case if it outlives the guard
/// (a panic inside also fails it, with the panic's text).
fn bounded<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    let (done, outcome) = mpsc::channel();
    let worker = std::thread::spawn(move || {
        // The receiver only goes away after a timeout, when the case already failed.
        let _ = done.send(work());
    });
    match outcome.recv_timeout(CASE_GUARD) {
        Ok(value) => value,
        Err(mpsc::RecvTimeoutError::Disconnected) => match worker.join() {
            Err(panic) => std::panic::resume_unwind(panic),
            Ok(()) => unreachable!("the worker sends before it ends"),
        },
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("case still running after {CASE_GUARD:?}"),
    }
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::WithSource("regressions"),
        )),
        ..ProptestConfig::default()
    }
}

/// Short strings that favour the characters parsers trip on.
fn text() -> impl Strategy<Value = String> + Clone {
    prop_oneof![
        "[a-z_/$.]{0,8}",
        "\\PC{0,12}",
        Just("\u{1b}[31m<script>".to_owned()),
        Just("${x}".to_owned()),
        Just(String::new()),
    ]
}

/// JSON values of random shape and depth.
fn json_value() -> impl Strategy<Value = Value> + Clone {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        text().prop_map(Value::from),
    ];
    leaf.prop_recursive(6, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
            prop::collection::vec((text(), inner), 0..6)
                .prop_map(|members| Value::Object(members.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// JSON-RPC envelopes, mostly near-valid: the members MCP cares about, with
/// values of the right and the wrong types.
fn envelope() -> impl Strategy<Value = Value> + Clone {
    let id = prop_oneof![
        any::<i64>().prop_map(Value::from),
        text().prop_map(Value::from),
        json_value()
    ];
    let member = prop_oneof![
        Just("jsonrpc".to_owned()),
        Just("id".to_owned()),
        Just("method".to_owned()),
        Just("params".to_owned()),
        Just("result".to_owned()),
        Just("error".to_owned()),
        text(),
    ];
    (
        prop::option::of(id),
        prop::option::of(prop_oneof![text(), Just("tools/list".to_owned())]),
        prop::collection::vec((member, json_value()), 0..4),
    )
        .prop_map(|(id, method, extra)| {
            let mut object = Map::new();
            object.insert("jsonrpc".into(), json!("2.0"));
            if let Some(id) = id {
                object.insert("id".into(), id);
            }
            if let Some(method) = method {
                object.insert("method".into(), json!(method));
            }
            object.extend(extra);
            Value::Object(object)
        })
}

/// Bytes a peer could send as one frame: envelopes, batches, their text cut
/// short or with a byte flipped, and raw noise.
fn frame_bytes() -> impl Strategy<Value = Vec<u8>> + Clone {
    let envelope_text = envelope().prop_map(|v| v.to_string().into_bytes());
    prop_oneof![
        envelope_text.clone(),
        prop::collection::vec(envelope(), 0..4).prop_map(|batch| Value::from(batch).to_string().into_bytes()),
        (envelope_text.clone(), any::<prop::sample::Index>())
            .prop_map(|(bytes, cut)| bytes[..cut.index(bytes.len() + 1)].to_vec()),
        (envelope_text, any::<prop::sample::Index>(), any::<u8>()).prop_map(|(mut bytes, at, byte)| {
            let at = at.index(bytes.len());
            bytes[at] = byte;
            bytes
        }),
        prop::collection::vec(any::<u8>(), 0..64),
        json_value().prop_map(|v| v.to_string().into_bytes()),
    ]
}

fn count_frames(classified: &Classified) -> usize {
    match classified {
        Classified::Batch(items) => 1 + items.iter().map(count_frames).sum::<usize>(),
        _ => 1,
    }
}

/// Matcher patterns: plain JSON with operators (wildcards, regexes, captures,
/// nested operators) mixed in, some with operands of the wrong type.
fn pattern() -> impl Strategy<Value = Value> + Clone {
    let operator = prop_oneof![
        Just("$any"),
        Just("$absent"),
        Just("$capture"),
        Just("$contains"),
        Just("$each"),
        Just("$eq"),
        Just("$exact"),
        Just("$gt"),
        Just("$gte"),
        Just("$len"),
        Just("$lt"),
        Just("$lte"),
        Just("$ne"),
        Just("$not"),
        Just("$regex"),
        Just("$schema"),
        Just("$select"),
        Just("$type"),
        Just("$unique"),
        Just("$unordered"),
    ];
    let regex = prop_oneof![
        Just("a.*b"),
        Just("(a+)+$"),
        Just("["),
        Just("^.{0,5}$"),
        Just("\\d")
    ];
    let leaf = prop_oneof![
        json_value(),
        regex.prop_map(|r| json!({ "$regex": r })),
        Just(json!({ "$any": true })),
        Just(json!({ "$capture": "v" })),
        Just(json!("${v}")),
        Just(json!({ "$type": "string" })),
    ];
    leaf.prop_recursive(4, 32, 4, move |inner| {
        prop_oneof![
            (operator.clone(), inner.clone()).prop_map(|(op, operand)| json!({ op: operand })),
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::vec((text(), inner), 0..4)
                .prop_map(|members| Value::Object(members.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// A valid scenario to mutate: near-valid YAML finds more than noise does.
const SEED_SCENARIO: &str = "\
id: fuzz.seed
title: A seed for the scenario fuzzer
requirements: [RPC-012]
versions: legacy
requires: { capabilities: [tools] }
steps:
  - request:
      method: tools/call
      params: { arguments: {} }
      expect: { level: SHOULD, error: { code: -32602, data: { $contains: \"${protocol_version}\" } } }
  - request:
      method: ping
      expect: { requirement: PING-001, result: { $any: true } }
  - expect_silence: { within_ms: 10, forbid: [notifications/tools/list_changed] }
";

/// Fragments spliced into the seed: YAML structure, wrong types, anchors
/// and aliases, odd scalars.
fn yaml_fragment() -> impl Strategy<Value = String> + Clone {
    prop_oneof![
        Just(":".to_owned()),
        Just("- ".to_owned()),
        Just("\n  ".to_owned()),
        Just("{".to_owned()),
        Just("[".to_owned()),
        Just("&a [*a]".to_owned()),
        Just("*a".to_owned()),
        Just("!!binary".to_owned()),
        Just("~".to_owned()),
        Just("\t".to_owned()),
        Just("'".to_owned()),
        Just("\"\\u".to_owned()),
        Just("{ $regex: '(' }".to_owned()),
        Just("timeout_ms: -1".to_owned()),
        Just("versions: 9999-99-99..".to_owned()),
        Just("role: gateway".to_owned()),
        text(),
    ]
}

fn scenario_text() -> impl Strategy<Value = String> + Clone {
    let edit = (
        any::<prop::sample::Index>(),
        any::<prop::sample::Index>(),
        yaml_fragment(),
    );
    prop::collection::vec(edit, 0..4).prop_map(|edits| {
        let mut text = SEED_SCENARIO.to_owned();
        for (at, len, fragment) in edits {
            let start = floor_char_boundary(&text, at.index(text.len() + 1));
            let end = floor_char_boundary(&text, (start + len.index(8)).min(text.len()));
            text.replace_range(start..end.max(start), &fragment);
        }
        text
    })
}

fn floor_char_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

proptest! {
    #![proptest_config(config(3000))]

    #[test]
    fn classify_reads_any_frame(raw in frame_bytes()) {
        let len = raw.len();
        let classified = bounded(move || classify(&raw));
        // At most one entry per element of a batch, whatever the nesting.
        prop_assert!(count_frames(&classified) <= len + 1);
        if let Classified::Invalid(invalid) = classified {
            let described = format!("{:?}", invalid);
            prop_assert!(described.len() < 4 * len + 256, "{}", described);
        }
    }

    #[test]
    fn matcher_compiles_and_evaluates_any_pattern(expected in pattern(), actual in json_value()) {
        bounded(move || {
            let mut ctx = MatchContext::default();
            let Ok(matcher) = Matcher::compile(&expected) else { return };
            let mismatches = matcher.eval(Some(&actual), &mut ctx);
            let _ = matcher.eval(None, &mut ctx);
            let _ = matcher.normalize_actual(&actual, &ctx);
            let _ = matcher.display_expected(&ctx);
            // Every mismatch points somewhere inside `actual`.
            let pointer_budget = actual.to_string().len() + 64;
            for mismatch in &mismatches {
                assert!(mismatch.pointer.len() <= pointer_budget, "{mismatch:?}");
            }
        });
    }

    #[test]
    fn matcher_matches_the_value_it_was_made_from(value in json_value()) {
        let mismatches = bounded(move || {
            // Plain JSON (no `$` keys, no templates) compiled exactly must accept itself.
            let plain = !value.to_string().contains('$');
            match Matcher::exact(&value) {
                Ok(matcher) if plain => matcher.eval(Some(&value), &mut MatchContext::default()),
                _ => Vec::new(),
            }
        });
        prop_assert!(mismatches.is_empty(), "{:?}", mismatches);
    }
}

proptest! {
    #![proptest_config(config(1500))]

    #[test]
    fn scenario_loader_reports_any_text(text in scenario_text()) {
        let len = text.len();
        let rendered = bounded(move || match load_str(Path::new("fuzz.yaml"), &text) {
            Ok(_) => Vec::new(),
            Err(diagnostics) => diagnostics.iter().map(|d| d.render(false)).collect::<Vec<_>>(),
        });
        // Diagnostics quote the file, not an expansion of it.
        let total: usize = rendered.iter().map(String::len).sum();
        prop_assert!(total < 64 * len + 4096, "{} bytes of diagnostics for {} bytes of YAML", total, len);
    }
}

#[test]
fn the_unmutated_seed_loads() {
    if let Err(diagnostics) = load_str(Path::new("seed.yaml"), SEED_SCENARIO) {
        panic!("{}", diagnostics[0].render(false));
    }
}
