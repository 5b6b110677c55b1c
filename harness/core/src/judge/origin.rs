//! ORIGIN-001: a server names no URL outside its own origin for the client
//! to send requests to (the transport refuses such a URL and records it).

use super::Check;
use crate::Level;
use crate::evidence::origin::RefusedUrl;
use crate::protocol::cite;
use crate::span::Span;

/// The finding on a URL the transport refused.
pub fn refused(refused: &RefusedUrl, span: Span) -> Check {
    Check::broken(
        "requests stay on the server's origin",
        cite::ORIGIN_001,
        Level::Must,
        span,
        format!(
            "{} names {}, outside {}, the origin given; refused: nothing was sent there",
            refused.named_by, refused.url, refused.origin
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Verdict;

    #[test]
    fn a_refused_url_is_a_must_failure_naming_both_origins() {
        let check = refused(
            &RefusedUrl {
                named_by: "the `endpoint` event".into(),
                url: "http://127.0.0.1:9/messages".into(),
                origin: "http://127.0.0.1:8000".into(),
            },
            Span::default(),
        );
        assert_eq!(check.verdict, Verdict::Fail);
        assert_eq!(check.requirement, "ORIGIN-001");
        let message = check.message.unwrap_or_default();
        assert!(message.contains("http://127.0.0.1:9/messages"), "{message}");
        assert!(message.contains("outside http://127.0.0.1:8000"), "{message}");
    }
}
