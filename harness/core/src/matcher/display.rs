//! How patterns read in reports, and actual values moved toward them so a
//! text diff shows only real divergences.

use serde_json::{Map, Value, json};

use super::MatchContext;
use super::compile::{Compare, Node};
use super::eval::{eval, json_equal, resolve};

/// The expected side as a value: literals as written, operators compact.
pub(super) fn expected(node: &Node, ctx: &MatchContext) -> Value {
    let op = |name: &str, arg: Value| json!({ name: arg });
    match node {
        Node::Literal(v) => v.clone(),
        Node::Template { text, exact } => {
            resolve(text, *exact, ctx).map_or_else(|_| Value::String(text.clone()), |n| expected(&n, ctx))
        }
        Node::Object { members, .. } => Value::Object(
            members
                .iter()
                .map(|(k, n)| (k.clone(), expected(n, ctx)))
                .collect(),
        ),
        Node::Array { items, prefix } => {
            let mut list: Vec<Value> = items.iter().map(|n| expected(n, ctx)).collect();
            if *prefix {
                list.push("...".into());
            }
            Value::Array(list)
        }
        Node::Any => "$any".into(),
        Node::Absent => "$absent".into(),
        Node::Type(types) if types.len() == 1 => op("$type", types[0].clone().into()),
        Node::Type(types) => op("$type", json!(types)),
        Node::Regex(regex) => op("$regex", regex.as_str().into()),
        Node::Compare(compare, operand) => {
            let name = match compare {
                Compare::Eq => "$eq",
                Compare::Ne => "$ne",
                Compare::Gt => "$gt",
                Compare::Gte => "$gte",
                Compare::Lt => "$lt",
                Compare::Lte => "$lte",
            };
            op(name, expected(operand, ctx))
        }
        Node::Len(inner) => op("$len", expected(inner, ctx)),
        Node::Contains(inner) => op("$contains", expected(inner, ctx)),
        Node::Each(inner) => op("$each", expected(inner, ctx)),
        Node::OneOf(all) => op("$one_of", all.iter().map(|n| expected(n, ctx)).collect()),
        Node::AllOf(all) => op("$all_of", all.iter().map(|n| expected(n, ctx)).collect()),
        Node::Not(inner) => op("$not", expected(inner, ctx)),
        Node::Unique => "$unique".into(),
        Node::UniqueBy(by) => op("$unique_by", by.clone().into()),
        Node::Select { source, node, .. } => {
            op("$select", json!({"path": source, "match": expected(node, ctx)}))
        }
        Node::Schema(schema) => op("$schema", schema.clone()),
        Node::Capture(name) => op("$capture", name.clone().into()),
    }
}

/// The actual value as the diff's right-hand side.
pub(super) fn normalize(node: &Node, actual: &Value, ctx: &MatchContext) -> Value {
    match (node, actual) {
        (Node::Object { members, exact }, Value::Object(map)) => {
            let mut out = Map::new();
            for (key, member) in members {
                if let Some(value) = map.get(key) {
                    out.insert(key.clone(), normalize(member, value, ctx));
                }
            }
            if *exact {
                for (key, value) in map {
                    out.entry(key.clone()).or_insert_with(|| value.clone());
                }
            }
            Value::Object(out)
        }
        (Node::Array { items, prefix }, Value::Array(list)) => {
            let mut out: Vec<Value> = list
                .iter()
                .zip(items)
                .map(|(v, n)| normalize(n, v, ctx))
                .collect();
            if *prefix && list.len() >= items.len() {
                out.push("...".into());
            } else {
                out.extend(list.iter().skip(items.len()).cloned());
            }
            Value::Array(out)
        }
        (Node::Template { text, exact }, _) => match resolve(text, *exact, ctx) {
            Ok(resolved) => normalize(&resolved, actual, ctx),
            Err(_) => actual.clone(),
        },
        (Node::Literal(want), _) if json_equal(want, actual) => want.clone(),
        (Node::Literal(_), _) => actual.clone(),
        (operator, _) => {
            let mut trial = ctx.clone();
            let mut out = Vec::new();
            eval(operator, Some(actual), "", &mut trial, &mut out);
            if out.is_empty() {
                expected(operator, ctx)
            } else {
                actual.clone()
            }
        }
    }
}
