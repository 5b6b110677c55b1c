//! How a client registers with the scripted authorization server, judged
//! on its Dynamic Client Registration requests and the client IDs it uses:
//! pre-registered credentials first (AUTH-041), never those of another
//! authorization server (AUTH-049), a client ID it got from this one
//! (AUTH-042), the `application_type` its redirect URIs call for
//! (AUTH-046), and authorization requests that name only redirect URIs it
//! registered (AUTH-060).

use serde_json::Value;
use url::Url;

use super::{Evidence, fault_each, is_loopback_http, judge_each};
use crate::Level;
use crate::evidence::oauth::{
    AUTHORIZE_PATH, OAuthRequest, PRE_REGISTERED_CLIENT_ID, REGISTER_PATH, issued_client_id,
};
use crate::protocol::cite;
use crate::protocol::client_http::Finding;
use crate::scenario::model::PreRegistration;

/// The redirect URIs a registration request lists.
pub(super) fn redirect_uris(registration: &OAuthRequest) -> Vec<String> {
    let body: Value = serde_json::from_str(&registration.body).unwrap_or(Value::Null);
    body["redirect_uris"]
        .as_array()
        .map(|uris| uris.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default()
}

/// The `application_type` a registration request names, if any.
pub(super) fn application_type(registration: &OAuthRequest) -> Option<Value> {
    let body: Value = serde_json::from_str(&registration.body).unwrap_or(Value::Null);
    body.get("application_type").cloned()
}

impl Evidence<'_> {
    /// The rule the scenario's pre-registered credentials call for, if it
    /// hands the client any.
    pub(super) fn pre_registration(&self) -> Option<Finding> {
        match self.setup.pre_registered? {
            PreRegistration::ThisServer => Some(self.pre_registration_first()),
            PreRegistration::AnotherServer => Some(self.foreign_credentials_untried()),
        }
    }

    /// AUTH-041: credentials pre-registered with this authorization server
    /// come first: no registration of another kind, and every
    /// authorization request names them.
    fn pre_registration_first(&self) -> Finding {
        let mut finding = self.finding(
            "pre-registered credentials are used before any other registration",
            cite::AUTH_041,
            Level::Should,
            "the client neither registered nor sent an authorization request",
        );
        let registered = fault_each(&mut finding, self.registrations(), |_| {
            Some(
                "registered by Dynamic Client Registration, though it was handed pre-registered credentials"
                    .into(),
            )
        });
        let authorized = fault_each(&mut finding, self.auth.authorizations(), |request| {
            let client_id = request.param("client_id").unwrap_or_default();
            (client_id != PRE_REGISTERED_CLIENT_ID).then(|| {
                format!("client_id `{client_id}`, not the pre-registered `{PRE_REGISTERED_CLIENT_ID}`")
            })
        });
        Self::observed(finding, registered || authorized)
    }

    /// AUTH-049: credentials pre-registered with another authorization
    /// server are never tried here; judged once the client has read this
    /// server's metadata.
    fn foreign_credentials_untried(&self) -> Finding {
        let mut finding = self.finding(
            "credentials for another authorization server are not tried",
            cite::AUTH_049,
            Level::Should,
            "the client never read the authorization server's metadata",
        );
        let read = self.issuer_metadata_lookups().any(|r| r.status == 200);
        let tried = self
            .auth
            .conversation
            .iter()
            .filter(|r| read && r.param("client_id") == Some(PRE_REGISTERED_CLIENT_ID));
        fault_each(&mut finding, tried, |_| {
            Some("tried the client ID pre-registered with another authorization server".into())
        });
        Self::observed(finding, read)
    }

    /// AUTH-042: an authorization request names a client ID this
    /// authorization server gave out (pre-registered, or registered before
    /// it) or a metadata document URL. A client that got no ID from it
    /// (one of its own configuration) is not judged: nothing here can say
    /// where its ID came from.
    pub(super) fn client_id_registered(&self) -> Finding {
        let mut finding = self.finding(
            "the client ID was registered before authorization",
            cite::AUTH_042,
            Level::Must,
            "the client got no client ID from this authorization server",
        );
        let handed = self.setup.pre_registered == Some(PreRegistration::ThisServer);
        let mut known: Vec<String> = handed
            .then(|| PRE_REGISTERED_CLIENT_ID.to_owned())
            .into_iter()
            .collect();
        let mut seen = false;
        for request in &self.auth.conversation {
            if request.method == "POST" && request.path == REGISTER_PATH && request.status == 201 {
                known.push(issued_client_id(&request.label));
            }
            let Some(client_id) = request.param("client_id") else {
                continue;
            };
            if request.path != AUTHORIZE_PATH || known.is_empty() {
                continue;
            }
            seen = true;
            let document = self.setup.metadata_documents && Url::parse(client_id).is_ok();
            if !document && !known.iter().any(|id| id == client_id) {
                finding.problem_at(
                    &request.label,
                    format!(
                        "client_id `{client_id}` was never registered here ({})",
                        known.join(", ")
                    ),
                );
            }
        }
        Self::observed(finding, seen)
    }

    /// AUTH-046: a registration whose redirect URIs are all on this
    /// machine is a native client's. A registration without
    /// `application_type` is AUTH-045's to judge.
    pub(super) fn registers_native_for_loopback(&self) -> Finding {
        let finding = self.finding(
            "a client redirecting to loopback registers as native",
            cite::AUTH_046,
            Level::Should,
            "the client registered no client with an application_type and loopback redirect URIs",
        );
        let loopback = self.registrations().filter(|request| {
            let uris = redirect_uris(request);
            application_type(request).is_some()
                && !uris.is_empty()
                && uris
                    .iter()
                    .all(|uri| Url::parse(uri).is_ok_and(|url| is_loopback_http(&url)))
        });
        judge_each(finding, loopback, |request| {
            let kind = application_type(request)?;
            (kind.as_str() != Some("native"))
                .then(|| format!("application_type {kind}, though every redirect URI is on loopback"))
        })
    }

    /// AUTH-060: once the client registered redirect URIs here, each
    /// authorization request names one of them. Pre-registered clients and
    /// metadata documents leave nothing in the record to compare with.
    pub(super) fn redirects_as_registered(&self) -> Finding {
        let finding = self.finding(
            "the redirect URI is one registered",
            cite::AUTH_060,
            Level::Must,
            "the client registered no redirect URI with the authorization server, or sent no authorization request",
        );
        let registered: Vec<String> = self.registrations().flat_map(redirect_uris).collect();
        let naming = self
            .auth
            .authorizations()
            .filter(|r| !registered.is_empty() && r.param("redirect_uri").is_some());
        judge_each(finding, naming, |request| {
            let uri = request.param("redirect_uri")?;
            (!registered.iter().any(|known| known == uri)).then(|| {
                format!(
                    "redirect_uri `{uri}` is not among those registered ({})",
                    registered.join(", ")
                )
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::correct;
    use super::super::trust::tests::verdict_of;
    use crate::Verdict;
    use crate::evidence::oauth::{PRE_REGISTERED_CLIENT_ID, issued_client_id};

    const REGISTERED: &str = "http://127.0.0.1:1/cb";

    fn registering(body: &str) -> crate::evidence::http::HttpClientRecord {
        let mut record = correct();
        record.auth.as_mut().unwrap().conversation[1].body = body.into();
        record
    }

    #[test]
    fn a_loopback_client_registers_as_native() {
        let native = format!(r#"{{"redirect_uris": ["{REGISTERED}"], "application_type": "native"}}"#);
        assert_eq!(
            verdict_of(&registering(&native), "{}", "AUTH-046"),
            [Verdict::Pass]
        );
        let web = native.replace("native", "web");
        assert_eq!(
            verdict_of(&registering(&web), "{}", "AUTH-046"),
            [Verdict::NonStrict]
        );
        let remote = r#"{"redirect_uris": ["https://app.example.com/cb"], "application_type": "web"}"#;
        assert_eq!(
            verdict_of(&registering(remote), "{}", "AUTH-046"),
            [Verdict::NotObserved]
        );
        let unnamed = format!(r#"{{"redirect_uris": ["{REGISTERED}"]}}"#);
        assert_eq!(
            verdict_of(&registering(&unnamed), "{}", "AUTH-046"),
            [Verdict::NotObserved]
        );
    }

    #[test]
    fn the_redirect_uri_is_one_registered() {
        assert_eq!(verdict_of(&correct(), "{}", "AUTH-060"), [Verdict::Pass]);
        let elsewhere = r#"{"redirect_uris": ["http://127.0.0.1:2/cb"], "application_type": "native"}"#;
        assert_eq!(
            verdict_of(&registering(elsewhere), "{}", "AUTH-060"),
            [Verdict::Fail]
        );
        let mut pre_registered = correct();
        pre_registered.auth.as_mut().unwrap().conversation.remove(1);
        assert_eq!(
            verdict_of(&pre_registered, "{}", "AUTH-060"),
            [Verdict::NotObserved]
        );
    }

    /// The correct record with the registration answered 201 and its
    /// issued ID used, or the pre-registered ID and no registration.
    fn using(client_id: &str, registered: bool) -> crate::evidence::http::HttpClientRecord {
        let mut record = correct();
        let auth = record.auth.as_mut().unwrap();
        auth.conversation[1].status = 201;
        let issued = issued_client_id(&auth.conversation[1].label);
        let client_id = if client_id.is_empty() {
            issued.as_str()
        } else {
            client_id
        };
        auth.conversation[2].params[1].1 = client_id.to_owned();
        if !registered {
            auth.conversation.remove(1);
        }
        record
    }

    #[test]
    fn the_client_id_is_one_this_server_gave_out() {
        assert_eq!(verdict_of(&using("", true), "{}", "AUTH-042"), [Verdict::Pass]);
        assert_eq!(
            verdict_of(&using("invented", true), "{}", "AUTH-042"),
            [Verdict::Fail]
        );
        let own = using("configured-by-its-user", false);
        assert_eq!(verdict_of(&own, "{}", "AUTH-042"), [Verdict::NotObserved]);
        let handed = using(PRE_REGISTERED_CLIENT_ID, false);
        let setup = "{pre_registered: this-server}";
        assert_eq!(verdict_of(&handed, setup, "AUTH-042"), [Verdict::Pass]);
        let url = using("https://client.example.com/metadata.json", true);
        assert_eq!(verdict_of(&url, "{}", "AUTH-042"), [Verdict::Pass]);
    }

    #[test]
    fn pre_registered_credentials_come_first() {
        let setup = "{pre_registered: this-server}";
        let handed = using(PRE_REGISTERED_CLIENT_ID, false);
        assert_eq!(verdict_of(&handed, setup, "AUTH-041"), [Verdict::Pass]);
        let registered_anyway = using("", true);
        assert_eq!(
            verdict_of(&registered_anyway, setup, "AUTH-041"),
            [Verdict::NonStrict]
        );
        assert!(verdict_of(&registered_anyway, "{}", "AUTH-041").is_empty());
    }

    #[test]
    fn credentials_for_another_server_are_not_tried() {
        let setup = "{pre_registered: another-server}";
        let tried = using(PRE_REGISTERED_CLIENT_ID, false);
        assert_eq!(verdict_of(&tried, setup, "AUTH-049"), [Verdict::NonStrict]);
        let mut refused = tried.clone();
        refused.auth.as_mut().unwrap().conversation.truncate(1);
        assert_eq!(verdict_of(&refused, setup, "AUTH-049"), [Verdict::Pass]);
        refused.auth.as_mut().unwrap().conversation.clear();
        assert_eq!(verdict_of(&refused, setup, "AUTH-049"), [Verdict::NotObserved]);
    }
}
