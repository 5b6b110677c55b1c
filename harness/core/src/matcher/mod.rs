//! The expected side of scenarios: a JSON value read as a pattern.
//!
//! Objects match as a subset (extra members are fine) unless under
//! `$exact`; arrays match element-wise, and an array ending in `"..."` only
//! constrains its first elements. Operators are one-member objects whose key
//! starts with `$` (`$$key` is a literal `$key`): `$any`, `$absent`,
//! `$exact`, `$type`, `$regex`, `$eq` `$ne` `$gt` `$gte` `$lt` `$lte`,
//! `$len`, `$contains`, `$each`, `$one_of`, `$all_of`, `$not`, `$unique`,
//! `$unique_by`, `$select`, `$schema`, `$capture`. Strings may refer to
//! variables (`${cursor}`), resolved when matching.

mod compile;
mod display;
mod eval;
mod template;

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Value;

pub use template::render_template;

use compile::Node;

/// A compiled expected value.
#[derive(Debug, Clone)]
pub struct Matcher(Node);

/// The expected value could not be compiled.
#[derive(Debug, Clone, PartialEq)]
pub struct CompileError {
    /// JSON Pointer into the expected value.
    pub pointer: String,
    pub message: String,
}

/// One difference between expected and actual.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    /// JSON Pointer into the actual value.
    pub pointer: String,
    /// The expected side, displayed compactly.
    pub expected: String,
    /// The actual value there (`None`: absent).
    pub actual: Option<Value>,
    pub message: String,
}

/// Variables visible to matchers and templates; captures write here.
#[derive(Debug, Clone, Default)]
pub struct MatchContext {
    pub vars: BTreeMap<String, Value>,
}

impl Matcher {
    /// Subset semantics for objects.
    pub fn compile(expected: &Value) -> Result<Matcher, CompileError> {
        compile::compile(expected, false, "").map(Matcher)
    }

    /// Exact semantics for objects, at every depth.
    pub fn exact(expected: &Value) -> Result<Matcher, CompileError> {
        compile::compile(expected, true, "").map(Matcher)
    }

    /// Every difference (none: a match). `None` is an absent value.
    pub fn eval(&self, actual: Option<&Value>, ctx: &mut MatchContext) -> Vec<Mismatch> {
        let mut out = Vec::new();
        eval::eval(&self.0, actual, "", ctx, &mut out);
        out
    }

    /// The actual value moved toward the expected side: what wildcards
    /// matched shows as the expected side, members the pattern does not
    /// mention are dropped, so a diff shows only real divergences.
    pub fn normalize_actual(&self, actual: &Value, ctx: &MatchContext) -> Value {
        display::normalize(&self.0, actual, ctx)
    }

    /// The expected side with variables resolved and operators compact.
    pub fn display_expected(&self, ctx: &MatchContext) -> Value {
        display::expected(&self.0, ctx)
    }
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.pointer.as_str() {
            "" => write!(f, "{}", self.message),
            pointer => write!(f, "at {pointer}: {}", self.message),
        }
    }
}

impl std::error::Error for CompileError {}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() {
            "at top level".to_owned()
        } else {
            format!("at {}", self.pointer)
        };
        let actual = self
            .actual
            .as_ref()
            .map_or_else(|| "nothing".to_owned(), Value::to_string);
        write!(
            f,
            "{at}: expected {}, got {actual}: {}",
            self.expected, self.message
        )
    }
}

/// Appends a member to a JSON Pointer (RFC 6901 escaping).
fn pointer_join(base: &str, key: &str) -> String {
    format!("{base}/{}", key.replace('~', "~0").replace('/', "~1"))
}

#[cfg(test)]
mod tests;
