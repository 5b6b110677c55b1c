//! The documents the mock authorization server publishes: its RFC 8414
//! metadata and its JWKS. The endpoint paths are fixed under the issuer URL.

use serde_json::{Value, json};

use super::SigningKey;

/// RFC 8414 metadata for the authorization server at `issuer` (no trailing
/// slash). It issues tokens by `client_credentials` only; RFC 8414 requires
/// `response_types_supported` all the same.
pub fn authorization_server_metadata(issuer: &str) -> Value {
    json!({
        "issuer": issuer,
        "token_endpoint": format!("{issuer}/token"),
        "jwks_uri": format!("{issuer}/jwks"),
        "grant_types_supported": ["client_credentials"],
        "response_types_supported": ["code"],
        "token_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic"],
        "code_challenge_methods_supported": ["S256"],
    })
}

/// The JWK set a verifier fetches: the published keys only (never the
/// minter's stranger key, which is what makes an unknown-key token unknown).
pub fn jwks(published: &[&SigningKey]) -> Value {
    json!({ "keys": published.iter().map(|key| key.jwk()).collect::<Vec<_>>() })
}
