//! Metadata the client must not trust, where the scenario serves some
//! (`auth: {mismatch: …}`): protected resource metadata whose `resource` is
//! another server (AUTH-037), and authorization server metadata naming
//! another issuer (AUTH-040). Using it shows as going on to the
//! authorization server; each rule is judged only once the client has read
//! the document it must refuse, so a client that does no OAuth never
//! passes.

use super::{Evidence, fault_each, path_of};
use crate::Level;
use crate::evidence::oauth::OAuthRequest;
use crate::protocol::cite;
use crate::protocol::client_http::Finding;
use crate::scenario::model::MetadataMismatch;

impl Evidence<'_> {
    /// The refusal the scenario's mismatch calls for, if it scripts one.
    pub(super) fn mismatch_refused(&self) -> Option<Finding> {
        match self.setup.mismatch? {
            MetadataMismatch::Resource => Some(self.other_resource_refused()),
            MetadataMismatch::Issuer => Some(self.other_issuer_refused()),
        }
    }

    /// AUTH-037: after metadata describing another resource, the client
    /// never turns to the authorization server it names.
    fn other_resource_refused(&self) -> Finding {
        let finding = self.finding(
            "metadata describing another resource is not used",
            cite::AUTH_037,
            Level::Must,
            "the client never read the protected resource metadata",
        );
        let served = path_of(&self.auth.metadata_url);
        let read = self
            .metadata_lookups
            .iter()
            .any(|r| r.status == 200 && path_of(&r.target) == served);
        let mut finding = Self::observed(finding, read);
        fault_each(
            &mut finding,
            self.auth.conversation.first().filter(|_| read),
            |_| {
                Some("went on to the authorization server of protected resource metadata whose resource is another server".into())
            },
        );
        finding
    }

    /// AUTH-040: after authorization server metadata naming another
    /// issuer, the client neither registers, authorizes, nor asks for a
    /// token there.
    fn other_issuer_refused(&self) -> Finding {
        let finding = self.finding(
            "authorization server metadata naming another issuer is not used",
            cite::AUTH_040,
            Level::Must,
            "the client never read the authorization server's metadata",
        );
        let read = self.issuer_metadata_lookups().any(|r| r.status == 200);
        let mut finding = Self::observed(finding, read);
        let used = self
            .auth
            .conversation
            .iter()
            .filter(|r| read && !is_metadata_read(r));
        fault_each(&mut finding, used, |request| {
            Some(format!(
                "{} {}, though the metadata's issuer is not {}",
                request.method, request.path, self.auth.issuer
            ))
        });
        finding
    }
}

/// A GET of a metadata document or key set, which using the metadata does
/// not need.
fn is_metadata_read(request: &OAuthRequest) -> bool {
    request.method == "GET" && (request.path.contains("/.well-known/") || request.path.ends_with("/jwks"))
}

#[cfg(test)]
pub(super) mod tests;
