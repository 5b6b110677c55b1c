//! The reference client's HTTP faults: a proxy on a loopback port between
//! the correct client transport and the server, rewriting each request the
//! way the fault says. The transport itself stays correct and free of fault
//! switches, as the reference server's HTTP faults leave its server alone.
//! The proxy stands in front of the transport of its fault's era only; the
//! stateless faults leave the `server/discover` probe intact, so that a strict
//! server still takes the client for a stateless one and the fault shows on
//! every request after it.

use std::sync::Arc;

use bytes::Bytes;
use hyper::body::Incoming;
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use mcp_conform_core::wire::headers::{METHOD, PARAM_PREFIX, PROTOCOL_VERSION, SESSION_ID};
use reqwest::Url;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::ClientFault;
use crate::transport::http_server::request::read_body;
use crate::transport::http_server::respond::{Body, refuse, status_only};
use crate::transport::http_server::serve::serve_with;
use crate::transport::http_server::streams::EventBody;

/// The version a mismatched `MCP-Protocol-Version` names.
const MISMATCHED_VERSION: &str = "2025-11-25";

/// Headers about one hop, never passed on.
const HOP_BY_HOP: [header::HeaderName; 4] = [
    header::CONNECTION,
    header::CONTENT_LENGTH,
    header::HOST,
    header::TRANSFER_ENCODING,
];

/// A running proxy; it stops when dropped.
#[derive(Debug)]
pub(super) struct FaultProxy {
    url: String,
    task: JoinHandle<()>,
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

#[derive(Debug)]
struct Forward {
    target: Url,
    client: reqwest::Client,
    fault: ClientFault,
}

impl FaultProxy {
    /// Starts a proxy for `target` that breaks `fault`'s rule.
    pub async fn start(target: &str, fault: ClientFault) -> Result<FaultProxy, String> {
        let target = Url::parse(target).map_err(|e| format!("`{target}`: {e}"))?;
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| format!("the fault proxy cannot listen: {e}"))?;
        let bound = listener.local_addr().map_err(|e| e.to_string())?;
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| e.to_string())?;
        let url = format!("http://{bound}{}", target.path());
        let forward = Arc::new(Forward {
            target,
            client,
            fault,
        });
        let task = tokio::spawn(async move {
            let handle = move |request| Arc::clone(&forward).pass(request);
            let _ = serve_with(listener, "reference client fault proxy", handle).await;
        });
        Ok(FaultProxy { url, task })
    }

    /// Where the client should send its requests.
    pub fn url(&self) -> &str {
        &self.url
    }
}

impl Forward {
    /// Rewrites one request as the fault says, sends it on, and relays the
    /// answer (an SSE stream as it comes).
    async fn pass(self: Arc<Self>, request: Request<Incoming>) -> Response<Body> {
        let (parts, body) = request.into_parts();
        if self.fault == ClientFault::HttpNoDelete && parts.method == Method::DELETE {
            // Swallowed: the server never hears that the client is done.
            return status_only(StatusCode::OK);
        }
        let body = match read_body(body).await {
            Ok(body) => body,
            Err(refused) => return refused.response(),
        };
        let mut headers = parts.headers;
        for name in &HOP_BY_HOP {
            headers.remove(name);
        }
        let body = self.rewrite(&parts.method, &mut headers, body);
        let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
        let Ok(url) = self.target.join(path) else {
            return refuse(
                StatusCode::BAD_GATEWAY,
                "the fault proxy cannot build the server's URL",
            );
        };
        let sent = self
            .client
            .request(parts.method, url)
            .headers(headers)
            .body(body)
            .send()
            .await;
        match sent {
            Ok(answer) => relay(answer).await,
            Err(error) => refuse(
                StatusCode::BAD_GATEWAY,
                &format!("the server could not be reached: {error}"),
            ),
        }
    }

    /// The fault's rewrite of one request; returns the body to send.
    fn rewrite(&self, method: &Method, headers: &mut HeaderMap, body: String) -> String {
        if self.fault.is_modern() {
            rewrite_stateless(self.fault, headers, &body);
            return body;
        }
        match (self.fault, method) {
            (ClientFault::HttpAcceptJsonOnly, &Method::POST)
            | (ClientFault::HttpGetWrongAccept, &Method::GET) => {
                headers.insert(header::ACCEPT, HeaderValue::from_static("application/json"));
            }
            (ClientFault::HttpNoSessionId, _) => {
                headers.remove(SESSION_ID);
            }
            (ClientFault::HttpNoVersionHeader, _) => {
                headers.remove(PROTOCOL_VERSION);
            }
            (ClientFault::HttpBatch, &Method::POST) => {
                let message: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
                if message.get("method").and_then(Value::as_str) == Some("notifications/initialized") {
                    return format!("[{body}]");
                }
            }
            _ => {}
        }
        body
    }
}

/// A stateless fault's rewrite of the headers of a POST carrying `body`.
fn rewrite_stateless(fault: ClientFault, headers: &mut HeaderMap, body: &str) {
    let message: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    match (fault, message.get("method").and_then(Value::as_str)) {
        (_, None | Some("server/discover")) => {}
        (ClientFault::ModernHttpNoMethodHeader, _) => {
            headers.remove(METHOD);
        }
        (ClientFault::ModernHttpVersionMismatch, _) => {
            headers.insert(PROTOCOL_VERSION, HeaderValue::from_static(MISMATCHED_VERSION));
        }
        (ClientFault::ModernHttpNoParamHeader, Some("tools/call")) => {
            let params: Vec<_> = headers
                .keys()
                .filter(|name| name.as_str().starts_with(PARAM_PREFIX))
                .cloned()
                .collect();
            for name in params {
                headers.remove(name);
            }
        }
        _ => {}
    }
}

/// The server's answer, passed back: status, headers and body, the body
/// chunk by chunk as it arrives.
async fn relay(mut answer: reqwest::Response) -> Response<Body> {
    let mut headers = answer.headers().clone();
    for name in &HOP_BY_HOP {
        headers.remove(name);
    }
    let (tx, rx) = mpsc::unbounded_channel::<Bytes>();
    let mut response = Response::new(Body::Events(EventBody::from_channel(rx)));
    *response.status_mut() = answer.status();
    *response.headers_mut() = headers;
    tokio::spawn(async move {
        while let Ok(Some(chunk)) = answer.chunk().await {
            if tx.send(chunk).is_err() {
                return;
            }
        }
    });
    response
}
