//! The two metadata lookups of the flow: the protected resource's (RFC
//! 9728), whose `resource` must be the server being connected to, and its
//! authorization server's (RFC 8414, OpenID discovery), whose `issuer` must
//! be the one the URL was made from.

use mcp_conform_core::version::ProtocolVersion;
use reqwest::Url;
use serde_json::Value;

use super::ClientFault;
use crate::auth::{METADATA_PATH, authorization_server_metadata_urls, protected_resource_metadata_urls};

pub(super) type Metadata = Value;

/// The JSON object of a 2xx answer, else why not.
pub(super) async fn json_of(answer: reqwest::Response, url: &str) -> Result<Value, String> {
    let status = answer.status();
    let text = answer.text().await.map_err(|e| format!("{url}: {e}"))?;
    if !status.is_success() {
        return Err(format!("{url} answered {status}: {text}"));
    }
    serde_json::from_str::<Value>(&text)
        .ok()
        .filter(Value::is_object)
        .ok_or_else(|| format!("{url}: not a JSON object"))
}

/// The first document of `urls` that answers, tried in order.
async fn first_found(
    http: &reqwest::Client,
    urls: &[Url],
    accept: impl Fn(&Value) -> bool,
) -> Result<Value, String> {
    let mut tried = Vec::new();
    for url in urls {
        let found = match http.get(url.as_str()).send().await {
            Ok(answer) => json_of(answer, url.as_str()).await,
            Err(e) => Err(e.to_string()),
        };
        match found {
            Ok(document) if accept(&document) => return Ok(document),
            Ok(_) => tried.push(format!("{url}: describes something else")),
            Err(why) => tried.push(why),
        }
    }
    Err(format!("no metadata found: {}", tried.join("; ")))
}

/// The protected resource metadata of `resource`, from the challenge's URL
/// when it named one, then the well-known URLs; one describing another
/// resource is not used.
pub(super) async fn protected_resource(
    http: &reqwest::Client,
    resource: &Url,
    named: Option<&Url>,
    fault: Option<ClientFault>,
) -> Result<Value, String> {
    let mut urls = protected_resource_metadata_urls(resource, named);
    if fault == Some(ClientFault::AuthRootFirst) {
        urls.reverse();
    }
    let any_resource = fault == Some(ClientFault::AuthAcceptsOtherResource);
    first_found(http, &urls, |document| {
        any_resource
            || document["resource"]
                .as_str()
                .and_then(|r| r.parse::<Url>().ok())
                .as_ref()
                == Some(resource)
    })
    .await
}

/// The `http-auth-assumes-server-origin` fault's lookup: authorization
/// server metadata at the MCP server's own origin, as 2025-03-26 had it.
/// Whatever it answers is passed over, as a client falling back would.
pub(super) async fn at_server_origin(http: &reqwest::Client, resource: &Url) {
    if let Ok(url) = resource.join(METADATA_PATH) {
        let _passed_over = http.get(url).send().await;
    }
}

/// The metadata of the authorization server `issuer`, at the URLs the
/// newest version gives (which begin with the older versions' one), whose
/// `issuer` must be `issuer` (unless a fault skips that check, tries
/// another URL first or leaves OpenID's out).
pub(super) async fn authorization_server(
    http: &reqwest::Client,
    issuer: &str,
    fault: Option<ClientFault>,
) -> Result<Value, String> {
    let parsed: Url = issuer.parse().map_err(|e| format!("{issuer}: {e}"))?;
    let mut urls = authorization_server_metadata_urls(&parsed, ProtocolVersion::V2026_07_28);
    if fault == Some(ClientFault::AuthIssuerPathAppended) {
        let appended = parsed
            .join(&format!("{}{METADATA_PATH}", parsed.path().trim_end_matches('/')))
            .map_err(|e| format!("{issuer}: {e}"))?;
        if !urls.contains(&appended) {
            urls.insert(0, appended);
        }
    }
    if fault == Some(ClientFault::AuthNoOpenIdDiscovery) {
        urls.retain(|url| url.path().starts_with(METADATA_PATH));
    }
    let skips = fault == Some(ClientFault::AuthAcceptsOtherIssuer);
    first_found(http, &urls, |document| {
        skips || document["issuer"].as_str() == Some(issuer)
    })
    .await
}
