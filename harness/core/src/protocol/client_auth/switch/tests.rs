//! The rules of `switch.rs` on a hand-made record of a client that
//! follows the switch: admitted with the first server's token, refused at
//! the switch, reads the metadata again, registers at the second server and
//! comes back with its token.

use super::super::tests::{PRM, cited_verdicts, correct, get, oauth, scenario, verdicts_in};
use super::super::*;
use crate::Verdict;
use crate::evidence::oauth::{AuthSwitch, SECOND_SERVER_LABEL, TokenUse, issued_client_id};

const SETUP: &str = "{switch_authorization_server: {from: tools/list}}";
const SECOND_ISSUER: &str = "http://127.0.0.1:9100";

fn post(n: u64, status: u16) -> InboundRequest {
    InboundRequest {
        label: format!("post#{n}"),
        method: "POST".into(),
        ..get(n, "/mcp", status)
    }
}

fn token(n: u64, issuer: Option<&str>, refused: bool) -> TokenUse {
    TokenUse {
        label: format!("post#{n}"),
        in_header: issuer.is_some(),
        in_query: false,
        refused: refused.then(|| "invalid_token".to_owned()),
        issuer: issuer.map(str::to_owned),
    }
}

/// A client that follows the switch at post#4 (its `tools/list`).
fn following() -> HttpClientRecord {
    let mut record = correct();
    record.requests = vec![
        post(1, 401),
        get(2, PRM, 200),
        post(3, 200),
        post(4, 401),
        get(5, PRM, 200),
        post(6, 200),
    ];
    let auth = record.auth.as_mut().unwrap();
    auth.conversation[1].status = 201;
    let first = auth.issuer.clone();
    auth.tokens = vec![
        token(1, None, true),
        token(3, Some(&first), false),
        token(4, Some(&first), true),
        token(6, Some(SECOND_ISSUER), false),
    ];
    let register = OAuthRequest {
        status: 201,
        ..oauth(2, "POST", REGISTER_PATH, &[])
    };
    let own_id = issued_client_id(&format!("{SECOND_SERVER_LABEL}{}", register.label));
    let mut conversation = vec![
        register,
        oauth(3, "GET", AUTHORIZE_PATH, &[("client_id", &own_id)]),
    ];
    for request in &mut conversation {
        request.label = format!("{SECOND_SERVER_LABEL}{}", request.label);
    }
    auth.switch = Some(AuthSwitch {
        issuer: SECOND_ISSUER.into(),
        from: Some("post#4".into()),
        conversation,
    });
    record
}

fn verdicts(record: &HttpClientRecord) -> [Vec<Verdict>; 2] {
    ["AUTH-048", "AUTH-058"].map(|id| cited_verdicts(record, SETUP, id))
}

fn switch_of(record: &mut HttpClientRecord) -> &mut AuthSwitch {
    record.auth.as_mut().unwrap().switch.as_mut().unwrap()
}

#[test]
fn a_client_that_registers_again_and_drops_the_old_token_passes() {
    assert_eq!(verdicts(&following()), [[Verdict::Pass], [Verdict::Pass]]);
}

#[test]
fn a_client_id_of_the_first_server_at_the_second_fails_auth_048() {
    let mut record = following();
    let first_id = issued_client_id("register#2");
    switch_of(&mut record).conversation[1].params = vec![("client_id".into(), first_id)];
    assert_eq!(verdicts(&record), [[Verdict::Fail], [Verdict::Pass]]);
    // The same ID as the user of an HTTP Basic credential.
    let request = &mut switch_of(&mut record).conversation[1];
    request.params.clear();
    request.authorization = Some(format!(
        "Basic {}",
        crate::wire::base64::encode(format!("{}:", issued_client_id("register#2")).as_bytes())
    ));
    assert_eq!(verdicts(&record), [[Verdict::Fail], [Verdict::Pass]]);
}

#[test]
fn a_token_of_the_first_server_after_the_metadata_was_read_fails_auth_058() {
    let mut record = following();
    let auth = record.auth.as_mut().unwrap();
    auth.tokens[3].issuer = Some(auth.issuer.clone());
    assert_eq!(verdicts(&record), [[Verdict::Pass], [Verdict::Fail]]);
}

#[test]
fn nothing_is_judged_before_the_client_has_followed_the_switch() {
    let unobserved = [[Verdict::NotObserved], [Verdict::NotObserved]];
    // It never read the metadata again: a token of the first server after
    // the switch is no fault yet.
    let mut unread = following();
    unread.requests.remove(4);
    let auth = unread.auth.as_mut().unwrap();
    auth.tokens[3].issuer = Some(auth.issuer.clone());
    assert_eq!(verdicts(&unread), unobserved);
    let mut unreached = following();
    switch_of(&mut unreached).from = None;
    assert_eq!(verdicts(&unreached), unobserved);
    let mut never_admitted = following();
    never_admitted.auth.as_mut().unwrap().tokens[1].refused = Some("invalid_token".into());
    assert_eq!(verdicts(&never_admitted), unobserved);
    let mut silent = following();
    switch_of(&mut silent).conversation.clear();
    silent.auth.as_mut().unwrap().tokens.truncate(3);
    assert_eq!(verdicts(&silent), unobserved);
}

#[test]
fn a_portable_client_id_leaves_auth_048_unobserved() {
    let mut record = following();
    record.auth.as_mut().unwrap().conversation[1].status = 400;
    assert_eq!(verdicts(&record), [[Verdict::NotObserved], [Verdict::Pass]]);
}

#[test]
fn the_rules_apply_from_their_versions_and_only_to_a_switch() {
    let record = following();
    let at = |version| {
        let cited = crate::scenario::Scenario {
            requirements: vec!["AUTH-048".into(), "AUTH-058".into()],
            ..scenario(SETUP)
        };
        ["AUTH-048", "AUTH-058"].map(|id| verdicts_in(&record, version, &cited, id))
    };
    assert_eq!(at(ProtocolVersion::V2025_11_25), [vec![], vec![Verdict::Pass]]);
    let mut unswitched = record.clone();
    unswitched.auth.as_mut().unwrap().switch = None;
    assert!(cited_verdicts(&unswitched, "{}", "AUTH-058").is_empty());
}
