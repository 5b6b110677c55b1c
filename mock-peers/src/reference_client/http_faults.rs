//! The reference client's HTTP faults: a proxy on a loopback port between
//! the correct client transport and the server, rewriting each request the
//! way the fault says. The transport itself stays correct and free of fault
//! switches, as the reference server's HTTP faults leave its server alone.
//! The proxy stands in front of the transport of its fault's era only; the
//! stateless faults leave the `server/discover` probe intact, so that a strict
//! server still takes the client for a stateless one and the fault shows on
//! every request after it.

use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Method, StatusCode};
use mcp_conform_core::wire::headers::{METHOD, NAME, PARAM_PREFIX, PROTOCOL_VERSION, SESSION_ID};
use serde_json::Value;

use super::ClientFault;
use crate::transport::http_proxy::{Hop, HttpProxy};

/// The version a mismatched `MCP-Protocol-Version` names.
const MISMATCHED_VERSION: &str = "2025-11-25";

/// A running proxy; it stops when dropped.
#[derive(Debug)]
pub(super) struct FaultProxy(HttpProxy);

/// The fault each request is rewritten by.
struct Rewrite(ClientFault);

impl FaultProxy {
    /// Starts a proxy for `target` that breaks `fault`'s rule.
    pub async fn start(target: &str, fault: ClientFault) -> Result<FaultProxy, String> {
        HttpProxy::start(target, "reference client fault proxy", Rewrite(fault))
            .await
            .map(FaultProxy)
    }

    /// Where the client should send its requests.
    pub fn url(&self) -> &str {
        self.0.url()
    }
}

impl Hop for Rewrite {
    /// The fault's rewrite of one request; returns the body to send.
    fn outbound(&self, method: &Method, headers: &mut HeaderMap, body: String) -> Result<String, StatusCode> {
        let fault = self.0;
        if fault == ClientFault::HttpNoDelete && method == Method::DELETE {
            // Swallowed: the server never hears that the client is done.
            return Err(StatusCode::OK);
        }
        if fault.is_modern() {
            rewrite_stateless(fault, headers, &body);
            return Ok(body);
        }
        match (fault, method) {
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
                    return Ok(format!("[{body}]"));
                }
            }
            _ => {}
        }
        Ok(body)
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
        (ClientFault::ModernHttpTaskNoName, Some("tasks/get")) => {
            headers.remove(NAME);
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
