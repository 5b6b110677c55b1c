//! Matching an actual value against a [`Node`].

use std::collections::BTreeSet;

use serde_json::Value;

use super::compile::{Compare, Node, compile};
use super::display::expected;
use super::template::render_string;
use super::{MatchContext, Mismatch, pointer_join};

pub(super) fn eval(
    node: &Node,
    actual: Option<&Value>,
    at: &str,
    ctx: &mut MatchContext,
    out: &mut Vec<Mismatch>,
) {
    let mut fail = |message: String, ctx: &MatchContext| {
        out.push(Mismatch {
            pointer: at.to_owned(),
            expected: expected(node, ctx).to_string(),
            actual: actual.cloned(),
            message,
        });
    };
    match (node, actual) {
        (Node::Absent, None) => {}
        (Node::Absent, Some(_)) => fail("must be absent".into(), ctx),
        (Node::Not(inner), _) => {
            if matches(inner, actual, ctx) {
                fail("matches what it must not".into(), ctx);
            }
        }
        (Node::OneOf(alternatives), _) => {
            if !alternatives.iter().any(|alt| matches_capturing(alt, actual, ctx)) {
                fail("matches none of the alternatives".into(), ctx);
            }
        }
        (Node::AllOf(all), _) => all.iter().for_each(|n| eval(n, actual, at, ctx, out)),
        (Node::Template { text, exact }, _) => match resolve(text, *exact, ctx) {
            Ok(resolved) => eval(&resolved, actual, at, ctx, out),
            Err(message) => fail(message, ctx),
        },
        (_, None) => fail("missing".into(), ctx),
        (Node::Any, Some(_)) => {}
        (Node::Capture(name), Some(value)) => {
            ctx.vars.insert(name.clone(), value.clone());
        }
        (Node::Literal(want), Some(got)) => {
            if !json_equal(want, got) {
                fail("differs".into(), ctx);
            }
        }
        (Node::Object { members, exact }, Some(got)) => {
            let Some(map) = got.as_object() else {
                return fail("expected an object".into(), ctx);
            };
            for (key, member) in members {
                eval(member, map.get(key), &pointer_join(at, key), ctx, out);
            }
            if *exact {
                for key in map.keys().filter(|k| !members.iter().any(|(m, _)| m == *k)) {
                    out.push(Mismatch {
                        pointer: pointer_join(at, key),
                        expected: "nothing (exact)".into(),
                        actual: map.get(key).cloned(),
                        message: "unexpected member".into(),
                    });
                }
            }
        }
        (Node::Array { items, prefix }, Some(got)) => {
            let Some(list) = got.as_array() else {
                return fail("expected an array".into(), ctx);
            };
            let count_ok = if *prefix {
                list.len() >= items.len()
            } else {
                list.len() == items.len()
            };
            if !count_ok {
                let at_least = if *prefix { "at least " } else { "" };
                fail(
                    format!("expected {at_least}{} items, got {}", items.len(), list.len()),
                    ctx,
                );
            }
            for (i, item) in items.iter().enumerate().take(list.len()) {
                eval(item, list.get(i), &format!("{at}/{i}"), ctx, out);
            }
        }
        (Node::Type(types), Some(got)) => {
            if !types.iter().any(|t| has_type(got, t)) {
                fail(format!("expected type {}", types.join(" or ")), ctx);
            }
        }
        (Node::Regex(regex), Some(got)) => match got.as_str() {
            Some(text) if regex.is_match(text) => {}
            Some(_) => fail(format!("does not match /{regex}/"), ctx),
            None => fail("expected a string".into(), ctx),
        },
        (Node::Compare(op, operand), Some(got)) => match operand_value(operand, ctx) {
            Ok(want) if compare(*op, got, &want) => {}
            Ok(_) => fail("comparison does not hold".into(), ctx),
            Err(message) => fail(message, ctx),
        },
        (Node::Len(inner), Some(got)) => {
            let len = match got {
                Value::Array(a) => a.len(),
                Value::String(s) => s.chars().count(),
                Value::Object(o) => o.len(),
                _ => return fail("has no length".into(), ctx),
            };
            if !matches(inner, Some(&Value::from(len)), ctx) {
                fail(format!("length is {len}"), ctx);
            }
        }
        (Node::Contains(inner), Some(got)) => {
            let found = match (got, inner.as_ref()) {
                (Value::Array(items), _) => {
                    items.iter().any(|item| matches_capturing(inner, Some(item), ctx))
                }
                (Value::String(text), Node::Literal(Value::String(part))) => text.contains(part.as_str()),
                _ => false,
            };
            if !found {
                fail("contains no matching element".into(), ctx);
            }
        }
        (Node::Each(inner), Some(got)) => match got.as_array() {
            Some(items) => {
                for (i, item) in items.iter().enumerate() {
                    eval(inner, Some(item), &format!("{at}/{i}"), ctx, out);
                }
            }
            None => fail("expected an array".into(), ctx),
        },
        (Node::Unique, Some(got)) => check_unique(got, |item| Some(item.to_string()), at, out),
        (Node::UniqueBy(by), Some(got)) => {
            check_unique(got, |item| item.pointer(by).map(Value::to_string), at, out)
        }
        (Node::Select { path, node, .. }, Some(got)) => {
            let selected = Value::Array(path.query(got).all().into_iter().cloned().collect());
            eval(node, Some(&selected), at, ctx, out);
        }
        (Node::Schema(schema), Some(got)) => match jsonschema::validator_for(schema) {
            Ok(validator) => {
                let errors: Vec<String> = validator
                    .iter_errors(got)
                    .map(|e| format!("{} at {}", e, e.instance_path()))
                    .collect();
                if !errors.is_empty() {
                    fail(format!("does not validate: {}", errors.join("; ")), ctx);
                }
            }
            Err(e) => fail(format!("invalid JSON Schema: {e}"), ctx),
        },
    }
}

/// Whether a node matches, leaving captures untouched.
fn matches(node: &Node, actual: Option<&Value>, ctx: &MatchContext) -> bool {
    let mut trial = ctx.clone();
    let mut out = Vec::new();
    eval(node, actual, "", &mut trial, &mut out);
    out.is_empty()
}

/// Whether a node matches; on a match, its captures are kept.
fn matches_capturing(node: &Node, actual: Option<&Value>, ctx: &mut MatchContext) -> bool {
    let mut trial = ctx.clone();
    let mut out = Vec::new();
    eval(node, actual, "", &mut trial, &mut out);
    let matched = out.is_empty();
    if matched {
        *ctx = trial;
    }
    matched
}

/// A template string resolved and compiled: a variable may hold a pattern.
pub(super) fn resolve(text: &str, exact: bool, ctx: &MatchContext) -> Result<Node, String> {
    let value = render_string(text, &ctx.vars)?;
    compile(&value, exact, "").map_err(|e| format!("`{text}` holds an invalid matcher: {e}"))
}

fn operand_value(operand: &Node, ctx: &MatchContext) -> Result<Value, String> {
    match operand {
        Node::Literal(value) => Ok(value.clone()),
        Node::Template { text, .. } => render_string(text, &ctx.vars),
        other => Ok(expected(other, ctx)),
    }
}

fn compare(op: Compare, got: &Value, want: &Value) -> bool {
    match op {
        Compare::Eq => json_equal(want, got),
        Compare::Ne => !json_equal(want, got),
        _ => match (got.as_f64(), want.as_f64()) {
            (Some(g), Some(w)) => match op {
                Compare::Gt => g > w,
                Compare::Gte => g >= w,
                Compare::Lt => g < w,
                _ => g <= w,
            },
            _ => false,
        },
    }
}

/// Equality with numbers compared by value (`1` equals `1.0`).
pub(super) fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

fn has_type(value: &Value, name: &str) -> bool {
    match name {
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        _ => value.is_null(),
    }
}

fn check_unique(got: &Value, key: impl Fn(&Value) -> Option<String>, at: &str, out: &mut Vec<Mismatch>) {
    let Some(items) = got.as_array() else {
        out.push(Mismatch {
            pointer: at.into(),
            expected: "an array".into(),
            actual: Some(got.clone()),
            message: "expected an array".into(),
        });
        return;
    };
    let mut seen = BTreeSet::new();
    for (i, item) in items.iter().enumerate() {
        if let Some(k) = key(item)
            && !seen.insert(k.clone())
        {
            out.push(Mismatch {
                pointer: format!("{at}/{i}"),
                expected: "a value not seen before".into(),
                actual: Some(item.clone()),
                message: format!("duplicate {k}"),
            });
        }
    }
}
