//! A gate in front of the mock server's endpoint: what screens each request
//! before the endpoint serves it (the protected mode of `auth:` scenarios
//! answers metadata lookups and turns away requests without a valid token).
//! The endpoint still records every request, screened or not, but those
//! for an authorization server that shares its origin (2025-03-26).

use std::future::Future;
use std::pin::Pin;

use hyper::body::Incoming;
use hyper::{Request, Response};
use mcp_conform_core::evidence::oauth::ClientAuthRecord;

use super::respond::Body;
use super::serve::Inbound;

/// The answer of a server behind the gate, to come.
pub(crate) type Forwarded = Pin<Box<dyn Future<Output = Response<Body>> + Send>>;

pub(crate) trait Gate: Send + Sync + std::fmt::Debug {
    /// Whether a request for `path` is for an authorization server at the
    /// mock server's own origin (2025-03-26), which answers and records it
    /// instead of the endpoint ([`Gate::authorization_server`]).
    fn at_authorization_server(&self, path: &str) -> bool;

    /// That authorization server's answer to `request`.
    fn authorization_server(&self, request: Request<Incoming>) -> Forwarded;

    /// Answers the request labelled `label` itself, or lets it through to
    /// the endpoint (`None`).
    fn screen(&self, label: &str, request: &Inbound) -> Option<Response<Body>>;

    /// What the gate saw of the client's OAuth so far.
    fn record(&self) -> ClientAuthRecord;
}
