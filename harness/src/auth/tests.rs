use super::*;

#[test]
fn the_canonical_uri_lower_cases_scheme_and_host_only() {
    assert_eq!(
        canonical_uri("HTTP://LocalHost:8080/MCP/Path?x=Y#frag"),
        "http://localhost:8080/MCP/Path?x=Y"
    );
    assert_eq!(canonical_uri("http://127.0.0.1:1/mcp"), "http://127.0.0.1:1/mcp");
}

#[test]
fn only_a_401_makes_a_server_protected_and_tokens_carry_the_challenged_scope() {
    let minter = Minter::new("http://127.0.0.1:2", "http://127.0.0.1:1/mcp").unwrap();
    let challenged = ProbeAnswer {
        status: 401,
        challenge: Some(serde_json::json!({"scheme": "Bearer", "scope": "files:read"})),
    };
    let context = AuthContext::mint(&minter, &challenged, &[]);
    assert_eq!(context.protection, Protection::Protected);
    let valid = context.token(&TokenRequest::Minted(TokenChoice::Valid)).unwrap();
    let shown = mcp_conform_core::auth::readable(valid).unwrap();
    assert!(shown.contains("scope=files:read"), "{shown}");
    assert_eq!(context.token(&TokenRequest::None), None);
    assert_eq!(context.tokens().count(), TokenChoice::ALL.len());
    for status in [200, 400, 403, 404] {
        let open = ProbeAnswer {
            status,
            challenge: None,
        };
        let context = AuthContext::mint(&minter, &open, &[]);
        assert_eq!(context.protection, Protection::Open, "{status}");
    }
}
