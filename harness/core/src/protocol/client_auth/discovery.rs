//! Where a client looks for metadata, in the order each version asks: the
//! protected resource metadata of an MCP server (RFC 9728) and the metadata
//! of its authorization server (RFC 8414, OpenID Connect discovery). The
//! reference client follows these lists, and the judge of a client's
//! discovery compares what the client asked for with them.

use url::Url;

use crate::scenario::model::IssuerMetadata;
use crate::version::ProtocolVersion;

/// RFC 9728's well-known name, at the root and before a resource's path.
pub const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";
/// Where RFC 8414 puts the metadata of an issuer without a path.
pub const METADATA_PATH: &str = "/.well-known/oauth-authorization-server";
/// OpenID Connect discovery's well-known name.
pub const OPENID_CONFIGURATION: &str = "/.well-known/openid-configuration";

impl IssuerMetadata {
    /// The path of the metadata of this kind for an issuer whose path is
    /// `issuer_path` (empty or `/tenant1`): the well-known name inserted
    /// before it, or OpenID's appended to it.
    pub fn path(self, issuer_path: &str) -> String {
        match self {
            IssuerMetadata::OAuth => format!("{METADATA_PATH}{issuer_path}"),
            IssuerMetadata::OpenId => format!("{OPENID_CONFIGURATION}{issuer_path}"),
            IssuerMetadata::OpenIdAppended => format!("{issuer_path}{OPENID_CONFIGURATION}"),
        }
    }
}

/// The protected resource metadata URLs to try for the MCP endpoint
/// `resource`: the challenge's `resource_metadata` when there is one, then
/// the well-known URL with the endpoint's path, then the root one (the two
/// are one URL for an endpoint at the root).
pub fn protected_resource_metadata_urls(resource: &Url, from_challenge: Option<&Url>) -> Vec<Url> {
    let path = resource.path().trim_end_matches('/');
    let mut urls: Vec<Url> = from_challenge.into_iter().cloned().collect();
    for well_known in [format!("{WELL_KNOWN}{path}"), WELL_KNOWN.to_owned()] {
        let url = at_path(resource, &well_known);
        if !urls.contains(&url) {
            urls.push(url);
        }
    }
    urls
}

/// The authorization server metadata URLs to try for `issuer` on
/// `version`. 2025-03-26 has no issuer from PRM: `issuer` is then the MCP
/// server's URL, whose path is dropped. 2025-06-18 knows RFC 8414 only,
/// with the well-known name put before the issuer's path; from 2025-11-25
/// OpenID Connect discovery follows, in both of its placements.
pub fn authorization_server_metadata_urls(issuer: &Url, version: ProtocolVersion) -> Vec<Url> {
    let path = issuer.path().trim_end_matches('/');
    match version {
        ProtocolVersion::V2024_11_05 => Vec::new(),
        ProtocolVersion::V2025_03_26 => vec![at_path(issuer, METADATA_PATH)],
        ProtocolVersion::V2025_06_18 => vec![at_path(issuer, &format!("{METADATA_PATH}{path}"))],
        ProtocolVersion::V2025_11_25 | ProtocolVersion::V2026_07_28 if path.is_empty() => vec![
            at_path(issuer, METADATA_PATH),
            at_path(issuer, OPENID_CONFIGURATION),
        ],
        ProtocolVersion::V2025_11_25 | ProtocolVersion::V2026_07_28 => vec![
            at_path(issuer, &format!("{METADATA_PATH}{path}")),
            at_path(issuer, &format!("{OPENID_CONFIGURATION}{path}")),
            at_path(issuer, &format!("{path}{OPENID_CONFIGURATION}")),
        ],
    }
}

/// `base`'s origin with `path`, no query, no fragment.
fn at_path(base: &Url, path: &str) -> Url {
    let mut url = base.clone();
    url.set_path(path);
    url.set_query(None);
    url.set_fragment(None);
    url
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urls(found: &[Url]) -> Vec<&str> {
        found.iter().map(Url::as_str).collect()
    }

    #[test]
    fn protected_resource_metadata_comes_from_the_challenge_then_the_path_then_the_root() {
        let resource: Url = "http://127.0.0.1:8000/api/mcp?x=1".parse().unwrap();
        let challenge: Url = "http://127.0.0.1:8000/custom/prm".parse().unwrap();
        assert_eq!(
            urls(&protected_resource_metadata_urls(&resource, Some(&challenge))),
            [
                "http://127.0.0.1:8000/custom/prm",
                "http://127.0.0.1:8000/.well-known/oauth-protected-resource/api/mcp",
                "http://127.0.0.1:8000/.well-known/oauth-protected-resource",
            ]
        );
        let at_root: Url = "http://127.0.0.1:8000/".parse().unwrap();
        assert_eq!(
            urls(&protected_resource_metadata_urls(&at_root, None)),
            ["http://127.0.0.1:8000/.well-known/oauth-protected-resource"]
        );
    }

    #[test]
    fn an_issuer_with_a_path_gets_path_insertion_then_both_openid_placements_from_2025_11_25() {
        let issuer: Url = "http://127.0.0.1:9000/tenant1".parse().unwrap();
        let modern = [
            "http://127.0.0.1:9000/.well-known/oauth-authorization-server/tenant1",
            "http://127.0.0.1:9000/.well-known/openid-configuration/tenant1",
            "http://127.0.0.1:9000/tenant1/.well-known/openid-configuration",
        ];
        for version in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
            assert_eq!(
                urls(&authorization_server_metadata_urls(&issuer, version)),
                modern
            );
        }
        assert_eq!(
            urls(&authorization_server_metadata_urls(
                &issuer,
                ProtocolVersion::V2025_06_18
            )),
            modern[..1]
        );
    }

    #[test]
    fn an_issuer_without_a_path_and_the_2025_03_26_base_url() {
        let issuer: Url = "http://127.0.0.1:9000".parse().unwrap();
        assert_eq!(
            urls(&authorization_server_metadata_urls(
                &issuer,
                ProtocolVersion::V2025_11_25
            )),
            [
                "http://127.0.0.1:9000/.well-known/oauth-authorization-server",
                "http://127.0.0.1:9000/.well-known/openid-configuration",
            ]
        );
        let mcp: Url = "http://127.0.0.1:8000/v1/mcp".parse().unwrap();
        assert_eq!(
            urls(&authorization_server_metadata_urls(
                &mcp,
                ProtocolVersion::V2025_03_26
            )),
            ["http://127.0.0.1:8000/.well-known/oauth-authorization-server"]
        );
        assert!(authorization_server_metadata_urls(&mcp, ProtocolVersion::V2024_11_05).is_empty());
    }
}
