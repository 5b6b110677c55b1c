//! A gate in front of the mock server's endpoint: what screens each request
//! before the endpoint serves it (the protected mode of `auth:` scenarios
//! answers metadata lookups and turns away requests without a valid token).
//! The endpoint still records every request, screened or not.

use hyper::Response;
use mcp_conform_core::evidence::oauth::ClientAuthRecord;

use super::respond::Body;
use super::serve::Inbound;

pub(crate) trait Gate: Send + Sync + std::fmt::Debug {
    /// Answers the request labelled `label` itself, or lets it through to
    /// the endpoint (`None`).
    fn screen(&self, label: &str, request: &Inbound) -> Option<Response<Body>>;

    /// What the gate saw of the client's OAuth so far.
    fn record(&self) -> ClientAuthRecord;
}
