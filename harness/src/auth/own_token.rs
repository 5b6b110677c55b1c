//! Bring-your-own-token mode (`--token`, `--token-command`): for a server
//! that trusts only its own authorization server. The user's valid token
//! carries the ordinary suite; the auth scenarios get what can be built from
//! it without the issuer's key (no token, the token with its signature
//! altered, garbage, the token in the query string). Every other kind of
//! token (expired, wrong audience, a given scope, …) needs the mock issuer:
//! the steps that present one are not-applicable, saying so.

use mcp_conform_core::auth::{TokenChoice, TokenRequest};
use mcp_mock_peers::auth::{GARBAGE_TOKEN, flip_signature_bit};

use super::{AuthContext, ProbeAnswer, Protection, TokenSource};

/// The token of `--token`, or the first line `--token-command` prints
/// (run by `sh -c`, so a secret manager's CLI keeps the token off the
/// command line); `None` without either.
pub fn read_token(token: Option<&str>, command: Option<&str>) -> Result<Option<String>, String> {
    let token = match (token, command) {
        (Some(token), _) => token.to_owned(),
        (None, Some(command)) => run(command)?,
        (None, None) => return Ok(None),
    };
    let token = token.trim().trim_start_matches("Bearer ").trim();
    if token.is_empty() || token.chars().any(char::is_whitespace) {
        return Err("the token is empty or has spaces in it: give the access token alone".into());
    }
    Ok(Some(token.to_owned()))
}

/// The first line `command` prints, if it succeeds.
fn run(command: &str) -> Result<String, String> {
    let output = std::process::Command::new("sh")
        .args(["-c", command])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("--token-command could not start: {e}"))?;
    if !output.status.success() {
        // Not its output: that may hold the secret.
        return Err(format!("--token-command failed ({})", output.status));
    }
    let printed = String::from_utf8(output.stdout).map_err(|_| "--token-command printed no text")?;
    Ok(printed.lines().next().unwrap_or_default().to_owned())
}

/// The context of a server whose probe got `answer`, with `token` as its
/// valid token and the tokens built from it.
pub fn with_own_token(token: &str, answer: &ProbeAnswer) -> AuthContext {
    let minted = |choice| TokenRequest::Minted(choice);
    let mut tokens = vec![
        (minted(TokenChoice::Valid), token.to_owned()),
        (minted(TokenChoice::Garbage), GARBAGE_TOKEN.to_owned()),
    ];
    // An opaque token has no signature to alter.
    let compact_jws = token.split('.').count() == 3;
    if let Some(altered) = flip_signature_bit(token).filter(|_| compact_jws) {
        tokens.push((minted(TokenChoice::BadSignature), altered));
    }
    AuthContext::new(Protection::of(answer.status), tokens, TokenSource::UsersToken)
}

#[cfg(test)]
mod tests {
    use super::*;

    const JWS: &str = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ1In0.c2lnbmF0dXJl";

    #[test]
    fn a_users_jwt_gives_valid_altered_and_garbage_tokens_and_nothing_else() {
        let context = with_own_token(
            JWS,
            &ProbeAnswer {
                status: 401,
                scope: None,
            },
        );
        assert_eq!(context.protection, Protection::Protected);
        let valid = TokenRequest::Minted(TokenChoice::Valid);
        assert_eq!(context.token(&valid), Some(JWS));
        let altered = context
            .token(&TokenRequest::Minted(TokenChoice::BadSignature))
            .unwrap();
        assert_ne!(altered, JWS);
        assert_eq!(
            altered.rsplit_once('.').unwrap().0,
            JWS.rsplit_once('.').unwrap().0
        );
        assert_eq!(context.unavailable(&valid), None);
        assert_eq!(context.unavailable(&TokenRequest::None), None);
        let expired = context.unavailable(&TokenRequest::Minted(TokenChoice::Expired));
        assert_eq!(expired.as_deref(), Some("the `expired` token"));
        assert!(
            context
                .unavailable(&TokenRequest::Scoped(String::new()))
                .is_some()
        );
    }

    #[test]
    fn an_opaque_token_has_no_altered_signature() {
        let context = with_own_token(
            "opaque-token",
            &ProbeAnswer {
                status: 401,
                scope: None,
            },
        );
        let bad_signature = TokenRequest::Minted(TokenChoice::BadSignature);
        assert!(context.unavailable(&bad_signature).is_some());
    }

    #[test]
    fn the_token_is_read_from_the_flag_or_the_first_line_a_command_prints() {
        assert_eq!(read_token(None, None), Ok(None));
        assert_eq!(read_token(Some(" Bearer abc \n"), None), Ok(Some("abc".into())));
        assert_eq!(
            read_token(None, Some("printf 'from-command\\nsecond'")),
            Ok(Some("from-command".into()))
        );
        assert!(read_token(None, Some("exit 3")).unwrap_err().contains("failed"));
        assert!(read_token(Some("two words"), None).is_err());
    }
}
