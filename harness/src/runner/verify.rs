//! Turns matcher results into checks.

use mcp_conform_core::judge::summarize;
use mcp_conform_core::matcher::{MatchContext, Matcher};
use mcp_conform_core::scenario::model::{Capture, CheckTag, ResponseCheck, ResponseExpect};
use serde_json::Value;

use super::outcome::Check;

/// Evaluates one matcher against a value (`None`: absent) as a check.
pub fn check_matcher(
    name: String,
    tag: &CheckTag,
    matcher: &Matcher,
    actual: Option<&Value>,
    ctx: &mut MatchContext,
) -> Check {
    let mismatches = matcher.eval(actual, ctx);
    if mismatches.is_empty() {
        return Check::pass(name, &tag.requirement, tag.level, tag.span);
    }
    let message = mismatches
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n");
    let expected = matcher.display_expected(ctx);
    let actual = actual.map(|a| matcher.normalize_actual(a, ctx));
    Check::broken(name, &tag.requirement, tag.level, tag.span, message).with_values(Some(expected), actual)
}

/// Judges a response message against what the scenario expects of it.
pub fn check_response(
    name: String,
    expected: &ResponseCheck,
    response: &Value,
    ctx: &mut MatchContext,
) -> Check {
    let tag = &expected.tag;
    let broken =
        |message: String| Check::broken(name.clone(), &tag.requirement, tag.level, tag.span, message);
    match &expected.expect {
        ResponseExpect::Any => Check::pass(name.clone(), &tag.requirement, tag.level, tag.span),
        ResponseExpect::NoResponse => broken(format!("expected no response, got {}", summarize(response))),
        ResponseExpect::Result(matcher) => match response.get("result") {
            Some(result) => check_matcher(name.clone(), tag, matcher, Some(result), ctx),
            None => broken(format!("expected a result, got {}", summarize(response))),
        },
        ResponseExpect::Error(matcher) => match response.get("error") {
            Some(error) => check_matcher(name.clone(), tag, matcher, Some(error), ctx),
            None => broken(format!("expected an error, got {}", summarize(response))),
        },
        ResponseExpect::AnyOf(alternatives) => {
            let mut reasons = Vec::new();
            for alternative in alternatives {
                let mut trial = ctx.clone();
                let check = check_response(name.clone(), alternative, response, &mut trial);
                if check.message.is_none() {
                    *ctx = trial;
                    return Check::pass(name.clone(), &tag.requirement, tag.level, tag.span);
                }
                reasons.extend(check.message);
            }
            broken(format!("no alternative holds:\n- {}", reasons.join("\n- ")))
        }
    }
}

/// Stores JSONPath captures from a message into variables. One node is
/// stored as is, several as an array; no node leaves the variable unset.
pub fn apply_captures(captures: &[Capture], message: &Value, ctx: &mut MatchContext) {
    for capture in captures {
        let nodes = capture.path.query(message).all();
        match nodes.as_slice() {
            [] => {}
            [one] => {
                ctx.vars.insert(capture.var.clone(), (*one).clone());
            }
            many => {
                ctx.vars.insert(
                    capture.var.clone(),
                    Value::Array(many.iter().map(|v| (*v).clone()).collect()),
                );
            }
        }
    }
}
