//! The authorization of 2025-03-26, where the MCP server's origin is the
//! authorization server (the `server_origin` layout of `auth:`): the client
//! asks for RFC 8414 metadata at that origin's well-known URL before it
//! uses any endpoint (AUTH-031), falls back to `/authorize`, `/token` and
//! `/register` there only once that lookup failed, and then does
//! (AUTH-032), names its protocol version in the lookup (AUTH-033), and
//! registers by Dynamic Client Registration when it has no client ID
//! (AUTH-044).
//!
//! The scripted authorization server records every request to those
//! paths at the MCP server's origin, so the order of the conversation is
//! the order of the client's requests.

use super::{Evidence, METADATA_PATH};
use crate::Level;
use crate::evidence::oauth::{AUTHORIZE_PATH, OAuthRequest, REGISTER_PATH, TOKEN_PATH, issued_client_id};
use crate::protocol::cite;
use crate::protocol::client_http::Finding;
use crate::scenario::model::AuthLayout;
use crate::version::ProtocolVersion;

const NO_LOOKUP: &str = "the client never asked for the authorization server's metadata";

impl Evidence<'_> {
    /// The rules of the 2025-03-26 layout, when the scenario plays it.
    pub(super) fn legacy(&self) -> Vec<Finding> {
        let AuthLayout::ServerOrigin { metadata } = self.setup.layout else {
            return Vec::new();
        };
        vec![
            self.metadata_at_base(),
            self.falls_back_only_after_lookup(metadata),
            self.lookup_names_version(),
        ]
    }

    /// AUTH-031: before its first request to an endpoint, the client asked
    /// for the metadata at `/.well-known/oauth-authorization-server` under
    /// the MCP server's origin (other lookups, such as a newer version's
    /// protected resource metadata, may come first).
    fn metadata_at_base(&self) -> Finding {
        let mut finding = self.finding(
            "authorization server metadata is asked for at the MCP server's origin first",
            cite::AUTH_031,
            Level::Must,
            NO_LOOKUP,
        );
        if !self.did_oauth {
            return finding;
        }
        finding.unobserved = None;
        match (self.base_lookup(), self.endpoint_requests().next()) {
            (Some(lookup), Some(endpoint)) if came_before(endpoint, lookup) => {
                finding.problem_at(&endpoint.label, before_lookup(endpoint));
            }
            (None, Some(endpoint)) => finding.problem_at(&endpoint.label, before_lookup(endpoint)),
            (None, None) => {
                let label = self
                    .issuer_metadata_lookups()
                    .next()
                    .map_or("the client", |lookup| lookup.label.as_str());
                finding.problem_at(
                    label,
                    format!(
                        "the client did OAuth but never asked for {METADATA_PATH} at the MCP server's origin"
                    ),
                );
            }
            _ => {}
        }
        finding
    }

    /// AUTH-032: the default endpoints are used only after the metadata
    /// lookup, and where the metadata is missing (404), they are used.
    fn falls_back_only_after_lookup(&self, served: bool) -> Finding {
        let mut finding = self.finding(
            "the default endpoints are used only when the metadata lookup failed",
            cite::AUTH_032,
            Level::Must,
            "the client neither asked for the metadata nor used an endpoint",
        );
        let lookup = self.base_lookup();
        let endpoints: Vec<&OAuthRequest> = self.endpoint_requests().collect();
        for endpoint in &endpoints {
            if lookup.is_none_or(|lookup| came_before(endpoint, lookup)) {
                finding.problem_at(&endpoint.label, before_lookup(endpoint));
            }
        }
        let fell_back = endpoints
            .iter()
            .any(|r| r.path == AUTHORIZE_PATH || r.path == TOKEN_PATH);
        if let Some(lookup) = lookup.filter(|_| !served && !fell_back) {
            finding.problem_at(
                &lookup.label,
                format!(
                    "{METADATA_PATH} answered {}, and the client never used {AUTHORIZE_PATH} nor {TOKEN_PATH} at the MCP server's origin",
                    lookup.status
                ),
            );
        }
        Self::observed(finding, !endpoints.is_empty() || lookup.is_some_and(|_| !served))
    }

    /// AUTH-033: each metadata lookup names a protocol version in
    /// `MCP-Protocol-Version`.
    fn lookup_names_version(&self) -> Finding {
        let mut finding = self.finding(
            "the metadata lookup names the client's protocol version",
            cite::AUTH_033,
            Level::Should,
            NO_LOOKUP,
        );
        let mut seen = false;
        for lookup in self.issuer_metadata_lookups() {
            seen = true;
            match lookup.protocol_version.as_deref() {
                None => finding.problem_at(&lookup.label, "no MCP-Protocol-Version header".into()),
                Some(named) if named.parse::<ProtocolVersion>().is_err() => finding.problem_at(
                    &lookup.label,
                    format!("MCP-Protocol-Version `{named}` is no protocol version"),
                ),
                Some(_) => {}
            }
        }
        Self::observed(finding, seen)
    }

    /// AUTH-044: a client without a client ID registers (Dynamic Client
    /// Registration) before it authorizes, and authorizes with the ID it
    /// got. In every layout: the row reaches 2025-06-18, whose clients find
    /// the authorization server through protected resource metadata.
    pub(super) fn registers_dynamically(&self) -> Finding {
        let mut finding = self.authorization_finding(
            "a client without a client ID registers dynamically",
            cite::AUTH_044,
            Level::Should,
        );
        if self.setup.pre_registered.is_some() {
            finding.unobserved = Some("the client was handed a client ID".into());
            return finding;
        }
        if !self.setup.registration {
            finding.unobserved = Some("the authorization server offers no registration".into());
            return finding;
        }
        let registrations: Vec<&OAuthRequest> = self.registrations().collect();
        for request in self.auth.authorizations() {
            let client_id = request.param("client_id").unwrap_or_default();
            let issued = registrations
                .iter()
                .filter(|r| came_before(r, request) && r.status < 300)
                .any(|r| issued_client_id(&r.label) == client_id);
            if !issued {
                finding.problem_at(
                    &request.label,
                    format!("authorized as `{client_id}`, a client ID no registration before it got"),
                );
            }
        }
        finding
    }

    /// The first lookup of the metadata at the origin's well-known URL.
    fn base_lookup(&self) -> Option<&OAuthRequest> {
        self.issuer_metadata_lookups().find(|r| r.path == METADATA_PATH)
    }

    /// Requests to the authorization, token and registration endpoints, in
    /// order.
    fn endpoint_requests(&self) -> impl Iterator<Item = &OAuthRequest> {
        self.auth
            .conversation
            .iter()
            .filter(|r| [AUTHORIZE_PATH, TOKEN_PATH, REGISTER_PATH].contains(&r.path.as_str()))
    }
}

/// Whether `request` came before `other` (labels number the requests to
/// the authorization server in arrival order).
fn came_before(request: &OAuthRequest, other: &OAuthRequest) -> bool {
    arrival(request) < arrival(other)
}

fn arrival(request: &OAuthRequest) -> usize {
    request
        .label
        .rsplit_once('#')
        .and_then(|(_, n)| n.parse().ok())
        .unwrap_or(usize::MAX)
}

fn before_lookup(endpoint: &OAuthRequest) -> String {
    format!(
        "{} {} before any lookup of {METADATA_PATH}",
        endpoint.method, endpoint.path
    )
}

#[cfg(test)]
mod tests;
