//! A small language for the shapes of MCP messages, in which every field and
//! variant says in which protocol versions it exists.
//!
//! Shapes are `static` data (see [`super::model`]); [`Shape::check`] walks a
//! JSON value against one for a given version and returns every violation
//! with a JSON Pointer. Objects always accept members they do not list: no
//! official MCP schema closes an object.

use std::fmt;

use serde_json::{Map, Value};

use super::violation::Violation;
use crate::json::{kind as json_kind, pointer_member as pointer_join};
use crate::protocol::cite;
use crate::requirements::RequirementId;
use crate::version::{ProtocolVersion, VersionSet};

/// The harness-defined requirement cited by shape rules with no more
/// specific ID: params and results have the shape the negotiated version
/// defines for the method.
pub const SCHEMA_001: RequirementId = cite::SCHEMA_001;

/// A contiguous range of versions, usable in `static` data (a [`VersionSet`]
/// cannot be built in a const context).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Versions {
    pub from: ProtocolVersion,
    pub to: ProtocolVersion,
}

impl Versions {
    /// Every version.
    pub const ALL: Versions = Versions::between(ProtocolVersion::V2024_11_05, ProtocolVersion::V2026_07_28);
    /// The stateful versions, with the `initialize` handshake.
    pub const LEGACY: Versions =
        Versions::between(ProtocolVersion::V2024_11_05, ProtocolVersion::V2025_11_25);

    /// `from` to `to`, both included.
    pub const fn between(from: ProtocolVersion, to: ProtocolVersion) -> Versions {
        Versions { from, to }
    }

    /// `from` and every later version.
    pub const fn since(from: ProtocolVersion) -> Versions {
        Versions::between(from, ProtocolVersion::V2026_07_28)
    }

    /// Exactly one version.
    pub const fn only(version: ProtocolVersion) -> Versions {
        Versions::between(version, version)
    }

    /// Whether `version` is in the range.
    pub fn contains(self, version: ProtocolVersion) -> bool {
        self.from <= version && version <= self.to
    }

    /// The same versions as a [`VersionSet`].
    pub fn set(self) -> VersionSet {
        VersionSet::range(self.from, self.to)
    }
}

impl fmt::Display for Versions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.from, self.to) {
            (from, to) if from == to => write!(f, "{from}"),
            (from, ProtocolVersion::V2026_07_28) => write!(f, "{from}+"),
            (from, to) => write!(f, "{from}…{to}"),
        }
    }
}

/// The shape of one JSON value.
#[derive(Debug)]
pub enum Shape {
    /// Anything, `null` included.
    Any,
    Str,
    /// A string from a closed list.
    Enum(&'static [&'static str]),
    /// Exactly this string.
    Const(&'static str),
    /// An integer (a number with no fractional part), at least `min`.
    Integer {
        min: Option<i64>,
    },
    /// A number within `min..=max`.
    Number {
        min: Option<f64>,
        max: Option<f64>,
    },
    Boolean,
    Null,
    Array {
        items: &'static Shape,
        max_items: Option<usize>,
    },
    /// An object whose every member has the given shape.
    Map(&'static Shape),
    /// An object with known members; others are allowed and not checked.
    Object(&'static [Field]),
    /// An object whose variant is chosen by one string member.
    Tagged(&'static Tagged),
    /// At least one of the alternatives present in the version.
    AnyOf(&'static [Alt]),
    /// The first alternative whose versions hold the version; anything
    /// when none does.
    ByVersion(&'static [Alt]),
    /// A named type whose rules belong to a requirement.
    Named(&'static Named),
}

/// A member of an object shape.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    pub name: &'static str,
    pub shape: &'static Shape,
    /// Where the member exists; elsewhere it is an unchecked extra member.
    pub versions: Versions,
    /// Where it must be present (within `versions`).
    pub required: Option<Versions>,
}

/// A required member, in every version.
pub const fn req(name: &'static str, shape: &'static Shape) -> Field {
    Field {
        name,
        shape,
        versions: Versions::ALL,
        required: Some(Versions::ALL),
    }
}

/// An optional member, in every version.
pub const fn opt(name: &'static str, shape: &'static Shape) -> Field {
    Field {
        name,
        shape,
        versions: Versions::ALL,
        required: None,
    }
}

impl Field {
    /// The member exists from `version` on.
    pub const fn since(self, version: ProtocolVersion) -> Field {
        Field {
            versions: Versions::between(version, self.versions.to),
            ..self
        }
    }

    /// The member exists up to `version` and is gone after it.
    pub const fn until(self, version: ProtocolVersion) -> Field {
        Field {
            versions: Versions::between(self.versions.from, version),
            ..self
        }
    }

    /// The member becomes required from `version` on.
    pub const fn required_since(self, version: ProtocolVersion) -> Field {
        Field {
            required: Some(Versions::since(version)),
            ..self
        }
    }

    fn is_required(&self, version: ProtocolVersion) -> bool {
        self.required.is_some_and(|r| r.contains(version))
    }
}

/// An alternative of [`Shape::AnyOf`] or [`Shape::ByVersion`].
#[derive(Debug)]
pub struct Alt {
    pub versions: Versions,
    pub shape: &'static Shape,
}

/// A union discriminated by the string member `tag`.
#[derive(Debug)]
pub struct Tagged {
    pub tag: &'static str,
    /// The tag value assumed when the member is absent; `None` makes it required.
    pub default: Option<&'static str>,
    pub variants: &'static [Variant],
    /// Cited when the tag is missing or unknown; the enclosing requirement when `None`.
    pub requirement: Option<RequirementId>,
}

/// One variant of a [`Tagged`] union.
#[derive(Debug)]
pub struct Variant {
    pub value: &'static str,
    pub versions: Versions,
    pub shape: &'static Shape,
}

/// A named type of the protocol and the requirement its shape rules belong to.
#[derive(Debug)]
pub struct Named {
    pub name: &'static str,
    pub requirement: RequirementId,
    pub shape: Shape,
}

/// Where a check is: the version, the requirement to cite, the pointer.
#[derive(Clone, Copy)]
struct Ctx<'a> {
    version: ProtocolVersion,
    requirement: RequirementId,
    pointer: &'a str,
}

impl Ctx<'_> {
    fn violation(&self, message: impl Into<String>) -> Violation {
        Violation::must(self.requirement, message).at(self.pointer)
    }
}

impl Shape {
    /// Every way `value` breaks this shape in `version`. `pointer` is where
    /// the value sits in its frame (for example `/params`); violations
    /// outside any named type cite [`SCHEMA_001`].
    pub fn check(&self, value: &Value, version: ProtocolVersion, pointer: &str) -> Vec<Violation> {
        let mut out = Vec::new();
        let ctx = Ctx {
            version,
            requirement: SCHEMA_001,
            pointer,
        };
        self.check_in(value, ctx, &mut out);
        out
    }

    /// What the shape expects, for messages.
    pub fn describe(&self) -> String {
        match self {
            Shape::Any => "any value".into(),
            Shape::Str | Shape::Enum(_) => "a string".into(),
            Shape::Const(c) => format!("\"{c}\""),
            Shape::Integer { .. } => "an integer".into(),
            Shape::Number { .. } => "a number".into(),
            Shape::Boolean => "a boolean".into(),
            Shape::Null => "null".into(),
            Shape::Array { .. } => "an array".into(),
            Shape::Map(_) | Shape::Object(_) | Shape::Tagged(_) => "an object".into(),
            Shape::AnyOf(alts) | Shape::ByVersion(alts) => {
                let mut names: Vec<String> = alts.iter().map(|a| a.shape.describe()).collect();
                names.dedup();
                names.join(" or ")
            }
            Shape::Named(named) => named.name.into(),
        }
    }

    fn check_in(&self, value: &Value, ctx: Ctx<'_>, out: &mut Vec<Violation>) {
        match self {
            Shape::Any => {}
            Shape::Str => expect_kind(value.is_string(), "a string", value, ctx, out),
            Shape::Enum(allowed) => match value.as_str() {
                Some(s) if allowed.contains(&s) => {}
                Some(s) => out.push(ctx.violation(format!("\"{s}\" is not one of {}", allowed.join(", ")))),
                None => expect_kind(false, "a string", value, ctx, out),
            },
            Shape::Const(expected) => {
                if value.as_str() != Some(expected) {
                    out.push(ctx.violation(format!("expected \"{expected}\", found {value}")));
                }
            }
            Shape::Integer { min } => check_integer(value, *min, ctx, out),
            Shape::Number { min, max } => check_number(value, *min, *max, ctx, out),
            Shape::Boolean => expect_kind(value.is_boolean(), "a boolean", value, ctx, out),
            Shape::Null => expect_kind(value.is_null(), "null", value, ctx, out),
            Shape::Array { items, max_items } => check_array(value, items, *max_items, ctx, out),
            Shape::Map(values) => {
                if let Some(obj) = as_object(value, ctx, out) {
                    for (key, member) in obj {
                        let pointer = pointer_join(ctx.pointer, key);
                        values.check_in(
                            member,
                            Ctx {
                                pointer: &pointer,
                                ..ctx
                            },
                            out,
                        );
                    }
                }
            }
            Shape::Object(fields) => {
                if let Some(obj) = as_object(value, ctx, out) {
                    check_fields(obj, fields, ctx, out);
                }
            }
            Shape::Tagged(tagged) => check_tagged(value, tagged, ctx, out),
            Shape::AnyOf(alts) => check_any_of(value, alts, ctx, out),
            Shape::ByVersion(alts) => {
                if let Some(alt) = alts.iter().find(|a| a.versions.contains(ctx.version)) {
                    alt.shape.check_in(value, ctx, out);
                }
            }
            Shape::Named(named) => named.shape.check_in(
                value,
                Ctx {
                    requirement: named.requirement,
                    ..ctx
                },
                out,
            ),
        }
    }
}

fn expect_kind(ok: bool, expected: &str, value: &Value, ctx: Ctx<'_>, out: &mut Vec<Violation>) {
    if !ok {
        out.push(ctx.violation(format!("expected {expected}, found {}", json_kind(value))));
    }
}

fn as_object<'v>(value: &'v Value, ctx: Ctx<'_>, out: &mut Vec<Violation>) -> Option<&'v Map<String, Value>> {
    let obj = value.as_object();
    expect_kind(obj.is_some(), "an object", value, ctx, out);
    obj
}

fn check_integer(value: &Value, min: Option<i64>, ctx: Ctx<'_>, out: &mut Vec<Violation>) {
    // JSON Schema counts 2.0 as an integer; so do we.
    let whole = value.as_f64().filter(|n| n.fract() == 0.0);
    match whole {
        None => expect_kind(false, "an integer", value, ctx, out),
        Some(n) => {
            if let Some(min) = min
                && n < min as f64
            {
                out.push(ctx.violation(format!("{value} is less than the minimum {min}")));
            }
        }
    }
}

fn check_number(value: &Value, min: Option<f64>, max: Option<f64>, ctx: Ctx<'_>, out: &mut Vec<Violation>) {
    let Some(n) = value.as_f64() else {
        return expect_kind(false, "a number", value, ctx, out);
    };
    if let Some(min) = min
        && n < min
    {
        out.push(ctx.violation(format!("{value} is less than the minimum {min}")));
    }
    if let Some(max) = max
        && n > max
    {
        out.push(ctx.violation(format!("{value} is more than the maximum {max}")));
    }
}

fn check_array(
    value: &Value,
    items: &Shape,
    max_items: Option<usize>,
    ctx: Ctx<'_>,
    out: &mut Vec<Violation>,
) {
    let Some(elements) = value.as_array() else {
        return expect_kind(false, "an array", value, ctx, out);
    };
    if let Some(max) = max_items
        && elements.len() > max
    {
        out.push(ctx.violation(format!("{} items, more than the maximum {max}", elements.len())));
    }
    for (i, element) in elements.iter().enumerate() {
        let pointer = format!("{}/{i}", ctx.pointer);
        items.check_in(
            element,
            Ctx {
                pointer: &pointer,
                ..ctx
            },
            out,
        );
    }
}

fn check_fields(obj: &Map<String, Value>, fields: &[Field], ctx: Ctx<'_>, out: &mut Vec<Violation>) {
    for field in fields.iter().filter(|f| f.versions.contains(ctx.version)) {
        match obj.get(field.name) {
            Some(member) => {
                let pointer = pointer_join(ctx.pointer, field.name);
                field.shape.check_in(
                    member,
                    Ctx {
                        pointer: &pointer,
                        ..ctx
                    },
                    out,
                );
            }
            None if field.is_required(ctx.version) => {
                out.push(ctx.violation(format!("required member `{}` is missing", field.name)));
            }
            None => {}
        }
    }
}

fn check_tagged(value: &Value, tagged: &Tagged, ctx: Ctx<'_>, out: &mut Vec<Violation>) {
    let Some(obj) = as_object(value, ctx, out) else {
        return;
    };
    let tag_ctx = Ctx {
        requirement: tagged.requirement.unwrap_or(ctx.requirement),
        ..ctx
    };
    let tag = match obj.get(tagged.tag) {
        Some(Value::String(tag)) => tag.as_str(),
        Some(other) => {
            let pointer = pointer_join(ctx.pointer, tagged.tag);
            let message = format!("`{}` is {}, not a string", tagged.tag, json_kind(other));
            return out.push(Violation::must(tag_ctx.requirement, message).at(pointer));
        }
        None => match tagged.default {
            Some(default) => default,
            None => {
                return out.push(tag_ctx.violation(format!("required member `{}` is missing", tagged.tag)));
            }
        },
    };
    let mut named = tagged.variants.iter().filter(|v| v.value == tag).peekable();
    if named.peek().is_none() {
        let known: Vec<&str> = tagged
            .variants
            .iter()
            .filter(|v| v.versions.contains(ctx.version))
            .map(|v| v.value)
            .collect();
        let message = format!("unknown {} \"{tag}\" (expected {})", tagged.tag, known.join(", "));
        return out
            .push(Violation::must(tag_ctx.requirement, message).at(pointer_join(ctx.pointer, tagged.tag)));
    }
    let mut defined_in = Vec::new();
    for variant in named {
        if variant.versions.contains(ctx.version) {
            return variant.shape.check_in(value, ctx, out);
        }
        defined_in.push(variant.versions.to_string());
    }
    let message = format!(
        "{} \"{tag}\" does not exist in {} (only in {})",
        tagged.tag,
        ctx.version,
        defined_in.join(", ")
    );
    out.push(Violation::must(tag_ctx.requirement, message).at(pointer_join(ctx.pointer, tagged.tag)));
}

fn check_any_of(value: &Value, alts: &[Alt], ctx: Ctx<'_>, out: &mut Vec<Violation>) {
    let mut attempts: Vec<Vec<Violation>> = Vec::new();
    for alt in alts.iter().filter(|a| a.versions.contains(ctx.version)) {
        let mut found = Vec::new();
        alt.shape.check_in(value, ctx, &mut found);
        if found.is_empty() {
            return;
        }
        attempts.push(found);
    }
    let all_at_top = attempts
        .iter()
        .all(|found| found.iter().all(|v| v.pointer.as_deref() == Some(ctx.pointer)));
    if all_at_top {
        let expected: Vec<String> = alts
            .iter()
            .filter(|a| a.versions.contains(ctx.version))
            .map(|a| a.shape.describe())
            .collect();
        let message = format!(
            "expected {}, found {}",
            expected.join(" or "),
            describe_value(value)
        );
        return out.push(ctx.violation(message));
    }
    // Report the alternative that came closest: its violations say most precisely what is wrong.
    if let Some(closest) = attempts.into_iter().min_by_key(Vec::len) {
        out.extend(closest);
    }
}

fn describe_value(value: &Value) -> String {
    match value {
        Value::Object(_) | Value::Array(_) => json_kind(value).into(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ProtocolVersion::*;
    use serde_json::json;

    /// Any catalogued ID other than SCHEMA-001 does.
    const AUDIO_RULE: RequirementId = crate::requirements::id::TOOL_002;

    static PRIORITY: Shape = Shape::Number {
        min: Some(0.0),
        max: Some(1.0),
    };
    static TEXT: Shape = Shape::Object(&[req("type", &Shape::Const("text")), req("text", &Shape::Str)]);
    static AUDIO: Shape = Shape::Named(&Named {
        name: "Audio",
        requirement: AUDIO_RULE,
        shape: Shape::Object(&[req("data", &Shape::Str), opt("priority", &PRIORITY)]),
    });
    static BLOCK: Shape = Shape::Tagged(&Tagged {
        tag: "type",
        default: None,
        variants: &[
            Variant {
                value: "text",
                versions: Versions::ALL,
                shape: &TEXT,
            },
            Variant {
                value: "audio",
                versions: Versions::since(V2025_03_26),
                shape: &AUDIO,
            },
        ],
        requirement: None,
    });
    static HOLDER: Shape = Shape::Object(&[
        req(
            "blocks",
            &Shape::Array {
                items: &BLOCK,
                max_items: Some(2),
            },
        ),
        opt("late", &Shape::Boolean).since(V2025_06_18),
        opt("meta", &Shape::Str).required_since(V2026_07_28),
    ]);

    fn pointers(found: &[Violation]) -> Vec<&str> {
        found.iter().filter_map(|v| v.pointer.as_deref()).collect()
    }

    #[test]
    fn variants_exist_only_in_their_versions() {
        let value = json!({"blocks": [{"type": "audio", "data": "AA=="}]});
        assert!(HOLDER.check(&value, V2025_03_26, "/result").is_empty());
        let found = HOLDER.check(&value, V2024_11_05, "/result");
        assert_eq!(pointers(&found), ["/result/blocks/0/type"]);
        assert!(
            found[0].message.contains("only in 2025-03-26+"),
            "{}",
            found[0].message
        );
    }

    #[test]
    fn named_types_cite_their_requirement_and_limits_hold() {
        let value = json!({"blocks": [{"type": "audio", "data": "x", "priority": 1.5}]});
        let found = HOLDER.check(&value, V2025_06_18, "");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].requirement, AUDIO_RULE);
        assert_eq!(found[0].pointer.as_deref(), Some("/blocks/0/priority"));
        let too_many = json!({"blocks": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}, {"type": "text", "text": "c"}]});
        let found = HOLDER.check(&too_many, V2025_06_18, "");
        assert_eq!(found[0].requirement, SCHEMA_001);
        assert!(found[0].message.contains("maximum 2"));
    }

    #[test]
    fn fields_follow_their_versions() {
        let value = json!({"blocks": [], "late": "not a boolean"});
        assert!(
            HOLDER.check(&value, V2025_03_26, "").is_empty(),
            "unknown extra member before 2025-06-18"
        );
        assert_eq!(pointers(&HOLDER.check(&value, V2025_06_18, "")), ["/late"]);
        let found = HOLDER.check(&json!({"blocks": []}), V2026_07_28, "");
        assert!(found[0].message.contains("`meta` is missing"));
    }

    #[test]
    fn unions_explain_the_mismatch() {
        static TOKEN: Shape = Shape::AnyOf(&[
            Alt {
                versions: Versions::ALL,
                shape: &Shape::Str,
            },
            Alt {
                versions: Versions::ALL,
                shape: &Shape::Integer { min: None },
            },
        ]);
        assert!(TOKEN.check(&json!(3), V2024_11_05, "").is_empty());
        assert!(TOKEN.check(&json!(3.0), V2024_11_05, "").is_empty());
        let found = TOKEN.check(&json!(1.5), V2024_11_05, "/t");
        assert_eq!(found[0].message, "expected a string or an integer, found 1.5");
        let found = BLOCK.check(&json!({"type": "video"}), V2025_11_25, "");
        assert_eq!(found[0].message, "unknown type \"video\" (expected text, audio)");
        assert!(
            !BLOCK
                .check(&json!({"text": "no tag"}), V2025_11_25, "")
                .is_empty()
        );
    }

    #[test]
    fn pointers_escape_keys_and_versions_display() {
        static MAP: Shape = Shape::Map(&Shape::Boolean);
        let found = MAP.check(&json!({"a/b~c": 1}), V2024_11_05, "/x");
        assert_eq!(pointers(&found), ["/x/a~1b~0c"]);
        assert_eq!(Versions::since(V2025_06_18).to_string(), "2025-06-18+");
        assert_eq!(Versions::LEGACY.to_string(), "2024-11-05…2025-11-25");
        assert!(Versions::LEGACY.set().contains(V2025_11_25));
    }
}
