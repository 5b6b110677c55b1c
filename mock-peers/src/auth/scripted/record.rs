//! What the scripted authorization server keeps of each request, in
//! arrival order, so that the judge sees the client's whole OAuth
//! conversation: the query and form parameters, the raw body (a
//! registration is JSON) and the Authorization header.

use hyper::header::{AUTHORIZATION, CONTENT_TYPE};
use hyper::http::request::Parts;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthRequest {
    pub method: String,
    pub path: String,
    /// Query parameters, then those of a form body, decoded, in order.
    pub params: Vec<(String, String)>,
    pub body: String,
    pub authorization: Option<String>,
}

impl OAuthRequest {
    pub(in crate::auth) fn of(parts: &Parts, body: &str) -> Self {
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
        Self {
            method: parts.method.to_string(),
            path: parts.uri.path().to_owned(),
            params,
            body: body.to_owned(),
            authorization: parts
                .headers
                .get(AUTHORIZATION)
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned),
        }
    }

    /// The first value of parameter `name`.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}
