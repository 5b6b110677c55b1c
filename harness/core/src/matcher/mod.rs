//! The expected-side value language of scenarios.
//!
//! An expected value is plain JSON plus operators. Plain objects match as a subset (extra
//! actual members are fine) unless under `$exact`; arrays match element-wise with equal
//! length, unless the last expected element is `"..."` (then: these first, then anything).
//! Numbers compare by value (`1 == 1.0`). Strings may reference variables as `${name}` or
//! `${name.path.0}`: a whole-string reference keeps the variable's JSON type, an embedded one
//! becomes text, and `$${` is a literal `${`.
//!
//! An operator is an object whose single key starts with `$`; a literal member named `$k` is
//! written `$$k`. Operators without an argument may be written as bare strings
//! (`"$any"`, `"$absent"`, `"$unique"`; a literal such string is written `"$$any"`).
//!
//! | operator | matches |
//! |---|---|
//! | `$any` | any present value, `null` included |
//! | `$absent` | an absent member |
//! | `$exact: V` | `V`, with objects inside forbidding unlisted members |
//! | `$type: T` or `[T..]` | `string`, `number`, `integer`, `boolean`, `object`, `array`, `null` |
//! | `$regex: "re"` | a string the unanchored regex finds a match in |
//! | `$eq`/`$ne`/`$gt`/`$gte`/`$lt`/`$lte: N` | a number compared with `N` (or a `${var}`) |
//! | `$len: N` or `M` | an array, string (in chars) or object whose size is/matches it |
//! | `$contains: M` | an array with an element matching `M`, or a string containing `M` |
//! | `$each: M` | an array whose every element matches `M` (an empty array does) |
//! | `$one_of: [M..]` / `$all_of: [M..]` | any / all of the matchers |
//! | `$not: M` | anything `M` rejects (including absence, if `M` requires presence) |
//! | `$unique` / `$unique_by: "/ptr"` | an array without duplicates (by that pointer) |
//! | `$select: {path, match}` | `match` applied to the list of nodes the JSONPath finds |
//! | `$schema: S` | a value valid against the JSON Schema `S` (or the schema a `${var}` holds) |
//! | `$capture: "name"` | any present value, stored as variable `name` |
//! | `$unordered: [..]` or `${var}` | an array with the same elements (by value), in any order |

mod compile;
mod display;
mod eval;
mod path;
mod template;

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Value;

use self::compile::{Node, compile};

/// A compiled expected value.
#[derive(Debug, Clone)]
pub struct Matcher(Node);

/// The expected value could not be compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileError {
    /// JSON pointer into the expected value.
    pub pointer: String,
    /// What is wrong there.
    pub message: String,
}

/// One difference between expected and actual.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    /// JSON pointer into the actual value.
    pub pointer: String,
    /// The expected side as compact text (JSON, or a short description).
    pub expected: String,
    /// The actual value there; `None` when it is absent.
    pub actual: Option<Value>,
    /// Why it does not match.
    pub message: String,
}

/// Variables visible to matchers and templates.
#[derive(Debug, Clone, Default)]
pub struct MatchContext {
    /// Variables by name; `$capture` writes here.
    pub vars: BTreeMap<String, Value>,
}

impl Matcher {
    /// Compiles `expected` with subset semantics for objects.
    pub fn compile(expected: &Value) -> Result<Matcher, CompileError> {
        compile(expected, "", false).map(Matcher)
    }

    /// Compiles `expected` with exact semantics: objects forbid members they do not list.
    pub fn exact(expected: &Value) -> Result<Matcher, CompileError> {
        compile(expected, "", true).map(Matcher)
    }

    /// Every way `actual` (`None` = absent) fails to match; empty means it matches.
    /// `$capture` stores into `ctx.vars`.
    pub fn eval(&self, actual: Option<&Value>, ctx: &mut MatchContext) -> Vec<Mismatch> {
        let mut out = Vec::new();
        eval::eval(&self.0, actual, "", ctx, &mut out);
        out
    }

    /// `actual` with the parts this matcher accepts shown as [`Matcher::display_expected`]
    /// shows them, so a diff of the two shows only real divergences.
    pub fn normalize_actual(&self, actual: &Value, ctx: &MatchContext) -> Value {
        display::normalize(&self.0, actual, ctx)
    }

    /// The expected value with variables substituted and operators shown compactly.
    pub fn display_expected(&self, ctx: &MatchContext) -> Value {
        display::display(&self.0, ctx)
    }
}

/// Substitutes `${...}` in every string of a value to be sent; errors name an unknown variable.
pub fn render_template(template: &Value, vars: &BTreeMap<String, Value>) -> Result<Value, String> {
    template::render_value(template, vars)
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid matcher {}: {}", location(&self.pointer), self.message)
    }
}

impl std::error::Error for CompileError {}

/// Longest rendering of an actual value in a one-line message.
const SHOWN_ACTUAL_CHARS: usize = 200;

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let actual = match &self.actual {
            Some(value) => shorten(value.to_string()),
            None => "nothing".to_owned(),
        };
        write!(
            f,
            "{}: expected {}, got {actual}: {}",
            location(&self.pointer),
            self.expected,
            self.message
        )
    }
}

fn location(pointer: &str) -> String {
    if pointer.is_empty() {
        "at top level".to_owned()
    } else {
        format!("at {pointer}")
    }
}

fn shorten(text: String) -> String {
    match text.char_indices().nth(SHOWN_ACTUAL_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

#[cfg(test)]
mod tests;
