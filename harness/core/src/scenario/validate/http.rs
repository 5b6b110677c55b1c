//! Validation of the `http` step and of `requires.transport`.

use serde_json::{Map, Value};

use super::{STEP_TIMEOUT, Validator};
use crate::auth::{TokenChoice, TokenRequest};
use crate::scenario::file::{self, TransportName};
use crate::scenario::model::{self, HttpBody, HttpCheck, HttpExchangeStep, SessionChoice};
use crate::span::{Located, Span};

/// Variables the engine defines for scenarios that run over HTTP.
pub(super) const HTTP_VARIABLES: [&str; 7] = [
    "url",
    "origin",
    "post_url",
    "session_id",
    "negotiated_version",
    "valid_token",
    "resource_metadata_url",
];

/// The transport a scenario needs: as written, else `http` when a step is
/// an `http` exchange or the server must be protected.
pub(super) fn transport_need(parsed: &file::ScenarioFile) -> Option<TransportName> {
    fn has_http(steps: &[Located<file::Step>]) -> bool {
        steps.iter().any(|step| match &step.value {
            file::Step::Http(_) => true,
            file::Step::ForEach(each) => has_http(&each.steps),
            _ => false,
        })
    }
    match &parsed.requires.transport {
        Some(name) => Some(name.value),
        None => (has_http(&parsed.steps) || parsed.requires.protected || parsed.auth.is_some())
            .then_some(TransportName::Http),
    }
}

impl Validator<'_> {
    pub(super) fn http_step(&mut self, step: &file::HttpStep, span: Span) -> model::StepKind {
        let method = step.method.value.to_ascii_uppercase();
        if method.is_empty() || !method.bytes().all(|b| b.is_ascii_alphabetic()) {
            self.error(
                step.method.span,
                format!("`{}` is not an HTTP method", step.method.value),
                "here",
            );
        }
        let url = step.url.as_ref().map(|url| self.template_text(url));
        let headers = step
            .headers
            .iter()
            .map(|(name, value)| {
                let span = value.as_ref().map_or(step.method.span, |v| v.span);
                let name = self.template_text(&Located::new(name.clone(), span));
                let value = value.as_ref().map(|v| self.template_text(v));
                // Lower-cased once rendered, so a template keeps its variable names.
                (name, value)
            })
            .collect();
        let body = match (&step.body, &step.raw) {
            (Some(_), Some(raw)) => {
                self.error(
                    raw.span,
                    "an `http` step gives `body` or `raw`, not both",
                    "second body",
                );
                HttpBody::None
            }
            (Some(body), None) => HttpBody::Json(self.template(Some(body)).unwrap_or_default()),
            (None, Some(raw)) => HttpBody::Raw(self.template_text(raw)),
            (None, None) => HttpBody::None,
        };
        let session = match step.session.as_ref() {
            None => SessionChoice::Current,
            Some(s) if s.value == "current" => SessionChoice::Current,
            Some(s) if s.value == "none" => SessionChoice::None,
            Some(s) => SessionChoice::Value(self.template_text(s)),
        };
        let token = step.token.as_ref().and_then(|token| self.token(token));
        let expect = step
            .expect
            .iter()
            .filter_map(|e| self.http_check(&method, e))
            .collect();
        let require = step.require.as_ref().and_then(|r| self.http_check(&method, r));
        HttpExchangeStep {
            method,
            url,
            headers,
            body,
            session,
            token,
            require,
            expect,
            capture: self.captures(&step.capture),
            timeout: self.millis(step.timeout_ms, STEP_TIMEOUT, span),
        }
        .into()
    }

    /// `token`: a choice's name, `none`, or `{scope: "..."}`; only where
    /// the server is known to be protected (an open server serves any
    /// token, which is no fault of its own).
    fn token(&mut self, token: &Located<Value>) -> Option<TokenRequest> {
        if !self.protected {
            self.error(
                token.span,
                "a step presents a `token` only in a scenario with `requires: {protected: true}`",
                "an open server would serve this token",
            );
        }
        let scope = token
            .value
            .as_object()
            .and_then(|object| match (object.len(), object.get("scope")) {
                (1, Some(Value::String(scope))) => Some(scope.clone()),
                _ => None,
            });
        let named = token.value.as_str().map(|name| match name {
            "none" => Ok(TokenRequest::None),
            name => name.parse::<TokenChoice>().map(TokenRequest::Minted),
        });
        match (named, scope) {
            (Some(Ok(request)), _) => Some(request),
            (None, Some(scope)) => {
                // A scope may be taken from an earlier answer (`${needed}`).
                self.template_variables(&Located::new(Value::String(scope.clone()), token.span));
                Some(TokenRequest::Scoped(scope))
            }
            (Some(Err(why)), _) => {
                self.error(token.span, why, "unknown token");
                None
            }
            (None, None) => {
                self.error(
                    token.span,
                    "`token` is a token's name or `{scope: \"...\"}`",
                    "`scope`, a string, must be its only member",
                );
                None
            }
        }
    }

    fn template_text(&mut self, text: &Located<String>) -> String {
        self.template_variables(&Located::new(Value::String(text.value.clone()), text.span));
        text.value.clone()
    }

    /// One expectation as a matcher over the whole answer.
    fn http_check(&mut self, method: &str, e: &Located<file::HttpExpectation>) -> Option<HttpCheck> {
        let x = &e.value;
        let members = [
            ("status", &x.status),
            ("headers", &x.headers),
            ("challenge", &x.challenge),
            ("body", &x.body),
            ("events", &x.events),
            ("messages", &x.messages),
            ("retry", &x.retry),
        ];
        let mut pattern = Map::new();
        for (name, member) in members {
            if let Some(member) = member {
                pattern.insert(name.to_owned(), member.value.clone());
            }
        }
        if let Some(ended) = x.ended {
            pattern.insert("ended".to_owned(), Value::Bool(ended));
        }
        let head_only = x.answer.is_none()
            && pattern
                .keys()
                .all(|k| matches!(k.as_str(), "status" | "headers" | "challenge"));
        let mut judged: Vec<String> = pattern.keys().cloned().collect();
        let pattern = match (&x.answer, pattern.is_empty()) {
            (None, true) => {
                self.error(
                    e.span,
                    "an `http` expectation judges something",
                    "give `status`, `headers`, `challenge`, `body`, `events`, `messages`, `retry`, `ended` or `answer`",
                );
                return None;
            }
            (None, false) => Value::Object(pattern),
            (Some(answer), true) => answer.value.clone(),
            (Some(answer), false) => serde_json::json!({"$all_of": [pattern, answer.value]}),
        };
        if x.answer.is_some() {
            judged.push("answer".to_owned());
        }
        let name = x
            .name
            .clone()
            .unwrap_or_else(|| format!("HTTP {method} answer: {}", judged.join(", ")));
        let tag = self.tag(x, e.span);
        let matcher = self.matcher(&Located::new(pattern, e.span))?;
        Some(HttpCheck {
            name,
            matcher,
            head_only,
            tag,
        })
    }
}

impl From<HttpExchangeStep> for model::StepKind {
    fn from(step: HttpExchangeStep) -> Self {
        model::StepKind::Http(step)
    }
}
