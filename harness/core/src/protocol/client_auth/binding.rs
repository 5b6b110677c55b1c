//! Which authorization server a client binds to: the one the protected
//! resource metadata names, on its own origin, never one assumed at the
//! MCP server's origin as 2025-03-26 had it (AUTH-035). The scripted
//! authorization server always listens on another port than the mock
//! server, so every `auth:` scenario shows this.

use super::{Evidence, METADATA_PATH, OPENID_CONFIGURATION, judge_each, path_of};
use crate::Level;
use crate::evidence::http::InboundRequest;
use crate::evidence::oauth::{AUTHORIZE_PATH, REGISTER_PATH, TOKEN_PATH};
use crate::protocol::cite;
use crate::protocol::client_http::Finding;

const UNREAD: &str = "the client never read the protected resource metadata";
const UNTRUSTED: &str =
    "the scenario serves metadata the client must refuse, after which it may look at the MCP server's origin";

impl Evidence<'_> {
    /// AUTH-035: the client went to the authorization server the metadata
    /// names and asked the MCP server's origin for none of an
    /// authorization server's documents or endpoints. Judged once the
    /// client read the protected resource metadata, and observed once it
    /// spoke to the named server (or asked the MCP server's origin for one
    /// of them, which fails at once), so a client that does no OAuth never
    /// passes. Not judged where the scenario serves metadata the client
    /// must refuse, nor before the client read any: a client that supports
    /// 2025-03-26 servers may then look at the MCP server's origin.
    pub(super) fn authorization_server_from_metadata(&self) -> Finding {
        let mut finding = self.finding(
            "the authorization server is the one the metadata names, not the MCP server's origin",
            cite::AUTH_035,
            Level::Must,
            "the client never spoke to the authorization server the metadata names",
        );
        if self.setup.mismatch.is_some() {
            finding.unobserved = Some(UNTRUSTED.to_owned());
            return finding;
        }
        let served = path_of(&self.auth.metadata_url);
        let read = self
            .metadata_lookups
            .iter()
            .any(|r| r.status == 200 && path_of(&r.target) == served);
        if !read {
            if self.did_oauth {
                finding.unobserved = Some(UNREAD.to_owned());
            }
            return finding;
        }
        let finding = Self::observed(finding, !self.auth.conversation.is_empty());
        let assumed = self.requests.iter().filter(|r| assumes_server_origin(r));
        judge_each(finding, assumed, |request| {
            Some(format!(
                "{} {} at the MCP server's origin, though the metadata names {}",
                request.method, request.target, self.auth.issuer
            ))
        })
    }
}

/// Whether `request`, sent to the MCP server, was meant for an
/// authorization server: its metadata (RFC 8414 or OpenID discovery, the
/// well-known part inserted or appended) or its endpoints.
fn assumes_server_origin(request: &InboundRequest) -> bool {
    let path = path_of(&request.target);
    path.starts_with(METADATA_PATH)
        || path.starts_with(OPENID_CONFIGURATION)
        || path.ends_with(OPENID_CONFIGURATION)
        || [AUTHORIZE_PATH, TOKEN_PATH, REGISTER_PATH].contains(&path)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{correct, get};
    use super::super::trust::tests::verdict_of;
    use crate::Verdict;
    use crate::evidence::http::HttpClientRecord;

    /// The correct record, with the client also asking the mock server
    /// for `target`.
    fn asking_the_server_for(target: &str) -> HttpClientRecord {
        let mut record = correct();
        record.requests.push(get(9, target, 404));
        record
    }

    #[test]
    fn the_authorization_server_is_the_one_the_metadata_names() {
        assert_eq!(verdict_of(&correct(), "{}", "AUTH-035"), [Verdict::Pass]);
        for target in [
            "/.well-known/oauth-authorization-server",
            "/.well-known/openid-configuration",
            "/mcp/.well-known/openid-configuration",
            "/authorize?client_id=c",
        ] {
            let assumed = asking_the_server_for(target);
            assert_eq!(
                verdict_of(&assumed, "{}", "AUTH-035"),
                [Verdict::Fail],
                "{target}"
            );
        }
    }

    #[test]
    fn a_client_that_never_reached_an_authorization_server_is_not_judged() {
        let mut silent = correct();
        silent.auth.as_mut().unwrap().conversation.clear();
        assert_eq!(verdict_of(&silent, "{}", "AUTH-035"), [Verdict::NotObserved]);
        let mut assumed = asking_the_server_for("/.well-known/oauth-authorization-server");
        assumed.auth.as_mut().unwrap().conversation.clear();
        assert_eq!(verdict_of(&assumed, "{}", "AUTH-035"), [Verdict::Fail]);
    }

    #[test]
    fn a_client_that_never_read_the_metadata_is_not_judged() {
        let mut unread = asking_the_server_for("/.well-known/oauth-authorization-server");
        unread.requests.remove(0);
        assert_eq!(verdict_of(&unread, "{}", "AUTH-035"), [Verdict::NotObserved]);
    }

    #[test]
    fn metadata_the_client_must_refuse_leaves_it_free_to_look_elsewhere() {
        let assumed = asking_the_server_for("/.well-known/oauth-authorization-server");
        for setup in ["{mismatch: resource}", "{mismatch: issuer}"] {
            assert_eq!(
                verdict_of(&assumed, setup, "AUTH-035"),
                [Verdict::NotObserved],
                "{setup}"
            );
        }
    }
}
