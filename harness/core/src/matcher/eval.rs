//! Matching an actual value against compiled nodes, collecting every mismatch.

use std::cmp::Ordering;

use serde_json::{Number, Value};

use super::compile::{Comparison, Listed, Node, Op, Operand, SchemaSource};
use super::display::display;
use super::path::{element, member};
use super::{MatchContext, Mismatch};

/// Appends to `out` every way `actual` (at `pointer`; `None` = absent) fails `node`.
pub(super) fn eval(
    node: &Node,
    actual: Option<&Value>,
    pointer: &str,
    ctx: &mut MatchContext,
    out: &mut Vec<Mismatch>,
) {
    let mut run = Run { ctx, out: Vec::new() };
    run.node(node, actual, pointer);
    out.append(&mut run.out);
}

/// Whether `actual` matches `node`, without touching `ctx`.
pub(super) fn matches(node: &Node, actual: Option<&Value>, ctx: &MatchContext) -> bool {
    trial(node, actual, "", ctx).1.is_empty()
}

/// Evaluates on a copy of the context, so a failed attempt leaves no captures behind.
fn trial(
    node: &Node,
    actual: Option<&Value>,
    pointer: &str,
    ctx: &MatchContext,
) -> (MatchContext, Vec<Mismatch>) {
    let mut attempt = ctx.clone();
    let mut run = Run {
        ctx: &mut attempt,
        out: Vec::new(),
    };
    run.node(node, actual, pointer);
    let failures = run.out;
    (attempt, failures)
}

/// One evaluation: the variables it reads and captures into, and the mismatches found.
struct Run<'c> {
    ctx: &'c mut MatchContext,
    out: Vec<Mismatch>,
}

impl Run<'_> {
    fn node(&mut self, node: &Node, actual: Option<&Value>, pointer: &str) {
        match (node, actual) {
            (Node::Op(op), _) => self.op(node, op, actual, pointer),
            (_, None) => self.fail(node, None, pointer, "missing"),
            (Node::Scalar(expected), Some(actual)) => self.equal(node, Ok(expected.clone()), actual, pointer),
            (Node::Text(template), Some(actual)) => {
                self.equal(node, template.render(&self.ctx.vars), actual, pointer);
            }
            (Node::Object { members, exact }, Some(actual)) => {
                self.object(node, members, *exact, actual, pointer)
            }
            (Node::Array { items, open }, Some(actual)) => self.array(node, items, *open, actual, pointer),
        }
    }

    fn fail(&mut self, node: &Node, actual: Option<&Value>, pointer: &str, message: impl Into<String>) {
        let found = mismatch(node, actual, pointer, self.ctx, message);
        self.out.push(found);
    }

    fn equal(&mut self, node: &Node, expected: Result<Value, String>, actual: &Value, pointer: &str) {
        match expected {
            Ok(expected) if values_equal(&expected, actual) => {}
            Ok(expected) => self.fail(node, Some(actual), pointer, differ_message(&expected, actual)),
            Err(message) => self.fail(node, Some(actual), pointer, message),
        }
    }

    fn object(
        &mut self,
        node: &Node,
        members: &[(String, Node)],
        exact: bool,
        actual: &Value,
        pointer: &str,
    ) {
        let Value::Object(map) = actual else {
            return self.fail(node, Some(actual), pointer, kind_message("an object", actual));
        };
        for (key, expected) in members {
            self.node(expected, map.get(key), &member(pointer, key));
        }
        if exact {
            let unlisted = map
                .iter()
                .filter(|(key, _)| !members.iter().any(|(k, _)| k == *key));
            for (key, value) in unlisted {
                self.out.push(Mismatch {
                    pointer: member(pointer, key),
                    expected: "nothing".to_owned(),
                    actual: Some(value.clone()),
                    message: format!("unexpected member `{key}` (members must match exactly)"),
                });
            }
        }
    }

    fn array(&mut self, node: &Node, items: &[Node], open: bool, actual: &Value, pointer: &str) {
        let Value::Array(elements) = actual else {
            return self.fail(node, Some(actual), pointer, kind_message("an array", actual));
        };
        for (i, expected) in items.iter().enumerate() {
            self.node(expected, elements.get(i), &element(pointer, i));
        }
        if !open && elements.len() > items.len() {
            self.out.push(Mismatch {
                pointer: element(pointer, items.len()),
                expected: "nothing".to_owned(),
                actual: Some(elements[items.len()].clone()),
                message: format!(
                    "expected {} elements, got {} (end the expected list with \"...\" to allow more)",
                    items.len(),
                    elements.len()
                ),
            });
        }
    }

    fn op(&mut self, node: &Node, op: &Op, actual: Option<&Value>, pointer: &str) {
        match (op, actual) {
            (Op::Absent, None) | (Op::Any, Some(_)) => {}
            (Op::Absent, Some(value)) => self.fail(node, Some(value), pointer, "must be absent"),
            (Op::Exact(inner), _) => self.node(inner, actual, pointer),
            (Op::AllOf(alternatives), _) => {
                for alternative in alternatives {
                    self.node(alternative, actual, pointer);
                }
            }
            (Op::OneOf(alternatives), _) => self.one_of(node, alternatives, actual, pointer),
            (Op::Not(inner), _) => {
                if trial(inner, actual, pointer, self.ctx).1.is_empty() {
                    let message = format!("matches {}, which `$not` forbids", display(inner, self.ctx));
                    self.fail(node, actual, pointer, message);
                }
            }
            (_, None) => self.fail(node, None, pointer, "missing"),
            (Op::Capture(name), Some(value)) => {
                self.ctx.vars.insert(name.clone(), value.clone());
            }
            (Op::Type(types), Some(value)) => {
                if !types.iter().any(|t| t.admits(value)) {
                    let names: Vec<&str> = types.iter().map(|t| t.name()).collect();
                    let message = format!("expected type {}, got {}", names.join(" or "), kind(value));
                    self.fail(node, Some(value), pointer, message);
                }
            }
            (Op::Regex(regex), Some(value)) => match value {
                Value::String(text) if regex.is_match(text) => {}
                Value::String(_) => {
                    self.fail(
                        node,
                        Some(value),
                        pointer,
                        format!("does not match /{}/", regex.as_str()),
                    );
                }
                other => self.fail(node, Some(value), pointer, kind_message("a string", other)),
            },
            (Op::Compare(comparison, operand), Some(value)) => {
                if let Err(message) = compare(*comparison, operand, value, self.ctx) {
                    self.fail(node, Some(value), pointer, message);
                }
            }
            (Op::Len(expected), Some(value)) => self.len(node, expected, value, pointer),
            (Op::Unordered(listed), Some(value)) => {
                if let Err(message) = unordered(listed, value, self.ctx) {
                    self.fail(node, Some(value), pointer, message);
                }
            }
            (Op::Contains(expected), Some(value)) => self.contains(node, expected, value, pointer),
            (Op::Each(expected), Some(Value::Array(elements))) => {
                for (i, item) in elements.iter().enumerate() {
                    self.node(expected, Some(item), &element(pointer, i));
                }
            }
            (Op::Unique, Some(Value::Array(elements))) => self.unique(elements, Some, pointer, ""),
            (Op::UniqueBy(key), Some(Value::Array(elements))) => {
                self.unique(elements, |item| item.pointer(key), pointer, key);
            }
            (Op::Each(_) | Op::Unique | Op::UniqueBy(_), Some(other)) => {
                self.fail(node, Some(other), pointer, kind_message("an array", other));
            }
            (
                Op::Select {
                    path_text,
                    path,
                    then,
                },
                Some(value),
            ) => {
                let located = path.query_located(value);
                let locations: Vec<String> = located.iter().map(|n| n.location().to_json_pointer()).collect();
                let nodes = Value::Array(located.iter().map(|n| n.node().clone()).collect());
                let mut inner = Vec::new();
                eval(then, Some(&nodes), "", self.ctx, &mut inner);
                self.out.extend(
                    inner
                        .into_iter()
                        .map(|m| relocate(m, pointer, path_text, &locations)),
                );
            }
            (Op::Schema(source), Some(value)) => self.schema(node, source, value, pointer),
        }
    }

    fn schema(&mut self, node: &Node, source: &SchemaSource, value: &Value, pointer: &str) {
        let resolved;
        let validator = match source {
            SchemaSource::Inline { validator, .. } => validator.as_ref(),
            SchemaSource::Var(template) => {
                let schema = match template.render(&self.ctx.vars) {
                    Ok(schema) => schema,
                    Err(message) => return self.fail(node, Some(value), pointer, message),
                };
                resolved = match jsonschema::validator_for(&schema) {
                    Ok(validator) => validator,
                    Err(e) => {
                        let message = format!("`{}` is not a valid JSON Schema: {e}", template.source());
                        return self.fail(node, Some(value), pointer, message);
                    }
                };
                &resolved
            }
        };
        for error in validator.iter_errors(value) {
            self.out.push(Mismatch {
                pointer: format!("{pointer}{}", error.instance_path().as_str()),
                expected: "a value valid against the `$schema`".to_owned(),
                actual: Some(error.instance().clone().into_owned()),
                message: error.to_string(),
            });
        }
    }

    fn one_of(&mut self, node: &Node, alternatives: &[Node], actual: Option<&Value>, pointer: &str) {
        let mut reasons = Vec::new();
        for (i, alternative) in alternatives.iter().enumerate() {
            let (attempt, failures) = trial(alternative, actual, pointer, self.ctx);
            if failures.is_empty() {
                *self.ctx = attempt;
                return;
            }
            reasons.push(format!("#{i}: {}", failures[0].message));
        }
        let message = format!("matches none of the alternatives ({})", reasons.join("; "));
        self.fail(node, actual, pointer, message);
    }

    fn len(&mut self, node: &Node, expected: &Node, actual: &Value, pointer: &str) {
        let Some(len) = length(actual) else {
            return self.fail(
                node,
                Some(actual),
                pointer,
                kind_message("an array, string or object", actual),
            );
        };
        let len = Value::from(len);
        if !trial(expected, Some(&len), pointer, self.ctx).1.is_empty() {
            let message = format!("length is {len}, expected {}", display(expected, self.ctx));
            self.fail(node, Some(actual), pointer, message);
        }
    }

    fn contains(&mut self, node: &Node, expected: &Node, actual: &Value, pointer: &str) {
        let message = match (actual, expected) {
            (Value::Array(elements), _) => {
                for (i, item) in elements.iter().enumerate() {
                    let (attempt, failures) = trial(expected, Some(item), &element(pointer, i), self.ctx);
                    if failures.is_empty() {
                        *self.ctx = attempt;
                        return;
                    }
                }
                format!("no element matches {}", display(expected, self.ctx))
            }
            (Value::String(text), Node::Text(template)) => match template.render(&self.ctx.vars) {
                Ok(Value::String(needle)) if text.contains(&needle) => return,
                Ok(Value::String(needle)) => format!("does not contain {needle:?}"),
                Ok(other) => format!("`$contains` on a string needs a string to look for, not {other}"),
                Err(message) => message,
            },
            (Value::String(_), _) => "`$contains` on a string needs a string to look for".to_owned(),
            (other, _) => kind_message("an array or a string", other),
        };
        self.fail(node, Some(actual), pointer, message);
    }

    fn unique<'v>(
        &mut self,
        elements: &'v [Value],
        key_of: impl Fn(&'v Value) -> Option<&'v Value>,
        pointer: &str,
        key: &str,
    ) {
        let mut seen: Vec<(usize, &Value)> = Vec::new();
        for (i, item) in elements.iter().enumerate() {
            let at = element(pointer, i);
            let Some(value) = key_of(item) else {
                self.out.push(Mismatch {
                    pointer: at,
                    expected: format!("an element with `{key}`"),
                    actual: Some(item.clone()),
                    message: format!("element has no `{key}` to compare"),
                });
                continue;
            };
            match seen.iter().find(|(_, earlier)| values_equal(earlier, value)) {
                Some((first, _)) => self.out.push(Mismatch {
                    pointer: format!("{at}{key}"),
                    expected: "a value not seen before".to_owned(),
                    actual: Some(value.clone()),
                    message: format!("duplicate of element {first}"),
                }),
                None => seen.push((i, value)),
            }
        }
    }
}

/// Maps a mismatch inside the `$select` node list back to where the node sits in the actual.
fn relocate(mut found: Mismatch, base: &str, path_text: &str, locations: &[String]) -> Mismatch {
    let mut segments = found.pointer.splitn(3, '/').skip(1);
    let index = segments.next().and_then(|s| s.parse::<usize>().ok());
    match index.and_then(|i| locations.get(i)) {
        Some(location) => {
            let rest = segments.next().map(|r| format!("/{r}")).unwrap_or_default();
            found.pointer = format!("{base}{location}{rest}");
        }
        None => {
            found.pointer = base.to_owned();
            found.message = format!("nodes selected by `{path_text}`: {}", found.message);
        }
    }
    found
}

fn compare(
    comparison: Comparison,
    operand: &Operand,
    actual: &Value,
    ctx: &MatchContext,
) -> Result<(), String> {
    let bound = match operand {
        Operand::Number(n) => n.clone(),
        Operand::Var(template) => match template.render(&ctx.vars)? {
            Value::Number(n) => n,
            other => {
                return Err(format!(
                    "`{}` resolved to {other}, not a number",
                    template.source()
                ));
            }
        },
    };
    let Value::Number(n) = actual else {
        return Err(kind_message("a number", actual));
    };
    let ordering = compare_numbers(n, &bound);
    let holds = match comparison {
        Comparison::Eq => ordering == Some(Ordering::Equal),
        Comparison::Ne => ordering != Some(Ordering::Equal),
        Comparison::Gt => ordering == Some(Ordering::Greater),
        Comparison::Gte => matches!(ordering, Some(Ordering::Greater | Ordering::Equal)),
        Comparison::Lt => ordering == Some(Ordering::Less),
        Comparison::Lte => matches!(ordering, Some(Ordering::Less | Ordering::Equal)),
    };
    if holds {
        Ok(())
    } else {
        Err(format!("{n} fails `{}` {bound}", comparison.operator()))
    }
}

fn length(value: &Value) -> Option<usize> {
    match value {
        Value::Array(items) => Some(items.len()),
        Value::String(text) => Some(text.chars().count()),
        Value::Object(map) => Some(map.len()),
        _ => None,
    }
}

/// Compares exactly when both are integers, else as floats.
/// `$unordered`: `actual` holds the operand's elements, each as often, in
/// any order.
fn unordered(listed: &Listed, actual: &Value, ctx: &MatchContext) -> Result<(), String> {
    let expected = match listed {
        Listed::Values(items) => items.clone(),
        Listed::Var(template) => match template.render(&ctx.vars)? {
            Value::Array(items) => items,
            other => {
                return Err(format!(
                    "`{}` resolved to {other}, not an array",
                    template.source()
                ));
            }
        },
    };
    let Value::Array(elements) = actual else {
        return Err(kind_message("an array", actual));
    };
    let mut left: Vec<&Value> = elements.iter().collect();
    let mut missing = Vec::new();
    for item in &expected {
        match left.iter().position(|e| values_equal(item, e)) {
            Some(found) => {
                left.remove(found);
            }
            None => missing.push(item.to_string()),
        }
    }
    let extra: Vec<String> = left.iter().map(ToString::to_string).collect();
    match (missing.is_empty(), extra.is_empty()) {
        (true, true) => Ok(()),
        _ => Err(format!(
            "not the same elements: missing [{}], unexpected [{}]",
            missing.join(", "),
            extra.join(", ")
        )),
    }
}

fn compare_numbers(a: &Number, b: &Number) -> Option<Ordering> {
    if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
        return Some(x.cmp(&y));
    }
    if let (Some(x), Some(y)) = (a.as_u64(), b.as_u64()) {
        return Some(x.cmp(&y));
    }
    a.as_f64()?.partial_cmp(&b.as_f64()?)
}

/// Numbers are equal by value (`1 == 1.0`); fractions also when they agree
/// at single precision, because a peer that keeps a number as `f32` sends
/// 0.3 as 0.30000001192092896, which is the same number to it.
fn numbers_equal(x: &Number, y: &Number) -> bool {
    if compare_numbers(x, y) == Some(Ordering::Equal) {
        return true;
    }
    match (x.as_f64(), y.as_f64()) {
        (Some(a), Some(b)) if a.fract() != 0.0 || b.fract() != 0.0 => (a as f32) == (b as f32),
        _ => false,
    }
}

/// JSON equality with numbers compared by value (`1 == 1.0`).
pub(super) fn values_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => numbers_equal(x, y),
        (Value::Array(xs), Value::Array(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| values_equal(x, y))
        }
        (Value::Object(xs), Value::Object(ys)) => {
            xs.len() == ys.len()
                && xs
                    .iter()
                    .all(|(k, x)| ys.get(k).is_some_and(|y| values_equal(x, y)))
        }
        _ => a == b,
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn kind_message(wanted: &str, actual: &Value) -> String {
    format!("expected {wanted}, got {}", kind(actual))
}

fn differ_message(expected: &Value, actual: &Value) -> String {
    if std::mem::discriminant(expected) == std::mem::discriminant(actual) {
        "values differ".to_owned()
    } else {
        kind_message(kind(expected), actual)
    }
}

fn mismatch(
    node: &Node,
    actual: Option<&Value>,
    pointer: &str,
    ctx: &MatchContext,
    message: impl Into<String>,
) -> Mismatch {
    Mismatch {
        pointer: pointer.to_owned(),
        expected: display(node, ctx).to_string(),
        actual: actual.cloned(),
        message: message.into(),
    }
}
