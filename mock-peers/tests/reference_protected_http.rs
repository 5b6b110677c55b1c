//! The reference server's protected mode (`--auth ISSUER`) against the mock
//! issuer, over the wire: what it serves without a token, with each kind of
//! bad token, with too little scope, and with a valid token, in both eras.

use mcp_mock_peers::auth::{MockIssuer, ResourceGuard, TokenChoice};
use mcp_mock_peers::reference::{NEEDED_SCOPES, Protection, TokenValidation, serve_http_protected};
use serde_json::{Value, json};
use tokio::net::TcpListener;

/// A protected reference server trusting a fresh mock issuer, and the
/// endpoint URL both agree is the resource.
async fn protected() -> (MockIssuer, String) {
    protected_by(TokenValidation::Jwks).await
}

/// [`protected`], validating tokens as `validation` says.
async fn protected_by(validation: TokenValidation) -> (MockIssuer, String) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let endpoint = format!("http://{}/mcp", listener.local_addr().unwrap());
    let issuer = MockIssuer::start(&endpoint).await.unwrap();
    let guard = ResourceGuard::discover(endpoint.parse().unwrap(), issuer.issuer())
        .await
        .unwrap();
    tokio::spawn(serve_http_protected(
        listener,
        None,
        Some(Protection::new(guard, validation)),
    ));
    (issuer, endpoint)
}

/// A POST of `message` with `authorization`: its status, its challenge
/// and its body.
async fn post(endpoint: &str, authorization: Option<String>, message: Value) -> (u16, String, String) {
    let response = send(endpoint, authorization, message).await;
    let status = response.status().as_u16();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    (status, challenge, response.text().await.unwrap())
}

/// The request of [`post`], as sent.
fn request(endpoint: &str, authorization: Option<String>, message: Value) -> reqwest::RequestBuilder {
    let mut request = reqwest::Client::new()
        .post(endpoint)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(message.to_string());
    // The stateless era mirrors the version and method into headers.
    if message["params"].get("_meta").is_some() {
        request = request
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", message["method"].as_str().unwrap());
    }
    if let Some(value) = authorization {
        request = request.header("authorization", value);
    }
    request
}

async fn send(endpoint: &str, authorization: Option<String>, message: Value) -> reqwest::Response {
    request(endpoint, authorization, message).send().await.unwrap()
}

fn initialize(version: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}})
}

fn stateless_tools_list() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}}}})
}

#[tokio::test]
async fn no_token_gets_401_with_a_challenge_naming_scope_and_metadata() {
    let (_issuer, endpoint) = protected().await;
    let metadata_url = endpoint.replace("/mcp", "/.well-known/oauth-protected-resource/mcp");
    for message in [initialize("2025-11-25"), stateless_tools_list()] {
        let (status, challenge, _) = post(&endpoint, None, message).await;
        assert_eq!(status, 401);
        assert_eq!(
            challenge,
            format!("Bearer scope=\"{NEEDED_SCOPES}\", resource_metadata=\"{metadata_url}\"")
        );
    }
}

#[tokio::test]
async fn the_metadata_is_served_at_both_well_known_urls_without_a_token() {
    let (issuer, endpoint) = protected().await;
    let origin = endpoint.trim_end_matches("/mcp");
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let text = reqwest::get(format!("{origin}{path}"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let document: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(document["resource"], json!(endpoint), "{path}");
        assert_eq!(
            document["authorization_servers"],
            json!([issuer.issuer()]),
            "{path}"
        );
    }
}

#[tokio::test]
async fn every_bad_token_gets_401_invalid_token_and_too_little_scope_403() {
    let (issuer, endpoint) = protected().await;
    let bearer = |token: String| Some(format!("Bearer {token}"));
    for choice in TokenChoice::ALL.into_iter().filter(|c| !c.is_sound()) {
        let token = issuer.minter().mint_scoped(choice, Some(NEEDED_SCOPES));
        let (status, challenge, body) = post(&endpoint, bearer(token), initialize("2025-11-25")).await;
        assert_eq!(status, 401, "{choice:?}: {body}");
        assert!(
            challenge.starts_with("Bearer error=\"invalid_token\""),
            "{choice:?}: {challenge}"
        );
        assert!(!body.contains("result"), "{choice:?}: {body}");
    }
    let unscoped = issuer.minter().mint(TokenChoice::Valid);
    let (status, challenge, _) = post(&endpoint, bearer(unscoped), stateless_tools_list()).await;
    assert_eq!(status, 403);
    let named = format!("Bearer error=\"insufficient_scope\", scope=\"{NEEDED_SCOPES}\"");
    assert!(challenge.starts_with(&named), "{challenge}");
    // One of the two scopes is still too little, and the challenge names both again.
    let half = issuer.minter().mint_scoped(TokenChoice::Valid, Some("mcp"));
    let (status, challenge, _) = post(&endpoint, bearer(half), stateless_tools_list()).await;
    assert_eq!(status, 403);
    assert!(challenge.starts_with(&named), "{challenge}");
}

#[tokio::test]
async fn a_valid_token_with_the_scope_is_served_in_both_eras() {
    let (issuer, endpoint) = protected().await;
    let token = issuer
        .minter()
        .mint_scoped(TokenChoice::Valid, Some(NEEDED_SCOPES));
    for message in [initialize("2025-11-25"), stateless_tools_list()] {
        let (status, _, body) = post(&endpoint, Some(format!("Bearer {token}")), message).await;
        assert_eq!(status, 200, "{body}");
        assert!(body.contains("\"result\""), "{body}");
    }
}

#[tokio::test]
async fn validating_by_introspection_refuses_what_the_issuer_calls_inactive_or_foreign() {
    let (issuer, endpoint) = protected_by(TokenValidation::Introspection).await;
    for choice in TokenChoice::ALL {
        let token = issuer.minter().mint_scoped(choice, Some(NEEDED_SCOPES));
        let (status, challenge, body) = post(
            &endpoint,
            Some(format!("Bearer {token}")),
            initialize("2025-11-25"),
        )
        .await;
        if choice.is_sound() {
            assert_eq!(status, 200, "{choice:?}: {body}");
        } else {
            assert_eq!(status, 401, "{choice:?}: {body}");
            assert!(
                challenge.starts_with("Bearer error=\"invalid_token\""),
                "{choice:?}: {challenge}"
            );
        }
    }
    let unscoped = issuer.minter().mint(TokenChoice::Valid);
    let (status, _, _) = post(
        &endpoint,
        Some(format!("Bearer {unscoped}")),
        stateless_tools_list(),
    )
    .await;
    assert_eq!(status, 403, "the scope of an active token is still judged");
}

#[tokio::test]
async fn a_token_sent_in_both_the_header_and_the_query_gets_400() {
    let (issuer, endpoint) = protected().await;
    let token = issuer
        .minter()
        .mint_scoped(TokenChoice::Valid, Some(NEEDED_SCOPES));
    let twice = format!("{endpoint}?access_token={token}");
    let (status, challenge, _) =
        post(&twice, Some(format!("Bearer {token}")), initialize("2025-11-25")).await;
    assert_eq!(status, 400);
    assert!(
        challenge.starts_with("Bearer error=\"invalid_request\""),
        "{challenge}"
    );
}

#[tokio::test]
async fn a_session_is_found_only_with_a_token_of_the_user_who_opened_it() {
    let (issuer, endpoint) = protected().await;
    let bearer = |choice| {
        Some(format!(
            "Bearer {}",
            issuer.minter().mint_scoped(choice, Some(NEEDED_SCOPES))
        ))
    };
    let opened = send(&endpoint, bearer(TokenChoice::Valid), initialize("2025-11-25")).await;
    let session = opened.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let in_session = |choice| {
        request(&endpoint, bearer(choice), list.clone())
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-11-25")
            .send()
    };
    assert_eq!(in_session(TokenChoice::OtherUser).await.unwrap().status(), 404);
    assert_eq!(in_session(TokenChoice::Valid).await.unwrap().status(), 200);
}
