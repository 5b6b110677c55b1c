//! The mock authorization server on loopback HTTP: its RFC 8414 metadata at
//! the well-known path, its JWKS, and a token endpoint that grants
//! `client_credentials` to any client (the harness tests the resource
//! server, not client authentication).

use std::sync::Arc;

use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode};
use serde_json::json;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use super::{KeyGenerationFailed, Minter, TokenChoice, authorization_server_metadata, jwks};
use crate::transport::http_server::request::read_body;
use crate::transport::http_server::respond::{Body, json_response, status_only};
use crate::transport::http_server::serve::serve_with;

pub use mcp_conform_core::protocol::client_auth::METADATA_PATH;
pub const JWKS_PATH: &str = "/jwks";
pub const TOKEN_PATH: &str = "/token";

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
        let serving = Arc::clone(&minter);
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
pub(super) async fn loopback_listener() -> std::io::Result<(TcpListener, String)> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    Ok((listener, base))
}

/// Serves `handle` on `listener` in a task of its own; aborting the task
/// stops the server, and a failure to accept is reported and ends it.
pub(super) fn serve_in_background<H, F>(listener: TcpListener, who: &'static str, handle: H) -> JoinHandle<()>
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

async fn answer(minter: Arc<Minter>, request: Request<Incoming>) -> Response<Body> {
    let (parts, body) = request.into_parts();
    match (parts.method, parts.uri.path()) {
        (Method::GET, METADATA_PATH) => ok(authorization_server_metadata(minter.issuer())),
        (Method::GET, JWKS_PATH) => ok(jwks(&[minter.published_key()])),
        (Method::POST, TOKEN_PATH) => {
            let form = match read_body(body).await {
                Ok(form) => form,
                Err(refusal) => return refusal.response(),
            };
            let grants_client_credentials = form
                .split('&')
                .any(|pair| pair == "grant_type=client_credentials");
            // Whatever scope is asked is granted; a scope's spaces come as `+` or `%20`.
            let scope = form
                .split('&')
                .find_map(|pair| pair.strip_prefix("scope="))
                .map(|scope| scope.replace('+', " ").replace("%20", " "));
            if grants_client_credentials {
                ok(json!({
                    "access_token": minter.mint_scoped(TokenChoice::Valid, scope.as_deref()),
                    "token_type": "Bearer",
                    "expires_in": 3600,
                }))
            } else {
                let error = json!({"error": "unsupported_grant_type"});
                json_response(StatusCode::BAD_REQUEST, error.to_string())
            }
        }
        _ => status_only(StatusCode::NOT_FOUND),
    }
}

pub(super) fn ok(document: serde_json::Value) -> Response<Body> {
    json_response(StatusCode::OK, document.to_string())
}

#[cfg(test)]
mod tests;
