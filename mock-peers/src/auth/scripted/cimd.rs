//! Client ID Metadata Documents: a `client_id` that is a URL is fetched,
//! as the authorization server of a real deployment would, and the
//! document is checked where the flow depends on it (its `client_id` is
//! that URL, its `redirect_uris` list the one asked for). Each fetch is
//! recorded for the judge, which weighs the rest of AUTH-043.
//!
//! Only documents on this machine are fetched: the harness reaches no
//! other host (no network, no TLS of its own), so a URL elsewhere is
//! recorded as not fetched, with the reason, and refused like any
//! document that cannot be read.

use std::time::Duration;

use mcp_conform_core::evidence::oauth::MetadataFetch;
use reqwest::Url;
use serde_json::Value;

/// Past this many bytes a document is not read further: no client needs more.
const DOCUMENT_LIMIT: usize = 64 * 1024;
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);
const NOT_LOCAL: &str = "not fetched: it is not on this machine, and the harness reaches no other host";

/// Whether `fetched` lets the flow go on to `redirect_uri`.
pub(super) fn admits(fetched: &MetadataFetch, redirect_uri: &str) -> bool {
    let Some(document) = &fetched.document else {
        return false;
    };
    let names_itself = document["client_id"].as_str() == Some(fetched.url.as_str());
    let lists_redirect = document["redirect_uris"]
        .as_array()
        .is_some_and(|uris| uris.iter().any(|uri| uri.as_str() == Some(redirect_uri)));
    fetched.outcome == Ok(200) && names_itself && lists_redirect
}

/// Whether `client_id` names a metadata document rather than a registration.
pub(super) fn is_document_url(client_id: &str) -> bool {
    client_id.starts_with("https://") || client_id.starts_with("http://")
}

pub(super) async fn fetch(url: &str) -> MetadataFetch {
    let (outcome, document) = match read(url).await {
        Ok((status, body)) => (
            Ok(status),
            serde_json::from_slice(&body).ok().filter(Value::is_object),
        ),
        Err(why) => (Err(why), None),
    };
    MetadataFetch {
        url: url.to_owned(),
        outcome,
        document,
    }
}

/// Whether `url` is on this machine.
fn is_local(url: &str) -> bool {
    Url::parse(url).is_ok_and(|url| matches!(url.host_str(), Some("127.0.0.1" | "localhost" | "[::1]")))
}

async fn read(url: &str) -> Result<(u16, Vec<u8>), String> {
    if !is_local(url) {
        return Err(NOT_LOCAL.to_owned());
    }
    let client = reqwest::Client::builder()
        .timeout(FETCH_TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| e.to_string())?;
    let mut response = client.get(url).send().await.map_err(|e| e.to_string())?;
    let status = response.status().as_u16();
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| e.to_string())? {
        if body.len() + chunk.len() > DOCUMENT_LIMIT {
            return Err(format!("the document is longer than {DOCUMENT_LIMIT} bytes"));
        }
        body.extend_from_slice(&chunk);
    }
    Ok((status, body))
}
