//! Scope selection judged on a first authorization request asking for a
//! given scope, against challenges and metadata with and without scopes.

use std::path::Path;

use crate::Verdict;
use crate::evidence::http::HttpClientRecord;
use crate::evidence::oauth::{AUTHORIZE_PATH, ClientAuthRecord, OAuthRequest};
use crate::protocol::client_auth::judge;
use crate::protocol::client_http::ClientEvidence;
use crate::scenario::load::load_str;
use crate::version::ProtocolVersion;

/// The verdicts of AUTH-062 and AUTH-063 for a client whose first
/// authorization asked for `asked`, under `auth`.
fn verdicts(auth: &str, asked: Option<&str>) -> (Vec<Verdict>, Vec<Verdict>) {
    let text = format!(
        "id: t\ntitle: t\nrole: client\nversions: 2025-11-25\nrequirements: [AUTH-062, AUTH-063]\nauth: {auth}\nsteps:\n  - request: {{ method: ping }}\n"
    );
    let scenario = load_str(Path::new("t.yaml"), &text).unwrap();
    let mut params = vec![("client_id".to_owned(), "c".to_owned())];
    params.extend(asked.map(|scope| ("scope".to_owned(), scope.to_owned())));
    let record = HttpClientRecord {
        auth: Some(ClientAuthRecord {
            conversation: vec![OAuthRequest {
                label: "authorize#1".into(),
                method: "GET".into(),
                path: AUTHORIZE_PATH.into(),
                params,
                body: String::new(),
                authorization: None,
                protocol_version: None,
                status: 302,
            }],
            ..ClientAuthRecord::default()
        }),
        ..HttpClientRecord::default()
    };
    let checks = judge(ClientEvidence {
        record: &record,
        version: ProtocolVersion::V2025_11_25,
        scenario: &scenario,
        transcript: &[],
    });
    let of = |id: &str| {
        checks
            .iter()
            .filter(|c| c.requirement == id)
            .map(|c| c.verdict)
            .collect()
    };
    (of("AUTH-062"), of("AUTH-063"))
}

#[test]
fn the_challenge_scope_comes_first() {
    let auth = "{scope: a, scopes_supported: [a, b]}";
    assert_eq!(verdicts(auth, Some("a")).0, [Verdict::Pass]);
    assert_eq!(verdicts(auth, Some("b a")).0, [Verdict::NonStrict]);
}

#[test]
fn without_a_challenge_scope_every_supported_scope_is_asked_for() {
    let auth = "{scope: a, challenge_scope: false, scopes_supported: [a, b]}";
    assert_eq!(
        verdicts(auth, Some("b a")),
        (vec![Verdict::Pass], vec![Verdict::NotObserved])
    );
    assert_eq!(verdicts(auth, Some("a")).0, [Verdict::NonStrict]);
}

#[test]
fn without_any_scope_none_is_asked_for() {
    assert_eq!(verdicts("{}", None).0, [Verdict::Pass]);
    assert_eq!(verdicts("{}", Some("a")).0, [Verdict::NonStrict]);
}

#[test]
fn a_challenged_scope_outside_scopes_supported_is_still_asked_for() {
    let auth = "{scope: secret, scopes_supported: [read]}";
    assert_eq!(verdicts(auth, Some("secret")).1, [Verdict::Pass]);
    assert_eq!(verdicts(auth, Some("read")).1, [Verdict::Fail]);
    assert_eq!(verdicts(auth, None).1, [Verdict::Fail]);
}
