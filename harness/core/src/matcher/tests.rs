use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;

/// Compiles `expected` (subset) and evaluates it against `actual` in a fresh context.
fn check(expected: Value, actual: Value) -> Vec<Mismatch> {
    let matcher = Matcher::compile(&expected).expect("compiles");
    matcher.eval(Some(&actual), &mut MatchContext::default())
}

fn pointers(mismatches: &[Mismatch]) -> Vec<&str> {
    mismatches.iter().map(|m| m.pointer.as_str()).collect()
}

fn compile_error(expected: Value) -> CompileError {
    Matcher::compile(&expected).expect_err("should not compile")
}

fn ctx_with(name: &str, value: Value) -> MatchContext {
    MatchContext {
        vars: BTreeMap::from([(name.to_owned(), value)]),
    }
}

#[test]
fn objects_match_as_subset_and_report_missing_members() {
    assert!(check(json!({"a": 1}), json!({"a": 1, "extra": true})).is_empty());
    let found = check(json!({"a": 1, "b": {"c": "x"}}), json!({"a": 1, "b": {}}));
    assert_eq!(pointers(&found), ["/b/c"]);
    assert_eq!(found[0].actual, None);
    assert_eq!(found[0].message, "missing");
}

#[test]
fn exact_forbids_unlisted_members_at_every_depth() {
    let matcher = Matcher::exact(&json!({"a": {"b": 1}})).unwrap();
    let found = matcher.eval(
        Some(&json!({"a": {"b": 1, "c": 2}, "d": 3})),
        &mut MatchContext::default(),
    );
    assert_eq!(pointers(&found), ["/a/c", "/d"]);
    assert!(
        found[0].message.contains("unexpected member `c`"),
        "{}",
        found[0].message
    );
    let operator = check(
        json!({"outer": {"$exact": {"b": 1}}, "x": 1}),
        json!({"outer": {"b": 1, "c": 2}, "x": 1, "y": 0}),
    );
    assert_eq!(pointers(&operator), ["/outer/c"]);
}

#[test]
fn exact_still_honours_absent_members() {
    let matcher = Matcher::exact(&json!({"a": 1, "b": "$absent"})).unwrap();
    assert!(
        matcher
            .eval(Some(&json!({"a": 1})), &mut MatchContext::default())
            .is_empty()
    );
    assert_eq!(
        pointers(&matcher.eval(Some(&json!({"a": 1, "b": 2})), &mut MatchContext::default())),
        ["/b"]
    );
}

#[test]
fn arrays_need_equal_length_unless_open() {
    assert!(check(json!([1, 2]), json!([1, 2])).is_empty());
    let longer = check(json!([1, 2]), json!([1, 2, 3]));
    assert_eq!(pointers(&longer), ["/2"]);
    assert!(
        longer[0].message.contains("expected 2 elements, got 3"),
        "{}",
        longer[0].message
    );
    let shorter = check(json!([1, 2]), json!([1]));
    assert_eq!(pointers(&shorter), ["/1"]);
    assert!(check(json!([1, "..."]), json!([1, 2, 3])).is_empty());
    assert!(check(json!(["..."]), json!([])).is_empty());
    assert_eq!(pointers(&check(json!([1, 2, "..."]), json!([1]))), ["/1"]);
    assert_eq!(pointers(&check(json!([1, "..."]), json!([2, 1]))), ["/0"]);
}

#[test]
fn array_elements_match_objects_as_subsets() {
    assert!(check(json!([{"name": "a"}]), json!([{"name": "a", "x": 1}])).is_empty());
}

#[test]
fn numbers_compare_by_value_and_kinds_are_reported() {
    assert!(check(json!(1), json!(1.0)).is_empty());
    assert!(check(json!({"a": [2.0]}), json!({"a": [2]})).is_empty());
    assert_eq!(check(json!(1), json!(2))[0].message, "values differ");
    // A fraction sent from single precision is the same number.
    assert!(check(json!(0.3), json!(0.30000001192092896)).is_empty());
    assert_eq!(check(json!(0.3), json!(0.31))[0].message, "values differ");
    assert_eq!(
        check(json!(16777216), json!(16777217))[0].message,
        "values differ"
    );
    assert_eq!(
        check(json!(1), json!("1"))[0].message,
        "expected a number, got a string"
    );
    assert_eq!(
        check(json!(null), json!(false))[0].message,
        "expected null, got a boolean"
    );
    assert_eq!(
        check(json!({"a": 1}), json!([1]))[0].message,
        "expected an object, got an array"
    );
}

#[test]
fn dollar_escapes_give_literal_keys_and_strings() {
    assert!(check(json!({"$$schema": "x"}), json!({"$schema": "x"})).is_empty());
    assert_eq!(
        pointers(&check(json!({"$$schema": "x"}), json!({"$schema": "y"}))),
        ["/$schema"]
    );
    assert!(check(json!("$$any"), json!("$any")).is_empty());
    assert!(!check(json!("$$any"), json!("other")).is_empty());
    assert!(check(json!("$5 or $x"), json!("$5 or $x")).is_empty());
}

#[test]
fn any_accepts_null_but_not_absence() {
    assert!(check(json!({"a": "$any"}), json!({"a": null})).is_empty());
    assert!(check(json!({"a": {"$any": true}}), json!({"a": [1]})).is_empty());
    assert_eq!(pointers(&check(json!({"a": "$any"}), json!({}))), ["/a"]);
}

#[test]
fn absent_requires_absence() {
    assert!(check(json!({"a": "$absent"}), json!({"b": 1})).is_empty());
    let found = check(json!({"a": {"$absent": true}}), json!({"a": null}));
    assert_eq!(pointers(&found), ["/a"]);
    assert_eq!(found[0].message, "must be absent");
    let top = Matcher::compile(&json!("$absent")).unwrap();
    assert!(top.eval(None, &mut MatchContext::default()).is_empty());
}

#[test]
fn type_checks_names_and_lists() {
    assert!(check(json!({"$type": "integer"}), json!(3)).is_empty());
    assert!(check(json!({"$type": "integer"}), json!(3.0)).is_empty());
    assert!(!check(json!({"$type": "integer"}), json!(3.5)).is_empty());
    assert!(check(json!({"$type": "number"}), json!(3.5)).is_empty());
    assert!(check(json!({"$type": ["string", "null"]}), json!(null)).is_empty());
    let found = check(json!({"$type": ["string", "null"]}), json!(1));
    assert_eq!(found[0].message, "expected type string or null, got a number");
    for (name, value) in [
        ("boolean", json!(true)),
        ("object", json!({})),
        ("array", json!([])),
    ] {
        assert!(check(json!({"$type": name}), value).is_empty(), "{name}");
    }
}

#[test]
fn invalid_type_arguments_do_not_compile() {
    let err = compile_error(json!({"x": {"$type": "text"}}));
    assert_eq!(err.pointer, "/x/$type");
    assert!(err.message.contains("valid types: string"), "{}", err.message);
    assert!(Matcher::compile(&json!({"$type": []})).is_err());
}

#[test]
fn regex_is_unanchored_and_validated() {
    assert!(check(json!({"$regex": "^\\d+"}), json!("12ab")).is_empty());
    assert!(check(json!({"$regex": "b"}), json!("abc")).is_empty());
    assert!(
        check(json!({"$regex": "z"}), json!("abc"))[0]
            .message
            .contains("does not match")
    );
    assert_eq!(
        check(json!({"$regex": "a"}), json!(1))[0].message,
        "expected a string, got a number"
    );
    let err = compile_error(json!({"a": [{"$regex": "("}]}));
    assert_eq!(err.pointer, "/a/0/$regex");
    assert!(err.message.starts_with("invalid regex"), "{}", err.message);
}

#[test]
fn comparisons_hold_or_explain() {
    assert!(check(json!({"$gt": 0}), json!(1)).is_empty());
    assert!(!check(json!({"$gt": 1}), json!(1)).is_empty());
    assert!(check(json!({"$gte": 1}), json!(1.0)).is_empty());
    assert!(check(json!({"$lt": 1.5}), json!(1)).is_empty());
    assert!(check(json!({"$lte": -1}), json!(-1)).is_empty());
    assert!(check(json!({"$eq": 2}), json!(2.0)).is_empty());
    assert!(check(json!({"$ne": 2}), json!(3)).is_empty());
    let found = check(json!({"$lt": 10}), json!(12));
    assert_eq!(found[0].message, "12 fails `$lt` 10");
    assert_eq!(
        check(json!({"$gt": 0}), json!("1"))[0].message,
        "expected a number, got a string"
    );
}

#[test]
fn comparison_bounds_may_be_variables() {
    let matcher = Matcher::compile(&json!({"$gt": "${floor}"})).unwrap();
    assert!(
        matcher
            .eval(Some(&json!(5)), &mut ctx_with("floor", json!(4)))
            .is_empty()
    );
    assert!(
        !matcher
            .eval(Some(&json!(3)), &mut ctx_with("floor", json!(4)))
            .is_empty()
    );
    let unknown = matcher.eval(Some(&json!(3)), &mut MatchContext::default());
    assert!(
        unknown[0].message.contains("unknown variable `floor`"),
        "{}",
        unknown[0].message
    );
    let not_number = matcher.eval(Some(&json!(3)), &mut ctx_with("floor", json!("4")));
    assert!(
        not_number[0].message.contains("not a number"),
        "{}",
        not_number[0].message
    );
    assert!(Matcher::compile(&json!({"$gt": "4"})).is_err());
    assert!(Matcher::compile(&json!({"$gt": true})).is_err());
}

#[test]
fn len_takes_a_count_or_a_matcher() {
    assert!(check(json!({"$len": 2}), json!([1, 2])).is_empty());
    assert!(check(json!({"$len": 3}), json!("héé")).is_empty());
    assert!(check(json!({"$len": 1}), json!({"k": 0})).is_empty());
    assert!(check(json!({"$len": {"$gte": 1}}), json!([0])).is_empty());
    let found = check(json!({"$len": {"$gte": 1}}), json!([]));
    assert_eq!(found[0].message, "length is 0, expected {\"$gte\":1}");
    assert_eq!(
        check(json!({"$len": 1}), json!(5))[0].message,
        "expected an array, string or object, got a number"
    );
    assert!(Matcher::compile(&json!({"$len": -1})).is_err());
    assert!(Matcher::compile(&json!({"$len": 1.5})).is_err());
}

#[test]
fn contains_searches_arrays_and_strings() {
    assert!(
        check(
            json!({"$contains": {"name": "b"}}),
            json!([{"name": "a"}, {"name": "b", "x": 1}])
        )
        .is_empty()
    );
    let found = check(json!({"$contains": {"name": "c"}}), json!([{"name": "a"}]));
    assert!(
        found[0].message.starts_with("no element matches"),
        "{}",
        found[0].message
    );
    assert!(check(json!({"$contains": "ell"}), json!("hello")).is_empty());
    assert!(
        check(json!({"$contains": "xyz"}), json!("hello"))[0]
            .message
            .contains("does not contain")
    );
    assert!(!check(json!({"$contains": 1}), json!("1")).is_empty());
    assert!(!check(json!({"$contains": 1}), json!(1)).is_empty());
}

#[test]
fn contains_keeps_captures_only_from_the_matching_element() {
    let matcher = Matcher::compile(&json!({"$contains": {"id": {"$capture": "id"}, "ok": true}})).unwrap();
    let mut ctx = MatchContext::default();
    let found = matcher.eval(
        Some(&json!([{"id": 1, "ok": false}, {"id": 2, "ok": true}])),
        &mut ctx,
    );
    assert!(found.is_empty(), "{found:?}");
    assert_eq!(ctx.vars.get("id"), Some(&json!(2)));
}

#[test]
fn each_checks_every_element_and_accepts_empty_arrays() {
    assert!(check(json!({"$each": {"$type": "string"}}), json!([])).is_empty());
    assert!(check(json!({"$each": {"$type": "string"}}), json!(["a", "b"])).is_empty());
    let found = check(
        json!({"tools": {"$each": {"name": {"$type": "string"}}}}),
        json!({"tools": [{"name": "a"}, {"name": 1}, {}]}),
    );
    assert_eq!(pointers(&found), ["/tools/1/name", "/tools/2/name"]);
    assert!(!check(json!({"$each": 1}), json!({})).is_empty());
}

#[test]
fn one_of_all_of_and_not_combine() {
    let optional_false = json!({"isError": {"$one_of": ["$absent", false]}});
    assert!(check(optional_false.clone(), json!({})).is_empty());
    assert!(check(optional_false.clone(), json!({"isError": false})).is_empty());
    let found = check(optional_false, json!({"isError": true}));
    assert_eq!(pointers(&found), ["/isError"]);
    assert!(
        found[0].message.contains("none of the alternatives"),
        "{}",
        found[0].message
    );
    assert!(
        found[0].message.contains("#1: values differ"),
        "{}",
        found[0].message
    );

    let range = json!({"$all_of": [{"$gte": 1}, {"$lte": 3}]});
    assert!(check(range.clone(), json!(2)).is_empty());
    assert_eq!(check(range, json!(4)).len(), 1);

    assert!(check(json!({"$not": "x"}), json!("y")).is_empty());
    assert!(
        check(json!({"$not": "x"}), json!("x"))[0]
            .message
            .contains("`$not` forbids")
    );
    let present = Matcher::compile(&json!({"$not": "$absent"})).unwrap();
    assert_eq!(present.eval(None, &mut MatchContext::default()).len(), 1);
    assert!(Matcher::compile(&json!({"$one_of": []})).is_err());
}

#[test]
fn one_of_keeps_captures_of_the_matching_alternative_only() {
    let matcher = Matcher::compile(
        &json!({"$one_of": [{"a": {"$capture": "v"}, "kind": 1}, {"b": {"$capture": "w"}}]}),
    )
    .unwrap();
    let mut ctx = MatchContext::default();
    assert!(matcher.eval(Some(&json!({"a": 5, "b": 6})), &mut ctx).is_empty());
    assert_eq!(ctx.vars.keys().collect::<Vec<_>>(), ["w"]);
}

#[test]
fn unique_and_unique_by_point_at_duplicates() {
    assert!(check(json!("$unique"), json!([1, 2, "1"])).is_empty());
    let found = check(json!({"$unique": true}), json!([1, 2, 1.0]));
    assert_eq!(pointers(&found), ["/2"]);
    assert_eq!(found[0].message, "duplicate of element 0");
    let by_name = json!({"$unique_by": "/name"});
    assert!(check(by_name.clone(), json!([{"name": "a"}, {"name": "b"}])).is_empty());
    let found = check(
        by_name.clone(),
        json!([{"name": "a"}, {"name": "b"}, {"name": "a", "x": 1}]),
    );
    assert_eq!(pointers(&found), ["/2/name"]);
    assert_eq!(pointers(&check(by_name, json!([{"name": "a"}, {}]))), ["/1"]);
    assert!(Matcher::compile(&json!({"$unique_by": "name"})).is_err());
    assert!(Matcher::compile(&json!({"$unique": false})).is_err());
}

#[test]
fn select_matches_the_found_nodes_and_points_into_the_actual() {
    let expected =
        json!({"$select": {"path": "$.tools[*].name", "match": {"$each": {"$regex": "^[a-z]+$"}}}});
    assert!(check(expected.clone(), json!({"tools": [{"name": "a"}, {"name": "b"}]})).is_empty());
    let found = check(expected, json!({"tools": [{"name": "a"}, {"name": "B"}]}));
    assert_eq!(pointers(&found), ["/tools/1/name"]);
    let count = json!({"r": {"$select": {"path": "$..id", "match": {"$len": 2}}}});
    let found = check(count, json!({"r": {"a": {"id": 1}}}));
    assert_eq!(pointers(&found), ["/r"]);
    assert!(
        found[0].message.starts_with("nodes selected by `$..id`"),
        "{}",
        found[0].message
    );
    assert!(check(json!({"$select": {"path": "$.a", "match": [1]}}), json!({"a": 1})).is_empty());
}

#[test]
fn select_arguments_are_validated() {
    assert_eq!(
        compile_error(json!({"$select": {"path": "$[", "match": 1}})).pointer,
        "/$select/path"
    );
    assert_eq!(
        compile_error(json!({"$select": {"path": "$", "match": 1, "x": 0}})).pointer,
        "/$select/x"
    );
    assert!(Matcher::compile(&json!({"$select": {"path": "$"}})).is_err());
}

#[test]
fn schema_validates_and_points_at_the_failure() {
    let expected =
        json!({"$schema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}});
    assert!(check(expected.clone(), json!({"n": 1})).is_empty());
    let found = check(json!({"result": expected}), json!({"result": {"n": "x"}}));
    assert_eq!(pointers(&found), ["/result/n"]);
    assert_eq!(found[0].actual, Some(json!("x")));
    let err = compile_error(json!({"$schema": {"type": 12}}));
    assert!(err.message.starts_with("invalid JSON Schema"), "{}", err.message);
}

#[test]
fn schema_from_a_variable_is_resolved_when_matching() {
    let matcher = Matcher::compile(&json!({"content": {"$schema": "${form}"}})).unwrap();
    let mut ctx = MatchContext::default();
    ctx.vars.insert(
        "form".into(),
        json!({"type": "object", "properties": {"age": {"type": "integer"}}, "required": ["age"]}),
    );
    assert!(
        matcher
            .eval(Some(&json!({"content": {"age": 3}})), &mut ctx)
            .is_empty()
    );
    let found = matcher.eval(Some(&json!({"content": {"age": "x"}})), &mut ctx);
    assert_eq!(pointers(&found), ["/content/age"]);
    ctx.vars.insert("form".into(), json!({"type": 12}));
    let invalid = matcher.eval(Some(&json!({"content": {}})), &mut ctx);
    assert!(
        invalid[0].message.contains("not a valid JSON Schema"),
        "{invalid:?}"
    );
    let unknown = matcher.eval(Some(&json!({"content": {}})), &mut MatchContext::default());
    assert!(
        unknown[0].message.contains("unknown variable `form`"),
        "{unknown:?}"
    );
    let err = compile_error(json!({"$schema": "form ${form}"}));
    assert!(err.message.contains("`${var}` holding one"), "{}", err.message);
}

#[test]
fn capture_stores_and_later_references_read() {
    let mut ctx = MatchContext::default();
    let capture = Matcher::compile(&json!({"id": {"$capture": "tool_id"}})).unwrap();
    assert!(capture.eval(Some(&json!({"id": [7, "x"]})), &mut ctx).is_empty());
    assert_eq!(ctx.vars["tool_id"], json!([7, "x"]));
    let reuse = Matcher::compile(&json!({"same": "${tool_id}", "text": "id ${tool_id.0}"})).unwrap();
    assert!(
        reuse
            .eval(Some(&json!({"same": [7, "x"], "text": "id 7"})), &mut ctx)
            .is_empty()
    );
    assert!(
        !reuse
            .eval(Some(&json!({"same": "[7,\"x\"]", "text": "id 7"})), &mut ctx)
            .is_empty()
    );
    let missing = capture.eval(Some(&json!({})), &mut ctx);
    assert_eq!(pointers(&missing), ["/id"]);
    assert!(Matcher::compile(&json!({"$capture": ""})).is_err());
}

#[test]
fn unknown_variables_are_mismatches_not_panics() {
    let found = check(json!({"a": "${nope}"}), json!({"a": 1}));
    assert_eq!(pointers(&found), ["/a"]);
    assert!(
        found[0].message.contains("unknown variable `nope`"),
        "{}",
        found[0].message
    );
    assert_eq!(found[0].expected, "\"${nope}\"");
    assert_eq!(compile_error(json!({"a": "${oops"})).pointer, "/a");
}

#[test]
fn unknown_or_misplaced_operators_do_not_compile() {
    let err = compile_error(json!({"result": {"tools": [{"$gtt": 1}]}}));
    assert_eq!(err.pointer, "/result/tools/0/$gtt");
    assert!(err.message.contains("unknown operator `$gtt`"), "{}", err.message);
    assert!(
        err.message.contains("$one_of") && err.message.contains("$$gtt"),
        "{}",
        err.message
    );
    let err = compile_error(json!({"n": {"$gt": 0, "$lt": 9}}));
    assert_eq!(err.pointer, "/n/$gt");
    assert!(err.message.contains("only member"), "{}", err.message);
    let err = compile_error(json!({"$each": {"$oops": 1}}));
    assert_eq!(err.pointer, "/$each/$oops");
}

#[test]
fn mismatch_and_compile_error_display_one_line() {
    let found = check(
        json!({"result": {"tools": [{"name": "echo"}]}}),
        json!({"result": {"tools": [{"name": "ech"}]}}),
    );
    assert_eq!(
        found[0].to_string(),
        "at /result/tools/0/name: expected \"echo\", got \"ech\": values differ"
    );
    let missing = Matcher::compile(&json!(1))
        .unwrap()
        .eval(None, &mut MatchContext::default());
    assert_eq!(
        missing[0].to_string(),
        "at top level: expected 1, got nothing: missing"
    );
    let long = check(json!(1), json!("x".repeat(500)));
    assert!(long[0].to_string().contains('…'));
    let err = compile_error(json!({"$nope": 1}));
    assert!(
        err.to_string()
            .starts_with("invalid matcher at /$nope: unknown operator"),
        "{err}"
    );
    let boxed: Box<dyn std::error::Error> = Box::new(err);
    assert!(boxed.to_string().contains("$nope"));
}

#[test]
fn display_expected_substitutes_and_stays_compact() {
    let matcher = Matcher::compile(&json!({
        "a": {"$type": "string"}, "b": "$any", "c": {"$gt": "${n}"}, "d": "${n}", "e": [1, "..."],
        "f": {"$exact": {"x": 1}}, "g": "${missing}", "$$k": {"$capture": "c"}
    }))
    .unwrap();
    let shown = matcher.display_expected(&ctx_with("n", json!(3)));
    assert_eq!(
        shown,
        json!({"a": {"$type": "string"}, "b": "$any", "c": {"$gt": 3}, "d": 3, "e": [1, "..."],
               "f": {"x": 1}, "g": "${missing}", "$k": {"$capture": "c"}})
    );
}

#[test]
fn normalize_hides_what_operators_accepted_and_drops_ignored_members() {
    let matcher = Matcher::compile(&json!({"a": {"$type": "string"}, "b": 1})).unwrap();
    let ctx = MatchContext::default();
    let normalized = matcher.normalize_actual(&json!({"a": "x", "b": 2, "c": 3}), &ctx);
    assert_eq!(normalized, json!({"a": {"$type": "string"}, "b": 2}));
    assert_eq!(
        matcher.display_expected(&ctx),
        json!({"a": {"$type": "string"}, "b": 1})
    );
}

#[test]
fn normalize_keeps_divergent_parts_and_lines_up_arrays() {
    let ctx = MatchContext::default();
    let matcher =
        Matcher::compile(&json!({"a": {"$type": "string"}, "list": [1, "..."], "gone": "$absent"})).unwrap();
    let normalized = matcher.normalize_actual(&json!({"a": 5, "list": [1.0, 2, 3]}), &ctx);
    assert_eq!(normalized, json!({"a": 5, "list": [1, "..."], "gone": "$absent"}));
    assert_eq!(normalized, json!({"a": 5, "list": [1, "..."], "gone": "$absent"}));
    let closed = Matcher::compile(&json!([{"$gt": 0}])).unwrap();
    assert_eq!(
        closed.normalize_actual(&json!([5, 6]), &ctx),
        json!([{"$gt": 0}, 6])
    );
    assert_eq!(closed.normalize_actual(&json!("no"), &ctx), json!("no"));
    let exact = Matcher::exact(&json!({"a": "$any"})).unwrap();
    assert_eq!(
        exact.normalize_actual(&json!({"a": 1, "z": 2}), &ctx),
        json!({"a": "$any", "z": 2})
    );
}

#[test]
fn normalize_of_a_match_equals_the_display() {
    let expected = json!({"id": {"$capture": "id"}, "n": {"$len": {"$gte": 1}}, "echo": "${id}"});
    let matcher = Matcher::compile(&expected).unwrap();
    let actual = json!({"id": 9, "n": [1], "echo": 9, "extra": {}});
    let mut ctx = MatchContext::default();
    assert!(matcher.eval(Some(&actual), &mut ctx).is_empty());
    assert_eq!(
        matcher.normalize_actual(&actual, &ctx),
        matcher.display_expected(&ctx)
    );
}

#[test]
fn render_template_substitutes_or_names_the_unknown_variable() {
    let vars = BTreeMap::from([
        ("name".to_owned(), json!("echo")),
        ("args".to_owned(), json!({"x": 1})),
    ]);
    let sent = render_template(
        &json!({"name": "${name}", "arguments": "${args}", "note": "call ${name}"}),
        &vars,
    );
    assert_eq!(
        sent,
        Ok(json!({"name": "echo", "arguments": {"x": 1}, "note": "call echo"}))
    );
    let err = render_template(&json!({"a": ["${who}"]}), &vars).unwrap_err();
    assert!(err.contains("unknown variable `who`"), "{err}");
}

/// JSON values whose strings and keys carry no matcher syntax other than `$`-keys.
fn plain_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1.0e9..1.0e9f64).prop_map(Value::from),
        "[a-z .]{0,6}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map("\\$?[a-z]{0,4}", inner, 0..5)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

/// Writes `$`-keys as their `$$` escapes, so the value compiles to a literal.
fn escape_keys(value: &Value) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.iter().map(escape_keys).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    (
                        if k.starts_with('$') {
                            format!("${k}")
                        } else {
                            k.clone()
                        },
                        escape_keys(v),
                    )
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

proptest! {
    #[test]
    fn every_plain_value_matches_itself(value in plain_json()) {
        let expected = escape_keys(&value);
        for matcher in [Matcher::exact(&expected).unwrap(), Matcher::compile(&expected).unwrap()] {
            let mut ctx = MatchContext::default();
            let found = matcher.eval(Some(&value), &mut ctx);
            prop_assert!(found.is_empty(), "{:?}", found);
            prop_assert_eq!(matcher.normalize_actual(&value, &ctx), matcher.display_expected(&ctx));
        }
    }
}

#[test]
fn contains_on_strings_interpolates_and_reports_unknown_variables() {
    let matcher = Matcher::compile(&json!({"$contains": "${word}"})).unwrap();
    assert!(
        matcher
            .eval(Some(&json!("say hello")), &mut ctx_with("word", json!("hello")))
            .is_empty()
    );
    let unknown = matcher.eval(Some(&json!("say hello")), &mut MatchContext::default());
    assert!(
        unknown[0].message.contains("unknown variable `word`"),
        "{}",
        unknown[0].message
    );
    let not_text = matcher.eval(Some(&json!("say 1")), &mut ctx_with("word", json!(1)));
    assert!(
        not_text[0].message.contains("needs a string"),
        "{}",
        not_text[0].message
    );
}

#[test]
fn failed_attempts_leave_no_captures() {
    let matcher = Matcher::compile(&json!({"$not": {"a": {"$capture": "a"}, "b": 1}})).unwrap();
    let mut ctx = MatchContext::default();
    assert!(matcher.eval(Some(&json!({"a": 1, "b": 2})), &mut ctx).is_empty());
    assert!(ctx.vars.is_empty());
}

#[test]
fn absent_actuals_fail_everything_that_needs_a_value() {
    for expected in [
        json!({"a": 1}),
        json!([1]),
        json!("x"),
        json!({"$type": "null"}),
        json!({"$capture": "c"}),
    ] {
        let found = Matcher::compile(&expected)
            .unwrap()
            .eval(None, &mut MatchContext::default());
        assert_eq!(found.len(), 1, "{expected}");
        assert_eq!(found[0].message, "missing", "{expected}");
    }
}

#[test]
fn unordered_needs_the_same_elements_in_any_order() {
    assert!(check(json!({"$unordered": [1, "a", 1]}), json!(["a", 1, 1.0])).is_empty());
    let found = check(json!({"$unordered": ["a", "b"]}), json!(["b", "c"]));
    assert!(
        found[0].message.contains(r#"missing ["a"], unexpected ["c"]"#),
        "{}",
        found[0].message
    );
    assert_eq!(check(json!({"$unordered": [1]}), json!([1, 1])).len(), 1);
    assert_eq!(check(json!({"$unordered": []}), json!({})).len(), 1);
    let matcher = Matcher::compile(&json!({"$unordered": "${names}"})).unwrap();
    let mut ctx = ctx_with("names", json!(["x", "y"]));
    assert!(matcher.eval(Some(&json!(["y", "x"])), &mut ctx).is_empty());
    assert_eq!(matcher.eval(Some(&json!(["x"])), &mut ctx).len(), 1);
    assert!(
        compile_error(json!({"$unordered": 3}))
            .message
            .contains("takes an array")
    );
}
