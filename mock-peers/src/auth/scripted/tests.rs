//! The scripted authorization server over real HTTP, driven the way a
//! client under test drives it: metadata, registration, the authorization
//! redirect, then the token and refresh grants.

use serde_json::Value;

use super::*;
use crate::auth::{METADATA_PATH, OPENID_CONFIGURATION, s256_challenge};

const RESOURCE: &str = "http://127.0.0.1:5000/mcp";
const REDIRECT: &str = "http://localhost:3000/callback";
const VERIFIER: &str = "a-verifier-of-the-client-under-test-0123456789";

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

async fn json_of(response: reqwest::Response) -> Value {
    serde_json::from_str(&response.text().await.unwrap()).unwrap()
}

/// The query parameters of the redirect an authorization request gets.
async fn authorize(issuer: &ScriptedIssuer, state: Option<&str>) -> Vec<(String, String)> {
    let mut query = vec![
        ("response_type", "code"),
        ("client_id", "client-1"),
        ("redirect_uri", REDIRECT),
        ("code_challenge_method", "S256"),
        ("resource", RESOURCE),
        ("scope", "tools:read"),
    ];
    let challenge = s256_challenge(VERIFIER);
    query.push(("code_challenge", &challenge));
    query.extend(state.map(|state| ("state", state)));
    let response = client()
        .get(format!("{}{AUTHORIZE_PATH}", issuer.issuer()))
        .query(&query)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), reqwest::StatusCode::FOUND);
    let location = response.headers()[reqwest::header::LOCATION].to_str().unwrap();
    let (target, query) = location.split_once('?').unwrap();
    assert_eq!(target, REDIRECT);
    form_urlencoded::parse(query.as_bytes()).into_owned().collect()
}

async fn metadata_of(issuer: &ScriptedIssuer) -> Value {
    let url = format!("{}{METADATA_PATH}", issuer.issuer());
    json_of(client().get(url).send().await.unwrap()).await
}

async fn register(issuer: &ScriptedIssuer, body: String) -> reqwest::Response {
    client()
        .post(format!("{}{REGISTER_PATH}", issuer.issuer()))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap()
}

fn param<'a>(params: &'a [(String, String)], name: &str) -> Option<&'a str> {
    params
        .iter()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.as_str())
}

async fn redeem(issuer: &ScriptedIssuer, code: &str, verifier: &str) -> reqwest::Response {
    client()
        .post(format!("{}{TOKEN_PATH}", issuer.issuer()))
        .form(&[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("client_id", "client-1"),
            ("redirect_uri", REDIRECT),
            ("code_verifier", verifier),
            ("resource", RESOURCE),
        ])
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn the_metadata_names_every_endpoint_of_the_code_flow() {
    let issuer = ScriptedIssuer::start(RESOURCE, AuthScript::default())
        .await
        .unwrap();
    let metadata = metadata_of(&issuer).await;
    assert_eq!(metadata["issuer"], issuer.issuer());
    assert_eq!(
        metadata["authorization_endpoint"],
        format!("{}/authorize", issuer.issuer())
    );
    assert_eq!(
        metadata["registration_endpoint"],
        format!("{}/register", issuer.issuer())
    );
    assert_eq!(
        metadata["code_challenge_methods_supported"],
        serde_json::json!(["S256"])
    );
    assert_eq!(metadata["authorization_response_iss_parameter_supported"], true);

    let script = AuthScript {
        registration: false,
        advertises_iss: false,
        ..AuthScript::default()
    };
    let without = ScriptedIssuer::start(RESOURCE, script).await.unwrap();
    let metadata = metadata_of(&without).await;
    assert!(metadata.get("registration_endpoint").is_none());
    assert_eq!(metadata["authorization_response_iss_parameter_supported"], false);
    let refused = register(&without, "{}".to_owned()).await;
    assert_eq!(refused.status(), reqwest::StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_code_redeemed_with_its_verifier_gives_tokens_and_refreshes() {
    let issuer = ScriptedIssuer::start(RESOURCE, AuthScript::default())
        .await
        .unwrap();
    let redirect = authorize(&issuer, Some("state-1")).await;
    assert_eq!(param(&redirect, "state"), Some("state-1"));
    assert_eq!(param(&redirect, "iss"), Some(issuer.issuer()));
    let code = param(&redirect, "code").unwrap();

    let granted = json_of(redeem(&issuer, code, VERIFIER).await).await;
    assert_eq!(granted["token_type"], "Bearer");
    assert!(granted["access_token"].is_string());
    let refresh = granted["refresh_token"].as_str().unwrap();

    let renewed = client()
        .post(format!("{}{TOKEN_PATH}", issuer.issuer()))
        .form(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh),
            ("resource", RESOURCE),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(renewed.status(), reqwest::StatusCode::OK);
    assert!(json_of(renewed).await["access_token"].is_string());

    // The judge sees the whole conversation, resource parameters included.
    let requests = issuer.requests();
    let paths: Vec<&str> = requests.iter().map(|r| r.path.as_str()).collect();
    assert_eq!(paths, ["/authorize", "/token", "/token"]);
    assert!(requests.iter().all(|r| r.param("resource") == Some(RESOURCE)));
    assert_eq!(requests[0].param("code_challenge_method"), Some("S256"));
    assert_eq!(requests[1].param("code_verifier"), Some(VERIFIER));
}

#[tokio::test]
async fn a_wrong_verifier_or_a_second_redemption_is_refused() {
    let issuer = ScriptedIssuer::start(RESOURCE, AuthScript::default())
        .await
        .unwrap();
    let redirect = authorize(&issuer, None).await;
    assert_eq!(param(&redirect, "state"), None);
    let code = param(&redirect, "code").unwrap();
    let wrong = redeem(&issuer, code, "not-the-verifier").await;
    assert_eq!(wrong.status(), reqwest::StatusCode::BAD_REQUEST);
    assert_eq!(json_of(wrong).await["error"], "invalid_grant");

    let redirect = authorize(&issuer, None).await;
    let code = param(&redirect, "code").unwrap();
    assert_eq!(
        redeem(&issuer, code, VERIFIER).await.status(),
        reqwest::StatusCode::OK
    );
    assert_eq!(
        redeem(&issuer, code, VERIFIER).await.status(),
        reqwest::StatusCode::BAD_REQUEST
    );
}

#[tokio::test]
async fn the_iss_of_the_redirect_follows_the_script() {
    for (iss, expected) in [
        (
            IssParameter::Wrong,
            Some("https://another-authorization-server.invalid".to_owned()),
        ),
        (IssParameter::Missing, None),
    ] {
        let script = AuthScript {
            iss,
            refresh_tokens: false,
            ..AuthScript::default()
        };
        let issuer = ScriptedIssuer::start(RESOURCE, script).await.unwrap();
        let redirect = authorize(&issuer, Some("s")).await;
        assert_eq!(param(&redirect, "iss").map(str::to_owned), expected, "{iss:?}");
        let granted = json_of(redeem(&issuer, param(&redirect, "code").unwrap(), VERIFIER).await).await;
        assert!(
            granted.get("refresh_token").is_none(),
            "no refresh token was scripted"
        );
    }
    let script = AuthScript {
        iss: IssParameter::Normalized,
        ..AuthScript::default()
    };
    let issuer = ScriptedIssuer::start(RESOURCE, script).await.unwrap();
    let redirect = authorize(&issuer, None).await;
    assert_eq!(
        param(&redirect, "iss"),
        Some(format!("{}/", issuer.issuer()).as_str())
    );
}

#[tokio::test]
async fn a_registration_gets_a_client_id_and_keeps_its_metadata() {
    let issuer = ScriptedIssuer::start(RESOURCE, AuthScript::default())
        .await
        .unwrap();
    let registration = serde_json::json!({"redirect_uris": [REDIRECT], "application_type": "native"});
    let response = register(&issuer, registration.to_string()).await;
    assert_eq!(response.status(), reqwest::StatusCode::CREATED);
    let registered = json_of(response).await;
    assert!(registered["client_id"].is_string());
    assert_eq!(registered["application_type"], "native");
    let recorded: Value = serde_json::from_str(&issuer.requests()[0].body).unwrap();
    assert_eq!(recorded, registration);
    let refused = register(&issuer, "[]".to_owned()).await;
    assert_eq!(refused.status(), reqwest::StatusCode::BAD_REQUEST);
}

/// Serves `document(url)` once, at the URL it returns, over plain HTTP.
async fn serve_document_once(document: impl FnOnce(&str) -> Value) -> String {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/client.json", listener.local_addr().unwrap());
    let body = document(&url).to_string();
    tokio::spawn(async move {
        let (mut tcp, _) = listener.accept().await.unwrap();
        let mut request = [0_u8; 4096];
        let _ = tcp.read(&mut request).await.unwrap();
        let head = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        );
        tcp.write_all(format!("{head}{body}").as_bytes()).await.unwrap();
    });
    url
}

async fn authorize_as(issuer: &ScriptedIssuer, client_id: &str) -> reqwest::Response {
    let query = [
        ("response_type", "code"),
        ("client_id", client_id),
        ("redirect_uri", REDIRECT),
    ];
    let url = format!("{}{AUTHORIZE_PATH}", issuer.issuer());
    client().get(url).query(&query).send().await.unwrap()
}

#[tokio::test]
async fn a_metadata_document_is_fetched_and_must_name_itself_and_the_redirect() {
    let issuer = ScriptedIssuer::start(RESOURCE, AuthScript::default())
        .await
        .unwrap();
    let good = serve_document_once(
        |url| serde_json::json!({"client_id": url, "client_name": "c", "redirect_uris": [REDIRECT]}),
    )
    .await;
    assert_eq!(
        authorize_as(&issuer, &good).await.status(),
        reqwest::StatusCode::FOUND
    );

    let other = serve_document_once(
        |_| serde_json::json!({"client_id": "https://elsewhere.invalid/c", "redirect_uris": [REDIRECT]}),
    )
    .await;
    let refused = authorize_as(&issuer, &other).await;
    assert_eq!(refused.status(), reqwest::StatusCode::BAD_REQUEST);
    assert_eq!(json_of(refused).await["error"], "invalid_client");

    let fetched = issuer.metadata_documents();
    assert_eq!(fetched.len(), 2);
    assert_eq!(fetched[0].url, good);
    assert_eq!(fetched[0].outcome, Ok(200));
    assert_eq!(fetched[0].document.as_ref().unwrap()["client_name"], "c");
    assert_eq!(fetched[1].url, other);
}

#[tokio::test]
async fn an_unreachable_document_refuses_and_without_support_nothing_is_fetched() {
    let issuer = ScriptedIssuer::start(RESOURCE, AuthScript::default())
        .await
        .unwrap();
    // A port nothing listens on: bound, then released.
    let gone = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/client.json", gone.local_addr().unwrap());
    drop(gone);
    assert_eq!(
        authorize_as(&issuer, &url).await.status(),
        reqwest::StatusCode::BAD_REQUEST
    );
    let fetched = issuer.metadata_documents();
    assert!(fetched[0].outcome.is_err(), "{fetched:?}");

    let script = AuthScript {
        metadata_documents: false,
        ..AuthScript::default()
    };
    let without = ScriptedIssuer::start(RESOURCE, script).await.unwrap();
    assert_eq!(
        metadata_of(&without).await["client_id_metadata_document_supported"],
        false
    );
    assert_eq!(
        authorize_as(&without, &url).await.status(),
        reqwest::StatusCode::FOUND
    );
    assert!(without.metadata_documents().is_empty());
}

#[tokio::test]
async fn the_state_of_the_redirect_and_pkce_support_follow_the_script() {
    let script = AuthScript {
        state: StateParameter::Wrong,
        code_challenge_methods: false,
        ..AuthScript::default()
    };
    let issuer = ScriptedIssuer::start(RESOURCE, script).await.unwrap();
    let redirect = authorize(&issuer, Some("mine")).await;
    let state = param(&redirect, "state");
    assert!(state.is_some_and(|state| state != "mine"), "{state:?}");
    assert!(
        metadata_of(&issuer)
            .await
            .get("code_challenge_methods_supported")
            .is_none()
    );

    let script = AuthScript {
        state: StateParameter::Missing,
        ..AuthScript::default()
    };
    let issuer = ScriptedIssuer::start(RESOURCE, script).await.unwrap();
    assert_eq!(param(&authorize(&issuer, Some("mine")).await, "state"), None);
    assert_eq!(
        metadata_of(&issuer).await["code_challenge_methods_supported"],
        serde_json::json!(["S256"])
    );
}

#[tokio::test]
async fn an_issuer_with_a_path_serves_its_metadata_only_at_the_path_inserted_url() {
    let script = AuthScript {
        issuer_path: Some("/tenant1".into()),
        ..AuthScript::default()
    };
    let issuer = ScriptedIssuer::start(RESOURCE, script).await.unwrap();
    let tenant = issuer.issuer().to_owned();
    let origin = tenant
        .strip_suffix("/tenant1")
        .expect("the issuer ends with its path");
    let inserted = format!("{origin}{METADATA_PATH}/tenant1");
    let metadata = json_of(client().get(&inserted).send().await.unwrap()).await;
    assert_eq!(metadata["issuer"], tenant.as_str());
    assert_eq!(
        metadata["authorization_endpoint"],
        format!("{origin}{AUTHORIZE_PATH}")
    );
    for elsewhere in [
        format!("{origin}{METADATA_PATH}"),
        format!("{tenant}{METADATA_PATH}"),
    ] {
        let status = client().get(&elsewhere).send().await.unwrap().status();
        assert_eq!(status, reqwest::StatusCode::NOT_FOUND, "{elsewhere}");
    }
}

#[tokio::test]
async fn openid_metadata_is_served_only_at_the_openid_url() {
    let script = AuthScript {
        issuer_metadata: IssuerMetadata::OpenId,
        ..AuthScript::default()
    };
    let issuer = ScriptedIssuer::start(RESOURCE, script).await.unwrap();
    let origin = issuer.issuer();
    let openid = format!("{origin}{OPENID_CONFIGURATION}");
    let metadata = json_of(client().get(&openid).send().await.unwrap()).await;
    assert_eq!(metadata["issuer"], origin);
    assert_eq!(metadata["subject_types_supported"], serde_json::json!(["public"]));
    assert_eq!(
        metadata["authorization_endpoint"],
        format!("{origin}{AUTHORIZE_PATH}")
    );
    let oauth = format!("{origin}{METADATA_PATH}");
    let status = client().get(&oauth).send().await.unwrap().status();
    assert_eq!(status, reqwest::StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn openid_metadata_appended_is_served_only_under_the_issuer_path() {
    let script = AuthScript {
        issuer_path: Some("/tenant1".into()),
        issuer_metadata: IssuerMetadata::OpenIdAppended,
        ..AuthScript::default()
    };
    let issuer = ScriptedIssuer::start(RESOURCE, script).await.unwrap();
    let tenant = issuer.issuer().to_owned();
    let origin = tenant.strip_suffix("/tenant1").unwrap();
    let appended = format!("{tenant}{OPENID_CONFIGURATION}");
    let metadata = json_of(client().get(&appended).send().await.unwrap()).await;
    assert_eq!(metadata["issuer"], tenant.as_str());
    for elsewhere in [
        format!("{origin}{OPENID_CONFIGURATION}/tenant1"),
        format!("{origin}{METADATA_PATH}/tenant1"),
    ] {
        let status = client().get(&elsewhere).send().await.unwrap().status();
        assert_eq!(status, reqwest::StatusCode::NOT_FOUND, "{elsewhere}");
    }
}

#[tokio::test]
async fn a_foreign_issuer_is_named_in_the_metadata_it_serves() {
    let script = AuthScript {
        foreign_issuer: true,
        ..AuthScript::default()
    };
    let issuer = ScriptedIssuer::start(RESOURCE, script).await.unwrap();
    let metadata = metadata_of(&issuer).await;
    assert_eq!(metadata["issuer"], ANOTHER_ISSUER);
    assert_eq!(
        metadata["token_endpoint"],
        format!("{}{TOKEN_PATH}", issuer.issuer())
    );
}

#[tokio::test]
async fn a_refused_registration_is_refused_again_with_the_same_metadata_only() {
    let script = AuthScript {
        refuse_registration: Some(RegistrationRefusal::InvalidRedirectUri),
        ..AuthScript::default()
    };
    let issuer = ScriptedIssuer::start(RESOURCE, script).await.unwrap();
    let first = serde_json::json!({"redirect_uris": [REDIRECT], "application_type": "web"});
    for _ in 0..2 {
        let refused = register(&issuer, first.to_string()).await;
        assert_eq!(refused.status(), reqwest::StatusCode::BAD_REQUEST);
        assert_eq!(json_of(refused).await["error"], "invalid_redirect_uri");
    }
    let other = serde_json::json!({"redirect_uris": [REDIRECT], "application_type": "native"});
    let accepted = register(&issuer, other.to_string()).await;
    assert_eq!(accepted.status(), reqwest::StatusCode::CREATED);
}

#[tokio::test]
async fn offline_access_is_listed_only_when_the_script_says() {
    let plain = ScriptedIssuer::start(RESOURCE, AuthScript::default())
        .await
        .unwrap();
    assert!(metadata_of(&plain).await.get("scopes_supported").is_none());
    let script = AuthScript {
        offline_access: true,
        ..AuthScript::default()
    };
    let listing = ScriptedIssuer::start(RESOURCE, script).await.unwrap();
    assert_eq!(
        metadata_of(&listing).await["scopes_supported"],
        serde_json::json!(["offline_access"])
    );
}

#[tokio::test]
async fn a_document_off_this_machine_is_recorded_unfetched() {
    let issuer = ScriptedIssuer::start(RESOURCE, AuthScript::default())
        .await
        .unwrap();
    let remote = "https://client.example.com/client.json";
    assert_eq!(
        authorize_as(&issuer, remote).await.status(),
        reqwest::StatusCode::BAD_REQUEST
    );
    let fetched = issuer.metadata_documents();
    assert!(
        fetched[0]
            .outcome
            .as_ref()
            .is_err_and(|why| why.contains("not on this machine")),
        "{fetched:?}"
    );
}
