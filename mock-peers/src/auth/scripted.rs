//! The scripted authorization server that test-client runs for a client
//! under test (issue 18): RFC 8414 metadata, an authorization endpoint that
//! redirects at once to the client's `redirect_uri` (no browser, no user:
//! an unmodified client with a headless redirect handler completes the
//! flow), the `authorization_code` grant with PKCE, refresh tokens, and
//! Dynamic Client Registration, and Client ID Metadata Documents fetched
//! from the client's URL. The script says how it behaves where a
//! scenario varies it (the `iss` and `state` of the redirect, PKCE support
//! in the metadata, refresh, registration); every request is recorded for
//! the judge.

mod cimd;
pub(super) mod grants;
mod protected;
mod record;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{Value, json};
use tokio::task::JoinHandle;

use self::grants::{Grants, PendingCode, Refused, random_handle};
pub use self::protected::{CHALLENGE_METADATA_PATH, ProtectedMockServer};
pub(in crate::auth) use self::record::recorded;
use super::issuer::{loopback_listener, ok, serve_in_background};
use super::redirect::redirect_with;
use super::{IssuerError, JWKS_PATH, Minter, TOKEN_PATH, TokenChoice};
use super::{authorization_server_metadata, jwks};
use crate::transport::http_server::request::read_body;
use crate::transport::http_server::respond::{Body, json_response, status_only};
pub use mcp_conform_core::evidence::oauth::MetadataFetch;
use mcp_conform_core::evidence::oauth::{ANOTHER_ISSUER, OFFLINE_ACCESS, issued_client_id};
pub use mcp_conform_core::evidence::oauth::{AUTHORIZE_PATH, OAuthRequest, REGISTER_PATH};
use mcp_conform_core::scenario::model::IssuerMetadata;
pub use mcp_conform_core::scenario::model::{IssParameter, RegistrationRefusal, StateParameter};

/// How the scripted authorization server behaves where scenarios differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthScript {
    pub iss: IssParameter,
    pub state: StateParameter,
    /// `code_challenge_methods_supported` in the metadata.
    pub code_challenge_methods: bool,
    /// `authorization_response_iss_parameter_supported` in the metadata.
    pub advertises_iss: bool,
    pub refresh_tokens: bool,
    /// Whether `/register` (Dynamic Client Registration) exists.
    pub registration: bool,
    /// `client_id_metadata_document_supported`; without it a URL client_id
    /// is an opaque name, never fetched.
    pub metadata_documents: bool,
    /// Scopes (space-separated) never granted, however asked for: a
    /// step-up that cannot succeed (AUTH-065).
    pub withheld_scope: Option<String>,
    /// The issuer identifier's path (`/tenant1`), if it has one: the
    /// metadata is then served at the path-inserted well-known URL only.
    pub issuer_path: Option<String>,
    /// The metadata names another issuer than the one it is served for.
    pub foreign_issuer: bool,
    /// Which metadata it publishes: RFC 8414's, or OpenID Connect
    /// Discovery's only (at its own well-known URL).
    pub issuer_metadata: IssuerMetadata,
    /// Whether the RFC 8414 metadata is served at all; a 2025-03-26
    /// server without it leaves the client the default endpoints.
    pub metadata: bool,
    /// The metadata's `scopes_supported` lists `offline_access` (AUTH-070).
    pub offline_access: bool,
    /// The first registration, and any later one with the same metadata,
    /// is refused with this error (AUTH-047).
    pub refuse_registration: Option<RegistrationRefusal>,
}

impl Default for AuthScript {
    fn default() -> Self {
        Self {
            iss: IssParameter::Correct,
            state: StateParameter::Echoed,
            code_challenge_methods: true,
            advertises_iss: true,
            refresh_tokens: true,
            registration: true,
            metadata_documents: true,
            withheld_scope: None,
            issuer_path: None,
            foreign_issuer: false,
            issuer_metadata: IssuerMetadata::OAuth,
            metadata: true,
            offline_access: false,
            refuse_registration: None,
        }
    }
}

/// A running scripted authorization server; it stops when dropped.
#[derive(Debug)]
pub struct ScriptedIssuer {
    shared: Arc<Shared>,
    /// Its own listener's task; none when it answers at another server's
    /// origin ([`ScriptedIssuer::at_origin`]).
    task: Option<JoinHandle<()>>,
}

#[derive(Debug)]
struct Shared {
    minter: Minter,
    /// Where the endpoints are (the issuer without its path).
    origin: String,
    /// Where the metadata is: the URL of its kind (RFC 8414's or OpenID
    /// Connect Discovery's), for the issuer's path.
    metadata_path: String,
    script: AuthScript,
    grants: Mutex<Grants>,
    /// How many requests arrived: each one's number in its label.
    arrived: AtomicUsize,
    /// What the label of each of its requests starts with.
    label_prefix: &'static str,
    /// Every request, as it was answered.
    log: Mutex<Vec<OAuthRequest>>,
    documents: Mutex<Vec<MetadataFetch>>,
}

impl Drop for ScriptedIssuer {
    fn drop(&mut self) {
        if let Some(task) = &self.task {
            task.abort();
        }
    }
}

impl ScriptedIssuer {
    /// Listens on a free loopback port and issues tokens for `audience`
    /// (the mock server's canonical URI), behaving as `script` says.
    pub async fn start(audience: &str, script: AuthScript) -> Result<Self, IssuerError> {
        Self::start_labelled(audience, script, "").await
    }

    /// [`Self::start`] for a second authorization server beside a first
    /// one: the labels of its requests start with `prefix`, so that the
    /// client IDs it issues (made from labels) are never the first one's.
    pub async fn start_labelled(
        audience: &str,
        script: AuthScript,
        prefix: &'static str,
    ) -> Result<Self, IssuerError> {
        let (listener, origin) = loopback_listener().await?;
        let shared = Shared::new(origin, audience, script, prefix)?;
        let serving = Arc::clone(&shared);
        let task = serve_in_background(listener, "scripted authorization server", move |request| {
            answer(Arc::clone(&serving), request)
        });
        Ok(Self {
            shared,
            task: Some(task),
        })
    }

    /// The authorization server of 2025-03-26, whose base URL is the MCP
    /// server's `origin`: it has no listener, and that server hands it the
    /// requests for its paths ([`ScriptedIssuer::answer`]).
    pub fn at_origin(origin: String, audience: &str, script: AuthScript) -> Result<Self, IssuerError> {
        Ok(Self {
            shared: Shared::new(origin, audience, script, "")?,
            task: None,
        })
    }

    /// Answers and records `request`, for the server whose origin it shares.
    pub(crate) fn answer(
        &self,
        request: Request<Incoming>,
    ) -> impl Future<Output = Response<Body>> + Send + 'static {
        answer(Arc::clone(&self.shared), request)
    }

    /// The issuer identifier, which is also its base URL.
    pub fn issuer(&self) -> &str {
        self.shared.minter.issuer()
    }

    pub fn minter(&self) -> &Minter {
        &self.shared.minter
    }

    /// Every request answered so far, in the order of the answers.
    pub fn requests(&self) -> Vec<OAuthRequest> {
        lock(&self.shared.log).clone()
    }

    /// Every Client ID Metadata Document fetched so far.
    pub fn metadata_documents(&self) -> Vec<MetadataFetch> {
        lock(&self.shared.documents).clone()
    }
}

/// A poisoned lock only means a handler panicked; what it guards stays usable.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    fn new(
        origin: String,
        audience: &str,
        script: AuthScript,
        label_prefix: &'static str,
    ) -> Result<Arc<Self>, IssuerError> {
        let path = script.issuer_path.clone().unwrap_or_default();
        Ok(Arc::new(Shared {
            minter: Minter::new(&format!("{origin}{path}"), audience)?,
            origin,
            metadata_path: script.issuer_metadata.path(&path),
            script,
            grants: Mutex::default(),
            arrived: AtomicUsize::new(0),
            label_prefix,
            log: Mutex::default(),
            documents: Mutex::default(),
        }))
    }

    fn metadata(&self) -> Value {
        let origin = &self.origin;
        let mut metadata = authorization_server_metadata(origin);
        let issuer = if self.script.foreign_issuer {
            ANOTHER_ISSUER
        } else {
            self.minter.issuer()
        };
        let fields = json!({
            "issuer": issuer,
            "authorization_endpoint": format!("{origin}{AUTHORIZE_PATH}"),
            "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_post", "client_secret_basic"],
            "authorization_response_iss_parameter_supported": self.script.advertises_iss,
            "client_id_metadata_document_supported": self.script.metadata_documents,
        });
        let object = metadata.as_object_mut().expect("metadata is an object");
        object.extend(fields.as_object().expect("an object").clone());
        if !self.script.code_challenge_methods {
            object.remove("code_challenge_methods_supported");
        }
        if self.script.issuer_metadata != IssuerMetadata::OAuth {
            // What OpenID Connect Discovery requires beyond RFC 8414; no ID
            // token is ever issued.
            object.insert("subject_types_supported".into(), json!(["public"]));
            object.insert("id_token_signing_alg_values_supported".into(), json!(["ES256"]));
        }
        if self.script.offline_access {
            object.insert("scopes_supported".into(), json!([OFFLINE_ACCESS]));
        }
        if self.script.registration {
            object.insert(
                "registration_endpoint".into(),
                json!(format!("{origin}{REGISTER_PATH}")),
            );
        }
        metadata
    }

    /// `scope` without the scopes the script withholds.
    fn grantable(&self, scope: Option<String>) -> Option<String> {
        let Some(withheld) = &self.script.withheld_scope else {
            return scope;
        };
        let kept: Vec<&str> = scope
            .as_deref()
            .unwrap_or_default()
            .split(' ')
            .filter(|s| !s.is_empty() && !withheld.split(' ').any(|w| w == *s))
            .collect();
        (!kept.is_empty()).then(|| kept.join(" "))
    }

    /// The refusal the script calls for if the registration `body` now
    /// arriving is the first, or has the first one's metadata: as a real
    /// server would, it refuses the same metadata each time.
    fn refusal(&self, body: &str) -> Option<RegistrationRefusal> {
        let refusal = self.script.refuse_registration?;
        let log = lock(&self.log);
        let first = log.iter().find(|r| r.method == "POST" && r.path == REGISTER_PATH);
        let metadata = |text: &str| serde_json::from_str::<Value>(text).ok();
        first
            .is_none_or(|first| metadata(&first.body) == metadata(body))
            .then_some(refusal)
    }

    fn iss_value(&self) -> Option<String> {
        let issuer = self.minter.issuer();
        match self.script.iss {
            IssParameter::Correct => Some(issuer.to_owned()),
            IssParameter::Wrong => Some(ANOTHER_ISSUER.to_owned()),
            IssParameter::Normalized => Some(format!("{issuer}/")),
            IssParameter::Missing => None,
        }
    }
}

async fn answer(shared: Arc<Shared>, request: Request<Incoming>) -> Response<Body> {
    let (parts, body) = request.into_parts();
    let body = match read_body(body).await {
        Ok(body) => body,
        Err(refusal) => return refusal.response(),
    };
    let n = shared.arrived.fetch_add(1, Ordering::Relaxed) + 1;
    let mut recorded = record::recorded(n, &parts, &body);
    recorded.label.insert_str(0, shared.label_prefix);
    let response = match (parts.method, parts.uri.path()) {
        (Method::GET, path) if path == shared.metadata_path && shared.script.metadata => {
            ok(shared.metadata())
        }
        (Method::GET, JWKS_PATH) => ok(jwks(&[shared.minter.published_key()])),
        (Method::GET, AUTHORIZE_PATH) => authorize(&shared, &recorded).await,
        (Method::POST, TOKEN_PATH) => token(&shared, &recorded).unwrap_or_else(oauth_error),
        (Method::POST, REGISTER_PATH) if shared.script.registration => match shared.refusal(&body) {
            Some(refusal) => oauth_error(Refused(refusal.error_code())),
            None => register(&body, &recorded.label),
        },
        _ => status_only(StatusCode::NOT_FOUND),
    };
    recorded.status = response.status().as_u16();
    lock(&shared.log).push(recorded);
    response
}

/// Grants every well-formed request at once and redirects with the code;
/// a client_id that is a URL is granted only if its document admits it.
async fn authorize(shared: &Shared, request: &OAuthRequest) -> Response<Body> {
    let (Some(client_id), Some(redirect_uri), Some("code")) = (
        request.param("client_id"),
        request.param("redirect_uri"),
        request.param("response_type"),
    ) else {
        return oauth_error(Refused("invalid_request"));
    };
    if shared.script.metadata_documents && cimd::is_document_url(client_id) {
        let fetched = cimd::fetch(client_id).await;
        let admitted = cimd::admits(&fetched, redirect_uri);
        lock(&shared.documents).push(fetched);
        if !admitted {
            return oauth_error(Refused("invalid_client"));
        }
    }
    let code = lock(&shared.grants).hand_out(PendingCode {
        client_id: client_id.to_owned(),
        redirect_uri: redirect_uri.to_owned(),
        code_challenge: request.param("code_challenge").map(str::to_owned),
        code_challenge_method: request.param("code_challenge_method").map(str::to_owned),
        scope: request.param("scope").map(str::to_owned),
    });
    let state = match shared.script.state {
        StateParameter::Echoed => request.param("state").map(str::to_owned),
        StateParameter::Wrong => Some(random_handle()),
        StateParameter::Missing => None,
    };
    let iss = shared.iss_value();
    let mut params = vec![("code", code.as_str())];
    params.extend(state.as_deref().map(|state| ("state", state)));
    params.extend(iss.as_deref().map(|iss| ("iss", iss)));
    redirect_with(redirect_uri, &params).unwrap_or_else(|| oauth_error(Refused("invalid_request")))
}

fn token(shared: &Shared, request: &OAuthRequest) -> Result<Response<Body>, Refused> {
    let scope = match request.param("grant_type") {
        Some("authorization_code") => {
            let code = request.param("code").ok_or(Refused("invalid_request"))?;
            let pending = lock(&shared.grants).redeem(
                code,
                request.param("client_id"),
                request.param("redirect_uri"),
                request.param("code_verifier"),
            )?;
            pending.scope
        }
        Some("refresh_token") => {
            let token = request.param("refresh_token").ok_or(Refused("invalid_request"))?;
            lock(&shared.grants).refreshed_scope(token)?
        }
        Some("client_credentials") => request.param("scope").map(str::to_owned),
        _ => return Err(Refused("unsupported_grant_type")),
    };
    let scope = shared.grantable(scope);
    let mut granted = json!({
        "access_token": shared.minter.mint_scoped(TokenChoice::Valid, scope.as_deref()),
        "token_type": "Bearer",
        "expires_in": 3600,
    });
    if shared.script.refresh_tokens {
        granted["refresh_token"] = json!(lock(&shared.grants).issue_refresh(scope));
    }
    Ok(ok(granted))
}

/// RFC 7591: any JSON object registers, and comes back with a client ID
/// made from the request's `label`.
fn register(body: &str, label: &str) -> Response<Body> {
    let Ok(Value::Object(mut metadata)) = serde_json::from_str(body) else {
        return oauth_error(Refused("invalid_client_metadata"));
    };
    metadata.insert("client_id".into(), json!(issued_client_id(label)));
    json_response(StatusCode::CREATED, Value::Object(metadata).to_string())
}

fn oauth_error(Refused(error): Refused) -> Response<Body> {
    json_response(StatusCode::BAD_REQUEST, json!({ "error": error }).to_string())
}

#[cfg(test)]
mod tests;
