//! Argument objects generated from a JSON Schema (a tool's `inputSchema`):
//! valid ones, and near-valid ones that differ from a valid object in one
//! field, so a finding names the field and the flaw that triggered it.
//!
//! Generation is seeded ([`sample`]): the same seed gives the same cases, so
//! a run can be replayed and a finding reproduced.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{Map, Number, Value};

/// How deep generated objects nest inside each other before optional
/// properties stop being generated (schemas can be recursive through `$ref`
/// in principle, and a deep valid value is not what the valid cases test).
const MAX_OBJECT_DEPTH: usize = 4;

/// Length of the "huge" string: large enough to reach buffer limits in
/// naive servers, small enough to keep a run of thousands of cases fast.
const HUGE_LENGTH: usize = 100_000;

/// Nesting depth of the "deep" value: deep enough to trouble recursive
/// parsers, under the 128 levels serde_json-based peers parse by default.
const DEEP_NESTING: usize = 100;

/// What a near-valid case changed in an otherwise valid argument object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flaw {
    /// A required property left out.
    Missing,
    /// A value of a JSON type the schema does not allow.
    WrongType,
    /// A number outside its bounds, a string outside its length or enum.
    OutOfRange,
    /// A very long string.
    Huge,
    /// A string with control, invisible or combining characters, or empty.
    Unicode,
    /// Arrays nested [`DEEP_NESTING`] levels deep.
    DeepNesting,
    /// A property the schema does not declare.
    UnknownProperty,
}

impl Flaw {
    /// Whether the flaw always makes the arguments violate the schema; the
    /// others are edge values that a schema may well accept.
    pub fn breaks_schema(self) -> bool {
        matches!(self, Flaw::Missing | Flaw::WrongType | Flaw::OutOfRange)
    }
}

/// A near-valid argument object and what was changed to make it.
#[derive(Debug, Clone, PartialEq)]
pub struct NearValid {
    pub arguments: Value,
    pub field: String,
    pub flaw: Flaw,
}

/// Values the schema accepts.
pub fn valid(schema: &Value) -> BoxedStrategy<Value> {
    valid_at(schema, 0)
}

/// Argument objects that differ from a valid one in a single field.
pub fn near_valid(schema: &Value) -> BoxedStrategy<NearValid> {
    let properties = properties(schema);
    if properties.is_empty() {
        return valid(schema)
            .prop_map(|mut arguments| {
                insert(&mut arguments, "fuzz", deeply_nested());
                NearValid {
                    arguments,
                    field: "fuzz".into(),
                    flaw: Flaw::UnknownProperty,
                }
            })
            .boxed();
    }
    let required = required(schema);
    let choices: Vec<(String, Value, bool)> = properties
        .into_iter()
        .map(|(name, property)| {
            let is_required = required.contains(&name);
            (name, property, is_required)
        })
        .collect();
    (
        valid(schema),
        proptest::sample::select(choices),
        any::<proptest::sample::Index>(),
    )
        .prop_map(|(mut arguments, (field, property, is_required), pick)| {
            let flaws = flaws_for(&property, is_required);
            let flaw = flaws[pick.index(flaws.len())];
            match flawed_value(&property, flaw) {
                Some(value) => insert(&mut arguments, &field, value),
                None => remove(&mut arguments, &field),
            }
            NearValid {
                arguments,
                field,
                flaw,
            }
        })
        .boxed()
}

/// `count` values drawn from `strategy` with a generator seeded by `seed`:
/// the same seed always gives the same values.
pub fn sample<S: Strategy>(strategy: &S, seed: u64, count: usize) -> Vec<S::Value> {
    sample_trees(strategy, seed, count)
        .iter()
        .map(ValueTree::current)
        .collect()
}

/// Like [`sample`], but each value with its tree, which [`shrink`] needs.
pub fn sample_trees<S: Strategy>(strategy: &S, seed: u64, count: usize) -> Vec<S::Tree> {
    let mut seed_bytes = [0u8; 32];
    seed_bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    (0..count)
        .filter_map(|_| strategy.new_tree(&mut runner).ok())
        .collect()
}

/// The simplest value `tree` can shrink to that `still_fails` holds for,
/// starting from its current value (which must fail): proptest's own
/// simplify/complicate search.
pub fn shrink<T: ValueTree>(mut tree: T, mut still_fails: impl FnMut(&T::Value) -> bool) -> T::Value {
    let mut smallest = tree.current();
    if !tree.simplify() {
        return smallest;
    }
    loop {
        let candidate = tree.current();
        let advanced = if still_fails(&candidate) {
            smallest = candidate;
            tree.simplify()
        } else {
            tree.complicate()
        };
        if !advanced {
            return smallest;
        }
    }
}

fn valid_at(schema: &Value, depth: usize) -> BoxedStrategy<Value> {
    if let Some(constant) = schema.get("const") {
        return Just(constant.clone()).boxed();
    }
    if let Some(choices) = schema
        .get("enum")
        .and_then(Value::as_array)
        .filter(|choices| !choices.is_empty())
    {
        return proptest::sample::select(choices.clone()).boxed();
    }
    match main_type(schema) {
        Some("object") => object(schema, depth),
        Some("array") => array(schema, depth),
        Some("integer") => integer(schema),
        Some("number") => number(schema),
        Some("boolean") => any::<bool>().prop_map(Value::Bool).boxed(),
        Some("null") => Just(Value::Null).boxed(),
        // A string is valid for an untyped schema too.
        _ => string(schema),
    }
}

fn object(schema: &Value, depth: usize) -> BoxedStrategy<Value> {
    let required = required(schema);
    let fields: Vec<BoxedStrategy<Option<(String, Value)>>> = properties(schema)
        .into_iter()
        .filter(|(name, _)| depth < MAX_OBJECT_DEPTH || required.contains(name))
        .map(|(name, property)| {
            let value = valid_at(&property, depth + 1);
            if required.contains(&name) {
                value.prop_map(move |value| Some((name.clone(), value))).boxed()
            } else {
                proptest::option::of(value.prop_map(move |value| (name.clone(), value))).boxed()
            }
        })
        .collect();
    fields
        .prop_map(|fields| Value::Object(fields.into_iter().flatten().collect()))
        .boxed()
}

fn array(schema: &Value, depth: usize) -> BoxedStrategy<Value> {
    let items = schema.get("items").cloned().unwrap_or(Value::Null);
    let min = bound_usize(schema, "minItems").unwrap_or(0);
    let max = bound_usize(schema, "maxItems").unwrap_or(min + 3).max(min);
    proptest::collection::vec(valid_at(&items, depth + 1), min..=max)
        .prop_map(Value::Array)
        .boxed()
}

fn integer(schema: &Value) -> BoxedStrategy<Value> {
    let (low, high) = integer_bounds(schema);
    (low..=high).prop_map(Value::from).boxed()
}

fn number(schema: &Value) -> BoxedStrategy<Value> {
    let bound = |key| schema.get(key).and_then(Value::as_f64);
    let (exclusive_low, exclusive_high) = (bound("exclusiveMinimum"), bound("exclusiveMaximum"));
    let low = bound("minimum").or(exclusive_low);
    let high = bound("maximum").or(exclusive_high);
    let (low, high) = match (low, high) {
        (Some(low), Some(high)) => (low, high.max(low)),
        (Some(low), None) => (low, low + 1000.0),
        (None, Some(high)) => (high - 1000.0, high),
        (None, None) => (-1000.0, 1000.0),
    };
    (low..=high)
        .prop_filter("inside exclusive bounds", move |number| {
            Some(*number) != exclusive_low && Some(*number) != exclusive_high
        })
        .prop_map(|number| Number::from_f64(number).map_or(Value::Null, Value::Number))
        .boxed()
}

fn string(schema: &Value) -> BoxedStrategy<Value> {
    // proptest does not honour anchors; a string matching the pattern's body
    // whole matches the anchored pattern too.
    if let Some(pattern) = schema.get("pattern").and_then(Value::as_str)
        && let Ok(strategy) =
            proptest::string::string_regex(pattern.trim_start_matches('^').trim_end_matches('$'))
    {
        return strategy.prop_map(Value::String).boxed();
    }
    let min = bound_usize(schema, "minLength").unwrap_or(0);
    let max = bound_usize(schema, "maxLength").unwrap_or(min + 16).max(min);
    proptest::collection::vec(any::<char>(), min..=max)
        .prop_map(|chars| Value::String(chars.into_iter().collect()))
        .boxed()
}

/// The flaws that make sense for one property: a wrong type needs a
/// declared type, out of range a bound, missing a required property.
fn flaws_for(property: &Value, is_required: bool) -> Vec<Flaw> {
    let mut flaws = vec![Flaw::Huge, Flaw::Unicode, Flaw::DeepNesting];
    if !types(property).is_empty() {
        flaws.push(Flaw::WrongType);
    }
    if is_required {
        flaws.push(Flaw::Missing);
    }
    if out_of_range(property).is_some() {
        flaws.push(Flaw::OutOfRange);
    }
    flaws
}

/// The value a flaw puts in the field, or `None` to leave the field out.
fn flawed_value(property: &Value, flaw: Flaw) -> Option<Value> {
    match flaw {
        Flaw::Missing => None,
        Flaw::WrongType => Some(wrong_type(property)),
        Flaw::OutOfRange => out_of_range(property),
        Flaw::Huge => Some(Value::String("a".repeat(HUGE_LENGTH))),
        Flaw::Unicode => Some(Value::String(
            "\u{0}\u{202e}\u{feff}e\u{301}\u{1f600}\u{ffff}".into(),
        )),
        Flaw::DeepNesting | Flaw::UnknownProperty => Some(deeply_nested()),
    }
}

/// A value of a type the property does not allow (`7` is not used for
/// `number`: an integer is a number).
fn wrong_type(property: &Value) -> Value {
    let allowed = types(property);
    let candidates = [
        ("string", Value::from("text")),
        ("integer", Value::from(7)),
        ("boolean", Value::Bool(true)),
        ("object", Value::Object(Map::new())),
        ("array", Value::Array(Vec::new())),
        ("null", Value::Null),
    ];
    candidates
        .into_iter()
        .find(|(name, _)| {
            let accepted_as_number = *name == "integer" && allowed.contains(&"number");
            !(allowed.contains(name) || accepted_as_number)
        })
        .map_or(Value::Null, |(_, value)| value)
}

/// A value just outside the property's bounds, when it has any.
fn out_of_range(property: &Value) -> Option<Value> {
    if property.get("enum").is_some() {
        return Some(Value::from("fuzz-not-a-member"));
    }
    if let Some(max) = property.get("maximum").and_then(Value::as_i64) {
        return Some(Value::from(max.saturating_add(1)));
    }
    if let Some(min) = property.get("minimum").and_then(Value::as_i64) {
        return Some(Value::from(min.saturating_sub(1)));
    }
    if let Some(max) = bound_usize(property, "maxLength") {
        return Some(Value::String("a".repeat(max + 1)));
    }
    bound_usize(property, "minLength")
        .filter(|min| *min > 0)
        .map(|min| Value::String("a".repeat(min - 1)))
}

fn deeply_nested() -> Value {
    (0..DEEP_NESTING).fold(Value::Array(Vec::new()), |inner, _| Value::Array(vec![inner]))
}

fn properties(schema: &Value) -> Vec<(String, Value)> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| {
            properties
                .iter()
                .map(|(name, property)| (name.clone(), property.clone()))
                .collect()
        })
        .unwrap_or_default()
}

fn required(schema: &Value) -> Vec<String> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| {
            names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

fn types(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(name)) => vec![name.as_str()],
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// The type generated for a schema: its first non-null type.
fn main_type(schema: &Value) -> Option<&str> {
    let types = types(schema);
    types
        .iter()
        .find(|name| **name != "null")
        .or(types.first())
        .copied()
}

/// Inclusive integer bounds, defaulting to a small range around the one
/// bound given (so a `minimum` alone does not generate only huge numbers).
fn integer_bounds(schema: &Value) -> (i64, i64) {
    let bound = |key| schema.get(key).and_then(Value::as_i64);
    let low = bound("minimum").or(bound("exclusiveMinimum").map(|min| min.saturating_add(1)));
    let high = bound("maximum").or(bound("exclusiveMaximum").map(|max| max.saturating_sub(1)));
    match (low, high) {
        (Some(low), Some(high)) => (low, high.max(low)),
        (Some(low), None) => (low, low.saturating_add(1000)),
        (None, Some(high)) => (high.saturating_sub(1000), high),
        (None, None) => (-1000, 1000),
    }
}

fn bound_usize(schema: &Value, key: &str) -> Option<usize> {
    schema
        .get(key)
        .and_then(Value::as_u64)
        .and_then(|bound| usize::try_from(bound).ok())
}

fn insert(arguments: &mut Value, field: &str, value: Value) {
    if let Value::Object(map) = arguments {
        map.insert(field.to_owned(), value);
    }
}

fn remove(arguments: &mut Value, field: &str) {
    if let Value::Object(map) = arguments {
        map.remove(field);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 1, "maxLength": 8},
                "count": {"type": "integer", "minimum": 0, "maximum": 10},
                "mode": {"enum": ["fast", "slow"]},
                "ratio": {"type": "number", "minimum": 0, "exclusiveMaximum": 1.5},
                "anything": {},
                "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
                "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
                "nested": {
                    "type": "object",
                    "properties": {"flag": {"type": "boolean"}},
                    "required": ["flag"]
                }
            },
            "required": ["name", "count"]
        })
    }

    #[test]
    fn valid_values_satisfy_the_schema() {
        let validator = jsonschema::validator_for(&schema()).unwrap();
        for value in sample(&valid(&schema()), 1, 500) {
            assert!(validator.is_valid(&value), "{value}");
        }
    }

    #[test]
    fn flaws_that_break_the_schema_do() {
        let validator = jsonschema::validator_for(&schema()).unwrap();
        let cases = sample(&near_valid(&schema()), 2, 2000);
        for case in cases.iter().filter(|case| case.flaw.breaks_schema()) {
            assert!(
                !validator.is_valid(&case.arguments),
                "{:?} on {} left {} valid",
                case.flaw,
                case.field,
                case.arguments
            );
        }
        for flaw in [
            Flaw::Missing,
            Flaw::WrongType,
            Flaw::OutOfRange,
            Flaw::Huge,
            Flaw::Unicode,
            Flaw::DeepNesting,
        ] {
            assert!(cases.iter().any(|case| case.flaw == flaw), "{flaw:?} never drawn");
        }
    }

    #[test]
    fn a_schema_without_properties_gets_an_unknown_property() {
        let cases = sample(&near_valid(&json!({"type": "object"})), 3, 5);
        assert_eq!(cases.len(), 5);
        assert!(
            cases
                .iter()
                .all(|case| case.flaw == Flaw::UnknownProperty && case.arguments.get("fuzz").is_some())
        );
    }

    #[test]
    fn the_same_seed_gives_the_same_cases() {
        let strategy = near_valid(&schema());
        assert_eq!(sample(&strategy, 42, 50), sample(&strategy, 42, 50));
        assert_ne!(sample(&strategy, 42, 50), sample(&strategy, 43, 50));
    }

    #[test]
    fn shrinking_keeps_the_failure_and_drops_the_rest() {
        let fails = |case: &NearValid| {
            case.arguments["name"]
                .as_str()
                .is_some_and(|name| name.chars().count() > 1000)
        };
        let tree = sample_trees(&near_valid(&schema()), 4, 3000)
            .into_iter()
            .find(|tree| fails(&tree.current()))
            .expect("a huge name among 3000 cases");
        let smallest = shrink(tree, fails);
        assert!(fails(&smallest));
        let mut fields: Vec<&String> = smallest.arguments.as_object().unwrap().keys().collect();
        fields.sort();
        assert_eq!(fields, ["count", "name"], "only the required fields are left");
    }

    #[test]
    fn wrong_type_never_picks_an_allowed_type() {
        assert_eq!(wrong_type(&json!({"type": "string"})), json!(7));
        assert_eq!(wrong_type(&json!({"type": "number"})), json!("text"));
        assert_eq!(
            wrong_type(&json!({"type": ["string", "integer", "boolean"]})),
            json!({})
        );
    }
}
