//! The mock authorization server on loopback HTTP: its RFC 8414 metadata at
//! the well-known path, its JWKS, a token endpoint that grants
//! `client_credentials` to any client (the harness tests the resource
//! server, not client authentication) and `authorization_code` with PKCE
//! (S256) to a client whose authorization request it granted at once, and
//! RFC 7662 introspection for servers that ask the issuer about a token
//! rather than verify it themselves (any caller may ask: loopback only).

use std::sync::{Arc, Mutex, PoisonError};

use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode};
use jsonwebtoken::jwk::JwkSet;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use super::redirect::redirect_with;
use super::resource::verify;
use super::scripted::grants::{Grants, PendingCode, Refused};
use super::scripted::recorded;
use super::{AUTHORIZE_PATH, KeyGenerationFailed, Minter, TokenChoice, authorization_server_metadata, jwks};
use crate::transport::http_server::request::read_body;
use crate::transport::http_server::respond::{Body, json_response, status_only};
use crate::transport::http_server::serve::serve_with;
use mcp_conform_core::evidence::oauth::OAuthRequest;

pub use mcp_conform_core::protocol::client_auth::METADATA_PATH;
pub const JWKS_PATH: &str = "/jwks";
pub const TOKEN_PATH: &str = "/token";
pub const INTROSPECTION_PATH: &str = "/introspect";

#[derive(Debug, thiserror::Error)]
pub enum IssuerError {
    #[error(transparent)]
    Keys(#[from] KeyGenerationFailed),
    #[error("cannot listen on loopback for the mock authorization server: {0}")]
    Listen(#[from] std::io::Error),
}

/// A running mock authorization server; it stops when dropped.
#[derive(Debug)]
pub struct MockIssuer {
    minter: Arc<Minter>,
    task: JoinHandle<()>,
}

impl Drop for MockIssuer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl MockIssuer {
    /// Listens on a free loopback port and issues tokens for `audience`
    /// (the protected server's canonical URI).
    pub async fn start(audience: &str) -> Result<Self, IssuerError> {
        let (listener, issuer) = loopback_listener().await?;
        let minter = Arc::new(Minter::new(&issuer, audience)?);
        let published = jwks(&[minter.published_key()]);
        let serving = Arc::new(Issuing {
            minter: Arc::clone(&minter),
            keys: serde_json::from_value(published).expect("jwks writes a JWK set"),
            grants: Mutex::default(),
        });
        let task = serve_in_background(listener, "mock authorization server", move |request| {
            answer(Arc::clone(&serving), request)
        });
        Ok(Self { minter, task })
    }

    /// The issuer identifier, which is also its base URL.
    pub fn issuer(&self) -> &str {
        self.minter.issuer()
    }

    pub fn jwks_url(&self) -> String {
        format!("{}{JWKS_PATH}", self.issuer())
    }

    /// Tokens of any kind, for the steps that present them.
    pub fn minter(&self) -> &Arc<Minter> {
        &self.minter
    }
}

/// A listener on a free loopback port, and the base URL it serves.
pub(crate) async fn loopback_listener() -> std::io::Result<(TcpListener, String)> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    Ok((listener, base))
}

/// Serves `handle` on `listener` in a task of its own; aborting the task
/// stops the server, and a failure to accept is reported and ends it.
pub(crate) fn serve_in_background<H, F>(listener: TcpListener, who: &'static str, handle: H) -> JoinHandle<()>
where
    H: Fn(Request<Incoming>) -> F + Clone + Send + Sync + 'static,
    F: Future<Output = Response<Body>> + Send + 'static,
{
    tokio::spawn(async move {
        if let Err(error) = serve_with(listener, who, handle).await {
            eprintln!("{who}: {error}");
        }
    })
}

/// What the endpoints share.
#[derive(Debug)]
struct Issuing {
    minter: Arc<Minter>,
    /// The published keys, to judge the tokens asked about.
    keys: JwkSet,
    /// The codes handed out and not yet redeemed.
    grants: Mutex<Grants>,
}

impl Issuing {
    /// The RFC 8414 document, naming every endpoint served here.
    fn metadata(&self) -> Value {
        let issuer = self.minter.issuer();
        let mut metadata = authorization_server_metadata(issuer);
        metadata["authorization_endpoint"] = json!(format!("{issuer}{AUTHORIZE_PATH}"));
        metadata["introspection_endpoint"] = json!(format!("{issuer}{INTROSPECTION_PATH}"));
        metadata["grant_types_supported"] = json!(["client_credentials", "authorization_code"]);
        metadata
    }

    fn grants(&self) -> std::sync::MutexGuard<'_, Grants> {
        self.grants.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

async fn answer(issuing: Arc<Issuing>, request: Request<Incoming>) -> Response<Body> {
    let (parts, body) = request.into_parts();
    let body = match read_body(body).await {
        Ok(body) => body,
        Err(refusal) => return refusal.response(),
    };
    let request = recorded(0, &parts, &body);
    match (parts.method, parts.uri.path()) {
        (Method::GET, METADATA_PATH) => ok(issuing.metadata()),
        (Method::GET, JWKS_PATH) => ok(jwks(&[issuing.minter.published_key()])),
        (Method::GET, AUTHORIZE_PATH) => authorize(&issuing, &request).unwrap_or_else(oauth_error),
        (Method::POST, TOKEN_PATH) => token(&issuing, &request).map_or_else(oauth_error, ok),
        (Method::POST, INTROSPECTION_PATH) => ok(introspect(&issuing, &request)),
        _ => status_only(StatusCode::NOT_FOUND),
    }
}

/// Grants a well-formed authorization request at once, which must carry
/// an S256 PKCE challenge (OAuth 2.1 §4.1.1), and redirects with the code.
/// Every client counts as registered with loopback redirect URIs only (a
/// native client's, RFC 8252 §7.3): any other `redirect_uri` is refused
/// without a redirect, so the issuer is no open redirector.
fn authorize(issuing: &Issuing, request: &OAuthRequest) -> Result<Response<Body>, Refused> {
    let (Some(client_id), Some(redirect_uri), Some("code"), Some(challenge), Some("S256")) = (
        request.param("client_id"),
        request.param("redirect_uri"),
        request.param("response_type"),
        request.param("code_challenge"),
        request.param("code_challenge_method"),
    ) else {
        return Err(Refused("invalid_request"));
    };
    if !is_loopback(redirect_uri) {
        return Err(Refused("invalid_request"));
    }
    let code = issuing.grants().hand_out(PendingCode {
        client_id: client_id.to_owned(),
        redirect_uri: redirect_uri.to_owned(),
        code_challenge: Some(challenge.to_owned()),
        code_challenge_method: Some("S256".to_owned()),
        scope: request.param("scope").map(str::to_owned),
    });
    let mut params = vec![("code", code.as_str()), ("iss", issuing.minter.issuer())];
    params.extend(request.param("state").map(|state| ("state", state)));
    redirect_with(redirect_uri, &params).ok_or(Refused("invalid_request"))
}

/// `client_credentials` for whatever scope is asked; `authorization_code`
/// for the scope of the granted request, once, with its PKCE verifier.
fn token(issuing: &Issuing, request: &OAuthRequest) -> Result<Value, Refused> {
    let scope = match request.param("grant_type") {
        Some("client_credentials") => request.param("scope").map(str::to_owned),
        Some("authorization_code") => {
            let code = request.param("code").ok_or(Refused("invalid_request"))?;
            let verifier = request.param("code_verifier").ok_or(Refused("invalid_request"))?;
            let pending = issuing.grants().redeem(
                code,
                request.param("client_id"),
                request.param("redirect_uri"),
                Some(verifier),
            )?;
            pending.scope
        }
        _ => return Err(Refused("unsupported_grant_type")),
    };
    Ok(json!({
        "access_token": issuing.minter.mint_scoped(TokenChoice::Valid, scope.as_deref()),
        "token_type": "Bearer",
        "expires_in": 3600,
    }))
}

/// RFC 7662 §2.2: a token this issuer signed, unexpired and already valid,
/// is active, with its claims; anything else is only `active: false`.
fn introspect(issuing: &Issuing, request: &OAuthRequest) -> Value {
    let claims = request
        .param("token")
        .and_then(|token| verify(&issuing.keys, issuing.minter.issuer(), token, true).ok());
    match claims.map(serde_json::to_value) {
        Some(Ok(mut answer)) => {
            answer["active"] = json!(true);
            answer["token_type"] = json!("Bearer");
            answer
        }
        _ => json!({ "active": false }),
    }
}

/// Whether `uri` is an `http` URL of a loopback host.
pub(crate) fn is_loopback(uri: &str) -> bool {
    reqwest::Url::parse(uri).is_ok_and(|url| {
        url.scheme() == "http" && matches!(url.host_str(), Some("127.0.0.1" | "localhost" | "[::1]"))
    })
}

fn oauth_error(Refused(error): Refused) -> Response<Body> {
    json_response(StatusCode::BAD_REQUEST, json!({ "error": error }).to_string())
}

pub(crate) fn ok(document: serde_json::Value) -> Response<Body> {
    json_response(StatusCode::OK, document.to_string())
}

#[cfg(test)]
mod tests;
