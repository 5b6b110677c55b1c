//! A second authorization server that replaces the first one mid-run
//! (`auth: {switch_authorization_server: {from: METHOD}}`, AUTH-048 and
//! AUTH-058): from the client's first request of `METHOD` on, the
//! protected resource metadata names only the second server and the mock
//! server admits only its tokens, so that the client, refused with 401
//! `invalid_token` as any client whose token stopped working, finds the new
//! server by reading the metadata again.

use std::sync::Mutex;

use mcp_conform_core::evidence::oauth::{AuthSwitch, SECOND_SERVER_LABEL};
use reqwest::Url;
use serde_json::Value;

use super::super::{AuthScript, ScriptedIssuer, lock};
use crate::auth::{IssuerError, ResourceGuard};

#[derive(Debug)]
pub(super) struct Switch {
    /// The method whose first request finds the second server in place.
    from: String,
    issuer: ScriptedIssuer,
    /// The mock server's token check once the second server is in place.
    pub guard: ResourceGuard,
    /// The label of that first request, once it came.
    at: Mutex<Option<String>>,
}

impl Switch {
    /// Starts the second authorization server, scripted as the first one
    /// (`script`), on a loopback port of its own with keys of its own.
    pub async fn start(
        resource: &Url,
        script: AuthScript,
        from: &str,
        scope: Option<&str>,
    ) -> Result<Self, IssuerError> {
        let issuer = ScriptedIssuer::start_labelled(resource.as_str(), script, SECOND_SERVER_LABEL).await?;
        Ok(Self {
            from: from.to_owned(),
            guard: super::guard_of(resource, &issuer, scope),
            issuer,
            at: Mutex::default(),
        })
    }

    /// Puts the second server in place if the request `label`, with
    /// JSON-RPC `body`, is the first of the switch's method.
    pub fn arrived(&self, label: &str, body: &str) {
        let mut at = lock(&self.at);
        if at.is_none() && method_of(body).as_deref() == Some(self.from.as_str()) {
            *at = Some(label.to_owned());
        }
    }

    /// Whether the second server is in place.
    pub fn in_place(&self) -> bool {
        lock(&self.at).is_some()
    }

    pub fn record(&self) -> AuthSwitch {
        AuthSwitch {
            issuer: self.issuer.issuer().to_owned(),
            from: lock(&self.at).clone(),
            conversation: self.issuer.requests(),
        }
    }
}

/// The method of a JSON-RPC request body, if it is one.
fn method_of(body: &str) -> Option<String> {
    let message: Value = serde_json::from_str(body).ok()?;
    message["method"].as_str().map(str::to_owned)
}
