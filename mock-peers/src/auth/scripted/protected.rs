//! The mock server's protected mode (`auth:` in a `role: client`
//! scenario): a gate in front of its endpoint that serves the protected
//! resource metadata where the scenario puts it (on 2025-03-26 none, and
//! the authorization server's paths at its origin go to that server),
//! and turns away every other
//! request whose bearer token the scripted authorization server did not
//! issue for the mock server (401 with a challenge, 403 for a missing
//! scope), recording how each request carried its token. A switch
//! (`switch.rs`) puts a second authorization server in its place mid-run.

mod switch;

use std::sync::Mutex;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hyper::body::Incoming;
use hyper::header::AUTHORIZATION;
use hyper::{Method, Request, Response, StatusCode};
use mcp_conform_core::evidence::oauth::{ClientAuthRecord, TokenUse};
use mcp_conform_core::scenario::model::{
    AuthLayout, ClientAuth, MetadataMismatch, MetadataPlacement, StepUp,
};
use reqwest::Url;
use serde_json::Value;

use self::switch::Switch;
use super::{AUTHORIZE_PATH, AuthScript, REGISTER_PATH, ScriptedIssuer, lock};
use crate::auth::{
    Claims, IssuerError, JWKS_PATH, METADATA_PATH, OPENID_CONFIGURATION, Rejection, ResourceGuard,
    TOKEN_PATH, WELL_KNOWN, jwks, refusal,
};
use crate::transport::HttpServerTransport;
use crate::transport::http_server::gate::{Forwarded, Gate};
use crate::transport::http_server::request::header_str;
use crate::transport::http_server::respond::{Body, json_response, status_only};
use crate::transport::http_server::serve::Inbound;

/// Where `metadata: challenge` serves the metadata: no well-known URL, so
/// only a client that reads the challenge finds it.
pub const CHALLENGE_METADATA_PATH: &str = "/oauth/protected-resource";
/// The `resource` of `mismatch: resource` metadata: a server the client is
/// not connecting to.
const ANOTHER_RESOURCE: &str = "https://another-mcp-server.invalid/mcp";

/// The gate of a protected mock server, with its authorization server.
#[derive(Debug)]
pub struct ProtectedMockServer {
    issuer: ScriptedIssuer,
    guard: ResourceGuard,
    /// The second authorization server, when the scenario switches to one.
    switch: Option<Switch>,
    /// Where the metadata is served.
    metadata_url: Url,
    /// The challenge names [`Self::metadata_url`].
    names_metadata: bool,
    /// The challenge names the scope needed.
    challenge_scope: bool,
    /// The metadata's `scopes_supported`, when not the scope needed.
    scopes_supported: Option<Vec<String>>,
    step_up: Option<StepUp>,
    /// The metadata names another server as its `resource` (AUTH-037).
    names_another_resource: bool,
    /// The authorization server answers at the mock server's origin, and
    /// there is no protected resource metadata (2025-03-26).
    shares_origin: bool,
    tokens: Mutex<Vec<TokenUse>>,
    /// The first token admitted, once admitted, when the scenario expires
    /// it (AUTH-069): every later request with it is refused.
    expiring: Option<Mutex<Expiry>>,
}

/// Where the first token admitted is in its short life.
#[derive(Debug, Default)]
enum Expiry {
    /// No token admitted yet.
    #[default]
    Fresh,
    /// The `Authorization` value admitted once, refused from now on.
    Expired(String),
}

impl ProtectedMockServer {
    /// Starts the scripted authorization server `auth` describes and puts
    /// the gate in front of `server`, before any client reaches it.
    pub async fn install(server: &HttpServerTransport, auth: &ClientAuth) -> Result<(), IssuerError> {
        let resource: Url = server.url().parse().expect("the mock server's URL is a URL");
        let script = AuthScript {
            iss: auth.iss,
            state: auth.state,
            code_challenge_methods: auth.code_challenge_methods,
            registration: auth.registration,
            metadata_documents: auth.metadata_documents,
            refresh_tokens: auth.refresh_tokens,
            withheld_scope: auth
                .step_up
                .as_ref()
                .filter(|step_up| !step_up.granted)
                .map(|step_up| step_up.scope.clone()),
            issuer_path: auth.issuer_path.clone(),
            issuer_metadata: auth.issuer_metadata,
            foreign_issuer: auth.mismatch == Some(MetadataMismatch::Issuer),
            offline_access: auth.offline_access,
            refuse_registration: auth.refuse_registration,
            ..AuthScript::default()
        };
        // The second authorization server of a switch behaves as the first.
        let second_script = script.clone();
        let shares_origin = matches!(auth.layout, AuthLayout::ServerOrigin { .. });
        let issuer = match auth.layout {
            AuthLayout::ServerOrigin { metadata } => {
                let script = AuthScript { metadata, ..script };
                ScriptedIssuer::at_origin(resource.origin().ascii_serialization(), resource.as_str(), script)?
            }
            AuthLayout::ProtectedResource => ScriptedIssuer::start(resource.as_str(), script).await?,
        };
        let guard = guard_of(&resource, &issuer, auth.scope.as_deref());
        let switch = match &auth.switch_from {
            Some(from) => Some(Switch::start(&resource, second_script, from, auth.scope.as_deref()).await?),
            None => None,
        };
        let metadata_url = match auth.metadata {
            MetadataPlacement::Path => guard.metadata_url(),
            MetadataPlacement::Root => resource.join(WELL_KNOWN).expect("a path joins"),
            MetadataPlacement::Challenge => resource.join(CHALLENGE_METADATA_PATH).expect("a path joins"),
        };
        let mut metadata = guard.metadata();
        if auth.mismatch == Some(MetadataMismatch::Resource) {
            metadata["resource"] = ANOTHER_RESOURCE.into();
        }
        server.protect(Box::new(ProtectedMockServer {
            issuer,
            guard,
            switch,
            metadata_url,
            names_metadata: auth.names_metadata,
            challenge_scope: auth.challenge_scope,
            scopes_supported: auth.scopes_supported.clone(),
            step_up: auth.step_up.clone(),
            names_another_resource: auth.mismatch == Some(MetadataMismatch::Resource),
            shares_origin,
            tokens: Mutex::default(),
            expiring: auth.expire_first_token.then(Mutex::default),
        }));
        Ok(())
    }

    /// The protected resource metadata, its `scopes_supported` as the
    /// scenario says (an empty list leaves it out), naming another
    /// resource when the scenario says so.
    fn metadata(&self) -> Value {
        let mut document = self.active_guard().metadata();
        match self.scopes_supported.as_deref() {
            None => {}
            Some([]) => {
                document.as_object_mut().map(|d| d.remove("scopes_supported"));
            }
            Some(scopes) => document["scopes_supported"] = scopes.into(),
        }
        if self.names_another_resource {
            document["resource"] = ANOTHER_RESOURCE.into();
        }
        document
    }

    /// The token check of the authorization server in place: the second
    /// one once the scenario has switched to it.
    fn active_guard(&self) -> &ResourceGuard {
        match &self.switch {
            Some(switch) if switch.in_place() => &switch.guard,
            _ => &self.guard,
        }
    }

    /// `claims`, unless the scenario expires the first token and
    /// `authorization` carries it after its one admitted request.
    fn expire(&self, authorization: Option<&str>, claims: Claims) -> Result<Claims, Rejection> {
        let (Some(expiring), Some(presented)) = (&self.expiring, authorization) else {
            return Ok(claims);
        };
        let mut expiry = lock(expiring);
        match &*expiry {
            Expiry::Fresh => {
                *expiry = Expiry::Expired(presented.to_owned());
                Ok(claims)
            }
            Expiry::Expired(first) if first == presented => {
                Err(Rejection::InvalidToken("the token has expired".into()))
            }
            Expiry::Expired(_) => Ok(claims),
        }
    }

    /// The step-up scope the JSON-RPC request `body` needs and `claims`
    /// do not grant, if any.
    fn missing_step_up(&self, body: &str, claims: &Claims) -> Option<&str> {
        let step_up = self.step_up.as_ref()?;
        let message: Value = serde_json::from_str(body).ok()?;
        let granted: Vec<&str> = claims.scope.as_deref().unwrap_or_default().split(' ').collect();
        let lacking = step_up.scope.split(' ').any(|scope| !granted.contains(&scope));
        (message["method"] == step_up.method.as_str() && lacking).then_some(step_up.scope.as_str())
    }

    /// The 401 or 403 answering `rejection`, its challenge naming the
    /// metadata where it is served (when the scenario says it names it),
    /// and the `step_up` scope when that is what is missing.
    fn refusal(&self, rejection: &Rejection, step_up: Option<&str>) -> Response<Body> {
        let mut parameters = self.guard.challenge_parameters(rejection);
        parameters.retain(|p| {
            !p.starts_with("resource_metadata=")
                && (self.challenge_scope && step_up.is_none() || !p.starts_with("scope="))
        });
        if let Some(scope) = step_up {
            parameters.push(format!("scope=\"{scope}\""));
        }
        if self.names_metadata {
            parameters.push(format!("resource_metadata=\"{}\"", self.metadata_url));
        }
        refusal(rejection.status(), &parameters, rejection)
    }
}

impl Gate for ProtectedMockServer {
    fn at_authorization_server(&self, path: &str) -> bool {
        self.shares_origin && is_authorization_path(path)
    }

    fn authorization_server(&self, request: Request<Incoming>) -> Forwarded {
        Box::pin(self.issuer.answer(request))
    }

    fn screen(&self, label: &str, request: &Inbound) -> Option<Response<Body>> {
        let parts = &request.parts;
        let path = parts.uri.path();
        if parts.method == Method::GET && path == self.metadata_url.path() && !self.shares_origin {
            return Some(json_response(StatusCode::OK, self.metadata().to_string()));
        }
        if parts.method == Method::GET && path.starts_with("/.well-known/") {
            return Some(status_only(StatusCode::NOT_FOUND));
        }
        let authorization = header_str(&parts.headers, AUTHORIZATION.as_str());
        if let Some(switch) = &self.switch {
            switch.arrived(label, &request.body);
        }
        let checked = self
            .active_guard()
            .check(authorization)
            .and_then(|claims| self.expire(authorization, claims));
        let step_up = checked
            .as_ref()
            .ok()
            .and_then(|claims| self.missing_step_up(&request.body, claims));
        let rejection = match (checked, step_up) {
            (Err(rejection), _) => Some(rejection),
            (Ok(_), Some(_)) => Some(Rejection::InsufficientScope),
            (Ok(_), None) => None,
        };
        lock(&self.tokens).push(TokenUse {
            label: label.to_owned(),
            in_header: authorization.is_some_and(|value| value.starts_with("Bearer ")),
            in_query: parts.uri.query().is_some_and(carries_token),
            refused: rejection.as_ref().map(why_refused),
            issuer: authorization.and_then(token_issuer),
        });
        rejection.map(|rejection| self.refusal(&rejection, step_up))
    }

    fn record(&self) -> ClientAuthRecord {
        ClientAuthRecord {
            resource: self.guard.resource().to_string(),
            issuer: self.issuer.issuer().to_owned(),
            challenge_metadata: self.names_metadata.then(|| self.metadata_url.to_string()),
            metadata_url: if self.shares_origin {
                String::new()
            } else {
                self.metadata_url.to_string()
            },
            conversation: self.issuer.requests(),
            tokens: lock(&self.tokens).clone(),
            documents: self.issuer.metadata_documents(),
            switch: self.switch.as_ref().map(Switch::record),
        }
    }
}

/// The token check of `resource` for the tokens `issuer` mints, needing
/// `scope` when given.
fn guard_of(resource: &Url, issuer: &ScriptedIssuer, scope: Option<&str>) -> ResourceGuard {
    let keys = jwks(&[issuer.minter().published_key()]);
    let guard =
        ResourceGuard::new(resource.clone(), issuer.issuer(), keys).expect("the issuer's own JWK set parses");
    match scope {
        Some(scope) => guard.requiring_scope(scope),
        None => guard,
    }
}

/// The `iss` claim of the bearer token in `authorization`, read without
/// verifying it: which scripted authorization server minted it (a token
/// the client made up names none of them, or is refused anyway).
fn token_issuer(authorization: &str) -> Option<String> {
    let token = authorization.strip_prefix("Bearer ")?;
    let payload = token.split('.').nth(1)?;
    let claims: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).ok()?).ok()?;
    claims["iss"].as_str().map(str::to_owned)
}

/// Whether `path` is the authorization server's when it shares the MCP
/// server's origin: its metadata (and OpenID's, which it does not serve,
/// recorded all the same), its endpoints and its keys.
fn is_authorization_path(path: &str) -> bool {
    path.starts_with(METADATA_PATH)
        || path.starts_with(OPENID_CONFIGURATION)
        || [AUTHORIZE_PATH, TOKEN_PATH, REGISTER_PATH, JWKS_PATH].contains(&path)
}

/// A refusal in words, for the record.
fn why_refused(rejection: &Rejection) -> String {
    match rejection {
        Rejection::InvalidToken(why) => format!("invalid_token: {why}"),
        other => other.error_code().unwrap_or("no token").to_owned(),
    }
}

/// Whether a query string carries an `access_token` (RFC 6750 §2.3).
fn carries_token(query: &str) -> bool {
    form_urlencoded::parse(query.as_bytes()).any(|(name, _)| name == "access_token")
}

#[cfg(test)]
mod tests;
