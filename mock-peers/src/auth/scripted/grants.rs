//! What the scripted authorization server remembers between requests: the
//! codes it handed out (each redeemable once) and the refresh tokens it
//! issued.

use std::collections::HashMap;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::rand::{SecureRandom, SystemRandom};

use super::super::pkce::verifier_matches;

/// An authorization request granted and not yet redeemed.
#[derive(Debug, Clone)]
pub(in crate::auth) struct PendingCode {
    pub client_id: String,
    pub redirect_uri: String,
    pub code_challenge: Option<String>,
    pub code_challenge_method: Option<String>,
    pub scope: Option<String>,
}

/// Why a token request is refused, as an OAuth error code (RFC 6749 §5.2).
#[derive(Debug, PartialEq, Eq)]
pub(in crate::auth) struct Refused(pub &'static str);

#[derive(Debug, Default)]
pub(in crate::auth) struct Grants {
    codes: HashMap<String, PendingCode>,
    /// Refresh token to the scope it renews.
    refresh: HashMap<String, Option<String>>,
}

impl Grants {
    pub fn hand_out(&mut self, pending: PendingCode) -> String {
        let code = random_handle();
        self.codes.insert(code.clone(), pending);
        code
    }

    /// Redeems `code` once: the client, the redirect URI and the PKCE
    /// verifier must be those of its authorization request. A request that
    /// sent no challenge is let through so that the judge, not this server,
    /// reports the missing PKCE.
    pub fn redeem(
        &mut self,
        code: &str,
        client_id: Option<&str>,
        redirect_uri: Option<&str>,
        verifier: Option<&str>,
    ) -> Result<PendingCode, Refused> {
        let pending = self.codes.remove(code).ok_or(Refused("invalid_grant"))?;
        let client_matches = client_id.is_none_or(|id| id == pending.client_id);
        let redirect_matches = redirect_uri == Some(pending.redirect_uri.as_str());
        let pkce_holds = match &pending.code_challenge {
            None => true,
            Some(challenge) => verifier.is_some_and(|verifier| {
                verifier_matches(pending.code_challenge_method.as_deref(), challenge, verifier)
            }),
        };
        if client_matches && redirect_matches && pkce_holds {
            Ok(pending)
        } else {
            Err(Refused("invalid_grant"))
        }
    }

    pub fn issue_refresh(&mut self, scope: Option<String>) -> String {
        let token = random_handle();
        self.refresh.insert(token.clone(), scope);
        token
    }

    /// The scope a refresh token renews; refresh tokens are not rotated.
    pub fn refreshed_scope(&self, token: &str) -> Result<Option<String>, Refused> {
        self.refresh.get(token).cloned().ok_or(Refused("invalid_grant"))
    }
}

/// 128 random bits, URL-safe: codes, refresh tokens and client IDs.
pub(super) fn random_handle() -> String {
    let mut bytes = [0_u8; 16];
    // The system generator fails only where no OS randomness exists, where
    // nothing of the harness could run.
    SystemRandom::new()
        .fill(&mut bytes)
        .expect("the operating system's random generator");
    URL_SAFE_NO_PAD.encode(bytes)
}
