use super::*;

#[test]
fn the_canonical_uri_lower_cases_scheme_and_host_only() {
    assert_eq!(
        canonical_uri("HTTP://LocalHost:8080/MCP/Path?x=Y#frag"),
        "http://localhost:8080/MCP/Path?x=Y"
    );
    assert_eq!(canonical_uri("http://127.0.0.1:1/mcp"), "http://127.0.0.1:1/mcp");
}

/// A minter for a server on loopback.
fn minter() -> Arc<Minter> {
    Arc::new(Minter::new("http://127.0.0.1:2", "http://127.0.0.1:1/mcp").unwrap())
}

/// A 401 whose challenge names `scope`.
fn challenged(scope: &str) -> ProbeAnswer {
    ProbeAnswer {
        status: 401,
        scope: Some(scope.to_owned()),
    }
}

#[test]
fn only_a_401_makes_a_server_protected_and_tokens_carry_the_challenged_scope() {
    let minter = minter();
    let context = AuthContext::mint(&minter, &challenged("files:read"), &[]);
    assert_eq!(context.protection, Protection::Protected);
    let valid = context.token(&TokenRequest::Minted(TokenChoice::Valid)).unwrap();
    let shown = mcp_conform_core::auth::readable(valid).unwrap();
    assert!(shown.contains("scope=files:read"), "{shown}");
    assert_eq!(context.token(&TokenRequest::None), None);
    assert_eq!(context.tokens().len(), TokenChoice::ALL.len());
    for status in [200, 400, 403, 404] {
        let open = ProbeAnswer { status, scope: None };
        let context = AuthContext::mint(&minter, &open, &[]);
        assert_eq!(context.protection, Protection::Open, "{status}");
    }
}

/// A server that answers every request on its own connection: a 401 whose
/// challenge names only the metadata, and the metadata listing two scopes.
fn challenging_without_scope() -> String {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let metadata_url = format!("{base}/.well-known/oauth-protected-resource/mcp");
    std::thread::spawn(move || {
        for stream in listener.incoming().take(2) {
            let mut stream = stream.unwrap();
            let mut first = String::new();
            BufReader::new(&stream).read_line(&mut first).unwrap();
            let answer = if first.starts_with("GET") {
                let body = r#"{"resource":"x","scopes_supported":["files:read","files:write"]}"#;
                format!(
                    "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                )
            } else {
                format!(
                    "HTTP/1.1 401 Unauthorized\r\nwww-authenticate: Bearer resource_metadata=\"{metadata_url}\"\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                )
            };
            stream.write_all(answer.as_bytes()).unwrap();
        }
    });
    format!("{base}/mcp")
}

#[test]
fn without_a_scope_in_the_challenge_the_metadata_says_which_scopes_to_ask_for() {
    let url = challenging_without_scope();
    let answer = probe(&url, &[], HttpMode::Streamable, Duration::from_secs(5)).unwrap();
    assert_eq!(
        answer,
        ProbeAnswer {
            status: 401,
            scope: Some("files:read files:write".to_owned()),
        }
    );
}

#[test]
fn the_start_command_and_environment_get_the_issuer_jwks_and_audience() {
    let auth = AuthServer::start("HTTP://127.0.0.1:9/mcp").unwrap();
    let issuer = auth.issuer().to_owned();
    assert!(issuer.starts_with("http://127.0.0.1:"), "{issuer}");
    assert_eq!(
        auth.fill_in("serve --issuer {issuer} --jwks {jwks} --audience {audience}"),
        format!("serve --issuer {issuer} --jwks {issuer}/jwks --audience http://127.0.0.1:9/mcp")
    );
    assert_eq!(
        auth.env(),
        [
            (ISSUER_ENV.to_owned(), issuer.clone()),
            (JWKS_ENV.to_owned(), format!("{issuer}/jwks")),
            (AUDIENCE_ENV.to_owned(), "http://127.0.0.1:9/mcp".to_owned()),
        ]
    );
}

#[test]
fn a_scope_learnt_during_the_run_is_minted_once_then_and_kept_for_redaction() {
    let context = AuthContext::mint(&minter(), &challenged("mcp"), &[]);
    let learnt = TokenRequest::Scoped("files:read files:write".to_owned());
    assert_eq!(context.token(&learnt), None);
    assert_eq!(context.unavailable(&learnt), None);
    let token = context.present(&learnt).unwrap();
    let shown = mcp_conform_core::auth::readable(&token).unwrap();
    assert!(shown.contains("scope=files:read files:write"), "{shown}");
    assert_eq!(context.present(&learnt), Some(token.clone()));
    assert_eq!(context.tokens().last(), Some(&token));
    assert_eq!(context.tokens().len(), TokenChoice::ALL.len() + 1);
}
