//! From what a scenario file says ([`super::file`]) to what runs
//! ([`super::model`]): defaults applied, matchers and JSONPaths compiled,
//! replies built, variables checked. Every problem is collected, each with
//! its location, so an author sees them all at once.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;
use std::time::Duration;

use regex::Regex;
use serde_json::{Value, json};
use serde_json_path::JsonPath;

use super::file;
use super::model::{self, AnswerKind, Reply, Scenario};
use crate::Level;
use crate::diag::Diagnostic;
use crate::matcher::Matcher;
use crate::requirements::{NO_REQUIREMENT, UserCatalogue, catalogue};
use crate::span::{Located, SourceFile, Span};
use crate::version::{ProtocolVersion, VersionSet};

mod auth;
mod gateway;
mod http;
mod task;

/// Budget of a whole scenario.
pub const SCENARIO_TIMEOUT: Duration = Duration::from_secs(30);
/// Budget of one response, one notification window, one peer request.
pub const STEP_TIMEOUT: Duration = Duration::from_secs(5);
/// Budget for the answer to raw input.
pub const RAW_TIMEOUT: Duration = Duration::from_secs(2);
/// Pages a `paginate` walk reads before it calls the list endless.
pub const MAX_PAGES: u32 = 100;

static REQUIREMENT_ID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Z]+-[0-9]{3}$").expect("valid regex"));
static VARIABLE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\$\{([^}.]+)").expect("valid regex"));

/// Variables the engine defines before any step runs.
const ENGINE_VARIABLES: [&str; 6] = [
    "protocol_version",
    "trigger",
    "server",
    "client",
    "progress_token",
    "meta",
];

/// Where a scenario comes from, which decides what it may cite.
#[derive(Debug, Clone, Copy)]
pub enum Origin<'a> {
    /// Shipped with mcp-conform: it cites the spec requirements it checks,
    /// which is what the spec coverage counts.
    Bundled,
    /// The user's own: it may also cite their catalogue, or nothing (its
    /// expectations are then product checks).
    User(&'a UserCatalogue),
}

/// Validates a parsed file (whose top-level mapping is at `mapping`) into a
/// runnable scenario.
pub fn validate(
    source: &SourceFile,
    mapping: Span,
    mut parsed: file::ScenarioFile,
    origin: Origin<'_>,
) -> Result<Scenario, Vec<Diagnostic>> {
    let role = parsed.role.as_ref().map_or(file::Role::Server, |r| r.value);
    let user = match origin {
        Origin::Bundled => None,
        Origin::User(catalogue) => Some(catalogue),
    };
    let mut v = Validator {
        source,
        user,
        diagnostics: Vec::new(),
        default_requirement: String::new(),
        cited: BTreeSet::new(),
        defined: BTreeSet::new(),
        subscriptions: BTreeSet::new(),
        sent: BTreeSet::new(),
        held: BTreeSet::new(),
        role,
        backend_names: parsed.backends.keys().cloned().collect(),
        in_backend: false,
        protected: parsed.requires.protected,
        versions: VersionSet::ALL,
    };
    v.defined.extend(ENGINE_VARIABLES.iter().map(|s| (*s).to_owned()));
    let transport = http::transport_need(&parsed);
    if transport.is_some_and(|t| t != file::TransportName::Stdio) {
        v.defined
            .extend(http::HTTP_VARIABLES.iter().map(|s| (*s).to_owned()));
    }
    let id_span = parsed.id.span;
    let requirements = parsed.requirements.take().unwrap_or_default();
    if requirements.is_empty() && user.is_none() {
        v.error_help(
            mapping,
            "this scenario cites no requirement",
            "a bundled scenario cites the spec requirements it checks",
            "cite them (`requirements: [TOOL-002]`; `mcp-conform list --requirements` lists the IDs), or \
             keep it with your own scenarios (`mcp-conform run DIR`), where a scenario may cite your own \
             catalogue's IDs or none (product checks)",
        );
    }
    for requirement in &requirements {
        v.requirement_id(requirement);
    }
    v.default_requirement = requirements
        .first()
        .map_or_else(|| NO_REQUIREMENT.to_owned(), |r| r.value.clone());
    let versions = match &parsed.versions {
        None => VersionSet::LEGACY,
        Some(text) => text.value.parse().unwrap_or_else(|e| {
            v.error_help(text.span, format!("invalid versions `{}`", text.value), "not a version set", format!("{e}; write e.g. `all`, `legacy`, `2025-06-18+`, `2024-11-05..2025-03-26` or a comma-separated list"));
            VersionSet::LEGACY
        }),
    };
    v.versions = versions;
    if parsed.steps.is_empty() {
        v.error(id_span, "a scenario has at least one step", "no `steps`");
    }
    let timeout = v.millis(parsed.timeout_ms, SCENARIO_TIMEOUT, id_span);
    let answers = parsed.answers.iter().map(|a| v.answer(a)).collect();
    let backends = v.backends(&parsed);
    let steps = v.steps(&parsed.steps);
    let client = model::ClientModel {
        capabilities: parsed
            .client
            .capabilities
            .as_ref()
            .map_or_else(|| json!({}), |c| c.value.clone()),
        info: parsed.client.info.as_ref().map(|i| i.value.clone()),
        protocol_version: parsed.client.protocol_version.as_ref().map(|p| p.value.clone()),
    };
    let server = v.server_setup(parsed.server.as_ref(), parsed.plan.as_ref());
    let auth = v.client_auth(parsed.auth.as_ref(), versions, transport);
    let requires = model::Preconditions {
        capabilities: parsed
            .requires
            .capabilities
            .iter()
            .map(|c| c.value.clone())
            .collect(),
        absent_capabilities: parsed
            .requires
            .absent_capabilities
            .iter()
            .map(|c| c.value.clone())
            .collect(),
        any_capabilities: parsed
            .requires
            .any_capabilities
            .iter()
            .map(|c| c.value.clone())
            .collect(),
        triggers: parsed.requires.triggers.iter().map(|t| t.value.clone()).collect(),
        transport,
        session: parsed.requires.session,
        protected: parsed.requires.protected,
        client_capabilities: v.client_capabilities(&parsed.requires.client_capabilities),
    };
    if !v.diagnostics.is_empty() {
        return Err(v.diagnostics);
    }
    Ok(Scenario {
        id: parsed.id.value,
        title: parsed.title,
        description: parsed.description,
        source: source.clone(),
        span: id_span,
        requirements: requirements.into_iter().map(|r| r.value).collect(),
        cited: v.cited,
        versions,
        role,
        requires,
        client,
        server,
        plan: parsed.plan.map(|p| p.value),
        auth,
        backends,
        handshake: parsed.handshake,
        answers,
        timeout,
        steps,
    })
}

struct Validator<'a> {
    source: &'a SourceFile,
    /// The user's catalogue, for a scenario of theirs.
    user: Option<&'a UserCatalogue>,
    diagnostics: Vec<Diagnostic>,
    default_requirement: String,
    /// Every requirement ID the file names where a requirement belongs.
    cited: BTreeSet<String>,
    /// Variables defined by the steps seen so far.
    defined: BTreeSet<String>,
    /// Subscriptions made by the steps seen so far.
    subscriptions: BTreeSet<String>,
    /// Names of the requests sent so far (for `since`).
    sent: BTreeSet<String>,
    /// Names of the peer's requests held so far (for `respond`).
    held: BTreeSet<String>,
    role: file::Role,
    /// `role: gateway`: the names under `backends`.
    backend_names: BTreeSet<String>,
    /// Whether the answers being read are a backend's (`hold` is allowed).
    in_backend: bool,
    /// `requires.protected`: steps may present tokens.
    protected: bool,
    /// The versions the scenario runs on (what its answers can be asked).
    versions: VersionSet,
}

impl Validator<'_> {
    fn error(&mut self, span: Span, message: impl Into<String>, label: impl Into<String>) {
        self.diagnostics
            .push(Diagnostic::error(self.source, span, message).with_label(label));
    }

    fn error_help(
        &mut self,
        span: Span,
        message: impl Into<String>,
        label: impl Into<String>,
        help: impl Into<String>,
    ) {
        self.diagnostics.push(
            Diagnostic::error(self.source, span, message)
                .with_label(label)
                .with_help(help),
        );
    }

    fn requirement_id(&mut self, id: &Located<String>) {
        let users = self.user.is_some_and(|c| c.get(&id.value).is_some());
        if users || catalogue().get(&id.value).is_some() {
            self.cited.insert(id.value.clone());
        } else if self.user.is_some() {
            self.error_help(
                id.span,
                format!("unknown requirement `{}`", id.value),
                "in neither the spec's catalogue nor yours",
                "`mcp-conform list --requirements DIR` lists both: the spec's IDs (`TOOL-002`) and \
                 yours, from `requirements.yaml` beside the scenarios or `--requirements FILE`",
            );
        } else if !REQUIREMENT_ID.is_match(&id.value) {
            self.error_help(
                id.span,
                format!("`{}` is not a requirement ID", id.value),
                "not an ID",
                "requirement IDs look like `TOOL-002` (see `mcp-conform list --requirements`)",
            );
        } else {
            self.error_help(
                id.span,
                format!("unknown requirement `{}`", id.value),
                "not in the catalogue",
                "`mcp-conform list --requirements` lists the known IDs",
            );
        }
    }

    fn millis(&mut self, millis: Option<u64>, default: Duration, span: Span) -> Duration {
        match millis {
            None => default,
            Some(0) => {
                self.error(span, "a timeout must be greater than 0 ms", "zero timeout");
                default
            }
            Some(ms) => Duration::from_millis(ms),
        }
    }

    fn tag(&mut self, tagged: &impl file::Tagged, span: Span) -> model::CheckTag {
        let (level, requirement) = (tagged.level(), tagged.requirement());
        if let Some(requirement) = requirement {
            self.requirement_id(requirement);
        }
        let requirement = requirement.map_or_else(|| self.default_requirement.clone(), |r| r.value.clone());
        let level = match level.map(|l| l.value) {
            // A step is judged at the level of the requirement it cites (the
            // user's, or the spec's): a check is never stronger than its rule.
            None => self
                .user
                .and_then(|c| c.get(&requirement))
                .map(|r| r.level)
                .or_else(|| catalogue().get(&requirement).map(|r| r.level))
                .unwrap_or(Level::Must),
            Some(file::LevelName::Must) => Level::Must,
            Some(file::LevelName::Should) => Level::Should,
            Some(file::LevelName::May) => Level::May,
        };
        model::CheckTag {
            level,
            requirement,
            span,
        }
    }

    fn matcher(&mut self, expected: &Located<Value>) -> Option<Matcher> {
        self.template_variables(expected);
        // `{$capture: name}` defines `name` for the steps after it.
        collect_captures(&expected.value, &mut self.defined);
        Matcher::compile(&expected.value)
            .map_err(|e| {
                let at = if e.pointer.is_empty() {
                    String::new()
                } else {
                    format!(" at `{}`", e.pointer)
                };
                self.error(
                    expected.span,
                    format!("invalid matcher{at}: {}", e.message),
                    "in this value",
                );
            })
            .ok()
    }

    /// Every `${name...}` in a value refers to a variable defined earlier.
    fn template_variables(&mut self, value: &Located<Value>) {
        let mut undefined = BTreeSet::new();
        collect_strings(&value.value, &mut |s| {
            // `$${` writes a literal `${` (matcher/template.rs): no variable.
            let unescaped = s.replace("$${", "");
            for found in VARIABLE.captures_iter(&unescaped) {
                let name = &found[1];
                if !self.defined.contains(name) {
                    undefined.insert(name.to_owned());
                }
            }
        });
        for name in undefined {
            let known: Vec<&str> = self.defined.iter().map(String::as_str).collect();
            self.error_help(
                value.span,
                format!("undefined variable `${{{name}}}`"),
                "used here",
                format!("variables defined at this point: {}", known.join(", ")),
            );
        }
    }

    fn template(&mut self, value: Option<&Located<Value>>) -> Option<Value> {
        value.map(|v| {
            self.template_variables(v);
            v.value.clone()
        })
    }

    fn captures(&mut self, captures: &BTreeMap<String, Located<String>>) -> Vec<model::Capture> {
        captures
            .iter()
            .filter_map(|(var, path)| {
                if !self.defined.insert(var.clone()) && !ENGINE_VARIABLES.contains(&var.as_str()) {
                    self.error(
                        path.span,
                        format!("variable `{var}` is captured twice"),
                        "captured again here",
                    );
                }
                match JsonPath::parse(&path.value) {
                    Ok(compiled) => Some(model::Capture {
                        var: var.clone(),
                        path: compiled,
                        span: path.span,
                    }),
                    Err(e) => {
                        self.error_help(
                            path.span,
                            format!("invalid JSONPath `{}`", path.value),
                            "here",
                            format!("{e}; JSONPath (RFC 9535) starts with `$`, e.g. `$.result.nextCursor`"),
                        );
                        None
                    }
                }
            })
            .collect()
    }

    fn response(
        &mut self,
        expect: &Located<file::ResponseExpectation>,
        inherited: Option<&model::CheckTag>,
    ) -> model::ResponseCheck {
        let e = &expect.value;
        let tag = match (inherited, &e.level, &e.requirement) {
            (Some(tag), None, None) => tag.clone(),
            _ => self.tag(e, expect.span),
        };
        let given = usize::from(e.result.is_some())
            + usize::from(e.error.is_some())
            + usize::from(!e.any_of.is_empty())
            + usize::from(e.none);
        if given > 1 {
            self.error(
                expect.span,
                "an expectation gives one of `result`, `error`, `any_of` or `none`",
                "more than one given",
            );
        }
        let expect_kind = if let Some(result) = &e.result {
            self.matcher(result)
                .map_or(model::ResponseExpect::Any, model::ResponseExpect::Result)
        } else if let Some(error) = &e.error {
            self.matcher(error)
                .map_or(model::ResponseExpect::Any, model::ResponseExpect::Error)
        } else if !e.any_of.is_empty() {
            model::ResponseExpect::AnyOf(
                e.any_of
                    .iter()
                    .map(|alt| self.response(alt, Some(&tag)))
                    .collect(),
            )
        } else if e.none {
            model::ResponseExpect::NoResponse
        } else {
            model::ResponseExpect::Any
        };
        model::ResponseCheck {
            expect: expect_kind,
            tag,
            span: expect.span,
        }
    }

    fn answer(&mut self, answer: &Located<file::Answer>) -> model::ScriptedAnswer {
        let span = answer.span;
        let when = match &answer.value {
            file::Answer::Other(a) => a.when.as_ref().and_then(|w| self.matcher(w)),
            _ => None,
        };
        let (kind, method, expect, reply) = match &answer.value {
            file::Answer::Elicitation(a) => {
                let reply = match &a.reply.value {
                    file::ElicitationReply::Accept {
                        content: Some(content),
                    } => Reply::Result(json!({"action": "accept", "content": content})),
                    file::ElicitationReply::Accept { content: None } => {
                        Reply::Result(json!({"action": "accept"}))
                    }
                    file::ElicitationReply::Decline => Reply::Result(json!({"action": "decline"})),
                    file::ElicitationReply::Cancel => Reply::Result(json!({"action": "cancel"})),
                    file::ElicitationReply::Error(e) => error_reply(e),
                    file::ElicitationReply::NoReply => Reply::NoReply,
                };
                (
                    AnswerKind::Elicitation,
                    "elicitation/create".to_owned(),
                    a.expect.as_ref(),
                    reply,
                )
            }
            file::Answer::Sampling(a) => {
                let reply = match &a.reply.value {
                    file::SamplingReply::Message(message) => Reply::Result(message.clone()),
                    file::SamplingReply::Error(e) => error_reply(e),
                    file::SamplingReply::NoReply => Reply::NoReply,
                };
                (
                    AnswerKind::Sampling,
                    "sampling/createMessage".to_owned(),
                    a.expect.as_ref(),
                    reply,
                )
            }
            file::Answer::Roots(a) => {
                let reply = match &a.reply.value {
                    file::RootsReply::Roots(roots) => Reply::Result(json!({"roots": roots})),
                    file::RootsReply::Error(e) => error_reply(e),
                    file::RootsReply::NoReply => Reply::NoReply,
                };
                (
                    AnswerKind::Roots,
                    "roots/list".to_owned(),
                    a.expect.as_ref(),
                    reply,
                )
            }
            file::Answer::Other(a) => {
                let reply = match &a.reply.value {
                    file::RawReply::Result(result) => Reply::Result(result.clone()),
                    file::RawReply::Error(e) => error_reply(e),
                    file::RawReply::NoReply => Reply::NoReply,
                    file::RawReply::Hold => self.hold(a.reply.span),
                };
                (
                    AnswerKind::Other,
                    a.method.value.clone(),
                    a.expect.as_ref(),
                    reply,
                )
            }
        };
        if let Reply::Result(template) = &reply {
            self.template_variables(&Located::new(template.clone(), span));
        }
        self.answer_versions(&kind, &method, span);
        if let Some(asked) = expect.filter(|a| a.value.required && a.value.forbidden) {
            self.error_help(
                asked.span,
                "an answer cannot be both `required` and `forbidden`",
                "required and forbidden",
                "`required: true` fails when the peer never asks; `forbidden: true` fails when it does: keep one",
            );
        }
        let expect = expect.map(|asked| model::AskedFor {
            params: asked.value.params.as_ref().and_then(|p| self.matcher(p)),
            required: asked.value.required,
            forbidden: asked.value.forbidden,
            tag: self.tag(&asked.value, asked.span),
        });
        model::ScriptedAnswer {
            kind,
            method,
            when,
            expect,
            reply,
            span,
        }
    }

    /// An elicitation answer in a scenario none of whose versions has
    /// elicitation can never be used: a mistake of the file.
    fn answer_versions(&mut self, kind: &AnswerKind, method: &str, span: Span) {
        let first = ProtocolVersion::V2025_06_18;
        if *kind == AnswerKind::Elicitation && !self.versions.iter().any(|v| v >= first) {
            self.error_help(
                span,
                format!(
                    "no version of this scenario ({}) can ask for {method}",
                    self.versions
                ),
                "never asked",
                format!("elicitation exists from {first}: widen `versions`, or drop the answer"),
            );
        }
    }

    /// The mock server's setup; `server` and `plan` belong to scenarios
    /// that test a client.
    fn server_setup(
        &mut self,
        setup: Option<&Located<file::ServerSetup>>,
        plan: Option<&Located<Value>>,
    ) -> model::ServerModel {
        let help = match self.role {
            file::Role::Client => None,
            file::Role::Server => Some(
                "add `role: client`, or remove this key (a server under test is described by `requires` and the profile)",
            ),
            file::Role::Gateway => Some(
                "the servers behind a gateway are described under `backends` (`alpha: {server: {...}, answers: [...]}`)",
            ),
        };
        if let Some(help) = help {
            let misplaced = [setup.map(|s| (s.span, "server")), plan.map(|p| (p.span, "plan"))];
            for (span, key) in misplaced.into_iter().flatten() {
                self.error_help(
                    span,
                    format!("`{key}` is for scenarios that test a client"),
                    "only with `role: client`",
                    help,
                );
            }
        }
        server_model(setup.map(|s| s.value.clone()).unwrap_or_default())
    }

    fn steps(&mut self, steps: &[Located<file::Step>]) -> Vec<model::Step> {
        steps
            .iter()
            .map(|step| model::Step {
                kind: self.step(step),
                span: step.span,
            })
            .collect()
    }

    fn step(&mut self, step: &Located<file::Step>) -> model::StepKind {
        let span = step.span;
        match &step.value {
            file::Step::Request(r) if r.backend.is_some() => self.backend_request(r, span),
            file::Step::Request(r) => model::StepKind::Request(Box::new(self.request(r, span))),
            file::Step::Notify(n) if n.backend.is_some() => self.backend_notify(n),
            file::Step::Notify(n) => model::StepKind::Notify {
                method: n.method.value.clone(),
                params: self.template(n.params.as_ref()),
            },
            file::Step::SendRaw(raw) => model::StepKind::SendRaw {
                text: raw.text.value.clone(),
                expect: raw.expect.as_ref().map(|e| self.response(e, None)),
                timeout: self.millis(raw.timeout_ms, RAW_TIMEOUT, span),
            },
            file::Step::ExpectNotifications(e) => {
                let patterns = e
                    .notifications
                    .iter()
                    .map(|p| {
                        let min = p.value.min.unwrap_or(1);
                        if p.value.max.is_some_and(|max| max < min) {
                            self.error(p.span, "`max` is below `min`", "impossible count");
                        }
                        model::NotificationPattern {
                            method: p.value.method.value.clone(),
                            params: p.value.params.as_ref().and_then(|m| self.matcher(m)),
                            min,
                            max: p.value.max,
                            capture: self.captures(&p.value.capture),
                            span: p.span,
                        }
                    })
                    .collect();
                let since = e.since.as_ref().map(|name| {
                    self.known_name(name, Named::Sent);
                    name.value.clone()
                });
                model::StepKind::ExpectNotifications {
                    patterns,
                    order: e.order,
                    since,
                    within: self.millis(e.within_ms, STEP_TIMEOUT, span),
                    tag: self.tag(e, span),
                }
            }
            file::Step::ExpectSilence(e) if e.backend.is_some() => self.backend_silence(e, span),
            file::Step::ExpectSilence(e) => model::StepKind::ExpectSilence {
                within: self.millis(Some(e.within_ms), STEP_TIMEOUT, span),
                forbid: e.forbid.iter().map(|f| f.value.clone()).collect(),
                tag: self.tag(e, span),
            },
            file::Step::ExpectRequest(e) if e.backend.is_some() => self.backend_expect_request(e, span),
            file::Step::ExpectRequest(e) => {
                let params = e.params.as_ref().and_then(|p| self.matcher(p));
                if let Some(name) = &e.name {
                    self.defined.insert(name.value.clone());
                    self.held.insert(name.value.clone());
                }
                model::StepKind::ExpectRequest {
                    method: e.method.value.clone(),
                    params,
                    within: self.millis(e.within_ms, STEP_TIMEOUT, span),
                    name: e.name.as_ref().map(|n| n.value.clone()),
                    require: e.require,
                    leaving_fails: e.on_leave == Some(file::OnLeave::Fail),
                    tag: self.tag(e, span),
                }
            }
            file::Step::Respond(r) => self.respond(r, span),
            file::Step::Await(a) => model::StepKind::Await {
                request: a.request.value.clone(),
                expect: a.expect.as_ref().map(|e| self.response(e, None)),
                require: a.require,
                capture: self.captures(&a.capture),
                timeout: self.millis(a.timeout_ms, STEP_TIMEOUT, span),
            },
            file::Step::Paginate(p) => {
                let key = p.key.as_ref().map(|k| {
                    if !k.value.is_empty() && !k.value.starts_with('/') {
                        self.error_help(
                            k.span,
                            "`key` is a JSON Pointer",
                            "not a pointer",
                            "write e.g. `/name`",
                        );
                    }
                    k.value.clone()
                });
                let walk = model::PaginateStep {
                    method: p.method.value.clone(),
                    params: self.template(p.params.as_ref()),
                    items: p.items.value.clone(),
                    key,
                    max_pages: p.max_pages.unwrap_or(MAX_PAGES).max(1),
                    expect_page: p.expect_page.as_ref().and_then(|m| self.matcher(m)),
                    expect_item: p.expect_item.as_ref().and_then(|m| self.matcher(m)),
                    expect_items: p.expect_items.as_ref().and_then(|m| self.matcher(m)),
                    capture: p.capture.as_ref().map(|c| c.value.clone()),
                    timeout: self.millis(p.timeout_ms, STEP_TIMEOUT, span),
                    tag: self.tag(p.as_ref(), span),
                };
                if let Some(var) = &walk.capture {
                    self.defined.insert(var.clone());
                }
                model::StepKind::Paginate(walk)
            }
            file::Step::ForEach(f) => {
                if !self.defined.contains(&f.list.value) {
                    self.error(
                        f.list.span,
                        format!("undefined variable `{}`", f.list.value),
                        "nothing captured this list",
                    );
                }
                let added = self.defined.insert(f.binding.value.clone());
                let steps = self.steps(&f.steps);
                if added {
                    self.defined.remove(&f.binding.value);
                }
                model::StepKind::ForEach {
                    list: f.list.value.clone(),
                    binding: f.binding.value.clone(),
                    limit: f.limit,
                    steps,
                }
            }
            file::Step::Set(values) => {
                for value in values.values() {
                    self.template_variables(&Located::new(value.clone(), span));
                }
                self.defined.extend(values.keys().cloned());
                model::StepKind::Set(values.clone())
            }
            file::Step::Sleep(ms) => model::StepKind::Sleep(Duration::from_millis(*ms)),
            file::Step::Close(c) => model::StepKind::Close {
                expect_exit_within: c.expect_exit_within_ms.map(Duration::from_millis),
                tag: self.tag(c, span),
            },
            file::Step::Http(h) => self.http_step(h, span),
            file::Step::Cancel(c) => {
                if !self.defined.contains(&format!("{}.id", c.request.value)) {
                    self.error_help(
                        c.request.span,
                        format!("no request named `{}` before this step", c.request.value),
                        "unknown request",
                        "name the request with `name:` and send it with `wait: false`",
                    );
                }
                model::StepKind::Cancel {
                    request: c.request.value.clone(),
                    reason: c.reason.clone(),
                }
            }
            file::Step::Subscribe(sub) => {
                let name = subscription_name(sub.name.as_ref());
                self.template_variables(&sub.notifications);
                if !sub.notifications.value.is_object() {
                    self.error(
                        sub.notifications.span,
                        "`notifications` is an object (a listen filter)",
                        "not an object",
                    );
                }
                self.subscriptions.insert(name.clone());
                self.defined.insert(format!("{name}.id"));
                self.defined.insert(name.clone());
                model::StepKind::Subscribe(model::SubscribeStep {
                    name,
                    notifications: sub.notifications.value.clone(),
                    timeout: self.millis(sub.timeout_ms, STEP_TIMEOUT, span),
                    require: sub.require,
                    tag: self.tag(sub, span),
                })
            }
            file::Step::Unsubscribe(u) => model::StepKind::Unsubscribe {
                name: self.subscription(u.name.as_ref(), span),
                tag: self.tag(u, span),
            },
            file::Step::ExpectSubscriptionEnd(e) => model::StepKind::ExpectSubscriptionEnd {
                name: self.subscription(e.name.as_ref(), span),
                within: self.millis(e.within_ms, STEP_TIMEOUT, span),
                tag: self.tag(e, span),
            },
            file::Step::ExpectValue(e) => {
                self.template_variables(&e.value);
                let matcher = self.matcher(&e.matcher);
                let tag = self.tag(e, span);
                match matcher {
                    Some(matcher) => model::StepKind::ExpectValue {
                        name: e.name.clone(),
                        value: e.value.value.clone(),
                        matcher,
                        tag,
                    },
                    // Reported by `matcher`; the placeholder never runs.
                    None => model::StepKind::Sleep(Duration::ZERO),
                }
            }
            file::Step::Alive(a) => model::StepKind::Alive {
                timeout: self.millis(a.timeout_ms, STEP_TIMEOUT, span),
                tag: self.tag(a, span),
            },
            file::Step::Task(t) => self.task_step(t, span),
            file::Step::Reply(r) => self.backend_reply(r),
            file::Step::Script(script) => self.backend_script(script),
        }
    }

    /// A subscription an earlier `subscribe` step made, by name.
    fn subscription(&mut self, name: Option<&Located<String>>, span: Span) -> String {
        let named = subscription_name(name);
        if !self.subscriptions.contains(&named) {
            let at = name.map_or(span, |n| n.span);
            self.error(
                at,
                format!("no subscription named `{named}` before this step"),
                "unknown subscription",
            );
        }
        named
    }

    fn request(&mut self, r: &file::RequestStep, span: Span) -> model::RequestStep {
        let params = self.template(r.params.as_ref());
        let id = self.template(r.id.as_ref());
        let answers = r.answers.iter().map(|a| self.answer(a)).collect();
        let expect = r.expect.as_ref().map(|e| self.response(e, None));
        if r.require && expect.is_none() {
            self.error_help(
                r.method.span,
                "`require: true` needs an `expect` to require",
                "nothing to require",
                "give the response the scenario needs as `expect`, or remove `require`",
            );
        }
        if let Some(name) = &r.name {
            self.defined.insert(format!("{}.id", name.value));
            self.defined.insert(name.value.clone());
            self.sent.insert(name.value.clone());
        }
        model::RequestStep {
            method: r.method.value.clone(),
            params,
            id,
            progress: r.progress,
            name: r.name.as_ref().map(|n| n.value.clone()),
            wait: r.wait,
            answers,
            expect,
            require: r.require,
            tamper_request_state: r.tamper_request_state,
            capture: self.captures(&r.capture),
            timeout: self.millis(r.timeout_ms, STEP_TIMEOUT, span),
            declared_timeout: r.timeout_ms.is_some(),
        }
    }

    fn respond(&mut self, r: &file::RespondStep, span: Span) -> model::StepKind {
        self.known_name(&r.to, Named::Held);
        let reply = match (&r.result, &r.error) {
            (Some(result), None) => {
                self.template_variables(result);
                Reply::Result(result.value.clone())
            }
            (None, Some(error)) => error_reply(error),
            _ => {
                self.error(span, "`respond` gives one of `result` or `error`", "here");
                Reply::NoReply
            }
        };
        model::StepKind::Respond {
            to: r.to.value.clone(),
            reply,
        }
    }

    /// `name` refers to a request an earlier step named.
    fn known_name(&mut self, name: &Located<String>, named: Named) {
        let (known, kind, wanted) = match named {
            Named::Sent => (&self.sent, "request", "a `request` step with this `name`"),
            Named::Held => (
                &self.held,
                "held request",
                "an `expect_request` step with this `name`",
            ),
        };
        if known.contains(&name.value) {
            return;
        }
        let help = if known.is_empty() {
            format!("no earlier step names one; add {wanted}")
        } else {
            let names: Vec<&str> = known.iter().map(String::as_str).collect();
            format!("{kind}s named so far: {}", names.join(", "))
        };
        let message = format!("no earlier {kind} is named `{}`", name.value);
        self.error_help(name.span, message, "unknown name", help);
    }
}

/// Which named requests a reference may name.
enum Named {
    /// Ours, sent by `request` steps.
    Sent,
    /// The peer's, held by `expect_request` steps.
    Held,
}

/// The name a `subscribe` or `unsubscribe` step gives, or the default.
fn subscription_name(name: Option<&Located<String>>) -> String {
    name.map_or_else(|| "subscription".to_owned(), |n| n.value.clone())
}

/// The model of a mock server's `initialize` answer.
fn server_model(setup: file::ServerSetup) -> model::ServerModel {
    model::ServerModel {
        capabilities: setup.capabilities.unwrap_or_else(|| json!({})),
        info: setup.info,
        protocol_version: setup.protocol_version,
        instructions: setup.instructions,
        request_state: setup.request_state.unwrap_or(true),
    }
}

fn error_reply(e: &file::ErrorReply) -> Reply {
    Reply::Error {
        code: e.code,
        message: e.message.clone(),
        data: e.data.clone(),
    }
}

fn collect_captures(value: &Value, defined: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            if let (1, Some(Value::String(name))) = (map.len(), map.get("$capture")) {
                defined.insert(name.clone());
            }
            map.values().for_each(|v| collect_captures(v, defined));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_captures(v, defined)),
        _ => {}
    }
}

fn collect_strings(value: &Value, found: &mut impl FnMut(&str)) {
    match value {
        Value::String(s) => found(s),
        Value::Array(items) => items.iter().for_each(|v| collect_strings(v, found)),
        Value::Object(map) => map.iter().for_each(|(k, v)| {
            found(k);
            collect_strings(v, found);
        }),
        _ => {}
    }
}
