//! The judgement of one expectation or rule: what every rule of the judge
//! returns.

use serde_json::Value;

use crate::scenario::model::CheckTag;
use crate::span::Span;
use crate::{Level, Verdict};

/// The judgement of one expectation or rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    /// What was checked, in a few words ("response to tools/call").
    pub name: String,
    pub requirement: String,
    pub level: Level,
    pub verdict: Verdict,
    /// Why, when it is not a pass.
    pub message: Option<String>,
    /// The expected side as written (wildcards kept), for the diff.
    pub expected: Option<Value>,
    /// The actual value moved toward the expected side, for the diff.
    pub actual: Option<Value>,
    /// Where in the scenario the expectation is written.
    pub span: Span,
    /// The transcript frame the check is about.
    pub frame: Option<usize>,
}

impl Check {
    /// A passing check.
    pub fn pass(name: impl Into<String>, requirement: impl AsRef<str>, level: Level, span: Span) -> Check {
        Check {
            name: name.into(),
            requirement: requirement.as_ref().to_owned(),
            level,
            verdict: Verdict::Pass,
            message: None,
            expected: None,
            actual: None,
            span,
            frame: None,
        }
    }

    /// A check that found the expectation broken: the verdict follows the level.
    pub fn broken(
        name: impl Into<String>,
        requirement: impl AsRef<str>,
        level: Level,
        span: Span,
        message: impl Into<String>,
    ) -> Check {
        Check {
            verdict: level.verdict_when_broken(),
            message: Some(message.into()),
            ..Check::pass(name, requirement, level, span)
        }
    }

    /// A passing check of the expectation `tag` describes.
    pub fn pass_for(name: impl Into<String>, tag: &CheckTag) -> Check {
        Check::pass(name, &tag.requirement, tag.level, tag.span)
    }

    /// A broken check of the expectation `tag` describes.
    pub fn broken_for(name: impl Into<String>, tag: &CheckTag, message: impl Into<String>) -> Check {
        Check::broken(name, &tag.requirement, tag.level, tag.span, message)
    }

    /// A check with an explicit verdict (not-observed, error, ...).
    pub fn with_verdict(mut self, verdict: Verdict) -> Check {
        self.verdict = verdict;
        self
    }

    pub fn at_frame(mut self, frame: Option<usize>) -> Check {
        self.frame = frame;
        self
    }

    pub fn with_values(mut self, expected: Option<Value>, actual: Option<Value>) -> Check {
        self.expected = expected;
        self.actual = actual;
        self
    }
}
