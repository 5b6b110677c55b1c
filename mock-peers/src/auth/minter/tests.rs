//! Each token is judged by a verifier built the way a real server builds
//! one: keys from the published JWKS by `kid`, then issuer, audience and
//! time checks. The valid token must pass it and every other choice must
//! fail it for its own reason.

use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation, decode, decode_header};

use super::*;
use crate::auth::{authorization_server_metadata, jwks};

const ISSUER: &str = "http://127.0.0.1:4000";
const RESOURCE: &str = "http://127.0.0.1:5000/mcp";

/// Why the verifier refused a token: jsonwebtoken's error kind, or a `kid`
/// the JWKS does not hold.
fn verify(minter: &Minter, token: &str) -> Result<Claims, String> {
    let set: JwkSet = serde_json::from_value(jwks(&[minter.published_key()])).unwrap();
    let header = decode_header(token).map_err(|e| format!("{:?}", e.kind()))?;
    let kid = header.kid.unwrap_or_default();
    let jwk = set.find(&kid).ok_or(format!("unknown kid {kid}"))?;
    let key = DecodingKey::from_jwk(jwk).unwrap();
    let mut validation = Validation::new(Algorithm::ES256);
    validation.set_issuer(&[ISSUER]);
    validation.set_audience(&[RESOURCE]);
    validation.validate_nbf = true;
    decode::<Claims>(token, &key, &validation)
        .map(|data| data.claims)
        .map_err(|e| format!("{:?}", e.kind()))
}

fn minter() -> Minter {
    Minter::new(ISSUER, RESOURCE).unwrap()
}

#[test]
fn the_valid_token_passes_a_verifier_built_from_the_jwks() {
    let minter = minter();
    let claims = verify(&minter, &minter.mint(TokenChoice::Valid)).unwrap();
    assert_eq!((claims.iss.as_str(), claims.aud.as_str()), (ISSUER, RESOURCE));
    assert!(claims.nbf <= claims.iat && claims.iat < claims.exp);
}

#[test]
fn a_token_for_another_resource_is_valid_there_only() {
    let gateway = Minter::new(ISSUER, "http://127.0.0.1:6000/mcp").unwrap();
    let token = gateway.mint_for(RESOURCE);
    let other = Minter {
        key: gateway.key,
        ..minter()
    };
    let claims = verify(&other, &token).unwrap();
    assert_eq!((claims.aud.as_str(), claims.scope), (RESOURCE, None));
    assert_eq!(
        verify(&other, &other.mint_for("http://127.0.0.1:7000/mcp")).unwrap_err(),
        "InvalidAudience"
    );
}

#[test]
fn every_other_choice_is_refused_for_its_own_reason() {
    let minter = minter();
    let expected = [
        (TokenChoice::Expired, "ExpiredSignature"),
        (TokenChoice::NotYetValid, "ImmatureSignature"),
        (TokenChoice::WrongAudience, "InvalidAudience"),
        (TokenChoice::WrongIssuer, "InvalidIssuer"),
        (TokenChoice::BadSignature, "InvalidSignature"),
        (TokenChoice::UnknownKey, "unknown kid mcp-conform-stranger"),
        // A verifier comparing the audience as a string; the guard compares URLs.
        (TokenChoice::UpperCaseAudience, "InvalidAudience"),
    ];
    for (choice, reason) in expected {
        let refusal = verify(&minter, &minter.mint(choice)).unwrap_err();
        assert!(refusal.starts_with(reason), "{choice:?}: {refusal}");
    }
    for choice in [TokenChoice::AlgNone, TokenChoice::Garbage] {
        assert!(verify(&minter, &minter.mint(choice)).is_err(), "{choice:?}");
    }
    // Valid and OtherUser pass: the_other_users_token_differs_only_in_its_subject.
    let covered = expected.len() + 2;
    assert_eq!(covered, TokenChoice::ALL.len() - 2, "a choice is untested");
}

#[test]
fn the_other_users_token_differs_only_in_its_subject() {
    let minter = minter();
    let valid = verify(&minter, &minter.mint(TokenChoice::Valid)).unwrap();
    let other = verify(&minter, &minter.mint(TokenChoice::OtherUser)).unwrap();
    assert_eq!((valid.sub.as_str(), other.sub.as_str()), (USER, OTHER_USER));
    // Minted a moment apart: the times may differ by a second.
    let same = |c: &Claims| (c.iss.clone(), c.aud.clone(), c.scope.clone(), c.exp - c.iat);
    assert_eq!(same(&other), same(&valid));
}

#[test]
fn the_bad_signature_token_differs_from_a_valid_one_only_in_its_signature() {
    let minter = minter();
    let token = minter.mint(TokenChoice::BadSignature);
    let (signed, _) = token.rsplit_once('.').unwrap();
    let header = decode_header(&token).unwrap();
    assert_eq!(header.kid.as_deref(), Some("mcp-conform-1"));
    let body = signed.split_once('.').unwrap().1;
    let claims: Claims = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(body).unwrap()).unwrap();
    assert_eq!(claims.aud, RESOURCE);
}

#[test]
fn the_alg_none_token_is_unsigned_and_otherwise_valid() {
    let token = minter().mint(TokenChoice::AlgNone);
    let parts: Vec<&str> = token.split('.').collect();
    assert_eq!(parts.len(), 3);
    assert_eq!(parts[2], "", "an unsecured JWT has an empty signature");
    let header: serde_json::Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[0]).unwrap()).unwrap();
    assert_eq!(header["alg"], "none");
    let claims: Claims = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
    assert_eq!((claims.iss.as_str(), claims.aud.as_str()), (ISSUER, RESOURCE));
}

#[test]
fn the_stranger_key_is_not_published() {
    let minter = minter();
    let published = jwks(&[minter.published_key()]);
    let kids: Vec<&str> = published["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|key| key["kid"].as_str().unwrap())
        .collect();
    assert_eq!(kids, ["mcp-conform-1"]);
}

#[test]
fn choices_read_as_scenarios_spell_them() {
    let choice: TokenChoice = serde_json::from_str("\"wrong-audience\"").unwrap();
    assert_eq!(choice, TokenChoice::WrongAudience);
    assert!(serde_json::from_str::<TokenChoice>("\"wrong_audience\"").is_err());
}

#[test]
fn the_metadata_points_at_the_issuers_own_endpoints() {
    let metadata = authorization_server_metadata(ISSUER);
    assert_eq!(metadata["issuer"], ISSUER);
    assert_eq!(metadata["jwks_uri"], format!("{ISSUER}/jwks"));
    assert_eq!(metadata["token_endpoint"], format!("{ISSUER}/token"));
    assert_eq!(metadata["code_challenge_methods_supported"][0], "S256");
}

#[test]
fn a_debug_dump_shows_no_private_key() {
    let dump = format!("{:?}", minter());
    assert!(
        dump.contains("mcp-conform-1") && !dump.contains("encoding"),
        "{dump}"
    );
}
