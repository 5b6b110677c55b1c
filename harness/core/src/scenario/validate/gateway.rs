//! Validation of `role: gateway` scenarios: the backends, the steps played
//! on their side, and what belongs to gateway scenarios only.

use std::sync::LazyLock;

use regex::Regex;

use super::{RAW_TIMEOUT, STEP_TIMEOUT, Validator, error_reply, server_model};
use crate::scenario::file::{self, Role};
use crate::scenario::model::{self, BackendAction, BackendStep, Reply};
use crate::span::{Located, Span};

static BACKEND_NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Za-z][A-Za-z0-9_-]*$").expect("valid regex"));

impl Validator<'_> {
    /// The backends, which `role: gateway` needs and nothing else has.
    pub(super) fn backends(&mut self, parsed: &file::ScenarioFile) -> Vec<model::Backend> {
        if self.role == Role::Gateway && parsed.backends.is_empty() {
            self.error_help(
                parsed.id.span,
                "a gateway scenario has at least one backend",
                "no `backends`",
                "add `backends: {alpha: {server: {capabilities: {tools: {}}}, answers: [...]}}`",
            );
        }
        parsed
            .backends
            .iter()
            .map(|(name, setup)| {
                if self.role != Role::Gateway {
                    self.not_gateway(setup.span, "backends");
                } else if !BACKEND_NAME.is_match(name) {
                    self.error_help(
                        setup.span,
                        format!("`{name}` is not a backend name"),
                        "this backend",
                        "a name starts with a letter and has letters, digits, `-` and `_` only (gateways use it as a key and often as a prefix)",
                    );
                }
                self.in_backend = true;
                let answers = setup.value.answers.iter().map(|a| self.answer(a)).collect();
                self.in_backend = false;
                let server = setup.value.server.as_ref().map(|s| s.value.clone());
                model::Backend {
                    name: name.clone(),
                    server: server_model(server.unwrap_or_default()),
                    answers,
                    span: setup.span,
                }
            })
            .collect()
    }

    /// `requires.client_capabilities`, a gateway scenario's only.
    pub(super) fn client_capabilities(&mut self, paths: &[Located<String>]) -> Vec<String> {
        if let Some(first) = paths.first().filter(|_| self.role != Role::Gateway) {
            self.not_gateway(first.span, "requires.client_capabilities");
        }
        paths.iter().map(|p| p.value.clone()).collect()
    }

    /// `hold` leaves a backend's request open for a `reply` step.
    pub(super) fn hold(&mut self, span: Span) -> Reply {
        if !self.in_backend {
            self.error_help(
                span,
                "`hold` is for the answers of a backend",
                "not a backend's answer",
                "a held request is answered by a `reply` step of a `role: gateway` scenario",
            );
        }
        Reply::Hold
    }

    pub(super) fn backend_request(&mut self, r: &file::RequestStep, span: Span) -> model::StepKind {
        let extras = [
            r.id.as_ref().map(|i| (i.span, "id")),
            r.name.as_ref().map(|n| (n.span, "name")),
            r.answers.first().map(|a| (a.span, "answers")),
        ];
        for (at, key) in extras.into_iter().flatten() {
            self.error(
                at,
                format!("a backend's request takes no `{key}`"),
                "not for backend requests",
            );
        }
        if r.progress || !r.wait {
            self.error(
                span,
                "a backend's request is always awaited and carries no progress token",
                "`progress` or `wait: false` here",
            );
        }
        if r.require {
            self.error(
                span,
                "a backend's request takes no `require`",
                "not for backend requests",
            );
        }
        let action = BackendAction::Request {
            method: r.method.value.clone(),
            params: self.template(r.params.as_ref()),
            expect: r.expect.as_ref().map(|e| self.response(e, None)),
            capture: self.captures(&r.capture),
            timeout: self.millis(r.timeout_ms, STEP_TIMEOUT, span),
        };
        self.backend_step(r.backend.as_ref(), action)
    }

    pub(super) fn backend_notify(&mut self, n: &file::NotifyStep) -> model::StepKind {
        let action = BackendAction::Notify {
            method: n.method.value.clone(),
            params: self.template(n.params.as_ref()),
        };
        self.backend_step(n.backend.as_ref(), action)
    }

    pub(super) fn backend_silence(&mut self, e: &file::ExpectSilenceStep, span: Span) -> model::StepKind {
        let action = BackendAction::ExpectSilence {
            within: self.millis(Some(e.within_ms), RAW_TIMEOUT, span),
            forbid: e.forbid.iter().map(|f| f.value.clone()).collect(),
            tag: self.tag(e, span),
        };
        self.backend_step(e.backend.as_ref(), action)
    }

    pub(super) fn backend_expect_request(
        &mut self,
        e: &file::ExpectRequestStep,
        span: Span,
    ) -> model::StepKind {
        if let Some(name) = &e.name {
            self.error(
                name.span,
                "a backend's expect_request takes no `name`",
                "not for backends",
            );
        }
        if e.require {
            self.error(
                span,
                "a backend's expect_request takes no `require`",
                "not for backends",
            );
        }
        let action = BackendAction::ExpectRequest {
            method: e.method.value.clone(),
            params: e.params.as_ref().and_then(|p| self.matcher(p)),
            within: self.millis(e.within_ms, STEP_TIMEOUT, span),
            tag: self.tag(e, span),
        };
        self.backend_step(e.backend.as_ref(), action)
    }

    pub(super) fn backend_reply(&mut self, r: &file::ReplyStep) -> model::StepKind {
        let reply = match (&r.result, &r.error) {
            (Some(result), None) => Reply::Result(self.template(Some(result)).unwrap_or_default()),
            (None, Some(error)) => error_reply(&error.value),
            (Some(_), Some(error)) => {
                self.error(
                    error.span,
                    "a `reply` gives `result` or `error`, not both",
                    "second reply",
                );
                Reply::NoReply
            }
            (None, None) => {
                self.error(
                    r.method.span,
                    "a `reply` gives `result` or `error`",
                    "nothing to send",
                );
                Reply::NoReply
            }
        };
        let action = BackendAction::Reply {
            method: r.method.value.clone(),
            reply,
        };
        self.backend_step(Some(&r.backend), action)
    }

    pub(super) fn backend_script(&mut self, script: &file::ScriptStep) -> model::StepKind {
        self.in_backend = true;
        let answers = script.answers.iter().map(|a| self.answer(a)).collect();
        self.in_backend = false;
        self.backend_step(Some(&script.backend), BackendAction::Script(answers))
    }

    /// A step of the named backend, which must be one of the scenario's.
    fn backend_step(&mut self, backend: Option<&Located<String>>, action: BackendAction) -> model::StepKind {
        let name = backend.map(|b| b.value.clone()).unwrap_or_default();
        if let Some(backend) = backend {
            if self.role != Role::Gateway {
                self.not_gateway(backend.span, "backend");
            } else if !self.backend_names.contains(&backend.value) {
                let known: Vec<&str> = self.backend_names.iter().map(String::as_str).collect();
                self.error_help(
                    backend.span,
                    format!("unknown backend `{}`", backend.value),
                    "not under `backends`",
                    format!("backends of this scenario: {}", known.join(", ")),
                );
            }
        }
        model::StepKind::Backend(BackendStep {
            backend: name,
            action,
        })
    }

    fn not_gateway(&mut self, span: Span, key: &str) {
        self.error_help(
            span,
            format!("`{key}` is for scenarios that test a gateway"),
            "only with `role: gateway`",
            "add `role: gateway` (the servers behind the gateway go under `backends`)",
        );
    }
}
