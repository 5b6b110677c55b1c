//! What a client under test did of OAuth against a protected mock server,
//! kept for the judge of its authorization (`protocol/client_auth.rs`):
//! every request it made to the scripted authorization server, and how each
//! of its requests to the mock server carried a token, and the Client ID
//! Metadata Documents it fetched. Its metadata lookups
//! at the mock server are in the mock server's own request log
//! ([`super::http::HttpClientRecord`]).

/// One request to the scripted authorization server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthRequest {
    /// `authorize#2`: the path's last segment and the request's number
    /// among all requests to the authorization server.
    pub label: String,
    pub method: String,
    pub path: String,
    /// Query parameters, then those of a form body, decoded, in order.
    pub params: Vec<(String, String)>,
    pub body: String,
    pub authorization: Option<String>,
    /// Its `MCP-Protocol-Version` header, which a 2025-03-26 client sends
    /// with its metadata lookup (AUTH-033).
    pub protocol_version: Option<String>,
    /// The status it was answered with.
    pub status: u16,
}

impl OAuthRequest {
    /// The first value of parameter `name`.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// The client ID it names: its `client_id` parameter, else the user of
    /// its HTTP Basic credential (RFC 6749 §2.3.1, form-encoded).
    pub fn client_id(&self) -> Option<String> {
        if let Some(id) = self.param("client_id") {
            return Some(id.to_owned());
        }
        let encoded = self.authorization.as_deref()?.strip_prefix("Basic ")?;
        let decoded = String::from_utf8(crate::wire::base64::decode(encoded.trim())?).ok()?;
        let (user, _password) = decoded.split_once(':')?;
        let form = format!("id={user}");
        url::form_urlencoded::parse(form.as_bytes())
            .next()
            .map(|(_, id)| id.into_owned())
    }

    /// A token request of `grant_type`.
    pub fn is_grant(&self, grant_type: &str) -> bool {
        self.method == "POST" && self.path == TOKEN_PATH && self.param("grant_type") == Some(grant_type)
    }
}

/// Where the scripted authorization server has its endpoints.
pub const AUTHORIZE_PATH: &str = "/authorize";
pub const TOKEN_PATH: &str = "/token";
pub const REGISTER_PATH: &str = "/register";

/// The client ID of pre-registered credentials (`auth: {pre_registered:
/// …}`), handed to the client under test in [`CLIENT_ID_VARIABLE`].
pub const PRE_REGISTERED_CLIENT_ID: &str = "mcp-conform-pre-registered";
/// The environment variable that hands a client its pre-registered client ID.
pub const CLIENT_ID_VARIABLE: &str = "MCP_CONFORM_CLIENT_ID";
/// The environment variable naming the authorization server (its issuer)
/// the pre-registered credentials are for, when it is not the one the
/// metadata names.
pub const CLIENT_ISSUER_VARIABLE: &str = "MCP_CONFORM_CLIENT_ISSUER";
/// The issuer of an authorization server that is not the scripted one.
pub const ANOTHER_ISSUER: &str = "https://another-authorization-server.invalid";

/// The scope that asks for a refresh token (OpenID Connect), which the
/// scripted authorization server lists when the scenario says so.
pub const OFFLINE_ACCESS: &str = "offline_access";

/// The client ID the scripted authorization server issues for the
/// registration labelled `label`: the judge knows every issued ID from the
/// record alone.
pub fn issued_client_id(label: &str) -> String {
    format!("registered-{}", label.replace('#', "-"))
}

/// One fetch of a client's Client ID Metadata Document by the scripted
/// authorization server, from the `client_id` URL of an authorization
/// request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetadataFetch {
    pub url: String,
    /// The HTTP status, or why there was none (never fetched, or failed).
    pub outcome: Result<u16, String>,
    /// The body when it was a JSON object within the size limit.
    pub document: Option<serde_json::Value>,
}

/// How one request to the protected mock server carried an access token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenUse {
    /// The label of the request in the mock server's log (`post#3`).
    pub label: String,
    /// The `Authorization` header held a Bearer credential.
    pub in_header: bool,
    /// The query string held `access_token`.
    pub in_query: bool,
    /// Why the mock server refused it; `None`: admitted.
    pub refused: Option<String>,
    /// The `iss` claim of the bearer token it carried, when that token is
    /// one the scripted authorization servers minted: which of them issued
    /// it.
    pub issuer: Option<String>,
}

/// Everything the judge of a client's authorization reads besides the mock
/// server's request log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientAuthRecord {
    /// The mock server's MCP endpoint: the resource the tokens are for.
    pub resource: String,
    /// The scripted authorization server's issuer identifier.
    pub issuer: String,
    /// The `resource_metadata` URL the 401 challenges named, if they did.
    pub challenge_metadata: Option<String>,
    /// Where the protected resource metadata was served (empty in the
    /// 2025-03-26 layout, which serves none).
    pub metadata_url: String,
    /// Every request to the authorization server, in arrival order.
    pub conversation: Vec<OAuthRequest>,
    /// Every request to the mock server that went through the token check
    /// (metadata lookups do not).
    pub tokens: Vec<TokenUse>,
    /// Every Client ID Metadata Document fetched, in order.
    pub documents: Vec<MetadataFetch>,
    /// The second authorization server, when the scenario switches to it.
    pub switch: Option<AuthSwitch>,
}

/// A second authorization server that replaced the first one
/// (`auth: {switch_authorization_server: …}`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuthSwitch {
    /// Its issuer identifier.
    pub issuer: String,
    /// The label of the mock server's request from which on the protected
    /// resource metadata named it; `None`: the client never got there.
    pub from: Option<String>,
    /// Every request to it, in arrival order; their labels start with
    /// [`SECOND_SERVER_LABEL`], so that the client IDs it issues are its own.
    pub conversation: Vec<OAuthRequest>,
}

/// What the labels of the second authorization server's requests start with.
pub const SECOND_SERVER_LABEL: &str = "second-";

impl ClientAuthRecord {
    /// Whether the client did any OAuth at all: asked for metadata or spoke
    /// to the authorization server.
    pub fn did_oauth(&self, metadata_lookups: usize) -> bool {
        metadata_lookups > 0 || !self.conversation.is_empty()
    }

    /// Whether a request of the client got past the token check.
    pub fn admitted(&self) -> bool {
        self.tokens.iter().any(|token| token.refused.is_none())
    }

    /// The authorization requests, in order.
    pub fn authorizations(&self) -> impl Iterator<Item = &OAuthRequest> {
        self.conversation
            .iter()
            .filter(|r| r.method == "GET" && r.path == AUTHORIZE_PATH)
    }
}
