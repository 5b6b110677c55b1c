//! The answer of an authorization endpoint that grants at once (RFC 6749
//! §4.1.2): a 302 back to the client's `redirect_uri` with the code and
//! the rest appended to its query. The mock issuer and the scripted one
//! both answer so.

use hyper::StatusCode;
use hyper::header::{HeaderValue, LOCATION};

use crate::transport::http_server::respond::{Body, status_only};

/// The redirect to `redirect_uri` carrying `params`; `None` when the
/// result is no valid `Location` value.
pub(super) fn redirect_with(redirect_uri: &str, params: &[(&str, &str)]) -> Option<hyper::Response<Body>> {
    let mut query = form_urlencoded::Serializer::new(String::new());
    query.extend_pairs(params);
    let separator = if redirect_uri.contains('?') { '&' } else { '?' };
    let location = HeaderValue::from_str(&format!("{redirect_uri}{separator}{}", query.finish())).ok()?;
    let mut response = status_only(StatusCode::FOUND);
    response.headers_mut().insert(LOCATION, location);
    Some(response)
}
