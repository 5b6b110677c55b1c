//! `${name.path.0}` references: substituted in values to send, and resolved
//! on the expected side at match time.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

static REFERENCE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\$\{([^}]+)\}").expect("valid regex"));

/// Whether a string refers to any variable.
pub(super) fn has_reference(text: &str) -> bool {
    REFERENCE.is_match(text)
}

/// Substitutes `${...}` in a value to be sent. A string that is exactly one
/// reference takes the variable's JSON value; a reference inside a longer
/// string is spliced in as text. Errors name the first undefined variable.
pub fn render_template(template: &Value, vars: &BTreeMap<String, Value>) -> Result<Value, String> {
    match template {
        Value::String(text) => render_string(text, vars),
        Value::Array(items) => items
            .iter()
            .map(|v| render_template(v, vars))
            .collect::<Result<_, _>>()
            .map(Value::Array),
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| {
                Ok((
                    render_string(k, vars)?.as_str().unwrap_or(k).to_owned(),
                    render_template(v, vars)?,
                ))
            })
            .collect::<Result<_, String>>()
            .map(Value::Object),
        other => Ok(other.clone()),
    }
}

/// Renders one string (see [`render_template`]).
pub(super) fn render_string(text: &str, vars: &BTreeMap<String, Value>) -> Result<Value, String> {
    if let Some(found) = REFERENCE.captures(text)
        && found
            .get(0)
            .is_some_and(|m| m.start() == 0 && m.end() == text.len())
    {
        return lookup(&found[1], vars).cloned();
    }
    let mut error = None;
    let spliced = REFERENCE.replace_all(text, |found: &regex::Captures<'_>| {
        match lookup(&found[1], vars) {
            Ok(Value::String(s)) => s.clone(),
            Ok(other) => other.to_string(),
            Err(e) => {
                error.get_or_insert(e);
                String::new()
            }
        }
    });
    match error {
        Some(e) => Err(e),
        None => Ok(Value::String(spliced.into_owned())),
    }
}

/// A dotted reference: the longest dotted prefix that names a variable,
/// then object keys and array indexes.
fn lookup<'v>(reference: &str, vars: &'v BTreeMap<String, Value>) -> Result<&'v Value, String> {
    let parts: Vec<&str> = reference.trim().split('.').collect();
    for split in (1..=parts.len()).rev() {
        if let Some(root) = vars.get(&parts[..split].join(".")) {
            return parts[split..]
                .iter()
                .try_fold(root, |value, key| match value {
                    Value::Array(items) => key.parse::<usize>().ok().and_then(|i| items.get(i)),
                    other => other.get(key),
                })
                .ok_or_else(|| format!("`${{{reference}}}` has no `{}`", parts[split..].join(".")));
        }
    }
    Err(format!("undefined variable `${{{reference}}}`"))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn whole_references_keep_their_type_and_embedded_ones_are_text() {
        let vars = BTreeMap::from([
            (
                "page".to_owned(),
                json!({"cursor": "abc", "tools": [{"name": "echo"}]}),
            ),
            ("call.id".to_owned(), json!(7)),
        ]);
        let rendered = render_template(
            &json!({"c": "${page.cursor}", "t": "${page.tools.0}", "id": "${call.id}", "s": "n=${call.id}"}),
            &vars,
        )
        .unwrap();
        assert_eq!(
            rendered,
            json!({"c": "abc", "t": {"name": "echo"}, "id": 7, "s": "n=7"})
        );
        assert!(
            render_template(&json!("${nope}"), &vars)
                .unwrap_err()
                .contains("undefined variable `${nope}`")
        );
        assert!(
            render_template(&json!("${page.missing}"), &vars)
                .unwrap_err()
                .contains("no `missing`")
        );
    }
}
