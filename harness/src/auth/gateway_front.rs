//! The harness as the authorization server of a gateway's protected front
//! (`test-gateway --auth`): the gateway is told the mock issuer's URL
//! (`{issuer}`), and each scenario's client presents a token the issuer
//! minted for that scenario's front, whose URL (its port) each scenario
//! picks anew. Every such token joins the run's tokens, so that no output
//! shows it, and is what the backends must never receive (AUTH-006).

use std::sync::{Arc, PoisonError};

use super::{AuthContext, AuthServer, Protection, TokenSource};

/// The token of one scenario's front, and the issuer that signed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontToken {
    pub issuer: String,
    pub token: String,
}

/// The audience of the issuer of a gateway run: unused, as each token
/// names its own front.
const NO_RESOURCE: &str = "http://127.0.0.1/";

impl AuthServer {
    /// The mock issuer of a `test-gateway --auth` run.
    pub fn for_gateways() -> Result<AuthServer, String> {
        AuthServer::start(NO_RESOURCE)
    }

    /// The context of a gateway run: its front is protected, and each
    /// scenario mints its front's token ([`AuthContext::front_token`]).
    pub fn gateway_context(&self) -> AuthContext {
        AuthContext {
            minter: Some(Arc::clone(self.issuer.minter())),
            ..AuthContext::new(Protection::Protected, Vec::new(), TokenSource::MockIssuer)
        }
    }
}

impl AuthContext {
    /// A valid token for the gateway front at `resource` (its URL), kept
    /// among the run's tokens; `None` with nothing to mint it with.
    pub fn front_token(&self, resource: &str) -> Option<FrontToken> {
        let minter = self.minter.as_ref()?;
        let token = minter.mint_for(&super::canonical_uri(resource));
        self.minted_for_resources
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(token.clone());
        Some(FrontToken {
            issuer: minter.issuer().to_owned(),
            token,
        })
    }
}
