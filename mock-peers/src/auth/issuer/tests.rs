//! The issuer over real HTTP, read the way a protected server reads it:
//! metadata, then the JWKS it names, then a token from its token endpoint,
//! which a guard built from that JWKS accepts.

use serde_json::Value;

use super::*;
use crate::auth::ResourceGuard;

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
