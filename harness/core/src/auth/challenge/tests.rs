use serde_json::json;

use super::challenge;

#[test]
fn a_bearer_challenge_reads_as_its_scheme_and_parameters() {
    let header = r#"Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp""#;
    assert_eq!(
        challenge(header),
        Some(json!({
            "scheme": "Bearer",
            "error": "insufficient_scope",
            "scope": "files:read files:write",
            "resource_metadata": "http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp",
        }))
    );
}

#[test]
fn names_are_case_insensitive_and_tokens_need_no_quotes() {
    assert_eq!(
        challenge(r#"Bearer Realm=example, ERROR="invalid_token""#),
        Some(json!({"scheme": "Bearer", "realm": "example", "error": "invalid_token"}))
    );
    assert_eq!(challenge("Bearer"), Some(json!({"scheme": "Bearer"})));
}

#[test]
fn escapes_in_quoted_values_are_undone() {
    assert_eq!(
        challenge(r#"Bearer error_description="a \"quoted\" word""#).unwrap()["error_description"],
        json!("a \"quoted\" word")
    );
}

#[test]
fn a_value_with_no_scheme_is_no_challenge() {
    assert_eq!(challenge(""), None);
    assert_eq!(challenge("error=\"invalid_token\""), None);
}

#[test]
fn parameters_of_a_later_scheme_are_not_read_into_the_first() {
    let read = challenge(r#"Bearer scope="a", Basic realm="x""#).unwrap();
    assert_eq!(read["scope"], json!("a"));
    // `Basic realm` has a space before `=`'s name: it ends the first challenge.
    assert!(read.get("realm").is_none(), "{read}");
}
