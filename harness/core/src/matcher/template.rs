//! `${var}` interpolation in strings, shared by matchers and values to be sent.

use std::collections::BTreeMap;

use serde_json::Value;

use super::path::resolve_var;

/// A string split into literal text and `${...}` references. `$${` writes a literal `${`.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Template {
    source: String,
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq)]
enum Part {
    Text(String),
    Var(String),
}

impl Template {
    /// Splits `source`; an unterminated or empty `${` is an error.
    pub(super) fn parse(source: &str) -> Result<Template, String> {
        let mut parts = Vec::new();
        let mut text = String::new();
        let mut rest = source;
        while let Some(at) = rest.find("${") {
            if rest[..at].ends_with('$') {
                text.push_str(&rest[..at - 1]);
                text.push_str("${");
                rest = &rest[at + 2..];
                continue;
            }
            text.push_str(&rest[..at]);
            let after = &rest[at + 2..];
            let end = after
                .find('}')
                .ok_or_else(|| format!("unterminated `${{` in {source:?}"))?;
            let name = after[..end].trim();
            if name.is_empty() {
                return Err(format!("empty `${{}}` in {source:?}"));
            }
            if !text.is_empty() {
                parts.push(Part::Text(std::mem::take(&mut text)));
            }
            parts.push(Part::Var(name.to_owned()));
            rest = &after[end + 1..];
        }
        text.push_str(rest);
        if !text.is_empty() || parts.is_empty() {
            parts.push(Part::Text(text));
        }
        Ok(Template {
            source: source.to_owned(),
            parts,
        })
    }

    /// The text as written, for display when variables cannot be resolved.
    pub(super) fn source(&self) -> &str {
        &self.source
    }

    /// The variable of a template that is exactly one `${...}`.
    pub(super) fn whole_var(&self) -> Option<&str> {
        match self.parts.as_slice() {
            [Part::Var(name)] => Some(name),
            _ => None,
        }
    }

    /// The value: a whole `${x}` keeps x's JSON type; embedded references become text.
    pub(super) fn render(&self, vars: &BTreeMap<String, Value>) -> Result<Value, String> {
        if let Some(name) = self.whole_var() {
            return resolve_var(vars, name);
        }
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Text(text) => out.push_str(text),
                Part::Var(name) => match resolve_var(vars, name)? {
                    Value::String(text) => out.push_str(&text),
                    other => out.push_str(&other.to_string()),
                },
            }
        }
        Ok(Value::String(out))
    }
}

/// Substitutes `${...}` in every string of `template` (object keys are left alone).
pub(super) fn render_value(template: &Value, vars: &BTreeMap<String, Value>) -> Result<Value, String> {
    Ok(match template {
        Value::String(text) => Template::parse(text)?.render(vars)?,
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| render_value(item, vars))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, value)| Ok((key.clone(), render_value(value, vars)?)))
                .collect::<Result<_, String>>()?,
        ),
        scalar => scalar.clone(),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn vars() -> BTreeMap<String, Value> {
        BTreeMap::from([
            ("n".to_owned(), json!(5)),
            ("s".to_owned(), json!("hi")),
            ("o".to_owned(), json!({"k": [1, 2]})),
        ])
    }

    #[test]
    fn whole_reference_keeps_the_json_type() {
        assert_eq!(Template::parse("${n}").unwrap().render(&vars()), Ok(json!(5)));
        assert_eq!(
            Template::parse("${ o.k }").unwrap().render(&vars()),
            Ok(json!([1, 2]))
        );
    }

    #[test]
    fn embedded_references_become_text() {
        let rendered = Template::parse("a ${s} b ${n} ${o.k}").unwrap().render(&vars());
        assert_eq!(rendered, Ok(json!("a hi b 5 [1,2]")));
    }

    #[test]
    fn plain_text_and_escapes_are_literal() {
        let template = Template::parse("cost $5 and $${n}").unwrap();
        assert_eq!(template.whole_var(), None);
        assert_eq!(template.render(&BTreeMap::new()), Ok(json!("cost $5 and ${n}")));
        assert_eq!(
            Template::parse("").unwrap().render(&BTreeMap::new()),
            Ok(json!(""))
        );
    }

    #[test]
    fn malformed_references_are_errors() {
        assert!(Template::parse("x ${n").unwrap_err().contains("unterminated"));
        assert!(Template::parse("${ }").unwrap_err().contains("empty"));
    }

    #[test]
    fn render_value_walks_arrays_and_objects_but_not_keys() {
        let rendered = render_value(&json!({"${s}": ["${n}", {"x": "${s}!"}], "t": true}), &vars());
        assert_eq!(rendered, Ok(json!({"${s}": [5, {"x": "hi!"}], "t": true})));
        assert!(
            render_value(&json!(["${zzz}"]), &vars())
                .unwrap_err()
                .contains("zzz")
        );
    }
}
