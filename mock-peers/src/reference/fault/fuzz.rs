//! The faults only `mcp-conform fuzz` finds: each is set off by a kind of
//! generated argument (empty, very long, of the wrong type) or URI that no
//! bundled scenario sends, so `harness/tests/fuzz.rs` sweeps them, not the
//! suite.

use mcp_conform_core::wire::jsonrpc::code;
use serde_json::{Value, json};

use super::{Fault, FaultLayer, Inbound};

/// From this length on a string argument hangs `fuzz-hang-on-long-string`
/// and a URI kills `fuzz-crash-on-long-uri`: far beyond anything the
/// bundled scenarios send.
const LONG_STRING: usize = 10_000;

impl FaultLayer {
    /// What a fuzz fault does to a `tools/call` with these arguments, or a
    /// `resources/read` of this URI, if they set it off.
    pub(super) fn fuzz_incoming(&self, message: &Value, method: &str) -> Option<Inbound> {
        if method == "resources/read" {
            let uri = message.pointer("/params/uri").and_then(Value::as_str)?;
            return match self.fault {
                Fault::FuzzCrashOnLongUri if uri.len() >= LONG_STRING => self.die("a long resource URI"),
                _ => None,
            };
        }
        if method != "tools/call" {
            return None;
        }
        let arguments = message.pointer("/params/arguments").and_then(Value::as_object)?;
        let mut strings = arguments.values().filter_map(Value::as_str);
        match self.fault {
            Fault::FuzzCrashOnEmptyString if strings.any(str::is_empty) => {
                self.die("an empty string argument")
            }
            Fault::FuzzHangOnLongString if strings.any(|s| s.len() >= LONG_STRING) => {
                eprintln!(
                    "reference server (fault {}): stuck on a long string argument",
                    self.fault
                );
                // Blocks the reader: nothing more is read or answered, not
                // even ping, until the process is killed.
                loop {
                    std::thread::park();
                }
            }
            // echo's `text` is a string; anything else breaks its schema.
            Fault::FuzzInternalErrorOnWrongType
                if arguments.get("text").is_some_and(|text| !text.is_string()) =>
            {
                Some(Inbound {
                    line: None,
                    answer: Some(json!({
                        "jsonrpc": "2.0",
                        "id": message.get("id").cloned().unwrap_or(Value::Null),
                        "error": {"code": code::INTERNAL_ERROR, "message": "unexpected argument"},
                    })),
                    ..Inbound::default()
                })
            }
            _ => None,
        }
    }
}
