//! Turning an expected JSON value into a tree of match nodes.

use jsonschema::Validator;
use regex::Regex;
use serde_json::{Map, Number, Value};
use serde_json_path::JsonPath;

use super::CompileError;
use super::path::{element, member};
use super::template::Template;

/// Every operator, for error messages.
pub(super) const OPERATORS: &[&str] = &[
    "$any",
    "$absent",
    "$exact",
    "$type",
    "$regex",
    "$eq",
    "$ne",
    "$gt",
    "$gte",
    "$lt",
    "$lte",
    "$len",
    "$contains",
    "$each",
    "$one_of",
    "$all_of",
    "$not",
    "$unique",
    "$unique_by",
    "$select",
    "$schema",
    "$capture",
    "$unordered",
];

/// Operators without an argument, which may also be written as a bare string (`"$any"`).
const BARE_OPERATORS: &[&str] = &["$any", "$absent", "$unique"];

/// Array marker: the elements before it, then anything.
pub(super) const REST_MARKER: &str = "...";

/// One compiled piece of an expected value.
#[derive(Debug, Clone)]
pub(super) enum Node {
    /// `null`, a boolean or a number; numbers compare numerically.
    Scalar(Value),
    /// A string, possibly with `${...}` references.
    Text(Template),
    /// Members to match; `exact` forbids members not listed.
    Object {
        members: Vec<(String, Node)>,
        exact: bool,
    },
    /// Elements to match in order; `open` allows more after them.
    Array {
        items: Vec<Node>,
        open: bool,
    },
    Op(Op),
}

/// A `$` operator with its compiled argument.
#[derive(Debug, Clone)]
pub(super) enum Op {
    Any,
    Absent,
    Unique,
    Exact(Box<Node>),
    Type(Vec<JsonType>),
    Regex(Regex),
    Compare(Comparison, Operand),
    Len(Box<Node>),
    Contains(Box<Node>),
    Each(Box<Node>),
    OneOf(Vec<Node>),
    AllOf(Vec<Node>),
    Not(Box<Node>),
    UniqueBy(String),
    Select {
        path_text: String,
        path: JsonPath,
        then: Box<Node>,
    },
    Schema(SchemaSource),
    Capture(String),
    /// The same elements as a literal array or an array variable, in any order.
    Unordered(Listed),
}

/// Where a `$schema` operator's schema comes from.
#[derive(Debug, Clone)]
pub(super) enum SchemaSource {
    /// Written in the scenario: compiled once.
    Inline {
        schema: Value,
        validator: Box<Validator>,
    },
    /// A `${var}` holding the schema (say, the `requestedSchema` a request
    /// carried): resolved and compiled when matching.
    Var(Template),
}

/// The numeric comparison operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Comparison {
    Eq,
    Ne,
    Gt,
    Gte,
    Lt,
    Lte,
}

/// The right-hand side of a comparison: a number, or `${var}` resolved at match time.
#[derive(Debug, Clone)]
pub(super) enum Operand {
    Number(Number),
    Var(Template),
}

/// The argument of `$unordered`: the elements, or `${var}` holding them.
#[derive(Debug, Clone)]
pub(super) enum Listed {
    Values(Vec<Value>),
    Var(Template),
}

/// A `$type` name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum JsonType {
    String,
    Number,
    Integer,
    Boolean,
    Object,
    Array,
    Null,
}

impl JsonType {
    const ALL: [JsonType; 7] = [
        JsonType::String,
        JsonType::Number,
        JsonType::Integer,
        JsonType::Boolean,
        JsonType::Object,
        JsonType::Array,
        JsonType::Null,
    ];

    /// The name used in scenarios.
    pub(super) fn name(self) -> &'static str {
        match self {
            JsonType::String => "string",
            JsonType::Number => "number",
            JsonType::Integer => "integer",
            JsonType::Boolean => "boolean",
            JsonType::Object => "object",
            JsonType::Array => "array",
            JsonType::Null => "null",
        }
    }

    /// Whether `value` has this type; integers are numbers without a fraction.
    pub(super) fn admits(self, value: &Value) -> bool {
        match (self, value) {
            (JsonType::String, Value::String(_))
            | (JsonType::Number, Value::Number(_))
            | (JsonType::Boolean, Value::Bool(_))
            | (JsonType::Object, Value::Object(_))
            | (JsonType::Array, Value::Array(_))
            | (JsonType::Null, Value::Null) => true,
            (JsonType::Integer, Value::Number(n)) => {
                n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
            }
            _ => false,
        }
    }
}

impl Comparison {
    fn from_operator(op: &str) -> Option<Comparison> {
        Some(match op {
            "$eq" => Comparison::Eq,
            "$ne" => Comparison::Ne,
            "$gt" => Comparison::Gt,
            "$gte" => Comparison::Gte,
            "$lt" => Comparison::Lt,
            "$lte" => Comparison::Lte,
            _ => return None,
        })
    }

    /// The operator as written.
    pub(super) fn operator(self) -> &'static str {
        match self {
            Comparison::Eq => "$eq",
            Comparison::Ne => "$ne",
            Comparison::Gt => "$gt",
            Comparison::Gte => "$gte",
            Comparison::Lt => "$lt",
            Comparison::Lte => "$lte",
        }
    }
}

/// Compiles `expected` found at `pointer`; `exact` makes objects forbid unlisted members.
pub(super) fn compile(expected: &Value, pointer: &str, exact: bool) -> Result<Node, CompileError> {
    match expected {
        Value::String(text) => compile_string(text, pointer),
        Value::Array(items) => {
            let open = items.last().is_some_and(|last| last == REST_MARKER);
            let fixed = if open {
                &items[..items.len() - 1]
            } else {
                &items[..]
            };
            let items = fixed
                .iter()
                .enumerate()
                .map(|(i, item)| compile(item, &element(pointer, i), exact))
                .collect::<Result<_, _>>()?;
            Ok(Node::Array { items, open })
        }
        Value::Object(map) => compile_object(map, pointer, exact),
        scalar => Ok(Node::Scalar(scalar.clone())),
    }
}

fn compile_string(text: &str, pointer: &str) -> Result<Node, CompileError> {
    if BARE_OPERATORS.contains(&text) {
        return compile_operator(text, &Value::Bool(true), pointer, false);
    }
    let literal = match text.strip_prefix('$') {
        Some(escaped) if BARE_OPERATORS.contains(&escaped) => escaped,
        _ => text,
    };
    Template::parse(literal)
        .map(Node::Text)
        .map_err(|message| error(pointer, message))
}

fn compile_object(map: &Map<String, Value>, pointer: &str, exact: bool) -> Result<Node, CompileError> {
    if let [(key, argument)] = map.iter().collect::<Vec<_>>().as_slice()
        && is_operator(key)
    {
        return compile_operator(key, argument, pointer, exact);
    }
    let mut members = Vec::with_capacity(map.len());
    for (key, value) in map {
        let at = member(pointer, key);
        let name = match key.strip_prefix("$$") {
            Some(rest) => format!("${rest}"),
            None if is_operator(key) => return Err(misplaced_operator(key, &at)),
            None => key.clone(),
        };
        members.push((name, compile(value, &at, exact)?));
    }
    Ok(Node::Object { members, exact })
}

fn is_operator(key: &str) -> bool {
    key.starts_with('$') && !key.starts_with("$$")
}

fn misplaced_operator(key: &str, pointer: &str) -> CompileError {
    if OPERATORS.contains(&key) {
        error(
            pointer,
            format!(
                "operator `{key}` must be the only member of its object (combine operators with `$all_of`)"
            ),
        )
    } else {
        unknown_operator(key, pointer)
    }
}

fn unknown_operator(key: &str, pointer: &str) -> CompileError {
    error(
        pointer,
        format!(
            "unknown operator `{key}`; valid operators: {}; write `${key}` for a literal member named `{key}`",
            OPERATORS.join(", ")
        ),
    )
}

fn compile_operator(op: &str, argument: &Value, pointer: &str, exact: bool) -> Result<Node, CompileError> {
    let at = member(pointer, op);
    let boxed = |exact| compile(argument, &at, exact).map(Box::new);
    let op = match op {
        "$any" | "$absent" | "$unique" => {
            if argument != &Value::Bool(true) {
                return Err(error(
                    &at,
                    format!("`{op}` takes no argument; write `\"{op}\"` or `{op}: true`"),
                ));
            }
            match op {
                "$any" => Op::Any,
                "$absent" => Op::Absent,
                _ => Op::Unique,
            }
        }
        "$exact" => Op::Exact(boxed(true)?),
        "$type" => Op::Type(compile_types(argument, &at)?),
        "$regex" => {
            let pattern = argument
                .as_str()
                .ok_or_else(|| error(&at, "`$regex` takes a string"))?;
            Op::Regex(Regex::new(pattern).map_err(|e| error(&at, format!("invalid regex: {e}")))?)
        }
        "$len" => {
            if argument.is_number() && argument.as_u64().is_none() {
                return Err(error(&at, "`$len` takes a non-negative integer or a matcher"));
            }
            Op::Len(boxed(exact)?)
        }
        "$contains" => Op::Contains(boxed(exact)?),
        "$each" => Op::Each(boxed(exact)?),
        "$not" => Op::Not(boxed(exact)?),
        "$one_of" => Op::OneOf(compile_alternatives(op, argument, &at, exact)?),
        "$all_of" => Op::AllOf(compile_alternatives(op, argument, &at, exact)?),
        "$unique_by" => match argument.as_str() {
            Some(p) if p.is_empty() || p.starts_with('/') => Op::UniqueBy(p.to_owned()),
            _ => return Err(error(&at, "`$unique_by` takes a JSON pointer such as \"/name\"")),
        },
        "$select" => compile_select(argument, &at, exact)?,
        "$schema" => Op::Schema(compile_schema(argument, &at)?),
        "$unordered" => match argument {
            Value::Array(items) => Op::Unordered(Listed::Values(items.clone())),
            _ => match compile_operand(op, argument, &at) {
                Ok(Operand::Var(template)) => Op::Unordered(Listed::Var(template)),
                _ => {
                    return Err(error(
                        &at,
                        "`$unordered` takes an array or a `${var}` holding one",
                    ));
                }
            },
        },
        "$capture" => match argument.as_str() {
            Some(name) if !name.trim().is_empty() => Op::Capture(name.to_owned()),
            _ => return Err(error(&at, "`$capture` takes a variable name")),
        },
        other => match Comparison::from_operator(other) {
            Some(comparison) => Op::Compare(comparison, compile_operand(other, argument, &at)?),
            None => return Err(unknown_operator(other, &at)),
        },
    };
    Ok(Node::Op(op))
}

fn compile_types(argument: &Value, pointer: &str) -> Result<Vec<JsonType>, CompileError> {
    let names: Vec<&Value> = match argument {
        Value::Array(names) if !names.is_empty() => names.iter().collect(),
        Value::String(_) => vec![argument],
        _ => {
            return Err(error(
                pointer,
                "`$type` takes a type name or a non-empty list of them",
            ));
        }
    };
    names
        .into_iter()
        .map(|name| {
            JsonType::ALL
                .into_iter()
                .find(|t| name.as_str() == Some(t.name()))
                .ok_or_else(|| {
                    let valid: Vec<&str> = JsonType::ALL.iter().map(|t| t.name()).collect();
                    error(
                        pointer,
                        format!("unknown type {name}; valid types: {}", valid.join(", ")),
                    )
                })
        })
        .collect()
}

fn compile_operand(op: &str, argument: &Value, pointer: &str) -> Result<Operand, CompileError> {
    match argument {
        Value::Number(n) => Ok(Operand::Number(n.clone())),
        Value::String(text) => {
            let template = Template::parse(text).map_err(|message| error(pointer, message))?;
            match template.whole_var() {
                Some(_) => Ok(Operand::Var(template)),
                None => Err(error(pointer, format!("`{op}` takes a number or a `${{var}}`"))),
            }
        }
        _ => Err(error(pointer, format!("`{op}` takes a number or a `${{var}}`"))),
    }
}

fn compile_schema(argument: &Value, pointer: &str) -> Result<SchemaSource, CompileError> {
    if let Value::String(text) = argument {
        let template = Template::parse(text).map_err(|message| error(pointer, message))?;
        return match template.whole_var() {
            Some(_) => Ok(SchemaSource::Var(template)),
            None => Err(error(
                pointer,
                "`$schema` takes a JSON Schema or a `${var}` holding one",
            )),
        };
    }
    let validator = jsonschema::validator_for(argument)
        .map_err(|e| error(pointer, format!("invalid JSON Schema: {e}")))?;
    Ok(SchemaSource::Inline {
        schema: argument.clone(),
        validator: Box::new(validator),
    })
}

fn compile_alternatives(
    op: &str,
    argument: &Value,
    pointer: &str,
    exact: bool,
) -> Result<Vec<Node>, CompileError> {
    match argument {
        Value::Array(items) if !items.is_empty() => items
            .iter()
            .enumerate()
            .map(|(i, item)| compile(item, &element(pointer, i), exact))
            .collect(),
        _ => Err(error(
            pointer,
            format!("`{op}` takes a non-empty list of matchers"),
        )),
    }
}

fn compile_select(argument: &Value, pointer: &str, exact: bool) -> Result<Op, CompileError> {
    let usage = "`$select` takes {path: \"$.json.path\", match: <matcher>}";
    let Value::Object(map) = argument else {
        return Err(error(pointer, usage));
    };
    if let Some(extra) = map.keys().find(|k| *k != "path" && *k != "match") {
        return Err(error(
            &member(pointer, extra),
            format!("unexpected member; {usage}"),
        ));
    }
    let (Some(Value::String(path_text)), Some(then)) = (map.get("path"), map.get("match")) else {
        return Err(error(pointer, usage));
    };
    let path = JsonPath::parse(path_text)
        .map_err(|e| error(&member(pointer, "path"), format!("invalid JSONPath: {e}")))?;
    let then = compile(then, &member(pointer, "match"), exact)?;
    Ok(Op::Select {
        path_text: path_text.clone(),
        path,
        then: Box::new(then),
    })
}

fn error(pointer: &str, message: impl Into<String>) -> CompileError {
    CompileError {
        pointer: pointer.to_owned(),
        message: message.into(),
    }
}
