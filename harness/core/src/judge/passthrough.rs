//! AUTH-006 behind a gateway: the token the client presented at the
//! gateway's protected front never reaches a backend, in a header or in a
//! message. A plain server's upstreams are its own and out of our sight;
//! a gateway's backends are ours, so the gateway role is where the rule
//! can be judged.

use super::Check;
use crate::evidence::http::InboundRequest;
use crate::protocol::cite;
use crate::span::Span;
use crate::{Level, Verdict};

/// What one backend received from the gateway over HTTP.
#[derive(Debug, Clone, Copy)]
pub struct BackendTraffic<'a> {
    pub backend: &'a str,
    /// Every HTTP request, each with the headers that held a front token.
    pub requests: &'a [InboundRequest],
    /// The messages those requests carried, as sent.
    pub messages: &'a [Vec<u8>],
}

const NAME: &str = "the client's token stays at the gateway";

/// Whether no backend request carried any of `tokens` (the tokens the
/// client presented at the front); not observed while no backend got a
/// request at all.
pub fn no_token_passthrough(traffic: &[BackendTraffic<'_>], tokens: &[String], span: Span) -> Check {
    let broken = |message: String| Check::broken(NAME, cite::AUTH_006, Level::Must, span, message);
    if traffic.iter().all(|backend| backend.requests.is_empty()) {
        return broken(
            "no backend received a request over HTTP, so nothing shows what the gateway forwards".into(),
        )
        .with_verdict(Verdict::NotObserved);
    }
    for backend in traffic {
        let in_header = backend
            .requests
            .iter()
            .find_map(|request| request.watched.first().map(|header| (request, header)));
        if let Some((request, header)) = in_header {
            return broken(format!(
                "backend {}'s {} carried the client's token in its `{header}` header: the gateway passed on the token issued for itself instead of using its own",
                backend.backend, request.label
            ));
        }
        let in_message = backend
            .messages
            .iter()
            .any(|raw| tokens.iter().any(|token| contains(raw, token.as_bytes())));
        if in_message {
            return broken(format!(
                "a message to backend {} carried the client's token",
                backend.backend
            ));
        }
    }
    Check::pass(NAME, cite::AUTH_006, Level::Must, span)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && haystack.windows(needle.len()).any(|window| window == needle)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    const TOKEN: &str = "eyJhbGciOiJFUzI1NiJ9.eyJhdWQiOiJ4In0.c2lnbmF0dXJl";

    fn request(watched: &[&str]) -> InboundRequest {
        InboundRequest {
            at: Duration::ZERO,
            label: "post#1".into(),
            method: "POST".into(),
            target: "/mcp".into(),
            headers: Default::default(),
            status: 200,
            array: false,
            refusal: None,
            cancelled: false,
            watched: watched.iter().map(|h| (*h).to_owned()).collect(),
        }
    }

    fn judge(requests: &[InboundRequest], messages: &[Vec<u8>]) -> Check {
        let traffic = [BackendTraffic {
            backend: "alpha",
            requests,
            messages,
        }];
        no_token_passthrough(&traffic, &[TOKEN.to_owned()], Span::default())
    }

    #[test]
    fn a_backend_request_without_the_token_passes() {
        let check = judge(&[request(&[])], &[br#"{"method":"tools/call"}"#.to_vec()]);
        assert_eq!(check.verdict, Verdict::Pass);
        assert_eq!(check.requirement, "AUTH-006");
    }

    #[test]
    fn the_token_in_a_backend_header_fails_naming_the_header() {
        let check = judge(&[request(&[]), request(&["authorization"])], &[]);
        assert_eq!(check.verdict, Verdict::Fail);
        assert!(check.message.unwrap().contains("`authorization` header"));
    }

    #[test]
    fn the_token_in_a_message_fails() {
        let message = format!(r#"{{"params":{{"arguments":{{"auth":"{TOKEN}"}}}}}}"#);
        let check = judge(&[request(&[])], &[message.into_bytes()]);
        assert_eq!(check.verdict, Verdict::Fail);
    }

    #[test]
    fn no_backend_request_is_not_observed_never_a_pass() {
        let check = judge(&[], &[]);
        assert_eq!(check.verdict, Verdict::NotObserved);
    }
}
