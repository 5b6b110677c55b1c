//! The protected resource's side, what the reference server's protected
//! mode will run before serving a request: the bearer token check against
//! the issuer's JWKS, the RFC 9728 metadata document and where it lives,
//! and the `WWW-Authenticate` challenge of a refusal (RFC 6750 §3).

use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation, decode, decode_header};
use reqwest::Url;
use serde_json::{Value, json};

use super::Claims;

/// Why a request was refused, and so its status and challenge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rejection {
    /// No `Authorization` header: 401, a challenge without an error code.
    NoToken,
    /// An `Authorization` value that is no Bearer credential: 400
    /// `invalid_request`.
    Malformed,
    /// A bearer token that fails validation, and why: 401 `invalid_token`.
    InvalidToken(String),
}

impl Rejection {
    pub fn status(&self) -> u16 {
        match self {
            Self::Malformed => 400,
            Self::NoToken | Self::InvalidToken(_) => 401,
        }
    }
}

/// Guards one resource (the MCP endpoint's URL) for one issuer.
#[derive(Debug)]
pub struct ResourceGuard {
    resource: Url,
    issuer: String,
    keys: JwkSet,
}

impl ResourceGuard {
    /// A guard for `resource` accepting tokens `issuer` signs with a key
    /// from `jwks` (the issuer's JWK set document).
    pub fn new(resource: Url, issuer: &str, jwks: Value) -> Result<Self, serde_json::Error> {
        Ok(Self {
            resource,
            issuer: issuer.to_owned(),
            keys: serde_json::from_value(jwks)?,
        })
    }

    /// The claims of the token `authorization` (the header's value)
    /// carries, or why the request is refused.
    pub fn check(&self, authorization: Option<&str>) -> Result<Claims, Rejection> {
        let value = authorization.ok_or(Rejection::NoToken)?;
        let token = value
            .strip_prefix("Bearer ")
            .filter(|token| !token.is_empty() && !token.contains(' '))
            .ok_or(Rejection::Malformed)?;
        let invalid = Rejection::InvalidToken;
        let header = decode_header(token).map_err(|e| invalid(e.to_string()))?;
        let kid = header.kid.unwrap_or_default();
        let jwk = self
            .keys
            .find(&kid)
            .ok_or_else(|| invalid(format!("no published key has kid `{kid}`")))?;
        let key = DecodingKey::from_jwk(jwk).map_err(|e| invalid(e.to_string()))?;
        let mut validation = Validation::new(Algorithm::ES256);
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[self.resource.as_str()]);
        validation.validate_nbf = true;
        decode::<Claims>(token, &key, &validation)
            .map(|data| data.claims)
            .map_err(|e| invalid(e.to_string()))
    }

    /// The RFC 9728 document: this resource, protected by this issuer.
    pub fn metadata(&self) -> Value {
        json!({
            "resource": self.resource.as_str(),
            "authorization_servers": [self.issuer],
            "bearer_methods_supported": ["header"],
        })
    }

    /// Where [`Self::metadata`] is served: the well-known name inserted
    /// between the resource's origin and its path (RFC 9728 §3.1).
    pub fn metadata_url(&self) -> Url {
        let mut url = self.resource.clone();
        let path = self.resource.path().trim_end_matches('/');
        url.set_path(&format!("/.well-known/oauth-protected-resource{path}"));
        url.set_query(None);
        url
    }

    /// The `WWW-Authenticate` value answering `rejection`.
    pub fn challenge(&self, rejection: &Rejection) -> String {
        let metadata = format!("resource_metadata=\"{}\"", self.metadata_url());
        match rejection {
            Rejection::NoToken => format!("Bearer {metadata}"),
            Rejection::Malformed => format!("Bearer error=\"invalid_request\", {metadata}"),
            Rejection::InvalidToken(_) => format!("Bearer error=\"invalid_token\", {metadata}"),
        }
    }
}

#[cfg(test)]
mod tests;
