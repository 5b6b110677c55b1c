//! The expected side as a plain value, and the actual side normalised to line up with it.
//!
//! A text diff of the two shows only real divergences: whatever a wildcard or operator
//! accepted is replaced in the actual by the expected side's display.

use serde_json::{Map, Value, json};

use super::MatchContext;
use super::compile::{Listed, Node, Op, Operand, REST_MARKER, SchemaSource};
use super::eval::matches;
use super::template::Template;

/// The expected value with `${vars}` substituted (left as written when unknown) and operators compact.
pub(super) fn display(node: &Node, ctx: &MatchContext) -> Value {
    match node {
        Node::Scalar(value) => value.clone(),
        Node::Text(template) => shown(template, ctx),
        Node::Object { members, .. } => Value::Object(
            members
                .iter()
                .map(|(key, member)| (key.clone(), display(member, ctx)))
                .collect(),
        ),
        Node::Array { items, open } => {
            let mut shown: Vec<Value> = items.iter().map(|item| display(item, ctx)).collect();
            if *open {
                shown.push(Value::from(REST_MARKER));
            }
            Value::Array(shown)
        }
        Node::Op(op) => display_op(op, ctx),
    }
}

fn display_op(op: &Op, ctx: &MatchContext) -> Value {
    let all = |nodes: &[Node]| Value::Array(nodes.iter().map(|n| display(n, ctx)).collect());
    match op {
        Op::Any => json!("$any"),
        Op::Absent => json!("$absent"),
        Op::Unique => json!("$unique"),
        Op::Exact(inner) => display(inner, ctx),
        Op::Type(types) => match types.as_slice() {
            [single] => json!({"$type": single.name()}),
            _ => json!({"$type": types.iter().map(|t| t.name()).collect::<Vec<_>>()}),
        },
        Op::Regex(regex) => json!({"$regex": regex.as_str()}),
        Op::Compare(comparison, operand) => single(comparison.operator(), operand_value(operand, ctx)),
        Op::Len(inner) => json!({"$len": display(inner, ctx)}),
        Op::Contains(inner) => json!({"$contains": display(inner, ctx)}),
        Op::Each(inner) => json!({"$each": display(inner, ctx)}),
        Op::Not(inner) => json!({"$not": display(inner, ctx)}),
        Op::OneOf(alternatives) => json!({"$one_of": all(alternatives)}),
        Op::AllOf(alternatives) => json!({"$all_of": all(alternatives)}),
        Op::UniqueBy(key) => json!({"$unique_by": key}),
        Op::Select { path_text, then, .. } => {
            json!({"$select": {"path": path_text, "match": display(then, ctx)}})
        }
        Op::Schema(SchemaSource::Inline { schema, .. }) => json!({"$schema": schema}),
        Op::Schema(SchemaSource::Var(template)) => json!({"$schema": shown(template, ctx)}),
        Op::Capture(name) => json!({"$capture": name}),
        Op::Unordered(Listed::Values(items)) => single("$unordered", Value::Array(items.clone())),
        Op::Unordered(Listed::Var(template)) => single("$unordered", shown(template, ctx)),
    }
}

/// An operand as shown: its value, a variable resolved where it can be.
fn operand_value(operand: &Operand, ctx: &MatchContext) -> Value {
    match operand {
        Operand::Number(n) => Value::Number(n.clone()),
        Operand::Var(template) => shown(template, ctx),
    }
}

/// A template's value, or the template as written when a variable is unknown.
fn shown(template: &Template, ctx: &MatchContext) -> Value {
    template
        .render(&ctx.vars)
        .unwrap_or_else(|_| Value::String(template.source().to_owned()))
}

fn single(key: &str, value: Value) -> Value {
    Value::Object(Map::from_iter([(key.to_owned(), value)]))
}

/// `actual` with every part that `node` accepts replaced by the expected display; parts that
/// diverge stay as they are, and members a subset match ignores are dropped.
pub(super) fn normalize(node: &Node, actual: &Value, ctx: &MatchContext) -> Value {
    match (node, actual) {
        (Node::Object { members, exact }, Value::Object(map)) => {
            let mut out = Map::new();
            for (key, member) in members {
                match map.get(key) {
                    Some(value) => {
                        out.insert(key.clone(), normalize(member, value, ctx));
                    }
                    None if matches(member, None, ctx) => {
                        out.insert(key.clone(), display(member, ctx));
                    }
                    None => {}
                }
            }
            if *exact {
                for (key, value) in map {
                    if !out.contains_key(key) {
                        out.insert(key.clone(), value.clone());
                    }
                }
            }
            Value::Object(out)
        }
        (Node::Array { items, open }, Value::Array(elements)) => {
            let mut out: Vec<Value> = items
                .iter()
                .zip(elements)
                .map(|(item, element)| normalize(item, element, ctx))
                .collect();
            match elements.get(items.len()..) {
                Some(_) if *open => out.push(Value::from(REST_MARKER)),
                Some(rest) => out.extend(rest.iter().cloned()),
                None => {}
            }
            Value::Array(out)
        }
        (Node::Op(Op::Exact(inner)), _) => normalize(inner, actual, ctx),
        _ if matches(node, Some(actual), ctx) => display(node, ctx),
        _ => actual.clone(),
    }
}
