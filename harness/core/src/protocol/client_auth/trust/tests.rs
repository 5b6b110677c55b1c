//! The rules of `trust.rs`, `registration.rs` and `binding.rs`, and the
//! metadata order of an issuer with a path, on hand-made records (the
//! records of `tests.rs`), in a scenario citing them.

use std::path::Path;

use super::super::tests::{PRM, correct, get, oauth, verdicts_in};
use super::super::*;
use crate::Verdict;
use crate::scenario::load::load_str;

const CITED: &str =
    "AUTH-035, AUTH-037, AUTH-039, AUTH-040, AUTH-041, AUTH-042, AUTH-046, AUTH-049, AUTH-060";

/// The verdicts of requirement `id` for `record` in a scenario with `auth`.
pub(in crate::protocol::client_auth) fn verdict_of(
    record: &HttpClientRecord,
    auth: &str,
    id: &str,
) -> Vec<Verdict> {
    let text = format!(
        "id: t\ntitle: t\nrole: client\nversions: 2026-07-28\nrequirements: [{CITED}]\nauth: {auth}\nsteps:\n  - request: {{ method: ping }}\n"
    );
    let scenario = load_str(Path::new("t.yaml"), &text).unwrap();
    verdicts_in(record, ProtocolVersion::V2026_07_28, &scenario, id)
}

#[test]
fn metadata_for_another_resource_stops_the_client() {
    let setup = "{mismatch: resource}";
    assert_eq!(verdict_of(&correct(), setup, "AUTH-037"), [Verdict::Fail]);
    let mut refused = correct();
    refused.auth.as_mut().unwrap().conversation.clear();
    assert_eq!(verdict_of(&refused, setup, "AUTH-037"), [Verdict::Pass]);
    refused.requests = vec![get(2, PRM, 404)];
    assert_eq!(verdict_of(&refused, setup, "AUTH-037"), [Verdict::NotObserved]);
    assert!(verdict_of(&correct(), "{}", "AUTH-037").is_empty());
}

#[test]
fn metadata_naming_another_issuer_is_not_used() {
    let setup = "{mismatch: issuer}";
    assert_eq!(verdict_of(&correct(), setup, "AUTH-040"), [Verdict::Fail]);
    let mut refused = correct();
    refused.auth.as_mut().unwrap().conversation.truncate(1);
    assert_eq!(verdict_of(&refused, setup, "AUTH-040"), [Verdict::Pass]);
    let auth = refused.auth.as_mut().unwrap();
    auth.conversation = vec![oauth(1, "GET", METADATA_PATH, &[])];
    auth.conversation[0].status = 404;
    assert_eq!(verdict_of(&refused, setup, "AUTH-040"), [Verdict::NotObserved]);
}

#[test]
fn an_issuer_with_a_path_has_its_metadata_at_the_path_inserted_url_first() {
    let inserted = format!("{METADATA_PATH}/tenant1");
    let mut record = correct();
    let auth = record.auth.as_mut().unwrap();
    auth.issuer = "http://127.0.0.1:9000/tenant1".into();
    auth.conversation[0].path = inserted.clone();
    let setup = "{issuer_path: /tenant1}";
    assert_eq!(verdict_of(&record, setup, "AUTH-039"), [Verdict::Pass]);
    let auth = record.auth.as_mut().unwrap();
    let mut appended = oauth(0, "GET", &format!("/tenant1{METADATA_PATH}"), &[]);
    appended.status = 404;
    auth.conversation.insert(0, appended);
    assert_eq!(verdict_of(&record, setup, "AUTH-039"), [Verdict::Fail]);
}
