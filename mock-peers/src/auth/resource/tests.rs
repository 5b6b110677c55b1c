//! The guard against the minter: the valid token is the only one it lets
//! through, and each refusal carries the status and challenge the spec asks.

use super::*;
use crate::auth::{Minter, OTHER_USER, TokenChoice, jwks};

const ISSUER: &str = "http://127.0.0.1:4000";
const RESOURCE: &str = "http://127.0.0.1:5000/mcp";

fn pair() -> (Minter, ResourceGuard) {
    let minter = Minter::new(ISSUER, RESOURCE).unwrap();
    let published = jwks(&[minter.published_key()]);
    let guard = ResourceGuard::new(RESOURCE.parse().unwrap(), ISSUER, published).unwrap();
    (minter, guard)
}

fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

#[test]
fn only_tokens_for_this_resource_pass() {
    let (minter, guard) = pair();
    for choice in TokenChoice::ALL {
        let outcome = guard.check(Some(&bearer(&minter.mint(choice))));
        match choice {
            TokenChoice::Valid => assert_eq!(outcome.unwrap().aud, RESOURCE),
            TokenChoice::UpperCaseAudience => {
                assert_eq!(outcome.unwrap().aud, "HTTP://127.0.0.1:5000/mcp");
            }
            TokenChoice::OtherUser => assert_eq!(outcome.unwrap().sub, OTHER_USER),
            _ => assert!(
                matches!(outcome, Err(Rejection::InvalidToken(_))),
                "{choice:?}: {outcome:?}"
            ),
        }
    }
}

#[test]
fn no_token_and_malformed_credentials_are_refused_apart() {
    let (minter, guard) = pair();
    assert_eq!(guard.check(None), Err(Rejection::NoToken));
    let token = minter.mint(TokenChoice::Valid);
    for value in [
        format!("Basic {token}"),
        "Bearer ".to_owned(),
        format!("Bearer {token} x"),
    ] {
        assert_eq!(guard.check(Some(&value)), Err(Rejection::Malformed), "{value}");
    }
    assert_eq!(Rejection::NoToken.status(), 401);
    assert_eq!(Rejection::Malformed.status(), 400);
    assert_eq!(Rejection::InvalidToken(String::new()).status(), 401);
    assert_eq!(Rejection::InsufficientScope.status(), 403);
}

#[test]
fn a_needed_scope_turns_a_valid_token_without_it_into_403() {
    let (minter, guard) = pair();
    let guard = guard.requiring_scope("mcp");
    let scoped = |scope| bearer(&minter.mint_scoped(TokenChoice::Valid, scope));
    assert!(guard.check(Some(&scoped(Some("mcp other")))).is_ok());
    for scope in [None, Some(""), Some("other")] {
        assert_eq!(
            guard.check(Some(&scoped(scope))),
            Err(Rejection::InsufficientScope),
            "{scope:?}"
        );
    }
    assert_eq!(guard.metadata()["scopes_supported"], json!(["mcp"]));
    let url = "resource_metadata=\"http://127.0.0.1:5000/.well-known/oauth-protected-resource/mcp\"";
    assert_eq!(
        guard.challenge(&Rejection::InsufficientScope),
        format!("Bearer error=\"insufficient_scope\", scope=\"mcp\", {url}")
    );
}

#[test]
fn a_skipped_step_lets_exactly_its_token_through() {
    let (minter, guard) = pair();
    let wrong_audience = bearer(&minter.mint(TokenChoice::WrongAudience));
    let expired = bearer(&minter.mint(TokenChoice::Expired));
    let skipping = |token: &str, step| guard.check_skipping(Some(token), Some(step)).is_ok();
    assert!(skipping(&wrong_audience, Skipped::Audience));
    assert!(!skipping(&wrong_audience, Skipped::Expiry));
    assert!(skipping(&expired, Skipped::Expiry));
    assert!(!skipping(&expired, Skipped::Audience));
}

#[test]
fn the_metadata_is_served_at_the_path_specific_and_the_root_well_known_url() {
    let (_, guard) = pair();
    assert!(guard.serves_metadata_at("/.well-known/oauth-protected-resource/mcp"));
    assert!(guard.serves_metadata_at("/.well-known/oauth-protected-resource"));
    assert!(!guard.serves_metadata_at("/mcp"));
}

#[test]
fn the_metadata_names_the_resource_and_lives_at_its_path_specific_well_known_url() {
    let (_, guard) = pair();
    let metadata = guard.metadata();
    assert_eq!(metadata["resource"], RESOURCE);
    assert_eq!(metadata["authorization_servers"], json!([ISSUER]));
    assert_eq!(
        guard.metadata_url().as_str(),
        "http://127.0.0.1:5000/.well-known/oauth-protected-resource/mcp"
    );
}

#[test]
fn every_challenge_points_at_the_metadata() {
    let (_, guard) = pair();
    let url = "resource_metadata=\"http://127.0.0.1:5000/.well-known/oauth-protected-resource/mcp\"";
    assert_eq!(guard.challenge(&Rejection::NoToken), format!("Bearer {url}"));
    assert_eq!(
        guard.challenge(&Rejection::InvalidToken("expired".into())),
        format!("Bearer error=\"invalid_token\", {url}")
    );
    assert_eq!(
        guard.challenge(&Rejection::Malformed),
        format!("Bearer error=\"invalid_request\", {url}")
    );
}
