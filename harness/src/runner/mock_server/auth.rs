//! The protected mock server of `auth:` scenarios: installed before the
//! client is started, and judged once the scenario is over (core's
//! `protocol::client_auth` over what the mock server and the scripted
//! authorization server recorded).
//!
//! Authorization is optional for MCP clients. A client that never got past
//! the 401 did not reach the scenario's steps: what they and the handshake
//! would say is shown as remarks, and only the authorization rules decide
//! (each not-observed for a client that did no OAuth at all).

use mcp_conform_core::Verdict;
use mcp_conform_core::evidence::oauth::{
    ANOTHER_ISSUER, CLIENT_ID_VARIABLE, CLIENT_ISSUER_VARIABLE, PRE_REGISTERED_CLIENT_ID,
};
use mcp_conform_core::judge::Check;
use mcp_conform_core::protocol::client_auth;
use mcp_conform_core::protocol::client_http::ClientEvidence;
use mcp_conform_core::scenario::Scenario;
use mcp_conform_core::scenario::model::PreRegistration;
use mcp_mock_peers::auth::ProtectedMockServer;
use mcp_mock_peers::transport::HttpServerTransport;

use super::super::outcome::ScenarioOutcome;

const NEVER_ADMITTED: &str = "the client never got past the 401: only its authorization was judged";

/// Protects `server` as the scenario's `auth:` says (nothing without one).
pub async fn protect(server: &HttpServerTransport, scenario: &Scenario) -> Result<(), String> {
    match &scenario.auth {
        Some(auth) => ProtectedMockServer::install(server, auth)
            .await
            .map_err(|e| e.to_string()),
        None => Ok(()),
    }
}

/// What the client's environment hands it when the scenario pre-registers
/// it: its client ID, and the issuer of the authorization server it is
/// registered with when that is not the one the metadata names.
pub fn client_environment(scenario: &Scenario) -> Vec<(String, String)> {
    let Some(registration) = scenario.auth.as_ref().and_then(|auth| auth.pre_registered) else {
        return Vec::new();
    };
    let mut environment = vec![(CLIENT_ID_VARIABLE.into(), PRE_REGISTERED_CLIENT_ID.into())];
    if registration == PreRegistration::AnotherServer {
        environment.push((CLIENT_ISSUER_VARIABLE.into(), ANOTHER_ISSUER.into()));
    }
    environment
}

/// The authorization rules' checks, and whether the client got in.
#[derive(Debug)]
pub struct Judged {
    checks: Vec<Check>,
    never_admitted: bool,
    /// Why the scenario does not apply to the run's version, when it does
    /// not (a client that never got in never named a version of its own).
    off_version: Option<String>,
}

pub fn judge(evidence: ClientEvidence) -> Option<Judged> {
    let auth = evidence.record.auth.as_ref()?;
    let (scenario, version) = (evidence.scenario, evidence.version);
    let off_version = (!scenario.versions.contains(version))
        .then(|| format!("applies to {}; this run serves {version}", scenario.versions));
    Some(Judged {
        checks: client_auth::judge(evidence),
        never_admitted: !auth.admitted(),
        off_version,
    })
}

impl Judged {
    /// Adds the checks to `outcome` (those that do not decide, to
    /// `remarks`, as `decides` says); a client that never got in is judged
    /// by them alone.
    pub fn settle_into(
        self,
        outcome: &mut ScenarioOutcome,
        remarks: &mut Vec<Check>,
        decides: impl Fn(&Check) -> bool,
    ) {
        if self.never_admitted {
            remarks.splice(0..0, std::mem::take(&mut outcome.checks));
            if let Some(why) = self.off_version {
                outcome.verdict = Verdict::NotApplicable;
                outcome.note = Some(why);
                remarks.extend(self.checks);
                return;
            }
            outcome.verdict = Verdict::Pass;
            outcome.note = Some(NEVER_ADMITTED.to_owned());
        }
        let (checks, others): (Vec<_>, Vec<_>) = self.checks.into_iter().partition(decides);
        outcome.checks.extend(checks);
        remarks.extend(others);
    }
}
