//! JSON pointers (RFC 6901) built while walking values, and dotted variable paths.

use std::collections::BTreeMap;

use serde_json::Value;

/// The pointer to member `key` under `base`, escaping `~` and `/`.
pub(super) use crate::json::pointer_member as member;

/// The pointer to element `index` under `base`.
pub(super) fn element(base: &str, index: usize) -> String {
    format!("{base}/{index}")
}

/// Resolves `name.path.0` against `vars`.
///
/// Variable names may themselves contain dots (profiles bind `trigger.tool`), so the longest
/// dotted prefix that names a variable wins and the rest walks into its value.
pub(super) fn resolve_var(vars: &BTreeMap<String, Value>, expr: &str) -> Result<Value, String> {
    let segments: Vec<&str> = expr.split('.').collect();
    for split in (1..=segments.len()).rev() {
        let name = segments[..split].join(".");
        if let Some(value) = vars.get(&name) {
            return walk(value, &segments[split..])
                .cloned()
                .ok_or_else(|| format!("variable `{name}` has no `{}`", segments[split..].join(".")));
        }
    }
    let known: Vec<&str> = vars.keys().map(String::as_str).collect();
    let known = if known.is_empty() {
        "none".to_owned()
    } else {
        known.join(", ")
    };
    Err(format!("unknown variable `{expr}` (known: {known})"))
}

fn walk<'v>(value: &'v Value, path: &[&str]) -> Option<&'v Value> {
    path.iter().try_fold(value, |current, segment| match current {
        Value::Object(map) => map.get(*segment),
        Value::Array(items) => segment.parse::<usize>().ok().and_then(|i| items.get(i)),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn member_pointer_escapes_tilde_and_slash() {
        assert_eq!(member("/a", "b/c~d"), "/a/b~1c~0d");
        assert_eq!(element("", 3), "/3");
    }

    #[test]
    fn resolves_nested_paths_and_dotted_names() {
        let vars = BTreeMap::from([
            ("call".to_owned(), json!({"id": 7, "items": [{"n": "x"}]})),
            ("trigger.tool".to_owned(), json!("echo")),
        ]);
        assert_eq!(resolve_var(&vars, "call.id"), Ok(json!(7)));
        assert_eq!(resolve_var(&vars, "call.items.0.n"), Ok(json!("x")));
        assert_eq!(resolve_var(&vars, "trigger.tool"), Ok(json!("echo")));
    }

    #[test]
    fn unknown_names_and_paths_are_errors_listing_known_names() {
        let vars = BTreeMap::from([("call".to_owned(), json!({"id": 7}))]);
        let err = resolve_var(&vars, "nope").unwrap_err();
        assert!(
            err.contains("unknown variable `nope`") && err.contains("call"),
            "{err}"
        );
        let err = resolve_var(&vars, "call.missing").unwrap_err();
        assert!(err.contains("has no `missing`"), "{err}");
    }
}
