//! Expected values → [`Node`] trees, with operator syntax checked.

use regex::Regex;
use serde_json::{Map, Value};
use serde_json_path::JsonPath;

use super::template::has_reference;
use super::{CompileError, pointer_join};

/// The operators, for error messages.
pub(super) const OPERATORS: &str = "$any, $absent, $exact, $type, $regex, $eq, $ne, $gt, $gte, $lt, $lte, $len, \
     $contains, $each, $one_of, $all_of, $not, $unique, $unique_by, $select, $schema, $capture";

/// Comparison operators.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Compare {
    Eq,
    Ne,
    Gt,
    Gte,
    Lt,
    Lte,
}

/// One node of a compiled pattern.
#[derive(Debug, Clone)]
pub(super) enum Node {
    Literal(Value),
    /// A string with `${...}`: resolved at match time, then matched as a pattern.
    Template {
        text: String,
        exact: bool,
    },
    Object {
        members: Vec<(String, Node)>,
        exact: bool,
    },
    Array {
        items: Vec<Node>,
        prefix: bool,
    },
    Any,
    Absent,
    Type(Vec<String>),
    Regex(Regex),
    Compare(Compare, Box<Node>),
    Len(Box<Node>),
    Contains(Box<Node>),
    Each(Box<Node>),
    OneOf(Vec<Node>),
    AllOf(Vec<Node>),
    Not(Box<Node>),
    Unique,
    UniqueBy(String),
    Select {
        path: JsonPath,
        source: String,
        node: Box<Node>,
    },
    Schema(Value),
    Capture(String),
}

const TYPES: [&str; 7] = [
    "string", "number", "integer", "boolean", "object", "array", "null",
];

pub(super) fn compile(value: &Value, exact: bool, pointer: &str) -> Result<Node, CompileError> {
    match value {
        Value::String(text) if has_reference(text) => Ok(Node::Template {
            text: text.clone(),
            exact,
        }),
        Value::Object(map) if map.len() == 1 && is_operator(map) => {
            let (key, arg) = map.iter().next().expect("one member");
            operator(key, arg, exact, pointer)
        }
        Value::Object(map) => {
            let members = map
                .iter()
                .map(|(key, v)| {
                    if key.starts_with('$') && !key.starts_with("$$") {
                        return Err(CompileError {
                            pointer: pointer_join(pointer, key),
                            message: format!(
                                "`{key}` looks like an operator, but operators stand alone in their object \
                                 (write `$${}` for a literal key)",
                                &key[1..]
                            ),
                        });
                    }
                    let name = key
                        .strip_prefix('$')
                        .filter(|k| k.starts_with('$'))
                        .unwrap_or(key);
                    Ok((name.to_owned(), compile(v, exact, &pointer_join(pointer, key))?))
                })
                .collect::<Result<_, _>>()?;
            Ok(Node::Object { members, exact })
        }
        Value::Array(items) => {
            let prefix = items.last() == Some(&Value::String("...".into()));
            let items = &items[..items.len() - usize::from(prefix)];
            let items = items
                .iter()
                .enumerate()
                .map(|(i, v)| compile(v, exact, &format!("{pointer}/{i}")))
                .collect::<Result<_, _>>()?;
            Ok(Node::Array { items, prefix })
        }
        other => Ok(Node::Literal(other.clone())),
    }
}

fn is_operator(map: &Map<String, Value>) -> bool {
    map.keys()
        .next()
        .is_some_and(|k| k.starts_with('$') && !k.starts_with("$$"))
}

fn operator(key: &str, arg: &Value, exact: bool, pointer: &str) -> Result<Node, CompileError> {
    operator_node(key, arg, exact, pointer).map_err(|failure| match failure {
        Failure::Nested(error) => error,
        Failure::Here(message) => CompileError {
            pointer: pointer.to_owned(),
            message,
        },
    })
}

/// Why an operator did not compile: inside its argument (located there) or itself.
enum Failure {
    Nested(CompileError),
    Here(String),
}

impl From<CompileError> for Failure {
    fn from(error: CompileError) -> Failure {
        Failure::Nested(error)
    }
}

impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure::Here(message)
    }
}

impl From<&str> for Failure {
    fn from(message: &str) -> Failure {
        Failure::Here(message.to_owned())
    }
}

fn operator_node(key: &str, arg: &Value, exact: bool, pointer: &str) -> Result<Node, Failure> {
    let inner_pointer = pointer_join(pointer, key);
    let inner = |v: &Value| compile(v, exact, &inner_pointer);
    let list = |v: &Value| -> Result<Vec<Node>, Failure> {
        let items = v
            .as_array()
            .filter(|a| !a.is_empty())
            .ok_or(format!("`{key}` takes a non-empty list"))?;
        Ok(items
            .iter()
            .enumerate()
            .map(|(i, v)| compile(v, exact, &format!("{inner_pointer}/{i}")))
            .collect::<Result<_, _>>()?)
    };
    Ok(match key {
        "$any" => Node::Any,
        "$absent" => Node::Absent,
        "$exact" => compile(arg, true, &inner_pointer)?,
        "$type" => {
            let names: Vec<String> = match arg {
                Value::String(name) => vec![name.clone()],
                Value::Array(names) => names
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect(),
                _ => Vec::new(),
            };
            match names.iter().find(|n| !TYPES.contains(&n.as_str())) {
                _ if names.is_empty() => {
                    return Err(Failure::from(format!(
                        "`$type` takes one of {} or a list of them",
                        TYPES.join(", ")
                    )));
                }
                Some(bad) => {
                    return Err(Failure::from(format!(
                        "unknown type `{bad}`; types are {}",
                        TYPES.join(", ")
                    )));
                }
                None => Node::Type(names),
            }
        }
        "$regex" => {
            let pattern = arg.as_str().ok_or("`$regex` takes a string")?;
            Node::Regex(Regex::new(pattern).map_err(|e| format!("invalid regex: {e}"))?)
        }
        "$eq" | "$ne" | "$gt" | "$gte" | "$lt" | "$lte" => {
            let compare = match key {
                "$eq" => Compare::Eq,
                "$ne" => Compare::Ne,
                "$gt" => Compare::Gt,
                "$gte" => Compare::Gte,
                "$lt" => Compare::Lt,
                _ => Compare::Lte,
            };
            let ordered = !matches!(compare, Compare::Eq | Compare::Ne);
            if ordered && !arg.is_number() && !arg.as_str().is_some_and(has_reference) {
                return Err(Failure::from(format!(
                    "`{key}` takes a number or a `${{variable}}`"
                )));
            }
            Node::Compare(compare, Box::new(inner(arg)?))
        }
        "$len" => match arg {
            Value::Number(n) if n.is_u64() => Node::Len(Box::new(Node::Literal(arg.clone()))),
            Value::Object(_) => Node::Len(Box::new(inner(arg)?)),
            _ => {
                return Err(Failure::from(
                    "`$len` takes a count or a matcher such as `{$gte: 1}`",
                ));
            }
        },
        "$contains" => Node::Contains(Box::new(inner(arg)?)),
        "$each" => Node::Each(Box::new(inner(arg)?)),
        "$one_of" => Node::OneOf(list(arg)?),
        "$all_of" => Node::AllOf(list(arg)?),
        "$not" => Node::Not(Box::new(inner(arg)?)),
        "$unique" => Node::Unique,
        "$unique_by" => {
            let by = arg
                .as_str()
                .filter(|p| p.starts_with('/'))
                .ok_or("`$unique_by` takes a JSON Pointer such as `/name`")?;
            Node::UniqueBy(by.to_owned())
        }
        "$select" => {
            let path = arg
                .get("path")
                .and_then(Value::as_str)
                .ok_or("`$select` takes `{path: <JSONPath>, match: <matcher>}`")?;
            let compiled = JsonPath::parse(path).map_err(|e| format!("invalid JSONPath `{path}`: {e}"))?;
            let node = arg.get("match").map(inner).transpose()?.unwrap_or(Node::Any);
            Node::Select {
                path: compiled,
                source: path.to_owned(),
                node: Box::new(node),
            }
        }
        "$schema" => {
            jsonschema::validator_for(arg).map_err(|e| format!("invalid JSON Schema: {e}"))?;
            Node::Schema(arg.clone())
        }
        "$capture" => Node::Capture(arg.as_str().ok_or("`$capture` takes a variable name")?.to_owned()),
        other => {
            return Err(Failure::from(format!(
                "unknown operator `{other}`; operators are {OPERATORS}"
            )));
        }
    })
}
