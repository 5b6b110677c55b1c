//! 2025-03-26's fallback for a server offering no authorization server
//! metadata (`--auth-default-endpoints`): its origin answers 404 at the
//! RFC 8414 well-known path and serves the default endpoints at their
//! fixed paths in front of the mock issuer, whose endpoints do the work.
//! `/authorize` redirects to the issuer's authorization endpoint, query
//! and all (a user agent follows it); `/token` forwards the POST and
//! answers what the issuer answered (a client does not follow a redirect
//! of its token request). The issuer offers no dynamic registration, so
//! `/register` is not served either.

use hyper::header::{self, HeaderValue};
use hyper::{Method, Response, StatusCode};
use serde_json::Value;

use crate::auth::{AUTHORIZE_PATH, METADATA_PATH, TOKEN_PATH, is_loopback};
use crate::reference::Fault;
use crate::transport::http_server::request::header_str;
use crate::transport::http_server::respond::{Body, json_response, status_only};
use crate::transport::http_server::serve::Inbound;

/// The issuer's endpoints the default ones stand in front of.
#[derive(Debug)]
pub(super) struct DefaultEndpoints {
    authorization_endpoint: String,
    token_endpoint: String,
    client: reqwest::Client,
}

impl DefaultEndpoints {
    /// In front of the issuer whose RFC 8414 metadata is `metadata`; its
    /// endpoints must be on loopback, as the server only forwards there.
    pub(super) fn in_front_of(metadata: &Value) -> Result<Self, String> {
        let endpoint = |name: &str| {
            metadata[name]
                .as_str()
                .filter(|url| is_loopback(url))
                .map(str::to_owned)
                .ok_or_else(|| format!("the issuer's metadata names no {name} on loopback http"))
        };
        Ok(Self {
            authorization_endpoint: endpoint("authorization_endpoint")?,
            token_endpoint: endpoint("token_endpoint")?,
            client: reqwest::Client::new(),
        })
    }

    /// The answer to `request` when its path is the metadata's or a
    /// default endpoint's; `None` for every other request
    /// (`auth-default-no-token`: for a POST to `/token` too).
    pub(super) async fn answer(&self, fault: Option<Fault>, request: &Inbound) -> Option<Response<Body>> {
        let parts = &request.parts;
        match (&parts.method, parts.uri.path()) {
            (&Method::GET, METADATA_PATH) => Some(status_only(StatusCode::NOT_FOUND)),
            (&Method::GET, AUTHORIZE_PATH) => Some(self.authorize(parts.uri.query())),
            (&Method::POST, TOKEN_PATH) if fault != Some(Fault::AuthDefaultNoToken) => {
                Some(self.token(request).await)
            }
            _ => None,
        }
    }

    /// 302 to the issuer's authorization endpoint with the same query.
    fn authorize(&self, query: Option<&str>) -> Response<Body> {
        let location = match query {
            Some(query) => format!("{}?{query}", self.authorization_endpoint),
            None => self.authorization_endpoint.clone(),
        };
        let mut response = status_only(StatusCode::FOUND);
        if let Ok(location) = HeaderValue::from_str(&location) {
            response.headers_mut().insert(header::LOCATION, location);
        }
        response
    }

    /// The issuer's answer to the same POST (always JSON, an OAuth error
    /// included); 502 when the issuer cannot be reached.
    async fn token(&self, request: &Inbound) -> Response<Body> {
        let mut forwarded = self.client.post(&self.token_endpoint).body(request.body.clone());
        if let Some(content_type) = header_str(&request.parts.headers, header::CONTENT_TYPE.as_str()) {
            forwarded = forwarded.header(header::CONTENT_TYPE, content_type);
        }
        let answered = match forwarded.send().await {
            Ok(answer) => {
                let status = answer.status().as_u16();
                answer.text().await.map(|text| (status, text))
            }
            Err(error) => Err(error),
        };
        match answered {
            Ok((status, text)) => json_response(
                StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY),
                text,
            ),
            Err(_) => status_only(StatusCode::BAD_GATEWAY),
        }
    }
}
