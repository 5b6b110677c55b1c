//! What the scripted authorization server keeps of each request, in
//! arrival order, so that the judge sees the client's whole OAuth
//! conversation: the query and form parameters, the raw body (a
//! registration is JSON), the Authorization and MCP-Protocol-Version
//! headers and the status it got.

use hyper::header::{AUTHORIZATION, CONTENT_TYPE};
use hyper::http::request::Parts;
use mcp_conform_core::evidence::oauth::OAuthRequest;
use mcp_conform_core::wire::headers::PROTOCOL_VERSION;

/// The record of the `n`th request (from 1), before it is answered.
pub(in crate::auth) fn recorded(n: usize, parts: &Parts, body: &str) -> OAuthRequest {
    let query = parts.uri.query().unwrap_or_default();
    let is_form = parts
        .headers
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("application/x-www-form-urlencoded"));
    let form = if is_form { body } else { "" };
    let params = form_urlencoded::parse(query.as_bytes())
        .chain(form_urlencoded::parse(form.as_bytes()))
        .map(|(name, value)| (name.into_owned(), value.into_owned()))
        .collect();
    let path = parts.uri.path();
    let name = path
        .rsplit('/')
        .find(|segment| !segment.is_empty())
        .unwrap_or("root");
    OAuthRequest {
        label: format!("{name}#{n}"),
        method: parts.method.to_string(),
        path: path.to_owned(),
        params,
        body: body.to_owned(),
        authorization: parts
            .headers
            .get(AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned),
        protocol_version: parts
            .headers
            .get(PROTOCOL_VERSION)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned),
        status: 0,
    }
}
