//! 2025-03-26's fallback for a server offering no authorization server
//! metadata (`--auth-default-endpoints`): its origin answers 404 at the
//! RFC 8414 well-known path and serves the default endpoints at their
//! fixed paths in front of the mock issuer, whose endpoints do the work.
//! `/authorize` redirects to the issuer's authorization endpoint, query
//! and all (a user agent follows it); `/token` forwards the POST and
//! answers what the issuer answered (a client does not follow a redirect
//! of its token request), within [`TOKEN_FORWARD_TIMEOUT`]. The issuer
//! offers no dynamic registration, so `/register` is not served either.

use std::time::Duration;

use hyper::header::{self, HeaderValue};
use hyper::{Method, Response, StatusCode};
use serde_json::{Value, json};

use crate::auth::{AUTHORIZE_PATH, METADATA_PATH, TOKEN_PATH, is_loopback};
use crate::reference::Fault;
use crate::transport::http_server::request::header_str;
use crate::transport::http_server::respond::{Body, json_response, status_only};
use crate::transport::http_server::serve::Inbound;

/// How long the issuer may take to answer a forwarded token request: a
/// stalled issuer gets the client a 504 rather than a request that hangs
/// until the client's own timeout, which names nothing.
const TOKEN_FORWARD_TIMEOUT: Duration = Duration::from_secs(5);

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
        Self::forwarding_within(metadata, TOKEN_FORWARD_TIMEOUT)
    }

    /// As [`Self::in_front_of`], with token requests forwarded within
    /// `timeout`.
    fn forwarding_within(metadata: &Value, timeout: Duration) -> Result<Self, String> {
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
            client: reqwest::Client::builder()
                .timeout(timeout)
                .build()
                .map_err(|error| format!("no HTTP client to forward token requests: {error}"))?,
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
    /// included); when it has none, an OAuth error of our own: 504 when
    /// the issuer did not answer in time, 502 when it could not be reached.
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
            Err(error) if error.is_timeout() => unanswered(
                StatusCode::GATEWAY_TIMEOUT,
                "temporarily_unavailable",
                "the authorization server did not answer the token request in time",
            ),
            Err(_) => unanswered(
                StatusCode::BAD_GATEWAY,
                "server_error",
                "the authorization server could not be reached",
            ),
        }
    }
}

/// A token request the issuer left unanswered, as an OAuth error body
/// (RFC 6749 §5.2's shape) a client reports like any other.
fn unanswered(status: StatusCode, error: &str, description: &str) -> Response<Body> {
    let body = json!({"error": error, "error_description": description});
    json_response(status, body.to_string())
}

#[cfg(test)]
mod tests {
    use hyper::Request;
    use tokio::net::TcpListener;

    use super::*;

    /// The metadata of an issuer at `port` on loopback.
    fn issuer_at(port: u16) -> Value {
        json!({
            "authorization_endpoint": format!("http://127.0.0.1:{port}/authorize"),
            "token_endpoint": format!("http://127.0.0.1:{port}/token"),
        })
    }

    /// A client's token request to the default `/token`.
    fn token_request() -> Inbound {
        let (parts, ()) = Request::post(TOKEN_PATH)
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(())
            .expect("a request")
            .into_parts();
        Inbound {
            parts,
            body: "grant_type=authorization_code&code=c".into(),
        }
    }

    /// The status and OAuth `error` of an answer.
    fn status_and_error(answer: Response<Body>) -> (StatusCode, Value) {
        let status = answer.status();
        let Body::Full(Some(bytes)) = answer.into_body() else {
            panic!("a JSON body");
        };
        let body: Value = serde_json::from_slice(&bytes).expect("JSON");
        (status, body["error"].clone())
    }

    #[tokio::test]
    async fn a_stalled_issuer_gets_the_client_a_504_in_bounded_time() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        // Accepts the forwarded request and never answers it.
        let stalled = tokio::spawn(async move {
            let mut held = Vec::new();
            while let Ok((socket, _)) = listener.accept().await {
                held.push(socket);
            }
        });
        let timeout = Duration::from_millis(200);
        let endpoints = DefaultEndpoints::forwarding_within(&issuer_at(port), timeout).unwrap();
        let answer = tokio::time::timeout(timeout * 10, endpoints.token(&token_request()))
            .await
            .expect("the client is answered, though the issuer never is");
        assert_eq!(
            status_and_error(answer),
            (StatusCode::GATEWAY_TIMEOUT, json!("temporarily_unavailable"))
        );
        stalled.abort();
    }

    #[tokio::test]
    async fn an_unreachable_issuer_gets_the_client_a_502() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let endpoints = DefaultEndpoints::in_front_of(&issuer_at(port)).unwrap();
        let answer = endpoints.token(&token_request()).await;
        assert_eq!(
            status_and_error(answer),
            (StatusCode::BAD_GATEWAY, json!("server_error"))
        );
    }
}
