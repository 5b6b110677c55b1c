//! The protected mock server over real HTTP: metadata where the scenario
//! puts it, a challenge naming it, tokens checked against the scripted
//! authorization server, and how each request carried its token recorded.

use mcp_conform_core::scenario::model::{AuthLayout, IssParameter, IssuerMetadata, StateParameter};
use mcp_conform_core::span::Span;

use super::*;
use crate::auth::{AUTHORIZE_PATH, METADATA_PATH, TOKEN_PATH};

const REDIRECT: &str = "http://localhost:3000/callback";

fn auth(metadata: MetadataPlacement) -> ClientAuth {
    ClientAuth {
        layout: AuthLayout::ProtectedResource,
        metadata,
        names_metadata: true,
        scope: Some("mcp".into()),
        challenge_scope: true,
        scopes_supported: None,
        step_up: None,
        refresh_tokens: true,
        iss: IssParameter::Correct,
        state: StateParameter::Echoed,
        code_challenge_methods: true,
        registration: true,
        metadata_documents: true,
        issuer_path: None,
        issuer_metadata: IssuerMetadata::OAuth,
        mismatch: None,
        pre_registered: None,
        offline_access: false,
        refuse_registration: None,
        expire_first_token: false,
        switch_from: None,
        span: Span::default(),
    }
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

async fn protected(metadata: MetadataPlacement) -> HttpServerTransport {
    let server = HttpServerTransport::bind("127.0.0.1:0").await.unwrap();
    ProtectedMockServer::install(&server, &auth(metadata))
        .await
        .unwrap();
    server
}

async fn json_of(response: reqwest::Response) -> serde_json::Value {
    serde_json::from_str(&response.text().await.unwrap()).unwrap()
}

fn origin(server: &HttpServerTransport) -> String {
    server.url().trim_end_matches("/mcp").to_owned()
}

async fn post(url: &str, token: Option<&str>) -> reqwest::Response {
    post_method(url, token, "notifications/initialized").await
}

async fn post_method(url: &str, token: Option<&str>, method: &str) -> reqwest::Response {
    let mut request = client()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(serde_json::json!({"jsonrpc": "2.0", "method": method}).to_string());
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.unwrap()
}

/// A token of the scripted authorization server, through its code flow.
async fn token_of(server: &HttpServerTransport) -> String {
    token_from(&server.record().auth.unwrap().issuer).await
}

/// A token of the authorization server `issuer`, through its code flow.
async fn token_from(issuer: &str) -> String {
    let query = [
        ("response_type", "code"),
        ("client_id", "c"),
        ("redirect_uri", REDIRECT),
        ("scope", "mcp"),
    ];
    let redirect = client()
        .get(format!("{issuer}{AUTHORIZE_PATH}"))
        .query(&query)
        .send()
        .await
        .unwrap();
    let location = redirect.headers()["location"].to_str().unwrap().to_owned();
    let (_, query) = location.split_once('?').unwrap();
    let code = form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == "code")
        .unwrap()
        .1
        .into_owned();
    let form = [
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("redirect_uri", REDIRECT),
    ];
    let granted = json_of(
        client()
            .post(format!("{issuer}/token"))
            .form(&form)
            .send()
            .await
            .unwrap(),
    )
    .await;
    granted["access_token"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_request_without_a_token_is_challenged_toward_the_metadata() {
    let server = protected(MetadataPlacement::Path).await;
    let refused = post(server.url(), None).await;
    assert_eq!(refused.status(), reqwest::StatusCode::UNAUTHORIZED);
    let challenge = refused.headers()["www-authenticate"].to_str().unwrap().to_owned();
    let metadata_url = format!("{}/.well-known/oauth-protected-resource/mcp", origin(&server));
    assert!(
        challenge.contains(&format!("resource_metadata=\"{metadata_url}\"")),
        "{challenge}"
    );
    let document = json_of(client().get(&metadata_url).send().await.unwrap()).await;
    assert_eq!(document["resource"], server.url());
    let root = format!("{}{WELL_KNOWN}", origin(&server));
    assert_eq!(
        client().get(root).send().await.unwrap().status(),
        reqwest::StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn the_metadata_lives_where_the_scenario_says() {
    let server = protected(MetadataPlacement::Challenge).await;
    let custom = format!("{}{CHALLENGE_METADATA_PATH}", origin(&server));
    let refused = post(server.url(), None).await;
    let challenge = refused.headers()["www-authenticate"].to_str().unwrap().to_owned();
    assert!(challenge.contains(&custom), "{challenge}");
    assert_eq!(
        client().get(&custom).send().await.unwrap().status(),
        reqwest::StatusCode::OK
    );
    let path_specific = format!("{}{WELL_KNOWN}/mcp", origin(&server));
    assert_eq!(
        client().get(path_specific).send().await.unwrap().status(),
        reqwest::StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn the_issuers_token_in_the_header_is_admitted_and_every_use_recorded() {
    let server = protected(MetadataPlacement::Root).await;
    let token = token_of(&server).await;
    assert_ne!(
        post(server.url(), Some(&token)).await.status(),
        reqwest::StatusCode::UNAUTHORIZED
    );
    let in_query = format!("{}?access_token={token}", server.url());
    assert_eq!(
        post(&in_query, None).await.status(),
        reqwest::StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        post(server.url(), Some("not-a-token")).await.status(),
        reqwest::StatusCode::UNAUTHORIZED
    );
    let record = server.record().auth.unwrap();
    let uses: Vec<(bool, bool, bool)> = record
        .tokens
        .iter()
        .map(|t| (t.in_header, t.in_query, t.refused.is_none()))
        .collect();
    assert_eq!(
        uses,
        [(true, false, true), (false, true, false), (true, false, false)]
    );
    assert_eq!(record.resource, server.url());
    let paths: Vec<&str> = record.conversation.iter().map(|r| r.path.as_str()).collect();
    assert_eq!(paths, [AUTHORIZE_PATH, "/token"]);
    assert_eq!(record.conversation[0].label, "authorize#1");
    assert_eq!(record.conversation[0].status, 302);
}

#[tokio::test]
async fn mismatched_metadata_names_another_server_as_its_resource() {
    let server = HttpServerTransport::bind("127.0.0.1:0").await.unwrap();
    let setup = ClientAuth {
        mismatch: Some(MetadataMismatch::Resource),
        ..auth(MetadataPlacement::Path)
    };
    ProtectedMockServer::install(&server, &setup).await.unwrap();
    let metadata_url = format!("{}{WELL_KNOWN}/mcp", origin(&server));
    let document = json_of(client().get(&metadata_url).send().await.unwrap()).await;
    assert_eq!(document["resource"], ANOTHER_RESOURCE);
    assert!(document["authorization_servers"][0].is_string());
}

/// The 2025-03-26 layout at `server`, its metadata served or not.
async fn at_origin(metadata: bool) -> HttpServerTransport {
    let server = HttpServerTransport::bind("127.0.0.1:0").await.unwrap();
    let setup = ClientAuth {
        layout: AuthLayout::ServerOrigin { metadata },
        names_metadata: false,
        scope: None,
        metadata_documents: false,
        ..auth(MetadataPlacement::Path)
    };
    ProtectedMockServer::install(&server, &setup).await.unwrap();
    server
}

#[tokio::test]
async fn on_2025_03_26_the_origin_is_the_authorization_server_and_no_resource_metadata_exists() {
    let server = at_origin(true).await;
    let refused = post(server.url(), None).await;
    let challenge = refused.headers()["www-authenticate"].to_str().unwrap().to_owned();
    assert!(!challenge.contains("resource_metadata"), "{challenge}");
    let prm = client()
        .get(format!("{}{WELL_KNOWN}/mcp", origin(&server)))
        .send()
        .await
        .unwrap();
    assert_eq!(prm.status(), reqwest::StatusCode::NOT_FOUND);
    let metadata = client()
        .get(format!("{}{METADATA_PATH}", origin(&server)))
        .header("mcp-protocol-version", "2025-03-26")
        .send()
        .await
        .unwrap();
    let metadata = json_of(metadata).await;
    assert_eq!(metadata["issuer"], origin(&server));
    assert_eq!(
        metadata["authorization_endpoint"],
        format!("{}{AUTHORIZE_PATH}", origin(&server))
    );
    let token = token_of(&server).await;
    assert_ne!(
        post(server.url(), Some(&token)).await.status(),
        reqwest::StatusCode::UNAUTHORIZED
    );
    let record = server.record();
    let auth = record.auth.unwrap();
    assert_eq!(auth.issuer, origin(&server));
    assert_eq!(auth.metadata_url, "");
    let lookup = &auth.conversation[0];
    assert_eq!((lookup.path.as_str(), lookup.status), (METADATA_PATH, 200));
    assert_eq!(lookup.protocol_version.as_deref(), Some("2025-03-26"));
    let paths: Vec<&str> = auth.conversation[1..].iter().map(|r| r.path.as_str()).collect();
    assert_eq!(paths, [AUTHORIZE_PATH, TOKEN_PATH]);
    let logged: Vec<&str> = record.requests.iter().map(|r| r.target.as_str()).collect();
    assert!(
        logged
            .iter()
            .all(|target| !target.starts_with(AUTHORIZE_PATH) && *target != TOKEN_PATH),
        "the authorization server's requests stay out of the mock server's log: {logged:?}"
    );
}

#[tokio::test]
async fn on_2025_03_26_without_metadata_only_the_default_endpoints_answer() {
    let server = at_origin(false).await;
    let lookup = client()
        .get(format!("{}{METADATA_PATH}", origin(&server)))
        .send()
        .await
        .unwrap();
    assert_eq!(lookup.status(), reqwest::StatusCode::NOT_FOUND);
    let token = token_of(&server).await;
    assert_ne!(
        post(server.url(), Some(&token)).await.status(),
        reqwest::StatusCode::UNAUTHORIZED
    );
    let auth = server.record().auth.unwrap();
    assert_eq!(auth.conversation[0].status, 404);
    assert_eq!(auth.conversation[0].protocol_version, None);
}

#[tokio::test]
async fn a_switch_puts_the_second_authorization_server_in_place_from_its_method_on() {
    let server = HttpServerTransport::bind("127.0.0.1:0").await.unwrap();
    let setup = ClientAuth {
        switch_from: Some("tools/list".into()),
        ..auth(MetadataPlacement::Path)
    };
    ProtectedMockServer::install(&server, &setup).await.unwrap();
    let metadata_url = format!("{}{WELL_KNOWN}/mcp", origin(&server));
    let named = || async { json_of(client().get(&metadata_url).send().await.unwrap()).await };
    let first = server.record().auth.unwrap().issuer;
    assert_eq!(named().await["authorization_servers"][0], first.as_str());
    let old = token_of(&server).await;
    assert_ne!(post(server.url(), Some(&old)).await.status(), 401);
    assert_eq!(
        post_method(server.url(), Some(&old), "tools/list").await.status(),
        401
    );
    let second = named().await["authorization_servers"][0]
        .as_str()
        .unwrap()
        .to_owned();
    assert_ne!(second, first);
    let new = token_from(&second).await;
    assert_ne!(
        post_method(server.url(), Some(&new), "tools/list").await.status(),
        401
    );
    assert_eq!(post(server.url(), Some(&old)).await.status(), 401);
    let record = server.record();
    let auth = record.auth.unwrap();
    let issuers: Vec<Option<&str>> = auth.tokens.iter().map(|t| t.issuer.as_deref()).collect();
    let (first, second) = (Some(first.as_str()), Some(second.as_str()));
    assert_eq!(issuers, [first, first, second, first]);
    let switch = auth.switch.unwrap();
    assert_eq!(switch.from.as_deref(), Some(auth.tokens[1].label.as_str()));
    assert_eq!(switch.conversation[0].label, "second-authorize#1");
    assert_eq!(
        auth.conversation.len(),
        2,
        "the first server saw only its own flow"
    );
}
