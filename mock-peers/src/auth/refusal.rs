//! The answer of a protected resource that turns a request away: the
//! status, the Bearer challenge (RFC 6750 §3) and an OAuth error body
//! (OAuth 2.1 §5.3). The reference server's protected mode and the
//! protected mock server both answer so.

use hyper::Response;
use hyper::StatusCode;
use hyper::header::{self, HeaderValue};
use serde_json::json;

use super::Rejection;
use crate::transport::http_server::respond::{Body, json_response};

/// `status` with a challenge of `parameters` (`name="value"` each) and
/// the error body of `rejection`.
pub(crate) fn refusal(status: u16, parameters: &[String], rejection: &Rejection) -> Response<Body> {
    let challenge = format!("Bearer {}", parameters.join(", "));
    let body = match (rejection.error_code(), rejection) {
        (Some(code), Rejection::InvalidToken(why)) => json!({"error": code, "error_description": why}),
        (Some(code), Rejection::Inactive) => {
            json!({"error": code, "error_description": "the authorization server says the token is not active"})
        }
        (Some(code), _) => json!({"error": code}),
        (None, _) => json!({"error": "invalid_token", "error_description": "no access token"}),
    };
    let status = StatusCode::from_u16(status).expect("statuses of the guard are valid");
    let mut response = json_response(status, body.to_string());
    let value = HeaderValue::from_str(&challenge).expect("challenges are visible ASCII");
    response.headers_mut().insert(header::WWW_AUTHENTICATE, value);
    response
}
