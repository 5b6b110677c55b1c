//! Placeholder with the agreed API; replaced by the real matcher on merge.

use std::collections::BTreeMap;

use serde_json::Value;

/// A compiled expected value.
#[derive(Debug, Clone)]
pub struct Matcher(Value);

/// The expected value could not be compiled.
#[derive(Debug, Clone)]
pub struct CompileError {
    pub pointer: String,
    pub message: String,
}

/// One difference between expected and actual.
#[derive(Debug, Clone)]
pub struct Mismatch {
    pub pointer: String,
    pub expected: String,
    pub actual: Option<Value>,
    pub message: String,
}

/// Variables visible to matchers and templates.
#[derive(Debug, Clone, Default)]
pub struct MatchContext {
    pub vars: BTreeMap<String, Value>,
}

impl Matcher {
    pub fn compile(expected: &Value) -> Result<Matcher, CompileError> {
        Ok(Matcher(expected.clone()))
    }

    pub fn exact(expected: &Value) -> Result<Matcher, CompileError> {
        Ok(Matcher(expected.clone()))
    }

    pub fn eval(&self, actual: Option<&Value>, _ctx: &mut MatchContext) -> Vec<Mismatch> {
        if actual == Some(&self.0) {
            Vec::new()
        } else {
            vec![Mismatch {
                pointer: String::new(),
                expected: self.0.to_string(),
                actual: actual.cloned(),
                message: "differs".into(),
            }]
        }
    }

    pub fn normalize_actual(&self, actual: &Value, _ctx: &MatchContext) -> Value {
        actual.clone()
    }

    pub fn display_expected(&self, _ctx: &MatchContext) -> Value {
        self.0.clone()
    }
}

/// Substitutes `${...}` in a value to be sent.
pub fn render_template(template: &Value, _vars: &BTreeMap<String, Value>) -> Result<Value, String> {
    Ok(template.clone())
}
