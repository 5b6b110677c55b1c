//! The protected mode (`--auth ISSUER`): a layer in front of the reference
//! server's HTTP handler, so the server behind it stays the open server.
//! It serves the RFC 9728 metadata at both well-known URLs, the issuer's
//! RFC 8414 metadata at its own origin (2025-03-26's model, where the MCP
//! server was its own authorization server), and turns away
//! every other request whose bearer token the [`ResourceGuard`] refuses:
//! 401 with a challenge naming the scope and the metadata, 403
//! `insufficient_scope`, 400 for a malformed credential (or a token sent
//! both in the header and the query), each with an OAuth error body
//! (OAuth 2.1 §5.3). Whatever the era, the token is checked before the
//! request is read as MCP. A session belongs to the user whose token
//! opened it: another user's token naming it gets 404, as if sessions
//! were keyed by user and id. Under 2026-07-28 the user goes along with
//! the request ([`Principal`]), and the `requestState` handles the server
//! issues are bound to them. With the default endpoints
//! ([`Protection::with_default_endpoints`]) it is 2025-03-26's server
//! without metadata instead (`default_endpoints.rs`).
//!
//! The `auth-…` faults bend this layer, and only it.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use hyper::header::{self, HeaderValue};
use hyper::{Method, Response, StatusCode};
use serde_json::json;

use super::default_endpoints::DefaultEndpoints;
use crate::auth::{AUTHORIZE_PATH, METADATA_PATH, Rejection, ResourceGuard, Skipped, refusal};
use crate::reference::Fault;
use crate::transport::http_server::request::header_str;
use crate::transport::http_server::respond::{Body, json_response, status_only};
use crate::transport::http_server::serve::Inbound;
use mcp_conform_core::wire::headers::SESSION_ID;

/// The scopes every request needs, space-separated: a token without them
/// shows whether the server answers 403 and names what is missing, and
/// there are two, so that a challenge naming only some of them shows when
/// a token with exactly those is refused again (AUTH-015).
pub const NEEDED_SCOPES: &str = "mcp mcp:tools";

/// What the layer does with one request.
pub(super) enum Gate {
    /// On to the server, for this user (`sub`; none for a request let
    /// through without a valid token, by a fault).
    Admit(Option<String>),
    /// Answered here; the server never sees it.
    Answer(Response<Body>),
    /// The server serves it, then this answer replaces the server's
    /// (`auth-serves-before-validating` only).
    ServeThenAnswer(Response<Body>),
}

/// The user a request was admitted for, in its extensions: the server
/// binds what it issues for the request to them.
#[derive(Debug, Clone)]
pub(super) struct Principal(pub(super) String);

/// What the server learns of `user` from a request with `body`: who they
/// are, unless a fault keeps it from binding handles to them
/// (`auth-state-shared-by-users`) or from telling whose a task is when
/// asked for one (`auth-extension-tasks-shared-by-users`).
pub(super) fn principal(fault: Option<Fault>, user: &str, body: &str) -> Option<Principal> {
    match fault {
        Some(Fault::AuthStateSharedByUsers) => None,
        Some(Fault::AuthExtensionTasksSharedByUsers) if is_tasks_request(body) => None,
        _ => Some(Principal(user.to_owned())),
    }
}

/// How the protected mode validates a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenValidation {
    /// Verifies the JWT against the issuer's published keys.
    Jwks,
    /// Asks the issuer's RFC 7662 introspection endpoint.
    Introspection,
}

/// Where a 2025-03-26 client finds the authorization endpoints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthorizationEndpoints {
    /// Named in the issuer's RFC 8414 metadata, served at the origin.
    Metadata,
    /// No metadata: the default paths at the origin, in front of the issuer.
    Defaults,
}

/// The protected mode of one server.
#[derive(Debug)]
pub struct Protection {
    guard: ResourceGuard,
    validation: TokenValidation,
    /// The user each session was opened for: a session is that user's
    /// state, which another user's token must not reach (AUTH-020).
    owners: Mutex<HashMap<String, String>>,
    /// Serves the default endpoints instead of the issuer's metadata.
    default_endpoints: Option<DefaultEndpoints>,
}

impl Protection {
    /// Protects with `guard`, which also needs [`NEEDED_SCOPES`], validating
    /// tokens as `validation` says.
    pub fn new(guard: ResourceGuard, validation: TokenValidation) -> Self {
        Self {
            guard: guard.requiring_scope(NEEDED_SCOPES),
            validation,
            owners: Mutex::default(),
            default_endpoints: None,
        }
    }

    /// 2025-03-26's server offering no authorization server metadata: the
    /// origin serves the default `/authorize` and `/token` in front of the
    /// issuer the guard discovered (which must be on loopback).
    pub fn with_default_endpoints(self) -> Result<Self, String> {
        let metadata = self
            .guard
            .issuer_metadata()
            .ok_or("the default endpoints need the issuer's metadata")?;
        Ok(Self {
            default_endpoints: Some(DefaultEndpoints::in_front_of(metadata)?),
            ..self
        })
    }

    /// Records that `user` opened the session `id`.
    pub(super) fn bind_session(&self, id: &str, user: &str) {
        let mut owners = self.owners.lock().expect("session owners lock");
        owners.insert(id.to_owned(), user.to_owned());
    }

    /// Whether the session `id` was opened by someone other than `user`.
    fn owned_by_another(&self, id: &str, user: &str) -> bool {
        let owners = self.owners.lock().expect("session owners lock");
        owners.get(id).is_some_and(|owner| owner != user)
    }

    pub(super) async fn gate(&self, fault: Option<Fault>, request: &Inbound) -> Gate {
        let parts = &request.parts;
        let path = parts.uri.path();
        if let Some(defaults) = &self.default_endpoints
            && let Some(answer) = defaults.answer(fault, request).await
        {
            return Gate::Answer(answer);
        }
        if parts.method == Method::GET && self.guard.serves_metadata_at(path) {
            return Gate::Answer(self.metadata(fault));
        }
        if parts.method == Method::GET
            && path == METADATA_PATH
            && let Some(document) = self.guard.issuer_metadata()
            && fault != Some(Fault::AuthNoServerMetadata)
        {
            let mut document = document.clone();
            if fault == Some(Fault::AuthOpenRedirect) {
                let mut own = self.guard.resource().clone();
                own.set_path(AUTHORIZE_PATH);
                document["authorization_endpoint"] = json!(own.as_str());
            }
            if fault == Some(Fault::AuthPlainHttpEndpoints) {
                plain_http_elsewhere(&mut document);
            }
            return Gate::Answer(json_response(StatusCode::OK, document.to_string()));
        }
        if fault == Some(Fault::AuthOpenRedirect) && parts.method == Method::GET && path == AUTHORIZE_PATH {
            return Gate::Answer(redirect_unchecked(parts.uri.query()));
        }
        let mut authorization = header_str(&parts.headers, header::AUTHORIZATION.as_str()).map(str::to_owned);
        let in_query = query_token(parts.uri.query());
        // A token sent two ways is a malformed request (RFC 6750 §2, §3.1).
        let two_ways = authorization.is_some() && in_query.is_some();
        if fault == Some(Fault::AuthQueryToken) && authorization.is_none() {
            authorization = in_query.map(|token| format!("Bearer {token}"));
        }
        let skipped = match fault {
            Some(Fault::AuthIgnoresAudience) => Some(Skipped::Audience),
            Some(Fault::AuthAcceptsExpired) => Some(Skipped::Expiry),
            _ => None,
        };
        let checked = match (two_ways, self.validation) {
            (true, _) => Err(Rejection::Malformed),
            (false, TokenValidation::Jwks) => self.guard.check_skipping(authorization.as_deref(), skipped),
            (false, TokenValidation::Introspection) => {
                self.guard
                    .introspect_skipping(authorization.as_deref(), skipped)
                    .await
            }
        };
        let checked = match (fault, checked) {
            (Some(Fault::AuthAudienceCaseSensitive), Ok(claims))
                if claims.aud != self.guard.resource().as_str() =>
            {
                Err(Rejection::InvalidToken("audience compared as a string".into()))
            }
            (_, checked) => checked,
        };
        let session = header_str(&parts.headers, SESSION_ID);
        let rejection = match checked {
            Ok(claims) => match session {
                Some(id)
                    if self.owned_by_another(id, &claims.sub)
                        && fault != Some(Fault::AuthSessionSharedByUsers)
                        && !(fault == Some(Fault::AuthTasksSharedByUsers)
                            && is_tasks_request(&request.body)) =>
                {
                    // Keyed by user and id, the session does not exist for this user.
                    return Gate::Answer(status_only(StatusCode::NOT_FOUND));
                }
                _ => return Gate::Admit(Some(claims.sub)),
            },
            Err(rejection) => rejection,
        };
        let mut status = rejection.status();
        match (fault, &rejection) {
            (Some(Fault::AuthAcceptsAnyToken), Rejection::InvalidToken(_))
            | (Some(Fault::AuthIntrospectionIgnoresActive), Rejection::Inactive) => return Gate::Admit(None),
            (Some(Fault::AuthSessionAuthenticates), Rejection::NoToken) if session.is_some() => {
                return Gate::Admit(None);
            }
            (Some(Fault::AuthStateAuthenticates), Rejection::NoToken)
                if carries_request_state(&request.body) =>
            {
                return Gate::Admit(None);
            }
            (Some(Fault::AuthInvalidToken403), Rejection::InvalidToken(_)) => status = 403,
            (Some(Fault::AuthInsufficientScope401), Rejection::InsufficientScope) => status = 401,
            (Some(Fault::AuthMalformed401), Rejection::Malformed) => status = 401,
            _ => {}
        }
        let refusal = self.refusal(fault, status, &rejection);
        match fault {
            Some(Fault::AuthServesBeforeValidating) => Gate::ServeThenAnswer(refusal),
            _ => Gate::Answer(refusal),
        }
    }

    /// The RFC 9728 document (`auth-resource-mismatch`: naming the
    /// origin rather than the endpoint).
    fn metadata(&self, fault: Option<Fault>) -> Response<Body> {
        if fault == Some(Fault::AuthMetadataHidden) {
            return status_only(StatusCode::NOT_FOUND);
        }
        let mut document = self.guard.metadata();
        if fault == Some(Fault::AuthResourceMismatch) {
            let mut origin = self.guard.resource().clone();
            origin.set_path("/");
            document["resource"] = json!(origin.as_str());
        }
        json_response(StatusCode::OK, document.to_string())
    }

    /// `status` with the Bearer challenge and an OAuth error body.
    fn refusal(&self, fault: Option<Fault>, status: u16, rejection: &Rejection) -> Response<Body> {
        let mut parameters = self.guard.challenge_parameters(rejection);
        if matches!(
            fault,
            Some(Fault::AuthNoResourceMetadata | Fault::AuthMetadataHidden)
        ) {
            parameters.retain(|p| !p.starts_with("resource_metadata="));
        }
        if fault == Some(Fault::AuthScopeOneAtATime) && *rejection == Rejection::InsufficientScope {
            let first = NEEDED_SCOPES.split(' ').next().unwrap_or_default();
            for parameter in parameters.iter_mut().filter(|p| p.starts_with("scope=")) {
                *parameter = format!("scope=\"{first}\"");
            }
        }
        refusal(status, &parameters, rejection)
    }
}

/// An authorization endpoint's refusal sent to whatever `redirect_uri` the
/// request names, checked against nothing (`auth-open-redirect` only).
fn redirect_unchecked(query: Option<&str>) -> Response<Body> {
    let redirect_uri = form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .find(|(name, _)| name == "redirect_uri")
        .map(|(_, value)| value.into_owned())
        .unwrap_or_default();
    let location = format!("{redirect_uri}?error=access_denied");
    let mut response = status_only(StatusCode::FOUND);
    if let Ok(location) = HeaderValue::from_str(&location) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    response
}

/// The metadata's endpoints moved to a host off loopback, still on plain
/// http (`auth-plain-http-endpoints` only): what a deployed server that
/// never turned on TLS would name.
fn plain_http_elsewhere(document: &mut serde_json::Value) {
    let Some(members) = document.as_object_mut() else {
        return;
    };
    for (name, value) in members.iter_mut().filter(|(name, _)| name.ends_with("_endpoint")) {
        let path = value
            .as_str()
            .and_then(|url| reqwest::Url::parse(url).ok())
            .map(|url| url.path().to_owned())
            .unwrap_or_else(|| format!("/{name}"));
        *value = json!(format!("http://mcp-conform.invalid{path}"));
    }
}

/// A session id anyone can guess: the sessions counted from 1
/// (`auth-predictable-session-ids` only).
pub(super) fn predictable_session_id() -> String {
    static OPENED: AtomicU64 = AtomicU64::new(0);
    format!("session-{}", OPENED.fetch_add(1, Ordering::Relaxed) + 1)
}

/// Whether a JSON-RPC request body echoes a `requestState` (a retry of
/// 2026-07-28's multi round-trip requests).
fn carries_request_state(body: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(body)
        .is_ok_and(|message| message["params"].get("requestState").is_some())
}

/// Whether a JSON-RPC request body asks about tasks (`tasks/...`).
fn is_tasks_request(body: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(body).is_ok_and(|message| {
        message["method"]
            .as_str()
            .is_some_and(|method| method.starts_with("tasks/"))
    })
}

/// The `access_token` query parameter (RFC 6750 §2.3), as sent.
fn query_token(query: Option<&str>) -> Option<&str> {
    query?
        .split('&')
        .find_map(|pair| pair.strip_prefix("access_token="))
        .filter(|token| !token.is_empty())
}
