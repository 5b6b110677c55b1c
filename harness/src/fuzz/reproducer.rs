//! The scenario file that replays one finding: the generated call, and the
//! expectation the oracle found broken, at the requirement's own level, so
//! `mcp-conform run` on it fails (or warns) the same way.

use mcp_conform_core::requirements::id;
use serde_json::{Value, json};

use super::oracle::Finding;
use super::subject::{Subject, raw_frame};

/// How long the reproducer of a malformed frame waits for its answer.
const FRAME_ANSWER_MS: u64 = 2000;

/// The reproducer for `finding`, raised by what `subject` sent for
/// `arguments`, as the text of a scenario file. `name` becomes its id
/// (`fuzz.<name>`), so it should say which run and case it came from.
pub fn scenario(name: &str, subject: &Subject, arguments: &Value, finding: &Finding) -> String {
    let requirement = finding.requirement;
    let level = requirement.requirement().level.to_string();
    let sent = match subject {
        Subject::Frame => {
            let (text, expects) = raw_frame(arguments);
            let mut expect = tag(finding);
            expect["error"] = json!({"code": expects});
            json!({"send_raw": {"text": literal(&json!(text)), "expect": expect, "timeout_ms": FRAME_ANSWER_MS}})
        }
        _ => {
            let (method, params) = subject.request(arguments);
            json!({"request": {
                "method": literal(&json!(method)),
                "params": literal(&params),
                "expect": expected(finding),
            }})
        }
    };
    // A server that survived the call must still answer: this is what
    // catches one that went away or got stuck.
    let ping = json!({
        "method": "ping",
        "expect": {"level": level, "requirement": requirement.as_str(), "result": {}},
    });
    let file = json!({
        "id": format!("fuzz.{name}"),
        "title": format!("fuzz finding: {}", finding.what),
        "requirements": [requirement.as_str()],
        "steps": [sent, {"request": ping}],
    });
    let body = serde_json::to_string_pretty(&file).expect("a JSON value always serializes");
    format!(
        "# Written by `mcp-conform fuzz`; replay with `mcp-conform run`.\n{}\n",
        yaml_safe(&body)
    )
}

/// What the answer to the request must be for the finding not to
/// reproduce: -32601 for an unknown method, -32602 for a missing prompt
/// argument, any answer but -32603 for the finding about that code, any
/// answer at all for the others (the `ping` after it catches a server that
/// went away).
fn expected(finding: &Finding) -> Value {
    let answer = match finding.requirement {
        id::RPC_011 => json!({"error": {"code": -32601}}),
        id::PROM_003 => json!({"error": {"code": -32602}}),
        id::RPC_012 => json!({"any_of": [{"result": {}}, {"error": {"code": {"$not": -32603}}}]}),
        _ => json!({"any_of": [{"result": {}}, {"error": {}}]}),
    };
    let mut expect = tag(finding);
    expect
        .as_object_mut()
        .expect("an object")
        .extend(answer.as_object().expect("an object").clone());
    expect
}

/// The level and requirement an expectation is judged at: the finding's.
fn tag(finding: &Finding) -> Value {
    let requirement = finding.requirement;
    json!({"level": requirement.requirement().level.to_string(), "requirement": requirement.as_str()})
}

/// `value` with every `${` in its strings written `$${`, so the scenario
/// sends the generated text instead of interpolating it.
fn literal(value: &Value) -> Value {
    match value {
        Value::String(text) => Value::String(text.replace("${", "$${")),
        Value::Array(items) => Value::Array(items.iter().map(literal).collect()),
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(key, value)| (key.clone(), literal(value)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// JSON is YAML, except that YAML forbids some characters (U+FFFF, most
/// C1 controls…) even inside quoted strings, and generated strings carry
/// them: every non-ASCII character is written as a YAML escape instead.
/// Outside strings JSON text is ASCII, so this only touches string contents.
fn yaml_safe(json: &str) -> String {
    json.chars()
        .map(|c| match u32::from(c) {
            code if code < 0x80 => c.to_string(),
            code if code <= 0xFFFF => format!("\\u{code:04X}"),
            code => format!("\\U{code:08X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use mcp_conform_core::scenario::load::load_str;
    use mcp_conform_report::Verdict;

    use super::*;

    fn echo() -> Subject {
        Subject::Tool {
            name: "echo".into(),
            schema: json!({}),
        }
    }

    fn finding() -> Finding {
        Finding {
            requirement: id::RPC_012,
            verdict: Verdict::NonStrict,
            what: "WrongType earned -32603".into(),
        }
    }

    #[test]
    fn the_reproducer_is_a_valid_scenario_carrying_the_call() {
        let arguments = json!({"name": "\u{0}\u{202e}\u{feff}e\u{301}\u{1f600}\u{ffff}", "n": 7});
        let text = scenario("seed-1.case-3", &echo(), &arguments, &finding());
        let loaded =
            load_str(Path::new("fuzz.yaml"), &text).unwrap_or_else(|errors| panic!("{errors:?}\n{text}"));
        assert_eq!(loaded.id, "fuzz.seed-1.case-3");
        assert_eq!(loaded.requirements, ["RPC-012"]);
        assert_eq!(loaded.steps.len(), 2);
        assert!(text.contains("\\u202E") && text.contains("\\U0001F600"));
    }

    #[test]
    fn it_expects_at_the_requirement_level() {
        let text = scenario("x", &echo(), &json!({}), &finding());
        assert!(text.contains("\"level\": \"SHOULD\""), "{text}");
        assert!(text.contains("-32603"), "{text}");
    }

    #[test]
    fn generated_dollar_braces_are_sent_as_they_are() {
        let arguments = json!({"text": ["${x}", "$${y}"]});
        assert_eq!(literal(&arguments), json!({"text": ["$${x}", "$$${y}"]}));
        let text = scenario("x", &echo(), &arguments, &finding());
        load_str(Path::new("fuzz.yaml"), &text).unwrap_or_else(|errors| panic!("{errors:?}"));
    }

    #[test]
    fn a_server_gone_finding_accepts_any_answer_to_the_call() {
        let gone = Finding {
            requirement: id::TOOL_006,
            verdict: Verdict::Fail,
            what: "the server went away".into(),
        };
        let text = scenario("x", &echo(), &json!({}), &gone);
        assert!(text.contains("\"level\": \"MUST\""), "{text}");
        assert!(!text.contains("-32603"), "{text}");
    }

    #[test]
    fn an_unknown_method_must_earn_method_not_found() {
        let unknown = Finding {
            requirement: id::RPC_011,
            verdict: Verdict::NonStrict,
            what: "a method no version defines earned a result".into(),
        };
        let text = scenario(
            "x",
            &Subject::UnknownMethod,
            &json!({"method": "tools/${frob}"}),
            &unknown,
        );
        let loaded = load_str(Path::new("fuzz.yaml"), &text).unwrap_or_else(|errors| panic!("{errors:?}"));
        assert_eq!(loaded.requirements, ["RPC-011"]);
        assert!(
            text.contains("-32601") && text.contains("tools/$${frob}"),
            "{text}"
        );
    }

    #[test]
    fn a_malformed_frame_is_sent_raw_and_must_earn_its_error() {
        let ignored = Finding {
            requirement: id::RPC_009,
            verdict: Verdict::NonStrict,
            what: "a malformed frame met no answer".into(),
        };
        let frame = json!({"raw": "{\"jsonrpc\": \"2.0\", \"id\": \"${x}\"", "expects": -32700});
        let text = scenario("x", &Subject::Frame, &frame, &ignored);
        let loaded =
            load_str(Path::new("fuzz.yaml"), &text).unwrap_or_else(|errors| panic!("{errors:?}\n{text}"));
        assert_eq!(loaded.steps.len(), 2);
        assert!(
            text.contains("send_raw") && text.contains("-32700") && text.contains("$${x}"),
            "{text}"
        );
    }
}
