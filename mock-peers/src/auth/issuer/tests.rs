//! The issuer over real HTTP, read the way a protected server reads it:
//! metadata, then the JWKS it names, then a token from its token endpoint,
//! which a guard built from that JWKS accepts; the authorization code flow
//! with PKCE; and introspection.

use serde_json::Value;

use super::*;
use crate::auth::{AUTHORIZE_PATH, ResourceGuard};

const RESOURCE: &str = "http://127.0.0.1:5000/mcp";

async fn json_of(response: reqwest::Response) -> Value {
    serde_json::from_str(&response.text().await.unwrap()).unwrap()
}

async fn get(url: &str) -> Value {
    json_of(reqwest::get(url).await.unwrap()).await
}

#[tokio::test]
async fn a_token_from_the_token_endpoint_passes_a_guard_built_from_the_published_jwks() {
    let issuer = MockIssuer::start(RESOURCE).await.unwrap();
    let metadata = get(&format!("{}{METADATA_PATH}", issuer.issuer())).await;
    assert_eq!(metadata["issuer"], issuer.issuer());
    assert_eq!(metadata["jwks_uri"], issuer.jwks_url());
    let published = get(metadata["jwks_uri"].as_str().unwrap()).await;
    let guard = ResourceGuard::new(RESOURCE.parse().unwrap(), issuer.issuer(), published).unwrap();

    let client = reqwest::Client::new();
    let granted = client
        .post(metadata["token_endpoint"].as_str().unwrap())
        .form(&[("grant_type", "client_credentials"), ("client_id", "harness")])
        .send()
        .await
        .unwrap();
    let granted = json_of(granted).await;
    assert_eq!(granted["token_type"], "Bearer");
    let token = granted["access_token"].as_str().unwrap();
    let claims = guard.check(Some(&format!("Bearer {token}"))).unwrap();
    assert_eq!(claims.iss, issuer.issuer());

    let refused = client
        .post(metadata["token_endpoint"].as_str().unwrap())
        .form(&[("grant_type", "password")])
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 400);
    assert_eq!(json_of(refused).await["error"], "unsupported_grant_type");
}

#[tokio::test]
async fn the_issuer_listens_on_loopback_and_stops_when_dropped() {
    let issuer = MockIssuer::start(RESOURCE).await.unwrap();
    assert!(issuer.issuer().starts_with("http://127.0.0.1:"));
    let jwks = issuer.jwks_url();
    assert!(reqwest::get(&jwks).await.unwrap().status().is_success());
    drop(issuer);
    tokio::task::yield_now().await;
    assert!(reqwest::get(&jwks).await.is_err(), "still serving after drop");
}

/// The authorization request of a client with `challenge`, answered by the
/// issuer: the code of its redirect, and the redirect's other parameters.
async fn authorized(issuer: &MockIssuer, challenge: &str) -> Vec<(String, String)> {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let answer = client
        .get(format!("{}{AUTHORIZE_PATH}", issuer.issuer()))
        .query(&[
            ("response_type", "code"),
            ("client_id", "client"),
            ("redirect_uri", "http://127.0.0.1:9/callback"),
            ("code_challenge", challenge),
            ("code_challenge_method", "S256"),
            ("scope", "mcp"),
            ("state", "s-1"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 302);
    let location: reqwest::Url = answer.headers()["location"].to_str().unwrap().parse().unwrap();
    assert_eq!(location.path(), "/callback");
    location.query_pairs().into_owned().collect()
}

async fn redeem(issuer: &MockIssuer, code: &str, verifier: &str) -> reqwest::Response {
    reqwest::Client::new()
        .post(format!("{}{TOKEN_PATH}", issuer.issuer()))
        .form(&[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("client_id", "client"),
            ("redirect_uri", "http://127.0.0.1:9/callback"),
            ("code_verifier", verifier),
        ])
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_code_is_granted_with_pkce_and_redeemed_once_with_its_verifier() {
    let issuer = MockIssuer::start(RESOURCE).await.unwrap();
    let metadata = get(&format!("{}{METADATA_PATH}", issuer.issuer())).await;
    assert!(
        metadata["grant_types_supported"]
            .as_array()
            .unwrap()
            .contains(&"authorization_code".into())
    );
    let verifier = "a-verifier-of-the-test-client-long-enough-for-rfc-7636";
    let redirect = authorized(&issuer, &crate::auth::s256_challenge(verifier)).await;
    let param = |name: &str| {
        redirect
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(
        (param("state"), param("iss")),
        (Some("s-1"), Some(issuer.issuer()))
    );
    let code = param("code").unwrap();

    let wrong = redeem(&issuer, code, "another-verifier").await;
    assert_eq!(json_of(wrong).await["error"], "invalid_grant");
    let redirect = authorized(&issuer, &crate::auth::s256_challenge(verifier)).await;
    let code = &redirect.iter().find(|(key, _)| key == "code").unwrap().1;
    let granted = json_of(redeem(&issuer, code, verifier).await).await;
    let token = granted["access_token"].as_str().unwrap();
    let published = get(&issuer.jwks_url()).await;
    let guard = ResourceGuard::new(RESOURCE.parse().unwrap(), issuer.issuer(), published).unwrap();
    assert_eq!(
        guard
            .check(Some(&format!("Bearer {token}")))
            .unwrap()
            .scope
            .as_deref(),
        Some("mcp")
    );
    let again = redeem(&issuer, code, verifier).await;
    assert_eq!(
        json_of(again).await["error"],
        "invalid_grant",
        "a code is good once"
    );
}

#[tokio::test]
async fn a_request_without_an_s256_challenge_or_to_a_foreign_redirect_uri_is_refused_in_place() {
    let issuer = MockIssuer::start(RESOURCE).await.unwrap();
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let pkce = [
        ("code_challenge", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"),
        ("code_challenge_method", "S256"),
    ];
    for (redirect_uri, pkce) in [
        ("http://127.0.0.1:9/callback", &pkce[..0]),
        ("https://attacker.example/callback", &pkce[..]),
    ] {
        let refused = client
            .get(format!("{}{AUTHORIZE_PATH}", issuer.issuer()))
            .query(&[
                ("response_type", "code"),
                ("client_id", "client"),
                ("redirect_uri", redirect_uri),
            ])
            .query(pkce)
            .send()
            .await
            .unwrap();
        assert_eq!(refused.status(), 400, "{redirect_uri}");
        assert_eq!(json_of(refused).await["error"], "invalid_request");
    }
}

#[tokio::test]
async fn introspection_calls_only_the_issuers_sound_tokens_active() {
    let issuer = MockIssuer::start(RESOURCE).await.unwrap();
    let metadata = get(&format!("{}{METADATA_PATH}", issuer.issuer())).await;
    let endpoint = metadata["introspection_endpoint"].as_str().unwrap();
    let client = reqwest::Client::new();
    for choice in TokenChoice::ALL {
        let token = issuer.minter().mint_scoped(choice, Some("mcp"));
        let answer = client
            .post(endpoint)
            .form(&[("token", &token)])
            .send()
            .await
            .unwrap();
        let answer = json_of(answer).await;
        // The audience is the resource's to judge: a token for another one is active.
        let active = choice.is_sound() || choice == TokenChoice::WrongAudience;
        assert_eq!(answer["active"], active, "{choice:?}: {answer}");
        if active {
            assert_eq!(
                (&answer["iss"], &answer["scope"]),
                (&issuer.issuer().into(), &"mcp".into())
            );
        } else {
            assert_eq!(
                answer.as_object().unwrap().len(),
                1,
                "{choice:?}: nothing but active"
            );
        }
    }
}
