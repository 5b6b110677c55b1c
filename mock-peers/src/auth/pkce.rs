//! PKCE (RFC 7636) as the scripted authorization server checks it: the
//! `code_verifier` of a token request against the `code_challenge` its
//! authorization request carried.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::digest::{SHA256, digest};

/// The S256 challenge of `verifier`: BASE64URL(SHA256(verifier)), unpadded.
pub fn s256_challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(digest(&SHA256, verifier.as_bytes()))
}

/// Whether `verifier` answers `challenge` under `method`. An absent method
/// means `plain` (RFC 7636 §4.3); an unknown one never matches.
pub fn verifier_matches(method: Option<&str>, challenge: &str, verifier: &str) -> bool {
    match method.unwrap_or("plain") {
        "S256" => s256_challenge(verifier) == challenge,
        "plain" => verifier == challenge,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pair computed apart, with Python's hashlib and base64.
    const VERIFIER: &str = "the-verifier-of-a-client-under-test-with-43-chars";
    const CHALLENGE: &str = "_awOF4hI7TRLp0n1mvCeoG3YVsMVy9mh6bs9Zo4z9As";

    #[test]
    fn s256_is_the_unpadded_base64url_sha256() {
        assert_eq!(s256_challenge(VERIFIER), CHALLENGE);
        assert!(verifier_matches(Some("S256"), CHALLENGE, VERIFIER));
        assert!(!verifier_matches(Some("S256"), CHALLENGE, "another-verifier"));
    }

    #[test]
    fn plain_is_equality_and_the_default_method() {
        assert!(verifier_matches(None, VERIFIER, VERIFIER));
        assert!(verifier_matches(Some("plain"), VERIFIER, VERIFIER));
        assert!(!verifier_matches(None, CHALLENGE, VERIFIER));
        assert!(!verifier_matches(Some("S512"), CHALLENGE, VERIFIER));
    }
}
