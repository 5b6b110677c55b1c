//! The protected mode (`--auth ISSUER`): a layer in front of the reference
//! server's HTTP handler, so the server behind it stays the open server.
//! It serves the RFC 9728 metadata at both well-known URLs, the issuer's
//! RFC 8414 metadata at its own origin (2025-03-26's model, where the MCP
//! server was its own authorization server), and turns away
//! every other request whose bearer token the [`ResourceGuard`] refuses:
//! 401 with a challenge naming the scope and the metadata, 403
//! `insufficient_scope`, 400 for a malformed credential, each with an
//! OAuth error body (OAuth 2.1 §5.3). Whatever the era, the token is
//! checked before the request is read as MCP.
//!
//! The `auth-…` faults bend this layer, and only it.

use hyper::header;
use hyper::{Method, Response, StatusCode};
use serde_json::json;

use crate::auth::{METADATA_PATH, Rejection, ResourceGuard, Skipped, refusal};
use crate::reference::Fault;
use crate::transport::http_server::request::header_str;
use crate::transport::http_server::respond::{Body, json_response, status_only};
use crate::transport::http_server::serve::Inbound;
use mcp_conform_core::wire::headers::SESSION_ID;

/// The scope every request needs: one, so that a token without it shows
/// whether the server answers 403 and names what is missing.
pub const NEEDED_SCOPE: &str = "mcp";

/// What the layer does with one request.
pub(super) enum Gate {
    /// On to the server.
    Admit,
    /// Answered here; the server never sees it.
    Answer(Response<Body>),
    /// The server serves it, then this answer replaces the server's
    /// (`auth-serves-before-validating` only).
    ServeThenAnswer(Response<Body>),
}

/// The protected mode of one server.
#[derive(Debug)]
pub struct Protection {
    guard: ResourceGuard,
}

impl Protection {
    /// Protects with `guard`, which also needs [`NEEDED_SCOPE`].
    pub fn new(guard: ResourceGuard) -> Self {
        Self {
            guard: guard.requiring_scope(NEEDED_SCOPE),
        }
    }

    pub(super) fn gate(&self, fault: Option<Fault>, request: &Inbound) -> Gate {
        let parts = &request.parts;
        let path = parts.uri.path();
        if parts.method == Method::GET && self.guard.serves_metadata_at(path) {
            return Gate::Answer(self.metadata(fault));
        }
        if parts.method == Method::GET
            && path == METADATA_PATH
            && let Some(document) = self.guard.issuer_metadata()
            && fault != Some(Fault::AuthNoServerMetadata)
        {
            return Gate::Answer(json_response(StatusCode::OK, document.to_string()));
        }
        let mut authorization = header_str(&parts.headers, header::AUTHORIZATION.as_str()).map(str::to_owned);
        if fault == Some(Fault::AuthQueryToken) && authorization.is_none() {
            authorization = query_token(parts.uri.query()).map(|token| format!("Bearer {token}"));
        }
        let skipped = match fault {
            Some(Fault::AuthIgnoresAudience) => Some(Skipped::Audience),
            Some(Fault::AuthAcceptsExpired) => Some(Skipped::Expiry),
            _ => None,
        };
        let checked = match (
            fault,
            self.guard.check_skipping(authorization.as_deref(), skipped),
        ) {
            (Some(Fault::AuthAudienceCaseSensitive), Ok(claims))
                if claims.aud != self.guard.resource().as_str() =>
            {
                Err(Rejection::InvalidToken("audience compared as a string".into()))
            }
            (_, checked) => checked,
        };
        let Err(rejection) = checked else {
            return Gate::Admit;
        };
        let mut status = rejection.status();
        match (fault, &rejection) {
            (Some(Fault::AuthAcceptsAnyToken), Rejection::InvalidToken(_)) => return Gate::Admit,
            (Some(Fault::AuthSessionAuthenticates), Rejection::NoToken)
                if parts.headers.contains_key(SESSION_ID) =>
            {
                return Gate::Admit;
            }
            (Some(Fault::AuthStateAuthenticates), Rejection::NoToken)
                if carries_request_state(&request.body) =>
            {
                return Gate::Admit;
            }
            (Some(Fault::AuthInvalidToken403), Rejection::InvalidToken(_)) => status = 403,
            (Some(Fault::AuthInsufficientScope401), Rejection::InsufficientScope) => status = 401,
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
        refusal(status, &parameters, rejection)
    }
}

/// Whether a JSON-RPC request body echoes a `requestState` (a retry of
/// 2026-07-28's multi round-trip requests).
fn carries_request_state(body: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(body)
        .is_ok_and(|message| message["params"].get("requestState").is_some())
}

/// The `access_token` query parameter (RFC 6750 §2.3), as sent.
fn query_token(query: Option<&str>) -> Option<&str> {
    query?
        .split('&')
        .find_map(|pair| pair.strip_prefix("access_token="))
        .filter(|token| !token.is_empty())
}
