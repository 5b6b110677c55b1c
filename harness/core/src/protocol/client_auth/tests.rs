use std::path::Path;
use std::time::Duration;

use super::*;
use crate::Verdict;
use crate::evidence::oauth::TokenUse;
use crate::scenario::Scenario;
use crate::scenario::load::load_str;

pub(super) const RESOURCE: &str = "http://127.0.0.1:8000/mcp";
const ISSUER: &str = "http://127.0.0.1:9000";
pub(super) const PRM: &str = "/.well-known/oauth-protected-resource/mcp";
const CITED: &str = "AUTH-045, AUTH-059, AUTH-034, AUTH-036, AUTH-039, AUTH-050, AUTH-051, AUTH-053, AUTH-054, AUTH-056, AUTH-057, AUTH-061, AUTH-067, AUTH-052";

pub(super) fn scenario(auth: &str) -> Scenario {
    let text = format!(
        "id: t\ntitle: t\nrole: client\nversions: 2026-07-28\nrequirements: [{CITED}]\nauth: {auth}\nsteps:\n  - request: {{ method: ping }}\n"
    );
    load_str(Path::new("t.yaml"), &text).unwrap()
}

pub(super) fn get(n: u64, target: &str, status: u16) -> InboundRequest {
    InboundRequest {
        at: Duration::from_millis(n),
        label: format!("get#{n}"),
        method: "GET".into(),
        target: target.into(),
        headers: Default::default(),
        status,
        array: false,
        refusal: None,
        cancelled: false,
        watched: Vec::new(),
    }
}

pub(super) fn oauth(n: usize, method: &str, path: &str, params: &[(&str, &str)]) -> OAuthRequest {
    OAuthRequest {
        label: format!("{}#{n}", path.rsplit('/').next().unwrap_or_default()),
        method: method.into(),
        path: path.into(),
        params: params
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
        body: String::new(),
        authorization: None,
        protocol_version: None,
        status: 200,
    }
}

fn token(n: u64, in_header: bool, refused: Option<&str>) -> TokenUse {
    TokenUse {
        label: format!("post#{n}"),
        in_header,
        in_query: false,
        refused: refused.map(str::to_owned),
        issuer: None,
    }
}

/// A correct client: 401, metadata, AS metadata, authorize, token, retry.
pub(super) fn correct() -> HttpClientRecord {
    let authorize = [
        ("response_type", "code"),
        ("client_id", "c"),
        ("redirect_uri", "http://127.0.0.1:1/cb"),
        ("code_challenge", "x"),
        ("code_challenge_method", "S256"),
        ("state", "s"),
        ("resource", RESOURCE),
    ];
    let redeem = [
        ("grant_type", "authorization_code"),
        ("code", "k"),
        ("code_verifier", "v"),
        ("resource", RESOURCE),
    ];
    HttpClientRecord {
        requests: vec![get(2, PRM, 200)],
        auth: Some(ClientAuthRecord {
            resource: RESOURCE.into(),
            issuer: ISSUER.into(),
            challenge_metadata: Some(format!("http://127.0.0.1:8000{PRM}")),
            metadata_url: format!("http://127.0.0.1:8000{PRM}"),
            conversation: vec![
                oauth(1, "GET", METADATA_PATH, &[]),
                OAuthRequest {
                    body: r#"{"redirect_uris": ["http://127.0.0.1:1/cb"], "application_type": "native"}"#
                        .into(),
                    ..oauth(2, "POST", "/register", &[])
                },
                oauth(3, "GET", "/authorize", &authorize),
                oauth(4, "POST", "/token", &redeem),
            ],
            tokens: vec![
                token(1, false, Some("no token")),
                token(3, true, None),
                token(4, true, None),
            ],
            documents: Vec::new(),
            switch: None,
        }),
        ..HttpClientRecord::default()
    }
}

fn verdicts(record: &HttpClientRecord, auth: &str) -> Vec<(String, Verdict)> {
    judge(ClientEvidence {
        record,
        version: ProtocolVersion::V2026_07_28,
        scenario: &scenario(auth),
        transcript: &[],
    })
    .into_iter()
    .map(|c| (c.requirement.clone(), c.verdict))
    .collect()
}

fn verdict_of(record: &HttpClientRecord, auth: &str, id: &str) -> Vec<Verdict> {
    verdicts_in(record, ProtocolVersion::V2026_07_28, &scenario(auth), id)
}

/// The verdicts of requirement `id` for `record`, judged at `version` in
/// `scenario`.
pub(super) fn verdicts_in(
    record: &HttpClientRecord,
    version: ProtocolVersion,
    scenario: &Scenario,
    id: &str,
) -> Vec<Verdict> {
    judge(ClientEvidence {
        record,
        version,
        scenario,
        transcript: &[],
    })
    .into_iter()
    .filter(|c| c.requirement == id)
    .map(|c| c.verdict)
    .collect()
}

/// The verdicts of requirement `id` for `record`, in a scenario with
/// `auth` that cites `id` alone.
pub(super) fn cited_verdicts(record: &HttpClientRecord, auth: &str, id: &str) -> Vec<Verdict> {
    let cited = Scenario {
        requirements: vec![id.to_owned()],
        ..scenario(auth)
    };
    verdicts_in(record, ProtocolVersion::V2026_07_28, &cited, id)
}

#[test]
fn a_correct_client_passes_every_rule() {
    let found = verdicts(&correct(), "{}");
    assert_eq!(found.len(), 12, "{found:?}");
    assert!(found.iter().all(|(_, v)| *v == Verdict::Pass), "{found:?}");
}

#[test]
fn a_client_that_does_no_oauth_passes_nothing() {
    let mut record = correct();
    record.requests.clear();
    let auth = record.auth.as_mut().unwrap();
    auth.conversation.clear();
    auth.tokens = vec![token(1, false, Some("no token"))];
    for setup in [
        "{}",
        "{iss: wrong, state: wrong}",
        "{code_challenge_methods: false}",
    ] {
        let found = verdicts(&record, setup);
        assert!(!found.is_empty());
        assert!(
            found.iter().all(|(_, v)| *v == Verdict::NotObserved),
            "{setup}: {found:?}"
        );
    }
}

#[test]
fn missing_or_plain_pkce_fails_its_rules() {
    let mut record = correct();
    let auth = record.auth.as_mut().unwrap();
    auth.conversation[2]
        .params
        .retain(|(k, _)| k != "code_challenge_method");
    assert_eq!(verdict_of(&record, "{}", "AUTH-051"), [Verdict::Fail]);
    assert_eq!(verdict_of(&record, "{}", "AUTH-050"), [Verdict::Pass]);
    let auth = record.auth.as_mut().unwrap();
    auth.conversation[2].params.retain(|(k, _)| k != "code_challenge");
    auth.conversation[3].params.retain(|(k, _)| k != "code_verifier");
    assert_eq!(verdict_of(&record, "{}", "AUTH-050"), [Verdict::Fail]);
}

#[test]
fn resource_must_name_the_server_and_should_match_it_exactly() {
    let mut record = correct();
    let auth = record.auth.as_mut().unwrap();
    auth.conversation[3].params.retain(|(k, _)| k != "resource");
    assert_eq!(verdict_of(&record, "{}", "AUTH-053"), [Verdict::Fail]);
    let mut record = correct();
    let auth = record.auth.as_mut().unwrap();
    auth.conversation[2]
        .params
        .push(("resource".into(), "ignored: the first counts".into()));
    auth.conversation[3].params[3].1 = format!("{RESOURCE}/");
    assert_eq!(verdict_of(&record, "{}", "AUTH-053"), [Verdict::Pass]);
    assert_eq!(verdict_of(&record, "{}", "AUTH-054"), [Verdict::NonStrict]);
}

#[test]
fn the_token_belongs_in_the_header_of_every_later_request() {
    let mut record = correct();
    let auth = record.auth.as_mut().unwrap();
    auth.tokens[2] = TokenUse {
        in_header: false,
        in_query: true,
        ..auth.tokens[2].clone()
    };
    assert_eq!(verdict_of(&record, "{}", "AUTH-056"), [Verdict::Fail]);
    assert_eq!(verdict_of(&record, "{}", "AUTH-057"), [Verdict::Fail]);
}

#[test]
fn a_wrong_state_or_iss_must_not_be_redeemed() {
    let record = correct();
    assert_eq!(verdict_of(&record, "{iss: wrong}", "AUTH-067"), [Verdict::Fail]);
    assert_eq!(
        verdict_of(&record, "{state: missing}", "AUTH-061"),
        [Verdict::Pass, Verdict::NonStrict]
    );
    let mut refused = correct();
    refused.auth.as_mut().unwrap().conversation.truncate(3);
    assert_eq!(
        verdict_of(&refused, "{iss: normalized}", "AUTH-067"),
        [Verdict::Pass]
    );
    assert_eq!(
        verdict_of(&refused, "{state: wrong}", "AUTH-061"),
        [Verdict::Pass, Verdict::Pass]
    );
}

#[test]
fn no_authorization_without_code_challenge_methods_supported() {
    let record = correct();
    assert_eq!(
        verdict_of(&record, "{code_challenge_methods: false}", "AUTH-052"),
        [Verdict::Fail]
    );
    let mut stopped = correct();
    stopped.auth.as_mut().unwrap().conversation.truncate(2);
    assert_eq!(
        verdict_of(&stopped, "{code_challenge_methods: false}", "AUTH-052"),
        [Verdict::Pass]
    );
    let mut machine = stopped;
    let credentials = oauth(3, "POST", "/token", &[("grant_type", "client_credentials")]);
    machine.auth.as_mut().unwrap().conversation.push(credentials);
    assert_eq!(
        verdict_of(&machine, "{code_challenge_methods: false}", "AUTH-052"),
        [Verdict::NotObserved]
    );
}

#[test]
fn metadata_is_looked_up_in_order_up_to_the_first_that_answers() {
    let mut record = correct();
    record.requests = vec![
        get(2, "/.well-known/oauth-protected-resource", 404),
        get(3, PRM, 200),
    ];
    assert_eq!(verdict_of(&record, "{}", "AUTH-036"), [Verdict::Fail]);
    let auth = record.auth.as_mut().unwrap();
    auth.challenge_metadata = None;
    auth.metadata_url = format!("http://127.0.0.1:8000{}", WELL_KNOWN);
    record.requests = vec![get(2, PRM, 404), get(3, WELL_KNOWN, 200), get(4, PRM, 404)];
    assert_eq!(
        verdict_of(&record, "{metadata: root, resource_metadata: false}", "AUTH-036"),
        [Verdict::Pass]
    );
    assert_eq!(
        verdict_of(&record, "{metadata: root, resource_metadata: false}", "AUTH-034"),
        [Verdict::NotObserved]
    );
    let mut openid_first = correct();
    openid_first.auth.as_mut().unwrap().conversation[0].path = OPENID_CONFIGURATION.into();
    assert_eq!(verdict_of(&openid_first, "{}", "AUTH-039"), [Verdict::Fail]);
}

#[test]
fn a_client_that_stops_before_the_served_metadata_fails_the_order() {
    let mut record = correct();
    let auth = record.auth.as_mut().unwrap();
    auth.challenge_metadata = None;
    auth.metadata_url = format!("http://127.0.0.1:8000{WELL_KNOWN}");
    auth.conversation.clear();
    record.requests = vec![get(2, PRM, 404)];
    assert_eq!(
        verdict_of(&record, "{metadata: root, resource_metadata: false}", "AUTH-036"),
        [Verdict::Fail]
    );
}

#[test]
fn openid_only_metadata_is_found_after_the_rfc_8414_url() {
    let openid = "{issuer_metadata: openid}";
    let mut record = correct();
    let conversation = &mut record.auth.as_mut().unwrap().conversation;
    conversation[0].status = 404;
    conversation.insert(1, oauth(5, "GET", OPENID_CONFIGURATION, &[]));
    assert_eq!(verdict_of(&record, openid, "AUTH-039"), [Verdict::Pass]);

    let mut openid_first = record.clone();
    openid_first.auth.as_mut().unwrap().conversation.remove(0);
    assert_eq!(verdict_of(&openid_first, openid, "AUTH-039"), [Verdict::Fail]);

    let mut oauth_only = record;
    let conversation = &mut oauth_only.auth.as_mut().unwrap().conversation;
    conversation.truncate(1);
    assert_eq!(verdict_of(&oauth_only, openid, "AUTH-039"), [Verdict::Fail]);
}

#[test]
fn openid_metadata_appended_to_the_issuer_path_comes_last() {
    let appended = "{issuer_path: /tenant1, issuer_metadata: openid-appended}";
    let mut record = correct();
    let auth = record.auth.as_mut().unwrap();
    auth.issuer = format!("{ISSUER}/tenant1");
    let lookups = [
        (format!("{METADATA_PATH}/tenant1"), 404),
        (format!("{OPENID_CONFIGURATION}/tenant1"), 404),
        (format!("/tenant1{OPENID_CONFIGURATION}"), 200),
    ];
    auth.conversation.splice(
        0..1,
        lookups
            .iter()
            .enumerate()
            .map(|(n, (path, status))| OAuthRequest {
                status: *status,
                ..oauth(n + 5, "GET", path, &[])
            }),
    );
    assert_eq!(verdict_of(&record, appended, "AUTH-039"), [Verdict::Pass]);
    let mut skipping = record;
    skipping.auth.as_mut().unwrap().conversation.remove(1);
    assert_eq!(verdict_of(&skipping, appended, "AUTH-039"), [Verdict::Fail]);
}

#[test]
fn an_unfetched_challenge_url_fails() {
    let mut record = correct();
    record.requests = vec![get(2, WELL_KNOWN, 200)];
    assert_eq!(verdict_of(&record, "{}", "AUTH-034"), [Verdict::Fail]);
}

#[test]
fn a_registration_names_its_application_type_and_redirects_stay_local_or_secure() {
    let mut record = correct();
    let auth = record.auth.as_mut().unwrap();
    auth.conversation[1].body = r#"{"redirect_uris": ["http://example.com/cb"]}"#.into();
    assert_eq!(verdict_of(&record, "{}", "AUTH-045"), [Verdict::Fail]);
    assert_eq!(verdict_of(&record, "{}", "AUTH-059"), [Verdict::Fail]);
    for uri in [
        "https://example.com/cb",
        "http://localhost:9/cb",
        "http://[::1]:9/cb",
    ] {
        assert!(local_or_https(uri), "{uri}");
    }
    for uri in [
        "http://127.0.0.1.example.com/cb",
        "myapp://cb",
        "http://10.0.0.1/cb",
    ] {
        assert!(!local_or_https(uri), "{uri}");
    }
}
