use std::path::Path;

use super::super::tests::{RESOURCE, oauth, verdicts_in};
use super::*;
use crate::Verdict;
use crate::evidence::http::HttpClientRecord;
use crate::evidence::oauth::{ClientAuthRecord, TokenUse};
use crate::protocol::client_auth::judge;
use crate::protocol::client_http::ClientEvidence;
use crate::scenario::Scenario;
use crate::scenario::load::load_str;

const ORIGIN: &str = "http://127.0.0.1:8000";

fn scenario(auth: &str) -> Scenario {
    let text = format!(
        "id: t\ntitle: t\nrole: client\nversions: 2025-03-26\nrequirements: [AUTH-031, AUTH-032, AUTH-033, AUTH-044]\nauth: {auth}\nsteps:\n  - request: {{ method: ping }}\n"
    );
    load_str(Path::new("t.yaml"), &text).unwrap()
}

/// A correct 2025-03-26 client at a server without metadata: the lookup
/// (404, naming its version), registration, authorization, token.
fn correct() -> HttpClientRecord {
    let client_id = issued_client_id("register#2");
    let authorize = [
        ("response_type", "code"),
        ("client_id", client_id.as_str()),
        ("redirect_uri", "http://127.0.0.1:1/cb"),
        ("code_challenge", "x"),
        ("code_challenge_method", "S256"),
    ];
    let redeem = [
        ("grant_type", "authorization_code"),
        ("code", "k"),
        ("code_verifier", "v"),
    ];
    let lookup = OAuthRequest {
        protocol_version: Some("2025-03-26".into()),
        status: 404,
        ..oauth(1, "GET", METADATA_PATH, &[])
    };
    HttpClientRecord {
        auth: Some(ClientAuthRecord {
            resource: RESOURCE.into(),
            issuer: ORIGIN.into(),
            conversation: vec![
                lookup,
                OAuthRequest {
                    status: 201,
                    ..oauth(2, "POST", REGISTER_PATH, &[])
                },
                oauth(3, "GET", AUTHORIZE_PATH, &authorize),
                oauth(4, "POST", TOKEN_PATH, &redeem),
            ],
            tokens: vec![TokenUse {
                label: "post#5".into(),
                in_header: true,
                in_query: false,
                refused: None,
                issuer: None,
            }],
            ..ClientAuthRecord::default()
        }),
        ..HttpClientRecord::default()
    }
}

fn verdict_of(record: &HttpClientRecord, auth: &str, id: &str) -> Vec<Verdict> {
    verdicts_in(record, ProtocolVersion::V2025_03_26, &scenario(auth), id)
}

const WITHOUT_METADATA: &str = "{server_metadata: false}";

#[test]
fn a_correct_client_passes_the_four_rules() {
    for id in ["AUTH-031", "AUTH-032", "AUTH-033", "AUTH-044"] {
        assert_eq!(
            verdict_of(&correct(), WITHOUT_METADATA, id),
            [Verdict::Pass],
            "{id}"
        );
    }
}

/// The lookup rules belong to the 2025-03-26 layout; registering
/// dynamically (AUTH-044) is judged in every layout of its versions, and a
/// 2025-06-18 client that authorizes unregistered falls short of it.
#[test]
fn the_lookup_rules_are_judged_only_in_the_2025_03_26_layout() {
    let modern = "id: t\ntitle: t\nrole: client\nversions: 2025-06-18\nrequirements: [AUTH-031, AUTH-044]\nauth: {}\nsteps:\n  - request: { method: ping }\n";
    let scenario = load_str(Path::new("t.yaml"), modern).unwrap();
    let mut record = correct();
    record.auth.as_mut().unwrap().conversation.remove(1);
    let checks = judge(ClientEvidence {
        record: &record,
        version: ProtocolVersion::V2025_06_18,
        scenario: &scenario,
        transcript: &[],
    });
    assert!(checks.iter().all(|c| c.requirement != "AUTH-031"), "{checks:?}");
    let registration: Vec<Verdict> = checks
        .iter()
        .filter(|c| c.requirement == "AUTH-044")
        .map(|c| c.verdict)
        .collect();
    assert_eq!(registration, [Verdict::NonStrict], "{checks:?}");
}

#[test]
fn a_client_that_does_no_oauth_passes_nothing() {
    let mut record = correct();
    record.auth.as_mut().unwrap().conversation.clear();
    for id in ["AUTH-031", "AUTH-032", "AUTH-033", "AUTH-044"] {
        assert_eq!(
            verdict_of(&record, WITHOUT_METADATA, id),
            [Verdict::NotObserved],
            "{id}"
        );
    }
}

#[test]
fn endpoints_before_the_lookup_fail_031_and_032() {
    let mut record = correct();
    let conversation = &mut record.auth.as_mut().unwrap().conversation;
    conversation[0].label = "oauth-authorization-server#9".into();
    for id in ["AUTH-031", "AUTH-032"] {
        assert_eq!(verdict_of(&record, "{}", id), [Verdict::Fail], "{id}");
    }
    let mut skipped = correct();
    skipped.auth.as_mut().unwrap().conversation.remove(0);
    assert_eq!(verdict_of(&skipped, "{}", "AUTH-031"), [Verdict::Fail]);
    assert_eq!(verdict_of(&skipped, "{}", "AUTH-033"), [Verdict::NotObserved]);
}

#[test]
fn a_lookup_away_from_the_origin_root_is_no_lookup_at_the_base() {
    let mut record = correct();
    record.auth.as_mut().unwrap().conversation[0].path = format!("{METADATA_PATH}/mcp");
    assert_eq!(verdict_of(&record, WITHOUT_METADATA, "AUTH-031"), [Verdict::Fail]);
    assert_eq!(verdict_of(&record, WITHOUT_METADATA, "AUTH-033"), [Verdict::Pass]);
}

#[test]
fn a_client_that_stops_at_the_404_fails_032_where_no_metadata_is_served() {
    let mut record = correct();
    record.auth.as_mut().unwrap().conversation.truncate(1);
    assert_eq!(verdict_of(&record, WITHOUT_METADATA, "AUTH-032"), [Verdict::Fail]);
    assert_eq!(verdict_of(&record, WITHOUT_METADATA, "AUTH-031"), [Verdict::Pass]);
    record.auth.as_mut().unwrap().conversation[0].status = 200;
    assert_eq!(verdict_of(&record, "{}", "AUTH-032"), [Verdict::NotObserved]);
}

#[test]
fn a_lookup_without_a_version_header_is_a_warning() {
    let mut record = correct();
    record.auth.as_mut().unwrap().conversation[0].protocol_version = None;
    assert_eq!(
        verdict_of(&record, WITHOUT_METADATA, "AUTH-033"),
        [Verdict::NonStrict]
    );
    record.auth.as_mut().unwrap().conversation[0].protocol_version = Some("latest".into());
    assert_eq!(
        verdict_of(&record, WITHOUT_METADATA, "AUTH-033"),
        [Verdict::NonStrict]
    );
}

#[test]
fn authorizing_without_registering_fails_044_unless_there_was_nothing_to_register_with() {
    let mut record = correct();
    record.auth.as_mut().unwrap().conversation.remove(1);
    assert_eq!(
        verdict_of(&record, WITHOUT_METADATA, "AUTH-044"),
        [Verdict::NonStrict]
    );
    assert_eq!(
        verdict_of(&record, "{registration: false}", "AUTH-044"),
        [Verdict::NotObserved]
    );
    assert_eq!(
        verdict_of(&record, "{pre_registered: this-server}", "AUTH-044"),
        [Verdict::NotObserved]
    );
}
