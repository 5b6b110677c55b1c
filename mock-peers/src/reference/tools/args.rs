//! Reading tool arguments. A bad argument is an [`ArgError`], which the call
//! turns into a protocol error or a tool error depending on the version.

use serde_json::{Map, Value};

/// A tool argument failed validation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ArgError(pub String);

/// The arguments object of one `tools/call`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Args<'a>(pub &'a Map<String, Value>);

impl<'a> Args<'a> {
    pub fn string(&self, key: &str) -> Result<&'a str, ArgError> {
        self.optional_string(key)?
            .ok_or_else(|| ArgError(format!("missing required string argument `{key}`")))
    }

    pub fn optional_string(&self, key: &str) -> Result<Option<&'a str>, ArgError> {
        match self.0.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(ArgError(format!("argument `{key}` must be a string"))),
        }
    }

    pub fn number(&self, key: &str) -> Result<&'a serde_json::Number, ArgError> {
        match self.0.get(key) {
            Some(Value::Number(n)) => Ok(n),
            Some(_) => Err(ArgError(format!("argument `{key}` must be a number"))),
            None => Err(ArgError(format!("missing required number argument `{key}`"))),
        }
    }

    /// A non-negative integer no larger than `max`.
    pub fn bounded_integer(&self, key: &str, max: u64) -> Result<u64, ArgError> {
        match self.0.get(key).map(Value::as_u64) {
            Some(Some(n)) if n <= max => Ok(n),
            Some(_) => Err(ArgError(format!(
                "argument `{key}` must be an integer from 0 to {max}"
            ))),
            None => Err(ArgError(format!("missing required integer argument `{key}`"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn reports_missing_and_mistyped_arguments() {
        let map = json!({"text": "hi", "n": 5, "big": 500, "neg": -1})
            .as_object()
            .unwrap()
            .clone();
        let args = Args(&map);
        assert_eq!(args.string("text"), Ok("hi"));
        assert!(args.string("absent").unwrap_err().0.contains("missing"));
        assert!(args.string("n").is_err());
        assert_eq!(args.bounded_integer("n", 10), Ok(5));
        assert!(args.bounded_integer("big", 10).is_err());
        assert!(args.bounded_integer("neg", 10).is_err());
        assert_eq!(args.optional_string("absent"), Ok(None));
    }
}
