//! Client ID Metadata Documents: a `client_id` that is a URL is fetched,
//! as the authorization server of a real deployment would, and the
//! document is checked where the flow depends on it (its `client_id` is
//! that URL, its `redirect_uris` list the one asked for). Each fetch is
//! recorded for the judge, which weighs the rest of AUTH-043.

use std::time::Duration;

use serde_json::Value;

/// Past this many bytes a document is not read further: no client needs more.
const DOCUMENT_LIMIT: usize = 64 * 1024;
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);

/// One fetch of a client's metadata document.
#[derive(Debug, Clone, PartialEq)]
pub struct MetadataFetch {
    pub url: String,
    /// The HTTP status, or why there was none.
    pub outcome: Result<u16, String>,
    /// The body when it was a JSON object within the limit.
    pub document: Option<Value>,
}

impl MetadataFetch {
    /// Whether the document lets the flow go on to `redirect_uri`.
    pub(super) fn admits(&self, redirect_uri: &str) -> bool {
        let Some(document) = &self.document else {
            return false;
        };
        let names_itself = document["client_id"].as_str() == Some(self.url.as_str());
        let lists_redirect = document["redirect_uris"]
            .as_array()
            .is_some_and(|uris| uris.iter().any(|uri| uri.as_str() == Some(redirect_uri)));
        self.outcome == Ok(200) && names_itself && lists_redirect
    }
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

async fn read(url: &str) -> Result<(u16, Vec<u8>), String> {
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
