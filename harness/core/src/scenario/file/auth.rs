//! `auth:` in `role: client` scenarios: the mock server is an OAuth
//! protected resource, and a scripted authorization server runs beside it,
//! so that the client under test goes through its authorization with no
//! browser: from 2025-06-18 the flow that starts from protected resource
//! metadata, on 2025-03-26 the one whose authorization server is the MCP
//! server's origin.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::span::Located;

/// How the protected mock server and its authorization server behave.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AuthSetup {
    /// Where the protected resource metadata (RFC 9728) is served: `path`
    /// (default: the well-known URL with the endpoint's path), `root` (the
    /// well-known URL at the root only), or `challenge` (only at a URL of
    /// its own, which the 401 challenge names).
    #[serde(default)]
    pub metadata: Option<Located<MetadataPlacement>>,
    /// Whether the 401 challenge names the metadata (`resource_metadata`).
    /// Default: true.
    #[serde(default)]
    pub resource_metadata: Option<Located<bool>>,
    /// The scope every request needs (space-separated), named in the
    /// challenge and the metadata's `scopes_supported`. Default: none.
    #[serde(default)]
    pub scope: Option<Located<String>>,
    /// Whether the 401 challenge names `scope`. Default: true.
    #[serde(default)]
    pub challenge_scope: Option<Located<bool>>,
    /// The protected resource metadata's `scopes_supported`, when it is
    /// not `scope`'s list: scenarios of scope selection (AUTH-062, 063)
    /// make the two differ. An empty list leaves the field out.
    #[serde(default)]
    pub scopes_supported: Option<Located<Vec<String>>>,
    /// The `iss` of the authorization response (RFC 9207): `correct`
    /// (default), `wrong` (another server's), `missing`, or `normalized`
    /// (the issuer with a trailing slash).
    #[serde(default)]
    pub iss: Option<Located<IssParameter>>,
    /// The `state` of the authorization response: `echoed` (default),
    /// `wrong`, or `missing`.
    #[serde(default)]
    pub state: Option<Located<StateParameter>>,
    /// Whether the authorization server's metadata lists
    /// `code_challenge_methods_supported`. Default: true.
    #[serde(default)]
    pub code_challenge_methods: Option<Located<bool>>,
    /// A step-up (AUTH-064 to 066): requests of one method need one more
    /// scope, and a token without it gets 403 `insufficient_scope`.
    #[serde(default)]
    pub step_up: Option<Located<StepUpSetup>>,
    /// Whether the authorization server issues refresh tokens. Default:
    /// true; `false` tests a client that must work without (AUTH-071).
    #[serde(default)]
    pub refresh_tokens: Option<Located<bool>>,
    /// Whether the authorization server offers Dynamic Client Registration.
    /// Default: true.
    #[serde(default)]
    pub registration: Option<Located<bool>>,
    /// Whether it supports Client ID Metadata Documents. Default: true.
    #[serde(default)]
    pub metadata_documents: Option<Located<bool>>,
    /// The path of the authorization server's issuer identifier
    /// (`/tenant1`: the issuer is `http://127.0.0.1:PORT/tenant1`, its
    /// metadata at the path-inserted well-known URL). Default: none.
    #[serde(default)]
    pub issuer_path: Option<Located<String>>,
    /// Which metadata the authorization server publishes: `oauth` (RFC
    /// 8414's, default), `openid` (OpenID Connect Discovery's only, at
    /// `/.well-known/openid-configuration` inserted before the issuer's
    /// path) or `openid-appended` (the same, appended to the issuer's
    /// path; needs `issuer_path`), which a client looks for from
    /// 2025-11-25 (AUTH-039).
    #[serde(default)]
    pub issuer_metadata: Option<Located<IssuerMetadata>>,
    /// A metadata document that describes something else, which the client
    /// must not use: `resource` (the protected resource metadata names
    /// another server) or `issuer` (the authorization server's metadata
    /// names another issuer). Default: none.
    #[serde(default)]
    pub mismatch: Option<Located<MetadataMismatch>>,
    /// Pre-registered credentials handed to the client (in
    /// `MCP_CONFORM_CLIENT_ID`, with `MCP_CONFORM_CLIENT_ISSUER` naming the
    /// authorization server they are for when it is another one):
    /// `this-server` or `another-server`. Default: none.
    #[serde(default)]
    pub pre_registered: Option<Located<PreRegistration>>,
    /// 2025-03-26 only: whether the authorization server at the MCP
    /// server's origin serves RFC 8414 metadata; without it the client must
    /// fall back to `/authorize`, `/token` and `/register` there. Default:
    /// true.
    #[serde(default)]
    pub server_metadata: Option<Located<bool>>,
    /// Whether the authorization server's metadata lists `offline_access`
    /// in `scopes_supported` (AUTH-070). Default: false.
    #[serde(default)]
    pub offline_access: Option<Located<bool>>,
    /// The error the authorization server refuses the client's first
    /// Dynamic Client Registration with (RFC 7591):
    /// `invalid-redirect-uri` or `invalid-client-metadata`; it refuses the
    /// same metadata again and accepts other metadata (AUTH-047).
    /// Default: none.
    #[serde(default)]
    pub refuse_registration: Option<Located<RegistrationRefusal>>,
    /// Whether the first access token is admitted once and then refused as
    /// expired (401 `invalid_token`), so that a client holding a refresh
    /// token uses it (AUTH-069). Default: false.
    #[serde(default)]
    pub expire_first_token: Option<Located<bool>>,
    /// A second authorization server, which replaces the first from the
    /// client's first request of one method on: that request and every
    /// later one are refused (401 `invalid_token`) unless their token is
    /// the second server's, and the protected resource metadata names only
    /// the second one (AUTH-048, AUTH-058). Default: none.
    #[serde(default)]
    pub switch_authorization_server: Option<Located<SwitchSetup>>,
}

/// When the protected resource metadata starts naming another
/// authorization server.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SwitchSetup {
    /// The JSON-RPC method (`tools/list`) whose first request finds the
    /// second authorization server in place: a request the client sends
    /// once authorized and initialized, so that it follows the switch as
    /// it follows any 401 on the way.
    pub from: String,
}

/// The scope one method needs beyond `scope`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StepUpSetup {
    /// The JSON-RPC method that needs it (`tools/call`).
    pub method: String,
    /// The scope (space-separated) it needs, which the 403 challenge names.
    pub scope: String,
    /// Whether the authorization server grants it when asked. Default:
    /// true; `false` answers every retry with 403 again (AUTH-065).
    #[serde(default)]
    pub granted: Option<bool>,
}

/// Where the protected resource metadata lives.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum MetadataPlacement {
    /// At the well-known URL with the endpoint's path.
    #[default]
    Path,
    /// At the well-known URL at the root only.
    Root,
    /// Only at the URL the challenge names.
    Challenge,
}

/// Which metadata document the authorization server publishes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
pub enum IssuerMetadata {
    /// RFC 8414's, at `/.well-known/oauth-authorization-server`.
    #[default]
    #[serde(rename = "oauth")]
    OAuth,
    /// OpenID Connect Discovery's only, at `/.well-known/openid-configuration`
    /// inserted before the issuer's path.
    #[serde(rename = "openid")]
    OpenId,
    /// OpenID Connect Discovery's only, at the issuer's path with
    /// `/.well-known/openid-configuration` appended.
    #[serde(rename = "openid-appended")]
    OpenIdAppended,
}

/// Which metadata document describes something other than what the
/// client looked up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum MetadataMismatch {
    /// The protected resource metadata's `resource` is another MCP server.
    Resource,
    /// The authorization server's metadata names another `issuer`.
    Issuer,
}

/// Which authorization server the client's pre-registered credentials
/// were registered with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PreRegistration {
    /// The scripted authorization server the metadata names.
    ThisServer,
    /// Another one, which the metadata does not name.
    AnotherServer,
}

/// Why the authorization server refuses a registration (RFC 7591 §3.2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum RegistrationRefusal {
    /// `invalid_redirect_uri`: a redirect URI it does not accept.
    InvalidRedirectUri,
    /// `invalid_client_metadata`: other metadata it does not accept.
    InvalidClientMetadata,
}

impl RegistrationRefusal {
    /// The OAuth error code of the refusal.
    pub fn error_code(self) -> &'static str {
        match self {
            RegistrationRefusal::InvalidRedirectUri => "invalid_redirect_uri",
            RegistrationRefusal::InvalidClientMetadata => "invalid_client_metadata",
        }
    }
}

/// The `iss` parameter the authorization endpoint puts on its redirect
/// (RFC 9207).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum IssParameter {
    /// The issuer, exactly.
    #[default]
    Correct,
    /// Another authorization server's issuer.
    Wrong,
    Missing,
    /// The issuer with a trailing slash: equal only after a normalisation
    /// the client must not make.
    Normalized,
}

/// The `state` parameter the authorization endpoint puts on its redirect.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum StateParameter {
    /// The client's own state, as it sent it.
    #[default]
    Echoed,
    /// A state the client never sent.
    Wrong,
    Missing,
}
