//! The reference gateway's protected front (`--auth ISSUER`): the same
//! token check as the reference server's protected mode ([`ResourceGuard`],
//! the issuer's keys discovered from its URL), with the RFC 9728 metadata
//! at the well-known URLs and a challenge naming it on every refusal. It
//! keeps the credential the client presented, which only the
//! `forwards-token` fault reads.

use std::sync::{Arc, Mutex, PoisonError};

use hyper::body::Incoming;
use hyper::header::AUTHORIZATION;
use hyper::{Method, Request, Response, StatusCode};
use mcp_conform_core::evidence::oauth::ClientAuthRecord;

use crate::auth::{ResourceGuard, refusal};
use crate::transport::http_server::gate::{Forwarded, Gate};
use crate::transport::http_server::request::header_str;
use crate::transport::http_server::respond::{Body, json_response, status_only};
use crate::transport::http_server::serve::Inbound;

/// The bearer token of the client's latest admitted request.
#[derive(Debug, Clone, Default)]
pub(super) struct Presented(Arc<Mutex<Option<String>>>);

impl Presented {
    pub(super) fn token(&self) -> Option<String> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    fn keep(&self, token: &str) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(token.to_owned());
    }
}

#[derive(Debug)]
pub(super) struct FrontGuard {
    guard: ResourceGuard,
    presented: Presented,
}

impl FrontGuard {
    pub(super) fn new(guard: ResourceGuard) -> Self {
        Self {
            guard,
            presented: Presented::default(),
        }
    }

    pub(super) fn presented(&self) -> Presented {
        self.presented.clone()
    }
}

impl Gate for FrontGuard {
    fn at_authorization_server(&self, _path: &str) -> bool {
        false
    }

    fn authorization_server(&self, _request: Request<Incoming>) -> Forwarded {
        Box::pin(async { status_only(StatusCode::NOT_FOUND) })
    }

    fn screen(&self, _label: &str, request: &Inbound) -> Option<Response<Body>> {
        let parts = &request.parts;
        if parts.method == Method::GET && self.guard.serves_metadata_at(parts.uri.path()) {
            return Some(json_response(StatusCode::OK, self.guard.metadata().to_string()));
        }
        let authorization = header_str(&parts.headers, AUTHORIZATION.as_str());
        match self.guard.check(authorization) {
            Ok(_) => {
                if let Some(token) = authorization.and_then(|value| value.strip_prefix("Bearer ")) {
                    self.presented.keep(token);
                }
                None
            }
            Err(rejection) => {
                let parameters = self.guard.challenge_parameters(&rejection);
                Some(refusal(rejection.status(), &parameters, &rejection))
            }
        }
    }

    fn record(&self) -> ClientAuthRecord {
        ClientAuthRecord::default()
    }
}
