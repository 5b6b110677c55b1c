//! The reference client's Client ID Metadata Document, for an
//! authorization server that supports them and offers no Dynamic Client
//! Registration: served on a loopback listener for as long as the flow
//! runs, its URL the client ID. A document elsewhere could not be fetched
//! by the harness, and the harness has no TLS: `http://127.0.0.1` is the
//! loopback exemption from https (AUTH-043).

use serde_json::{Value, json};
use tokio::task::JoinHandle;

use super::{ClientFault, REDIRECT_URI, application_type, grant_types};
use crate::auth::{loopback_listener, ok, serve_in_background};

/// Where on its listener the document is.
const DOCUMENT_PATH: &str = "/client-metadata.json";

/// A document being served; it stops when dropped.
pub(super) struct ServedDocument {
    pub url: String,
    task: JoinHandle<()>,
}

impl Drop for ServedDocument {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Starts serving the document, whose `client_id` is its own URL (unless
/// `fault` says otherwise).
pub(super) async fn serve(fault: Option<ClientFault>) -> Result<ServedDocument, String> {
    let (listener, origin) = loopback_listener().await.map_err(|e| e.to_string())?;
    let url = format!("{origin}{DOCUMENT_PATH}");
    let document = document(&url, fault);
    let task = serve_in_background(listener, "reference client metadata document", move |_| {
        let document = document.clone();
        async move { ok(document) }
    });
    Ok(ServedDocument { url, task })
}

fn document(url: &str, fault: Option<ClientFault>) -> Value {
    let client_id = match fault {
        // The document names the URL with a trailing slash: another URL.
        Some(ClientFault::AuthDocumentNamesAnotherUrl) => format!("{url}/"),
        _ => url.to_owned(),
    };
    json!({
        "client_id": client_id,
        "client_name": "mcp-conform reference client",
        "redirect_uris": [REDIRECT_URI],
        "application_type": application_type(fault),
        "grant_types": grant_types(fault),
        "token_endpoint_auth_method": "none",
    })
}
