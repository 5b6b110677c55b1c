//! The mock authorization server the harness runs for a protected server
//! under test (issue 17): its signing keys, the tokens it mints on a
//! scenario's demand, and the documents it publishes (RFC 8414 metadata and
//! the JWKS), and the resource side a protected server runs (the token
//! check, its metadata and challenges), and the issuer served on loopback
//! HTTP. The reference server's protected mode builds on these pieces.
//! For client tests (issue 18), the scripted authorization server runs the
//! authorization code flow with PKCE a client under test goes through.

mod issuer;
mod keys;
mod metadata;
mod minter;
mod pkce;
mod redirect;
mod refusal;
mod resource;
mod scripted;

pub(crate) use issuer::is_loopback;
pub use issuer::{INTROSPECTION_PATH, IssuerError, JWKS_PATH, METADATA_PATH, MockIssuer, TOKEN_PATH};
pub(crate) use issuer::{loopback_listener, ok, serve_in_background};
pub use keys::{KeyGenerationFailed, SigningKey};
pub use mcp_conform_core::protocol::client_auth::{
    OPENID_CONFIGURATION, authorization_server_metadata_urls, protected_resource_metadata_urls,
};
pub use metadata::{authorization_server_metadata, jwks};
pub use minter::{Claims, GARBAGE_TOKEN, Minter, OTHER_USER, TokenChoice, USER, flip_signature_bit};
pub use pkce::s256_challenge;
pub(crate) use refusal::refusal;
pub use resource::{Rejection, ResourceGuard, Skipped, WELL_KNOWN};
pub use scripted::{
    AUTHORIZE_PATH, AuthScript, CHALLENGE_METADATA_PATH, IssParameter, MetadataFetch, OAuthRequest,
    ProtectedMockServer, REGISTER_PATH, ScriptedIssuer, StateParameter,
};
