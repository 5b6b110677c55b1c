//! The runnable form of `auth:`: how the protected mock server and the
//! scripted authorization server behave, defaults applied.

use super::IssuerMetadata;
use super::{
    IssParameter, MetadataMismatch, MetadataPlacement, PreRegistration, RegistrationRefusal, StateParameter,
};
use crate::span::Span;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientAuth {
    /// Where the authorization server is, as the scenario's version has it.
    pub layout: AuthLayout,
    pub metadata: MetadataPlacement,
    /// The 401 challenge names the metadata.
    pub names_metadata: bool,
    pub scope: Option<String>,
    /// The 401 challenge names `scope`.
    pub challenge_scope: bool,
    /// The metadata's `scopes_supported`, when not `scope`'s list.
    pub scopes_supported: Option<Vec<String>>,
    pub step_up: Option<StepUp>,
    /// The authorization server issues refresh tokens.
    pub refresh_tokens: bool,
    pub iss: IssParameter,
    pub state: StateParameter,
    /// The authorization server's metadata lists
    /// `code_challenge_methods_supported`.
    pub code_challenge_methods: bool,
    /// Dynamic Client Registration is offered.
    pub registration: bool,
    /// Client ID Metadata Documents are supported.
    pub metadata_documents: bool,
    /// The issuer identifier's path (`/tenant1`), if it has one.
    pub issuer_path: Option<String>,
    /// Which metadata the authorization server publishes (RFC 8414's or
    /// OpenID Connect Discovery's), at the well-known URL of its kind.
    pub issuer_metadata: IssuerMetadata,
    /// The metadata document that describes something else, if one does.
    pub mismatch: Option<MetadataMismatch>,
    /// The client is handed pre-registered credentials, for this
    /// authorization server or another one.
    pub pre_registered: Option<PreRegistration>,
    /// The authorization server's metadata lists `offline_access`.
    pub offline_access: bool,
    /// The first Dynamic Client Registration is refused, with this error.
    pub refuse_registration: Option<RegistrationRefusal>,
    /// The first access token is refused as expired after one request.
    pub expire_first_token: bool,
    /// The method from whose first request on a second authorization
    /// server replaces the first, if the scenario switches them.
    pub switch_from: Option<String>,
    /// Where `auth:` is written.
    pub span: Span,
}

/// Where a client finds the authorization server.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum AuthLayout {
    /// From 2025-06-18: the protected resource metadata names an
    /// authorization server on an origin of its own.
    #[default]
    ProtectedResource,
    /// 2025-03-26: the MCP server's origin is the authorization server,
    /// serving RFC 8414 metadata (`metadata`) or only the default
    /// endpoints; no protected resource metadata anywhere.
    ServerOrigin { metadata: bool },
}

/// The scope one method needs beyond `scope` (a step-up).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepUp {
    pub method: String,
    pub scope: String,
    /// The authorization server grants it when asked.
    pub granted: bool,
}
