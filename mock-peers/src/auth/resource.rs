//! The protected resource's side, what the reference server's protected
//! mode runs before serving a request: the bearer token check against the
//! issuer's JWKS, the scope the resource needs, the RFC 9728 metadata
//! document and where it lives, and the `WWW-Authenticate` challenge of a
//! refusal (RFC 6750 §3).

use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation, decode, decode_header};
use reqwest::Url;
use serde_json::{Value, json};

use super::Claims;
use super::issuer::METADATA_PATH;

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
    /// A token the issuer's introspection endpoint calls not active
    /// (RFC 7662 §2.2): 401 `invalid_token`.
    Inactive,
    /// A valid token without the scope the resource needs: 403
    /// `insufficient_scope`.
    InsufficientScope,
}

impl Rejection {
    pub fn status(&self) -> u16 {
        match self {
            Self::Malformed => 400,
            Self::NoToken | Self::InvalidToken(_) | Self::Inactive => 401,
            Self::InsufficientScope => 403,
        }
    }

    /// The RFC 6750 §3.1 error code, none for a request without a token.
    pub fn error_code(&self) -> Option<&'static str> {
        match self {
            Self::NoToken => None,
            Self::Malformed => Some("invalid_request"),
            Self::InvalidToken(_) | Self::Inactive => Some("invalid_token"),
            Self::InsufficientScope => Some("insufficient_scope"),
        }
    }
}

/// One validation step a verifier can leave out (what a broken server
/// forgets; the reference server's auth faults use it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skipped {
    Audience,
    Expiry,
}

/// Guards one resource (the MCP endpoint's URL) for one issuer.
#[derive(Debug)]
pub struct ResourceGuard {
    resource: Url,
    issuer: String,
    keys: JwkSet,
    /// What every request needs, also named in challenges and the metadata.
    scope: Option<String>,
    /// The issuer's RFC 8414 metadata, when the guard fetched it.
    issuer_metadata: Option<Value>,
}

impl ResourceGuard {
    /// A guard for `resource` accepting tokens `issuer` signs with a key
    /// from `jwks` (the issuer's JWK set document).
    pub fn new(resource: Url, issuer: &str, jwks: Value) -> Result<Self, serde_json::Error> {
        Ok(Self {
            resource,
            issuer: issuer.to_owned(),
            keys: serde_json::from_value(jwks)?,
            scope: None,
            issuer_metadata: None,
        })
    }

    /// A guard whose keys come from `issuer` itself, as a server configured
    /// with only its issuer URL finds them: the RFC 8414 metadata, then the
    /// JWKS at its `jwks_uri`.
    pub async fn discover(resource: Url, issuer: &str) -> Result<Self, String> {
        let client = reqwest::Client::new();
        let get = |url: String| {
            let request = client.get(&url).send();
            async move {
                let text = request
                    .await
                    .and_then(reqwest::Response::error_for_status)
                    .map_err(|e| format!("GET {url}: {e}"))?
                    .text()
                    .await
                    .map_err(|e| format!("GET {url}: {e}"))?;
                serde_json::from_str::<Value>(&text).map_err(|e| format!("GET {url}: not JSON: {e}"))
            }
        };
        let issuer = issuer.trim_end_matches('/');
        let metadata = get(format!("{issuer}{METADATA_PATH}")).await?;
        let jwks_uri = metadata["jwks_uri"]
            .as_str()
            .ok_or_else(|| format!("the metadata of {issuer} names no jwks_uri"))?;
        let jwks = get(jwks_uri.to_owned()).await?;
        let guard =
            Self::new(resource, issuer, jwks).map_err(|e| format!("{jwks_uri}: not a JWK set: {e}"))?;
        Ok(Self {
            issuer_metadata: Some(metadata),
            ..guard
        })
    }

    /// The issuer's RFC 8414 metadata as [`Self::discover`] found it.
    pub fn issuer_metadata(&self) -> Option<&Value> {
        self.issuer_metadata.as_ref()
    }

    /// Every request needs `scope` (space-separated, all of them).
    pub fn requiring_scope(self, scope: &str) -> Self {
        Self {
            scope: Some(scope.to_owned()),
            ..self
        }
    }

    pub fn resource(&self) -> &Url {
        &self.resource
    }

    /// The claims of the token `authorization` (the header's value)
    /// carries, or why the request is refused.
    pub fn check(&self, authorization: Option<&str>) -> Result<Claims, Rejection> {
        self.check_skipping(authorization, None)
    }

    /// [`Self::check`] without the step `skipped`.
    pub fn check_skipping(
        &self,
        authorization: Option<&str>,
        skipped: Option<Skipped>,
    ) -> Result<Claims, Rejection> {
        let token = bearer_token(authorization)?;
        let claims = verify(&self.keys, &self.issuer, token, skipped != Some(Skipped::Expiry))
            .map_err(Rejection::InvalidToken)?;
        self.admit(claims, skipped)
    }

    /// [`Self::check_skipping`] by asking the issuer's RFC 7662
    /// introspection endpoint (from the metadata [`Self::discover`] found)
    /// instead of verifying the token here. The issuer judges signature,
    /// issuer and time; the audience and the scope of an active token are
    /// still this resource's to judge.
    pub async fn introspect_skipping(
        &self,
        authorization: Option<&str>,
        skipped: Option<Skipped>,
    ) -> Result<Claims, Rejection> {
        let token = bearer_token(authorization)?;
        let invalid = Rejection::InvalidToken;
        let endpoint = self
            .issuer_metadata
            .as_ref()
            .and_then(|metadata| metadata["introspection_endpoint"].as_str())
            .ok_or_else(|| invalid("the issuer names no introspection_endpoint".into()))?;
        let text = reqwest::Client::new()
            .post(endpoint)
            .form(&[("token", token)])
            .send()
            .await
            .and_then(reqwest::Response::error_for_status)
            .map_err(|e| invalid(format!("introspection: {e}")))?
            .text()
            .await
            .map_err(|e| invalid(format!("introspection: {e}")))?;
        let answer: Value =
            serde_json::from_str(&text).map_err(|e| invalid(format!("introspection answer: {e}")))?;
        if answer["active"] != Value::Bool(true) {
            return Err(Rejection::Inactive);
        }
        let claims: Claims =
            serde_json::from_value(answer).map_err(|e| invalid(format!("introspection answer: {e}")))?;
        self.admit(claims, skipped)
    }

    /// The claims of a token found sound, if they name this resource and
    /// grant the needed scope.
    fn admit(&self, claims: Claims, skipped: Option<Skipped>) -> Result<Claims, Rejection> {
        if skipped != Some(Skipped::Audience) && !self.is_audience(&claims.aud) {
            return Err(Rejection::InvalidToken(format!(
                "the token is for `{}`, not this resource",
                claims.aud
            )));
        }
        if !self.grants_needed_scope(&claims) {
            return Err(Rejection::InsufficientScope);
        }
        Ok(claims)
    }

    /// Whether `aud` names this resource: parsed as a URL, so the case of
    /// scheme and host does not matter (the canonical URI is lower case,
    /// the spec asks to accept upper case too).
    fn is_audience(&self, aud: &str) -> bool {
        Url::parse(aud).is_ok_and(|url| url == self.resource)
    }

    fn grants_needed_scope(&self, claims: &Claims) -> bool {
        let granted: Vec<&str> = claims.scope.as_deref().unwrap_or_default().split(' ').collect();
        self.scope
            .as_deref()
            .is_none_or(|needed| needed.split(' ').all(|scope| granted.contains(&scope)))
    }

    /// The RFC 9728 document: this resource, protected by this issuer.
    pub fn metadata(&self) -> Value {
        let mut document = json!({
            "resource": self.resource.as_str(),
            "authorization_servers": [self.issuer],
            "bearer_methods_supported": ["header"],
        });
        if let Some(scope) = &self.scope {
            document["scopes_supported"] = scope.split(' ').collect::<Vec<_>>().into();
        }
        document
    }

    /// Where [`Self::metadata`] is served: the well-known name inserted
    /// between the resource's origin and its path (RFC 9728 §3.1).
    pub fn metadata_url(&self) -> Url {
        let mut url = self.resource.clone();
        let path = self.resource.path().trim_end_matches('/');
        url.set_path(&format!("{WELL_KNOWN}{path}"));
        url.set_query(None);
        url
    }

    /// Whether a GET on `path` asks for the metadata: at its path-specific
    /// well-known URL, or at the root one, which serves the resource too
    /// (one resource per origin here).
    pub fn serves_metadata_at(&self, path: &str) -> bool {
        path == WELL_KNOWN || path == self.metadata_url().path()
    }

    /// The `WWW-Authenticate` value answering `rejection`.
    pub fn challenge(&self, rejection: &Rejection) -> String {
        format!("Bearer {}", self.challenge_parameters(rejection).join(", "))
    }

    /// The challenge's `name="value"` parameters: the error code, the
    /// scope needed, and where the metadata is.
    pub fn challenge_parameters(&self, rejection: &Rejection) -> Vec<String> {
        let mut parameters = Vec::new();
        if let Some(code) = rejection.error_code() {
            parameters.push(format!("error=\"{code}\""));
        }
        if let Some(scope) = &self.scope {
            parameters.push(format!("scope=\"{scope}\""));
        }
        parameters.push(format!("resource_metadata=\"{}\"", self.metadata_url()));
        parameters
    }
}

/// The token of an `Authorization: Bearer <token>` value: one word.
fn bearer_token(authorization: Option<&str>) -> Result<&str, Rejection> {
    authorization
        .ok_or(Rejection::NoToken)?
        .strip_prefix("Bearer ")
        .filter(|token| !token.is_empty() && !token.contains(' '))
        .ok_or(Rejection::Malformed)
}

/// The claims of `token` if it is a JWT `issuer` signed (ES256) with a
/// key of `keys`, valid now (its expiry checked if `check_expiry`), or why
/// not. The audience is the resource's to judge, not this.
pub(super) fn verify(keys: &JwkSet, issuer: &str, token: &str, check_expiry: bool) -> Result<Claims, String> {
    let header = decode_header(token).map_err(|e| e.to_string())?;
    let kid = header.kid.unwrap_or_default();
    let jwk = keys
        .find(&kid)
        .ok_or_else(|| format!("no published key has kid `{kid}`"))?;
    let key = DecodingKey::from_jwk(jwk).map_err(|e| e.to_string())?;
    let mut validation = Validation::new(Algorithm::ES256);
    validation.set_issuer(&[issuer]);
    validation.validate_aud = false;
    validation.validate_nbf = true;
    validation.validate_exp = check_expiry;
    decode::<Claims>(token, &key, &validation)
        .map(|data| data.claims)
        .map_err(|e| e.to_string())
}

pub use mcp_conform_core::protocol::client_auth::WELL_KNOWN;

#[cfg(test)]
mod tests;
