//! The harness as the authorization server of a protected server under
//! test (issue 17). A run against `--url` starts a mock issuer on loopback
//! ([`AuthServer`]), hands its URLs to `--start` (`{issuer}`, `{jwks}`, and
//! [`ISSUER_ENV`], [`JWKS_ENV`]), then asks the server whether it is
//! protected: a request without a token answered 401 says yes. A protected
//! server gets a valid token on every request (so its ordinary suite runs
//! as for an open one) and the auth scenarios; an open one gets those
//! scenarios not-applicable ([`AuthContext`]).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use mcp_conform_core::auth::{TokenChoice, TokenRequest, challenge};
use mcp_conform_core::scenario::Scenario;
use mcp_conform_core::scenario::model::StepKind;
use mcp_mock_peers::auth::{IssuerError, Minter, MockIssuer};
use mcp_mock_peers::transport::HttpMode;
use serde_json::Value;

use crate::runner::{RunConfig, Target};

/// What the server started by `--start` finds in its environment.
pub const ISSUER_ENV: &str = "MCP_CONFORM_ISSUER";
pub const JWKS_ENV: &str = "MCP_CONFORM_JWKS";
/// The audience of the tokens (the server's canonical URI), for servers
/// that must be told theirs.
pub const AUDIENCE_ENV: &str = "MCP_CONFORM_AUDIENCE";

/// How often a probe in flight looks for an interrupt.
const INTERRUPT_POLL: Duration = Duration::from_millis(100);

/// Whether a run needs the mock issuer: it selected a scenario for
/// protected servers, or `--start` asks for what the issuer fills in.
pub fn needed(scenarios: &[Scenario], start: Option<&str>) -> bool {
    let placeholders = ["{issuer}", "{jwks}", "{audience}"];
    scenarios.iter().any(|s| s.requires.protected)
        || start.is_some_and(|line| placeholders.iter().any(|p| line.contains(p)))
}

/// The mock issuer of one run, on a runtime of its own; stops when dropped.
#[derive(Debug)]
pub struct AuthServer {
    // Declared first: dropped (its task aborted) before the runtime.
    issuer: MockIssuer,
    _runtime: tokio::runtime::Runtime,
}

impl AuthServer {
    /// An issuer of tokens for the server whose endpoint is `url` (their
    /// audience: its canonical URI).
    pub fn start(url: &str) -> Result<AuthServer, String> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start a runtime for the mock authorization server: {e}"))?;
        let issuer = runtime
            .block_on(MockIssuer::start(&canonical_uri(url)))
            .map_err(|e: IssuerError| e.to_string())?;
        Ok(AuthServer {
            issuer,
            _runtime: runtime,
        })
    }

    pub fn issuer(&self) -> &str {
        self.issuer.issuer()
    }

    pub fn jwks_url(&self) -> String {
        self.issuer.jwks_url()
    }

    /// `command_line` with `{issuer}`, `{jwks}` and `{audience}` replaced.
    pub fn fill_in(&self, command_line: &str) -> String {
        command_line
            .replace("{issuer}", self.issuer())
            .replace("{jwks}", &self.jwks_url())
            .replace("{audience}", self.issuer.minter().audience())
    }

    /// The URLs as environment variables for the server we start.
    pub fn env(&self) -> Vec<(String, String)> {
        vec![
            (ISSUER_ENV.to_owned(), self.issuer().to_owned()),
            (JWKS_ENV.to_owned(), self.jwks_url()),
            (
                AUDIENCE_ENV.to_owned(),
                self.issuer.minter().audience().to_owned(),
            ),
        ]
    }

    /// Asks the server of `config` whether it is protected and records the
    /// answer in `config.auth`; a protected server's requests then carry a
    /// valid token with the scope its challenge asked for (unless the user
    /// sends an `Authorization` header of their own). Tokens are minted now
    /// for every `token` the `scenarios` present, so that the report can
    /// redact them all; a scope known only during the run (taken from an
    /// answer) gets its token then.
    /// The server has the startup timeout to answer; one that cannot be
    /// reached is left to the scenarios, which fail it as they would
    /// without auth (the auth scenarios do not apply, saying why), and one
    /// that accepted the request and stayed silent is [`Protection::Silent`].
    pub fn protect(&self, config: &mut RunConfig, scenarios: &[Scenario]) {
        protect(config, TokenSource::MockIssuer, |answer| {
            AuthContext::mint(self.issuer.minter(), answer, scenarios)
        });
    }
}

/// Probes the server of `config` and records in `config.auth` the context
/// `build` makes of the answer; a protected server's requests then carry
/// its valid token (unless the user sends an `Authorization` header of
/// their own).
pub fn protect(config: &mut RunConfig, source: TokenSource, build: impl FnOnce(&ProbeAnswer) -> AuthContext) {
    let within = config.startup_timeout;
    let Target::Http { url, headers, mode } = &mut config.target else {
        return;
    };
    let context = match probe_interruptibly(url, headers, *mode, within) {
        Ok(answer) => build(&answer),
        Err(protection) => AuthContext::new(protection, Vec::new(), source),
    };
    let users_own = headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("authorization"));
    if context.protection == Protection::Protected
        && !users_own
        && let Some(token) = context.token(&TokenRequest::Minted(TokenChoice::Valid))
    {
        headers.push(("authorization".to_owned(), format!("Bearer {token}")));
    }
    config.auth = Some(Arc::new(context));
}

/// The server's URL as a token audience: RFC 8707 §2 (scheme and host in
/// lower case, no fragment).
pub fn canonical_uri(url: &str) -> String {
    let url = url.split('#').next().unwrap_or_default();
    match url.split_once("://") {
        Some((scheme, rest)) => {
            let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
            let (authority, path) = rest.split_at(authority_end);
            format!(
                "{}://{}{path}",
                scheme.to_ascii_lowercase(),
                authority.to_ascii_lowercase()
            )
        }
        None => url.to_owned(),
    }
}

/// What the server answered a request without a token.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeAnswer {
    pub status: u16,
    /// The scopes to ask for: the challenge's `scope`, else the
    /// `scopes_supported` of the metadata its `resource_metadata` names.
    pub scope: Option<String>,
}

/// Sends the request that tells a protected server from an open one: on
/// Streamable HTTP a `tools/list` POSTed without a token or session (an
/// open server refuses it for want of a session, or serves it; either way
/// it changes nothing; unlike `ping`, no server leaves it unprotected as
/// a health check), on HTTP+SSE the GET that opens the stream. The user's
/// headers go along, but not their `Authorization`.
pub fn probe(
    url: &str,
    headers: &[(String, String)],
    mode: HttpMode,
    within: Duration,
) -> Result<ProbeAnswer, Protection> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(within))
        .http_status_as_error(false)
        .build()
        .into();
    let own = headers
        .iter()
        .filter(|(name, _)| !name.eq_ignore_ascii_case("authorization"));
    let answer = match mode {
        HttpMode::Sse => {
            let mut request = agent.get(url).header("accept", "text/event-stream");
            for (name, value) in own {
                request = request.header(name, value);
            }
            request.call()
        }
        HttpMode::Streamable | HttpMode::Auto => {
            let mut request = agent
                .post(url)
                .header("accept", "application/json, text/event-stream")
                .header("content-type", "application/json");
            for (name, value) in own {
                request = request.header(name, value);
            }
            request.send(r#"{"jsonrpc":"2.0","id":"mcp-conform-auth-probe","method":"tools/list"}"#)
        }
    }
    // Not the URL: it may hold a secret.
    .map_err(|error| match error {
        ureq::Error::Timeout(_) => Protection::Silent(format!(
            "the server accepted the request without a token and answered nothing within {} ms",
            within.as_millis()
        )),
        error => Protection::Unknown(format!("the request without a token got no answer: {error}")),
    })?;
    let challenge = answer
        .headers()
        .get("www-authenticate")
        .and_then(|value| value.to_str().ok())
        .and_then(challenge)
        .unwrap_or_default();
    let text = |name: &str| challenge.get(name).and_then(Value::as_str).map(str::to_owned);
    let scope = text("scope").or_else(|| {
        let metadata = agent.get(text("resource_metadata")?).call().ok()?;
        let document: Value = serde_json::from_reader(metadata.into_body().into_reader()).ok()?;
        let scopes: Vec<&str> = document["scopes_supported"]
            .as_array()?
            .iter()
            .filter_map(Value::as_str)
            .collect();
        Some(scopes.join(" "))
    });
    Ok(ProbeAnswer {
        status: answer.status().as_u16(),
        scope,
    })
}

/// [`probe`] on a thread of its own, given up when the run is interrupted.
fn probe_interruptibly(
    url: &str,
    headers: &[(String, String)],
    mode: HttpMode,
    within: Duration,
) -> Result<ProbeAnswer, Protection> {
    let (url, headers) = (url.to_owned(), headers.to_vec());
    let (send, answer) = std::sync::mpsc::channel();
    std::thread::spawn(move || send.send(probe(&url, &headers, mode, within)));
    loop {
        match answer.recv_timeout(INTERRUPT_POLL) {
            Ok(answer) => return answer,
            Err(_) if crate::interrupt::requested() => {
                return Err(Protection::Unknown(
                    "interrupted while asking whether the server needs a token".into(),
                ));
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                return Err(Protection::Unknown("the request without a token was lost".into()));
            }
        }
    }
}

/// What the request without a token showed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Protection {
    /// Answered 401: the auth scenarios apply.
    Protected,
    /// Answered otherwise: the server serves requests without a token.
    Open,
    /// No answer, and why.
    Unknown(String),
    /// The server accepted the request and answered nothing within the
    /// startup timeout, and why: it would leave every scenario's
    /// `initialize` the same wait (the run's fail-fast gives them their
    /// verdict at once).
    Silent(String),
}

impl Protection {
    /// What an answer of `status` to a request without a token shows.
    fn of(status: u16) -> Protection {
        match status {
            401 => Protection::Protected,
            _ => Protection::Open,
        }
    }
}

/// Why a step presenting a token of [`AuthContext::unavailable`] was left out.
pub const ONLY_THE_MOCK_ISSUER: &str = "only the harness's mock issuer can mint it (--token gives a valid \
     token, the same with its signature altered, and garbage)";

/// Where a run's tokens come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenSource {
    /// Minted by the harness's mock issuer, any kind a scenario asks for;
    /// outputs show them decoded, their signature elided.
    MockIssuer,
    /// The user's `--token` and what can be built from it without the
    /// issuer's key; outputs never show them.
    UsersToken,
}

/// Whether the server under test is protected, and the tokens a run
/// presents to it.
#[derive(Debug)]
pub struct AuthContext {
    pub protection: Protection,
    tokens: Vec<(TokenRequest, String)>,
    pub source: TokenSource,
    /// The mock issuer's minter, for scopes a scenario learns during the
    /// run (none with the user's own token).
    minter: Option<Arc<Minter>>,
    /// The tokens minted during the run, by scope, in the order minted.
    minted_during_run: Mutex<Vec<(String, String)>>,
    /// The tokens minted during the run for other resources (each
    /// scenario's gateway front), in the order minted.
    minted_for_resources: Mutex<Vec<String>>,
}

impl AuthContext {
    /// The context `answer` shows, with a token for each choice (scoped
    /// as the server asked) and each literal `{scope}` the scenarios ask
    /// for; a templated one is minted when its step renders it.
    pub fn mint(minter: &Arc<Minter>, answer: &ProbeAnswer, scenarios: &[Scenario]) -> AuthContext {
        let scope = answer.scope.as_deref();
        let mut tokens: Vec<(TokenRequest, String)> = TokenChoice::ALL
            .into_iter()
            .map(|choice| (TokenRequest::Minted(choice), minter.mint_scoped(choice, scope)))
            .collect();
        for scenario in scenarios {
            for_each_token(&scenario.steps, &mut |request| {
                if let TokenRequest::Scoped(scope) = request
                    && !is_templated(scope)
                    && !tokens.iter().any(|(minted, _)| minted == request)
                {
                    let token = minter.mint_scoped(TokenChoice::Valid, Some(scope));
                    tokens.push((request.clone(), token));
                }
            });
        }
        AuthContext {
            minter: Some(Arc::clone(minter)),
            ..AuthContext::new(Protection::of(answer.status), tokens, TokenSource::MockIssuer)
        }
    }

    /// A context with `tokens` and nothing to mint more with.
    fn new(protection: Protection, tokens: Vec<(TokenRequest, String)>, source: TokenSource) -> AuthContext {
        AuthContext {
            protection,
            tokens,
            source,
            minter: None,
            minted_during_run: Mutex::default(),
            minted_for_resources: Mutex::default(),
        }
    }

    /// The token minted before the run for `request` (`None` for
    /// [`TokenRequest::None`]).
    pub fn token(&self, request: &TokenRequest) -> Option<&str> {
        self.tokens
            .iter()
            .find(|(minted, _)| minted == request)
            .map(|(_, token)| token.as_str())
    }

    /// The token to present for `request` (its scope rendered): minted
    /// before the run, or by the mock issuer now for a scope the run
    /// learnt, such as exactly what a challenge named (AUTH-015).
    pub fn present(&self, request: &TokenRequest) -> Option<String> {
        if let Some(token) = self.token(request) {
            return Some(token.to_owned());
        }
        let (TokenRequest::Scoped(scope), Some(minter)) = (request, &self.minter) else {
            return None;
        };
        let mut minted = self
            .minted_during_run
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some((_, token)) = minted.iter().find(|(known, _)| known == scope) {
            return Some(token.clone());
        }
        let token = minter.mint_scoped(TokenChoice::Valid, Some(scope));
        minted.push((scope.clone(), token.clone()));
        Some(token)
    }

    /// The token `request` asks for, named, when the run cannot present
    /// it: with the user's token only some kinds can be built.
    pub fn unavailable(&self, request: &TokenRequest) -> Option<String> {
        match request {
            TokenRequest::None => None,
            _ if self.token(request).is_some() => None,
            TokenRequest::Scoped(_) if self.minter.is_some() => None,
            TokenRequest::Minted(choice) => Some(format!("the `{}` token", choice.name())),
            TokenRequest::Scoped(scope) => Some(format!("a valid token with scope `{scope}`")),
        }
    }

    /// Every token minted so far, before the run and during it (in that
    /// order), for the redaction of outputs.
    pub fn tokens(&self) -> Vec<String> {
        let during = self
            .minted_during_run
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let for_resources = self
            .minted_for_resources
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let before = self.tokens.iter().map(|(_, token)| token.clone());
        before
            .chain(during.iter().map(|(_, token)| token.clone()))
            .chain(for_resources.iter().cloned())
            .collect()
    }
}

/// Whether `scope` takes a value from the run (`${...}`): its token can
/// only be minted when its step renders it.
fn is_templated(scope: &str) -> bool {
    scope.contains("${")
}

/// Calls `visit` with the `token` of every `http` step, nested ones too.
fn for_each_token(steps: &[mcp_conform_core::scenario::model::Step], visit: &mut impl FnMut(&TokenRequest)) {
    for step in steps {
        match &step.kind {
            StepKind::Http(http) => http.token.iter().for_each(&mut *visit),
            StepKind::ForEach { steps, .. } => for_each_token(steps, visit),
            _ => {}
        }
    }
}

mod gateway_front;
mod own_token;
pub use gateway_front::FrontToken;
pub use own_token::{read_token, with_own_token};

#[cfg(test)]
mod tests;
