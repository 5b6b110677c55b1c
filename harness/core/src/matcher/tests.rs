use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;

fn check(expected: Value, actual: Value) -> Vec<Mismatch> {
    Matcher::compile(&expected)
        .unwrap()
        .eval(Some(&actual), &mut MatchContext::default())
}

#[test]
fn objects_match_as_a_subset_unless_exact() {
    assert!(check(json!({"a": 1}), json!({"a": 1.0, "b": 2})).is_empty());
    let exact = Matcher::compile(&json!({"$exact": {"a": 1}})).unwrap();
    let found = exact.eval(Some(&json!({"a": 1, "b": 2})), &mut MatchContext::default());
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].pointer, "/b");
    assert_eq!(
        check(json!({"a": {"b": "x"}}), json!({"a": {"b": "y"}}))[0].pointer,
        "/a/b"
    );
}

#[test]
fn arrays_are_element_wise_and_dots_mean_a_prefix() {
    assert!(check(json!([1, 2]), json!([1, 2])).is_empty());
    assert!(!check(json!([1, 2]), json!([1, 2, 3])).is_empty());
    assert!(check(json!([1, "..."]), json!([1, 2, 3])).is_empty());
    assert!(!check(json!([1, "..."]), json!([])).is_empty());
}

#[test]
fn operators_hold_and_break() {
    let cases = [
        (json!({"$type": "integer"}), json!(3), true),
        (json!({"$type": ["string", "null"]}), json!(3), false),
        (json!({"$regex": "^ab"}), json!("abc"), true),
        (json!({"$gt": 0}), json!(0), false),
        (json!({"$lte": 1}), json!(0.5), true),
        (json!({"$ne": "x"}), json!("x"), false),
        (json!({"$len": {"$gte": 2}}), json!([1]), false),
        (json!({"$len": 3}), json!("abc"), true),
        (
            json!({"$contains": {"name": "echo"}}),
            json!([{"name": "add"}, {"name": "echo"}]),
            true,
        ),
        (json!({"$contains": "ell"}), json!("hello"), true),
        (json!({"$each": {"$type": "string"}}), json!(["a", 1]), false),
        (json!({"$one_of": [1, 2]}), json!(2), true),
        (json!({"$all_of": [{"$gt": 1}, {"$lt": 3}]}), json!(3), false),
        (json!({"$not": {"$type": "null"}}), json!(1), true),
        (json!({"$unique": true}), json!([1, 2, 1]), false),
        (
            json!({"$unique_by": "/name"}),
            json!([{"name": "a"}, {"name": "b"}]),
            true,
        ),
        (
            json!({"$select": {"path": "$.tools[*].name", "match": ["a", "b"]}}),
            json!({"tools": [{"name": "a"}, {"name": "b"}]}),
            true,
        ),
        (
            json!({"$schema": {"type": "object", "required": ["x"]}}),
            json!({}),
            false,
        ),
        (json!({"$any": true}), json!(null), true),
    ];
    for (expected, actual, holds) in cases {
        assert_eq!(
            check(expected.clone(), actual.clone()).is_empty(),
            holds,
            "{expected} vs {actual}"
        );
    }
}

#[test]
fn absent_and_missing_members() {
    assert!(check(json!({"isError": {"$absent": true}}), json!({})).is_empty());
    assert!(!check(json!({"isError": {"$absent": true}}), json!({"isError": false})).is_empty());
    assert_eq!(
        check(json!({"a": {"$any": true}}), json!({}))[0].message,
        "missing"
    );
}

#[test]
fn captures_and_variables() {
    let mut ctx = MatchContext::default();
    let capture = Matcher::compile(&json!({"nextCursor": {"$capture": "cursor"}})).unwrap();
    assert!(
        capture
            .eval(Some(&json!({"nextCursor": "c1"})), &mut ctx)
            .is_empty()
    );
    assert_eq!(ctx.vars["cursor"], json!("c1"));
    let uses = Matcher::compile(&json!({"echo": "${cursor}", "n": {"$gt": "${limit}"}})).unwrap();
    ctx.vars.insert("limit".into(), json!(2));
    assert!(
        uses.eval(Some(&json!({"echo": "c1", "n": 3})), &mut ctx)
            .is_empty()
    );
    ctx.vars.remove("limit");
    let found = uses.eval(Some(&json!({"echo": "c1", "n": 3})), &mut ctx);
    assert!(found[0].message.contains("undefined variable"), "{found:?}");
}

#[test]
fn a_variable_may_hold_a_subset_pattern() {
    let mut ctx = MatchContext::default();
    ctx.vars.insert(
        "prefs".into(),
        json!({"hints": [{"name": "m"}], "speedPriority": 0.2}),
    );
    let matcher = Matcher::compile(&json!({"modelPreferences": "${prefs}"})).unwrap();
    let actual =
        json!({"modelPreferences": {"hints": [{"name": "m"}], "speedPriority": 0.2, "costPriority": 0.1}});
    assert!(matcher.eval(Some(&actual), &mut ctx).is_empty());
    let changed = json!({"modelPreferences": {"hints": [{"name": "m"}], "speedPriority": 0.3}});
    assert_eq!(
        matcher.eval(Some(&changed), &mut ctx)[0].pointer,
        "/modelPreferences/speedPriority"
    );
}

#[test]
fn compile_errors_point_into_the_expected_value() {
    let error = Matcher::compile(&json!({"a": {"$regexp": "x"}})).unwrap_err();
    assert_eq!(error.pointer, "/a");
    assert!(error.message.contains("unknown operator `$regexp`") && error.message.contains("$regex"));
    assert!(
        Matcher::compile(&json!({"$regex": "("}))
            .unwrap_err()
            .message
            .contains("invalid regex")
    );
    assert!(Matcher::compile(&json!({"$$literal": 1})).is_ok());
}

#[test]
fn normalized_actual_differs_only_where_the_match_fails() {
    let matcher = Matcher::compile(&json!({"a": {"$type": "string"}, "b": 1})).unwrap();
    let ctx = MatchContext::default();
    let normalized = matcher.normalize_actual(&json!({"a": "x", "b": 2, "c": 3}), &ctx);
    assert_eq!(normalized, json!({"a": {"$type": "string"}, "b": 2}));
    assert_eq!(
        matcher.display_expected(&ctx),
        json!({"a": {"$type": "string"}, "b": 1})
    );
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "[a-z ]{0,8}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,4}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn every_value_matches_itself(value in json_value()) {
        let mut ctx = MatchContext::default();
        prop_assert!(Matcher::exact(&value).unwrap().eval(Some(&value), &mut ctx).is_empty());
        prop_assert!(Matcher::compile(&value).unwrap().eval(Some(&value), &mut ctx).is_empty());
    }
}
