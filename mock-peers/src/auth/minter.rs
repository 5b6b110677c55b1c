//! Access tokens on demand: a valid one for the server under test, or one
//! broken in exactly one way, so that a scenario can tell which check a
//! server skips.

use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, Header};
use serde::{Deserialize, Serialize};

pub use mcp_conform_core::auth::TokenChoice;

use super::{KeyGenerationFailed, SigningKey};

/// The claims of a minted token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claims {
    pub iss: String,
    pub aud: String,
    pub sub: String,
    pub iat: u64,
    pub nbf: u64,
    pub exp: u64,
    /// Space-separated scopes (RFC 8693 §4.2); absent when none were asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

/// How far `Expired` and `NotYetValid` sit from now, and how long a valid
/// token lives: an hour each, far beyond any verifier's clock leeway.
const HOUR: u64 = 3600;

/// The subject of every token but [`TokenChoice::OtherUser`]'s, and its.
pub const USER: &str = "mcp-conform";
pub const OTHER_USER: &str = "mcp-conform-other-user";

/// The token that is no JWT at all ([`TokenChoice::Garbage`]).
pub const GARBAGE_TOKEN: &str = "mcp-conform-garbage-token";

/// Mints tokens for one protected resource on behalf of one issuer.
#[derive(Debug)]
pub struct Minter {
    issuer: String,
    audience: String,
    key: SigningKey,
    stranger: SigningKey,
}

impl Minter {
    /// A minter for tokens `issuer` issues to the resource `audience` (the
    /// server's canonical URI), with fresh keys.
    pub fn new(issuer: &str, audience: &str) -> Result<Self, KeyGenerationFailed> {
        Ok(Self {
            issuer: issuer.to_owned(),
            audience: audience.to_owned(),
            key: SigningKey::generate("mcp-conform-1")?,
            stranger: SigningKey::generate("mcp-conform-stranger")?,
        })
    }

    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    pub fn audience(&self) -> &str {
        &self.audience
    }

    /// The key the JWKS publishes.
    pub fn published_key(&self) -> &SigningKey {
        &self.key
    }

    /// A token as `choice` asks, in compact serialization, with no scope.
    pub fn mint(&self, choice: TokenChoice) -> String {
        self.mint_scoped(choice, None)
    }

    /// A valid token, without scope, that this issuer issues to another
    /// resource, `audience`: a gateway's front, whose URL each scenario
    /// picks anew.
    pub fn mint_for(&self, audience: &str) -> String {
        let claims = Claims {
            aud: audience.to_owned(),
            ..self.claims(None)
        };
        self.sign(&claims, &self.key)
    }

    /// A token as `choice` asks, granting `scope` (space-separated).
    pub fn mint_scoped(&self, choice: TokenChoice, scope: Option<&str>) -> String {
        let mut claims = self.claims(scope);
        let now = claims.iat;
        match choice {
            TokenChoice::Valid => self.sign(&claims, &self.key),
            TokenChoice::Expired => {
                claims.iat = now - 2 * HOUR;
                claims.nbf = claims.iat;
                claims.exp = now - HOUR;
                self.sign(&claims, &self.key)
            }
            TokenChoice::NotYetValid => {
                claims.nbf = now + HOUR;
                claims.exp = now + 2 * HOUR;
                self.sign(&claims, &self.key)
            }
            TokenChoice::WrongAudience => {
                claims.aud = format!("{}/another-resource", self.audience.trim_end_matches('/'));
                self.sign(&claims, &self.key)
            }
            TokenChoice::WrongIssuer => {
                claims.iss = format!("{}/another-issuer", self.issuer.trim_end_matches('/'));
                self.sign(&claims, &self.key)
            }
            TokenChoice::BadSignature => flip_signature_bit(&self.sign(&claims, &self.key))
                .expect("jsonwebtoken writes a compact JWS in base64url"),
            TokenChoice::AlgNone => unsigned(&claims),
            TokenChoice::UnknownKey => self.sign(&claims, &self.stranger),
            TokenChoice::Garbage => GARBAGE_TOKEN.to_owned(),
            TokenChoice::UpperCaseAudience => {
                claims.aud = upper_case_origin(&self.audience);
                self.sign(&claims, &self.key)
            }
            TokenChoice::OtherUser => {
                claims.sub = OTHER_USER.to_owned();
                self.sign(&claims, &self.key)
            }
        }
    }

    /// The claims of a valid token for this resource, issued now.
    fn claims(&self, scope: Option<&str>) -> Claims {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| since.as_secs());
        Claims {
            iss: self.issuer.clone(),
            aud: self.audience.clone(),
            sub: USER.to_owned(),
            iat: now,
            nbf: now,
            exp: now + HOUR,
            scope: scope.map(str::to_owned),
        }
    }

    fn sign(&self, claims: &Claims, key: &SigningKey) -> String {
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some(key.kid().to_owned());
        jsonwebtoken::encode(&header, claims, key.encoding_key())
            .expect("an ES256 key from ring signs any claims")
    }
}

/// `uri` with its scheme and host (all before the path) in upper case.
fn upper_case_origin(uri: &str) -> String {
    let after_scheme = uri.find("://").map_or(0, |at| at + 3);
    let path_start = uri[after_scheme..]
        .find('/')
        .map_or(uri.len(), |at| after_scheme + at);
    let (origin, path) = uri.split_at(path_start);
    format!("{}{path}", origin.to_ascii_uppercase())
}

/// `token` with the first bit of its signature inverted; `None` when it is
/// no compact JWS with a signature (a user's `--token` may be opaque).
pub fn flip_signature_bit(token: &str) -> Option<String> {
    let (signed, signature) = token.rsplit_once('.')?;
    let mut bytes = URL_SAFE_NO_PAD.decode(signature).ok()?;
    *bytes.first_mut()? ^= 0x80;
    Some(format!("{signed}.{}", URL_SAFE_NO_PAD.encode(bytes)))
}

/// The claims as an unsecured JWT (RFC 7519 §6): header `alg: none`, empty
/// signature. jsonwebtoken refuses to write one, rightly.
fn unsigned(claims: &Claims) -> String {
    let part = |value: &serde_json::Value| URL_SAFE_NO_PAD.encode(value.to_string());
    let header = serde_json::json!({"alg": "none", "typ": "JWT"});
    let body = serde_json::to_value(claims).expect("claims are plain JSON");
    format!("{}.{}.", part(&header), part(&body))
}

#[cfg(test)]
mod tests;
