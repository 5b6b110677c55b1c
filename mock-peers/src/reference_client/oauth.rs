//! The reference client's OAuth, for a server that answers 401: the
//! authorization code flow, headless. From 2025-06-18 it follows
//! the challenge's `resource_metadata` (else the well-known URLs, path
//! first), takes the authorization server from the metadata, reads that
//! server's metadata at the URLs its version gives and checks its issuer,
//! refuses to go on without `code_challenge_methods_supported`, registers
//! (pre-registered credentials from `MCP_CONFORM_CLIENT_ID` unless
//! `MCP_CONFORM_CLIENT_ISSUER` says they are another server's, else Dynamic
//! Client Registration, else a Client ID Metadata Document it serves on
//! loopback), authorizes with PKCE S256, `state` and `resource`,
//! reads the redirect's `Location` instead of opening a browser, checks
//! `state` and `iss` before it redeems the code, and hands back the token
//! for the `Authorization` header. A server whose challenge names no
//! metadata and that has none is a 2025-03-26 one: its origin is the
//! authorization server (`oauth/legacy.rs`).
//!
//! Its `auth-` faults break one of these duties each.

mod document;
mod legacy;
mod metadata;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mcp_conform_core::auth::challenge;
use mcp_conform_core::evidence::oauth::{CLIENT_ID_VARIABLE, CLIENT_ISSUER_VARIABLE, OFFLINE_ACCESS};
use mcp_conform_core::wire::Frame;
use reqwest::Url;
use ring::rand::{SecureRandom, SystemRandom};
use serde_json::{Value, json};

use self::metadata::{Metadata, at_server_origin, authorization_server, protected_resource};
use super::ClientFault;
use crate::auth::s256_challenge;

/// Where the authorization server is told to send the browser back. Nothing
/// listens there: the client reads the redirect itself.
const REDIRECT_URI: &str = "http://127.0.0.1:33418/callback";
/// The redirect URI of the `auth-remote-redirect` fault: plain http, not
/// on this machine.
const REMOTE_REDIRECT_URI: &str = "http://client.example.com/callback";
/// The redirect URI of the `auth-unregistered-redirect` fault: on this
/// machine, but not the one registered.
const UNREGISTERED_REDIRECT_URI: &str = "http://127.0.0.1:33419/callback";
/// The client ID of the `auth-unregistered-client-id` and
/// `http-legacy-auth-no-registration` faults.
const UNREGISTERED_CLIENT_ID: &str = "mcp-conform-reference-client";

/// The scope the `http-auth-scope-invented` fault asks for when nothing
/// names one: a default such as a client might carry.
const INVENTED_SCOPE: &str = "mcp";

/// How the client presents the token it got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Credential {
    /// `Authorization: Bearer …` (correct).
    Header(String),
    /// `?access_token=…` (the `auth-token-in-query` fault).
    Query(String),
}

/// How many times the client steps up for one request before it gives up
/// (AUTH-065: "a few"; the judge allows up to three).
const STEP_UP_ATTEMPTS: usize = 2;
/// The `http-auth-unbounded-step-up` fault's: past any "few", yet bounded
/// so that the run ends.
const UNBOUNDED_STEP_UP_ATTEMPTS: usize = 8;

/// How many times the `auth-retries-refused-registration` fault sends a
/// refused registration: past one retry, yet bounded so that the run ends.
const REFUSED_REGISTRATION_ATTEMPTS: usize = 5;

/// The `WWW-Authenticate` of a 401 the server answered, if it did.
pub(super) fn challenge_in(transcript: &[Frame]) -> Option<Value> {
    challenge_of(transcript, 401)
}

/// The `WWW-Authenticate` of a 401 `invalid_token` (an expired token, to
/// a client that was let in), if one came.
pub(super) fn invalid_token_in(transcript: &[Frame]) -> Option<Value> {
    challenge_of(transcript, 401).filter(|challenge| challenge["error"] == "invalid_token")
}

/// The `WWW-Authenticate` of a 403 `insufficient_scope`, if one came.
pub(super) fn insufficient_scope_in(transcript: &[Frame]) -> Option<Value> {
    challenge_of(transcript, 403).filter(|challenge| challenge["error"] == "insufficient_scope")
}

fn challenge_of(transcript: &[Frame], status: u16) -> Option<Value> {
    transcript
        .iter()
        .filter(|frame| frame.meta.http_status == Some(status))
        .find_map(|frame| frame.meta.headers.get("www-authenticate"))
        .and_then(|header| challenge(header))
}

/// A token the client holds, and what it needs to step up.
pub(super) struct Authorized {
    pub credential: Credential,
    url: String,
    /// The client ID the token was got with, valid at its authorization
    /// server only.
    client_id: String,
    /// The scope the last authorization asked for.
    scope: Option<String>,
    /// Step-ups so far.
    attempts: usize,
    /// How to renew the token, when a refresh token came with it.
    refresh: Option<Refresh>,
}

/// A refresh token, and where and for whom to redeem it.
struct Refresh {
    token_endpoint: String,
    client_id: String,
    resource: String,
    token: String,
}

impl Authorized {
    /// Authorizes again after a 403 `insufficient_scope` (AUTH-064), with
    /// the scopes asked for before and the challenged ones (AUTH-066), a
    /// few times at most (AUTH-065); the new token, or why not.
    pub(super) async fn step_up(
        &mut self,
        challenge: &Value,
        fault: Option<ClientFault>,
    ) -> Result<String, String> {
        let limit = match fault {
            Some(ClientFault::AuthNeverStepsUp) => 0,
            Some(ClientFault::AuthUnboundedStepUp) => UNBOUNDED_STEP_UP_ATTEMPTS,
            _ => STEP_UP_ATTEMPTS,
        };
        if self.attempts >= limit {
            return Err(format!(
                "403 insufficient_scope after {} step-ups: given up",
                self.attempts
            ));
        }
        let challenged = challenge["scope"].as_str().unwrap_or_default();
        let mut scope: Vec<&str> = match fault {
            Some(ClientFault::AuthStepUpDropsScopes) => Vec::new(),
            _ => self.scope.as_deref().unwrap_or_default().split(' ').collect(),
        };
        scope.extend(challenged.split(' '));
        let mut asked: Vec<&str> = Vec::new();
        for word in scope.into_iter().filter(|s| !s.is_empty()) {
            if !asked.contains(&word) {
                asked.push(word);
            }
        }
        let granted = authorize_with(&self.url, challenge, Some(asked.join(" ")), None, fault).await?;
        *self = Authorized {
            attempts: self.attempts + 1,
            ..granted
        };
        Ok(self.token().to_owned())
    }

    /// Authorizes from the start after a 401 that even a renewed token
    /// got: the metadata may now name another authorization server, with
    /// which the client registers again (AUTH-048) before it asks for a
    /// token there (AUTH-058). The new token, or why not.
    pub(super) async fn authorize_again(
        &mut self,
        challenge: &Value,
        fault: Option<ClientFault>,
    ) -> Result<String, String> {
        if fault == Some(ClientFault::AuthKeepsOldToken) {
            // It reads where the authorization server now is, and goes on
            // with the token it holds all the same.
            let resource: Url = self.url.parse().map_err(|e| format!("{}: {e}", self.url))?;
            let named = challenge["resource_metadata"]
                .as_str()
                .and_then(|n| n.parse::<Url>().ok());
            protected_resource(&client()?, &resource, named.as_ref(), fault).await?;
            return Ok(self.token().to_owned());
        }
        let kept = (fault == Some(ClientFault::AuthReusesClientId)).then_some(self.client_id.as_str());
        *self = authorize_with(&self.url, challenge, None, kept, fault).await?;
        Ok(self.token().to_owned())
    }

    fn token(&self) -> &str {
        match &self.credential {
            Credential::Header(token) | Credential::Query(token) => token,
        }
    }

    /// Renews an expired token with the refresh token, once; the new
    /// access token, or why not.
    pub(super) async fn refresh(&mut self) -> Result<String, String> {
        let Refresh {
            token_endpoint,
            client_id,
            resource,
            token,
        } = self
            .refresh
            .take()
            .ok_or("the token expired, and no refresh token came with it")?;
        let form = [
            ("grant_type", "refresh_token"),
            ("refresh_token", token.as_str()),
            ("client_id", client_id.as_str()),
            ("resource", resource.as_str()),
        ];
        let answer = client()?
            .post(&token_endpoint)
            .form(&form)
            .send()
            .await
            .map_err(|e| format!("POST {token_endpoint}: {e}"))?;
        let granted = metadata::json_of(answer, &token_endpoint).await?;
        granted["access_token"]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("{token_endpoint} granted no access_token: {granted}"))
    }
}

/// Runs the flow for the MCP endpoint `url` from its 401 `challenge`.
pub(super) async fn authorize(
    url: &str,
    challenge: &Value,
    fault: Option<ClientFault>,
) -> Result<Authorized, String> {
    authorize_with(url, challenge, None, None, fault).await
}

/// The flow, asking for `scope` when given, else for what the challenge
/// and the metadata say; `kept` is the client ID of an earlier flow that the
/// `modern-http-auth-reuses-client-id` fault brings to whatever
/// authorization server the metadata names.
async fn authorize_with(
    url: &str,
    challenge: &Value,
    scope: Option<String>,
    kept: Option<&str>,
    fault: Option<ClientFault>,
) -> Result<Authorized, String> {
    let resource: Url = url.parse().map_err(|e| format!("{url}: {e}"))?;
    let named = challenge["resource_metadata"]
        .as_str()
        .filter(|_| fault != Some(ClientFault::AuthIgnoresResourceMetadata))
        .and_then(|named| named.parse::<Url>().ok());
    let http = client()?;
    let (issuer, server, resource_metadata) =
        match protected_resource(&http, &resource, named.as_ref(), fault).await {
            Ok(resource_metadata) => {
                if fault == Some(ClientFault::AuthAssumesServerOrigin) {
                    at_server_origin(&http, &resource).await;
                }
                let issuer = resource_metadata["authorization_servers"][0]
                    .as_str()
                    .ok_or("the protected resource metadata names no authorization server")?
                    .to_owned();
                let server = authorization_server(&http, &issuer, fault).await?;
                (issuer, server, resource_metadata)
            }
            // A 2025-03-26 server: no metadata named, none found.
            Err(_) if challenge["resource_metadata"].is_null() => {
                let (issuer, server) = legacy::authorization_server(&http, &resource, fault).await?;
                (issuer, server, json!({}))
            }
            Err(why) => return Err(why),
        };
    let issuer = issuer.as_str();
    if server.get("code_challenge_methods_supported").is_none() {
        return Err(format!(
            "{issuer} lists no code_challenge_methods_supported: no PKCE, no authorization"
        ));
    }
    // The document, when the client uses one, is served until the flow ends.
    let mut document = None;
    let client_id = match (pre_registered(issuer, fault)?.or(kept.map(str::to_owned)), fault) {
        (Some(id), _) => id,
        (None, Some(ClientFault::AuthLegacyNoRegistration)) => UNREGISTERED_CLIENT_ID.to_owned(),
        (None, _) if uses_metadata_document(&server) => {
            document.insert(document::serve(fault).await?).url.clone()
        }
        (None, _) => register(&http, &server, fault).await?,
    };
    let scope = scope.or_else(|| scope_to_ask(challenge, &resource_metadata, fault));
    let scope = with_offline_access(scope, &server);
    let flow = Flow {
        http: &http,
        server: &server,
        issuer,
        client_id: &client_id,
        resource: url,
        fault,
    };
    let code = flow.authorization_code(scope.as_deref()).await?;
    let (token, refresh_token) = flow.redeem(&code).await?;
    drop(document);
    let credential = match fault {
        Some(ClientFault::AuthTokenInQuery) => Credential::Query(token),
        _ => Credential::Header(token),
    };
    let refresh = refresh_token.map(|token| Refresh {
        token_endpoint: flow.endpoint("token_endpoint").unwrap_or_default().to_owned(),
        client_id: client_id.clone(),
        resource: url.to_owned(),
        token,
    });
    Ok(Authorized {
        credential,
        url: url.to_owned(),
        client_id,
        scope,
        attempts: 0,
        refresh,
    })
}

fn client() -> Result<reqwest::Client, String> {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| e.to_string())
}

/// Where the authorization server sends the code back.
fn redirect_uri(fault: Option<ClientFault>) -> &'static str {
    match fault {
        Some(ClientFault::AuthRemoteRedirect) => REMOTE_REDIRECT_URI,
        Some(ClientFault::AuthUnregisteredRedirect) => UNREGISTERED_REDIRECT_URI,
        _ => REDIRECT_URI,
    }
}

/// The scope of the first authorization: the challenge's, else all of
/// the protected resource metadata's `scopes_supported`, else none.
fn scope_to_ask(challenge: &Value, metadata: &Value, fault: Option<ClientFault>) -> Option<String> {
    let supported: Vec<&str> = metadata["scopes_supported"]
        .as_array()
        .map(|scopes| scopes.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let all_supported = (!supported.is_empty()).then(|| supported.join(" "));
    let challenged = challenge["scope"].as_str();
    match fault {
        Some(ClientFault::AuthScopeFromMetadata) => all_supported.or(challenged.map(str::to_owned)),
        Some(ClientFault::AuthScopeInvented) => challenged
            .map(str::to_owned)
            .or(all_supported)
            .or_else(|| Some(INVENTED_SCOPE.to_owned())),
        Some(ClientFault::AuthScopeWithinSupported) => {
            let kept: Vec<&str> = challenged
                .unwrap_or_default()
                .split(' ')
                .filter(|scope| supported.contains(scope))
                .collect();
            (!kept.is_empty()).then(|| kept.join(" ")).or(all_supported)
        }
        _ => challenged.map(str::to_owned).or(all_supported),
    }
}

/// `scope` with `offline_access` added when the authorization server
/// lists it (AUTH-070, a MAY the client takes: it wants refresh tokens).
fn with_offline_access(scope: Option<String>, server: &Metadata) -> Option<String> {
    let listed = server["scopes_supported"]
        .as_array()
        .is_some_and(|scopes| scopes.iter().any(|s| s == OFFLINE_ACCESS));
    let asked = scope
        .as_deref()
        .unwrap_or_default()
        .split(' ')
        .any(|s| s == OFFLINE_ACCESS);
    if !listed || asked {
        return scope;
    }
    Some(match scope {
        Some(scope) if !scope.is_empty() => format!("{scope} {OFFLINE_ACCESS}"),
        _ => OFFLINE_ACCESS.to_owned(),
    })
}

/// The redirect URIs the client registers.
fn registered_redirect_uri(fault: Option<ClientFault>) -> &'static str {
    match fault {
        Some(ClientFault::AuthUnregisteredRedirect) => REDIRECT_URI,
        _ => redirect_uri(fault),
    }
}

/// The client ID pre-registered with `issuer`, when the person running the
/// client has one (`MCP_CONFORM_CLIENT_ID`); credentials registered with
/// another authorization server (`MCP_CONFORM_CLIENT_ISSUER`) are an error,
/// never tried.
fn pre_registered(issuer: &str, fault: Option<ClientFault>) -> Result<Option<String>, String> {
    let Ok(id) = std::env::var(CLIENT_ID_VARIABLE) else {
        return Ok(None);
    };
    if fault == Some(ClientFault::AuthIgnoresPreRegistration) {
        return Ok(None);
    }
    match std::env::var(CLIENT_ISSUER_VARIABLE) {
        Ok(other) if other != issuer && fault != Some(ClientFault::AuthTriesForeignCredentials) => Err(
            format!("the pre-registered client ID is for {other}, and the metadata names {issuer}"),
        ),
        _ => Ok(Some(id)),
    }
}

/// Whether the client names itself by a metadata document: where the
/// authorization server supports them and offers no Dynamic Client
/// Registration (with both, it registers: its document lives only as long
/// as its run).
fn uses_metadata_document(server: &Metadata) -> bool {
    server["client_id_metadata_document_supported"] == json!(true)
        && server.get("registration_endpoint").is_none()
}

/// Registered now by Dynamic Client Registration.
async fn register(
    http: &reqwest::Client,
    server: &Metadata,
    fault: Option<ClientFault>,
) -> Result<String, String> {
    let endpoint = server["registration_endpoint"]
        .as_str()
        .ok_or("no pre-registered client id and no registration endpoint")?;
    let mut registration = json!({
        "client_name": "mcp-conform reference client",
        "redirect_uris": [registered_redirect_uri(fault)],
        "application_type": application_type(fault),
        "grant_types": grant_types(fault),
        "token_endpoint_auth_method": "none",
    });
    if fault == Some(ClientFault::AuthNoApplicationType) {
        registration
            .as_object_mut()
            .expect("an object")
            .remove("application_type");
    }
    // A refused registration ends the flow with its error (AUTH-047); the
    // fault sends the same metadata again and again.
    let attempts = match fault {
        Some(ClientFault::AuthRetriesRefusedRegistration) => REFUSED_REGISTRATION_ATTEMPTS,
        _ => 1,
    };
    let mut registered = Err(format!("{endpoint}: never asked"));
    for _ in 0..attempts {
        registered = send_registration(http, endpoint, &registration).await;
        if registered.is_ok() {
            break;
        }
    }
    let registered = registered?;
    if fault == Some(ClientFault::AuthUnregisteredClientId) {
        return Ok(UNREGISTERED_CLIENT_ID.to_owned());
    }
    registered["client_id"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("{endpoint} registered no client_id"))
}

async fn send_registration(
    http: &reqwest::Client,
    endpoint: &str,
    registration: &Value,
) -> Result<Value, String> {
    let answer = http
        .post(endpoint)
        .header("content-type", "application/json")
        .body(registration.to_string())
        .send()
        .await
        .map_err(|e| format!("POST {endpoint}: {e}"))?;
    metadata::json_of(answer, endpoint).await
}

/// The grants the client declares: it uses refresh tokens (AUTH-069).
fn grant_types(fault: Option<ClientFault>) -> Value {
    match fault {
        Some(ClientFault::AuthUndeclaredRefreshGrant) => json!(["authorization_code"]),
        _ => json!(["authorization_code", "refresh_token"]),
    }
}

/// Native: the client is a command-line program redirecting to loopback.
fn application_type(fault: Option<ClientFault>) -> &'static str {
    match fault {
        Some(ClientFault::AuthWebApplicationType) => "web",
        _ => "native",
    }
}

/// One authorization with one authorization server.
struct Flow<'a> {
    http: &'a reqwest::Client,
    server: &'a Metadata,
    issuer: &'a str,
    client_id: &'a str,
    resource: &'a str,
    fault: Option<ClientFault>,
}

impl Flow<'_> {
    fn endpoint(&self, name: &str) -> Result<&str, String> {
        self.server[name]
            .as_str()
            .ok_or_else(|| format!("the authorization server's metadata names no {name}"))
    }

    /// Asks for a code, reads the redirect, and checks `state` and `iss`
    /// before the code is used.
    async fn authorization_code(&self, scope: Option<&str>) -> Result<(String, String), String> {
        let verifier = random_text();
        let state = random_text();
        let challenge = match self.fault {
            Some(ClientFault::AuthPlainPkce) => verifier.clone(),
            _ => s256_challenge(&verifier),
        };
        let mut query = vec![
            ("response_type", "code"),
            ("client_id", self.client_id),
            ("redirect_uri", redirect_uri(self.fault)),
            ("state", &state),
        ];
        match self.fault {
            Some(ClientFault::AuthNoPkce) => {}
            Some(ClientFault::AuthPlainPkce) => query.extend([
                ("code_challenge", challenge.as_str()),
                ("code_challenge_method", "plain"),
            ]),
            _ => query.extend([
                ("code_challenge", challenge.as_str()),
                ("code_challenge_method", "S256"),
            ]),
        }
        if self.fault != Some(ClientFault::AuthNoResource) {
            query.push(("resource", self.resource));
        }
        query.extend(scope.map(|scope| ("scope", scope)));
        let endpoint = self.endpoint("authorization_endpoint")?;
        let answer = self
            .http
            .get(endpoint)
            .query(&query)
            .send()
            .await
            .map_err(|e| format!("GET {endpoint}: {e}"))?;
        let location = answer
            .headers()
            .get("location")
            .and_then(|value| value.to_str().ok())
            .ok_or_else(|| format!("{endpoint} answered {} without a redirect", answer.status()))?;
        let back: Url = location
            .parse()
            .map_err(|e| format!("the redirect {location}: {e}"))?;
        let param = |name: &str| {
            back.query_pairs()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.into_owned())
        };
        if self.fault != Some(ClientFault::AuthIgnoresState)
            && param("state").as_deref() != Some(state.as_str())
        {
            return Err("the authorization response's state is not the one sent: thrown away".into());
        }
        if self.fault != Some(ClientFault::AuthSkipsIssuerCheck) {
            self.check_iss(param("iss").as_deref())?;
        }
        let code = param("code").ok_or_else(|| format!("the redirect {location} carries no code"))?;
        Ok((code, verifier))
    }

    /// RFC 9207: a present `iss` is the issuer exactly; a missing one is
    /// refused when the metadata promised it.
    fn check_iss(&self, iss: Option<&str>) -> Result<(), String> {
        let promised = self.server["authorization_response_iss_parameter_supported"] == json!(true);
        match iss {
            Some(iss) if iss != self.issuer => Err(format!(
                "the authorization response's iss `{iss}` is not {}",
                self.issuer
            )),
            None if promised => {
                Err("the authorization response carries no iss, which the metadata promised".into())
            }
            _ => Ok(()),
        }
    }

    /// Redeems the code with its PKCE verifier: the access token, and the
    /// refresh token if one came.
    async fn redeem(&self, (code, verifier): &(String, String)) -> Result<(String, Option<String>), String> {
        let mut form = vec![
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", redirect_uri(self.fault)),
            ("client_id", self.client_id),
        ];
        if self.fault != Some(ClientFault::AuthNoPkce) {
            form.push(("code_verifier", verifier));
        }
        if self.fault != Some(ClientFault::AuthNoResource) {
            form.push(("resource", self.resource));
        }
        let endpoint = self.endpoint("token_endpoint")?;
        let answer = self
            .http
            .post(endpoint)
            .form(&form)
            .send()
            .await
            .map_err(|e| format!("POST {endpoint}: {e}"))?;
        let granted = metadata::json_of(answer, endpoint).await?;
        if self.fault == Some(ClientFault::AuthNeedsRefreshToken) && granted.get("refresh_token").is_none() {
            return Err(format!("{endpoint} granted no refresh_token"));
        }
        let access_token = granted["access_token"]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("{endpoint} granted no access_token: {granted}"))?;
        Ok((access_token, granted["refresh_token"].as_str().map(str::to_owned)))
    }
}

/// 256 random bits, URL-safe: PKCE verifiers and states.
fn random_text() -> String {
    let mut bytes = [0_u8; 32];
    SystemRandom::new()
        .fill(&mut bytes)
        .expect("the operating system's random generator");
    URL_SAFE_NO_PAD.encode(bytes)
}
