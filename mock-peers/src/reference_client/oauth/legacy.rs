//! The way to the authorization server of 2025-03-26, for a server whose
//! 401 names no protected resource metadata and that serves none: the MCP
//! server's origin is the authorization base URL, its RFC 8414 metadata is
//! asked for there (naming the protocol version), and when there is none
//! (404) the default endpoints there are used.

use mcp_conform_core::evidence::oauth::{AUTHORIZE_PATH, REGISTER_PATH, TOKEN_PATH};
use mcp_conform_core::wire::headers::PROTOCOL_VERSION;
use reqwest::{StatusCode, Url};
use serde_json::json;

use super::ClientFault;
use super::metadata::{Metadata, json_of};
use crate::auth::METADATA_PATH;

/// The version whose flow this is, named in the metadata lookup.
const VERSION: &str = "2025-03-26";

/// The authorization base URL of `resource` (its origin, which is also
/// the issuer) and the metadata found there, or the default endpoints.
pub(super) async fn authorization_server(
    http: &reqwest::Client,
    resource: &Url,
    fault: Option<ClientFault>,
) -> Result<(String, Metadata), String> {
    let base = resource.origin().ascii_serialization();
    let lookup = match fault {
        Some(ClientFault::AuthLegacyMetadataUnderPath) => {
            format!("{base}{METADATA_PATH}{}", resource.path().trim_end_matches('/'))
        }
        _ => format!("{base}{METADATA_PATH}"),
    };
    let mut request = http.get(&lookup);
    if fault != Some(ClientFault::AuthLegacyNoVersionHeader) {
        request = request.header(PROTOCOL_VERSION, VERSION);
    }
    let answer = request.send().await.map_err(|e| format!("GET {lookup}: {e}"))?;
    if answer.status() != StatusCode::NOT_FOUND {
        let metadata = json_of(answer, &lookup).await?;
        return Ok((base, metadata));
    }
    if fault == Some(ClientFault::AuthLegacyNoFallback) {
        return Err(format!("{lookup} answered 404: no metadata, no authorization"));
    }
    let defaults = default_endpoints(&base);
    Ok((base, defaults))
}

/// The endpoints a server without metadata has under `base`. PKCE S256 is
/// every 2025-03-26 client's duty, so it is taken as supported.
fn default_endpoints(base: &str) -> Metadata {
    json!({
        "issuer": base,
        "authorization_endpoint": format!("{base}{AUTHORIZE_PATH}"),
        "token_endpoint": format!("{base}{TOKEN_PATH}"),
        "registration_endpoint": format!("{base}{REGISTER_PATH}"),
        "code_challenge_methods_supported": ["S256"],
    })
}
