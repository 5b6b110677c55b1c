//! A client's authorization, judged on what the protected mock server and
//! the scripted authorization server saw of it ([`ClientAuthRecord`] and
//! the mock server's request log): where it looked for metadata and in
//! which order, PKCE, the `resource` parameter, where it put the token, and
//! whether it refused the authorization responses it must refuse (a wrong
//! `state` or `iss`).
//!
//! Authorization is optional for MCP clients: a client that never asked
//! for metadata nor spoke to the authorization server is judged on none of
//! it (not-observed), and a rule about refusing is a pass only once the
//! client has shown that it does OAuth (it sent an authorization request).

use url::Url;

use super::client_http::{ClientEvidence, Finding};
use crate::Level;
use crate::evidence::http::{HttpClientRecord, InboundRequest};
use crate::evidence::oauth::{AUTHORIZE_PATH, ClientAuthRecord, OAuthRequest, REGISTER_PATH, TokenUse};
use crate::judge::Check;
use crate::protocol::cite;
use crate::requirements::RequirementId;
use crate::scenario::model::{ClientAuth, IssParameter, StateParameter};
use crate::version::ProtocolVersion;

mod binding;
mod cimd;
mod discovery;
mod legacy;
mod offline;
mod refresh;
mod refresh_grant;
mod registration;
mod registration_refused;
mod scopes;
mod step_up;
mod switch;
mod trust;

pub use discovery::{
    METADATA_PATH, OPENID_CONFIGURATION, WELL_KNOWN, authorization_server_metadata_urls,
    protected_resource_metadata_urls,
};

const NO_OAUTH: &str =
    "the client did no OAuth: it never asked for metadata nor spoke to the authorization server";
const NO_AUTHORIZATION: &str = "the client sent no authorization request";
const CODELESS_GRANT: &str =
    "the client took its token by client_credentials, a grant with no authorization request to withhold";

/// The checks of every authorization rule that applies at the evidence's
/// version, when the mock server was protected.
pub fn judge(client: ClientEvidence) -> Vec<Check> {
    let (Some(auth), Some(setup)) = (&client.record.auth, &client.scenario.auth) else {
        return Vec::new();
    };
    let evidence = Evidence::new(client.record, auth, setup);
    let mut findings = vec![
        evidence.challenge_followed(),
        evidence.resource_metadata_order(),
        evidence.authorization_server_metadata_order(client.version),
        evidence.pkce(),
        evidence.pkce_s256(),
        evidence.resource_parameter(),
        evidence.resource_most_specific(),
        evidence.token_in_header(),
        evidence.token_not_in_query(),
        evidence.sends_state(),
        evidence.registers_application_type(),
        evidence.redirects_locally_or_securely(),
        evidence.scope_selected(),
        evidence.challenged_scope_requested(),
        evidence.registers_native_for_loopback(),
        evidence.redirects_as_registered(),
        evidence.client_id_registered(),
        evidence.registers_dynamically(),
        evidence.authorization_server_from_metadata(),
    ];
    findings.extend(evidence.refusals());
    findings.extend(evidence.step_up());
    findings.extend(evidence.without_refresh_token());
    findings.extend(evidence.mismatch_refused());
    findings.extend(evidence.pre_registration());
    findings.extend(evidence.legacy());
    findings.extend(evidence.registration_refusal_handled());
    findings.extend(evidence.offline_access());
    findings.extend(evidence.switch());
    findings.push(evidence.metadata_document());
    findings.push(evidence.refresh_grant_declared());
    client.checks(findings)
}

/// The record, read the ways the rules need it.
struct Evidence<'a> {
    auth: &'a ClientAuthRecord,
    setup: &'a ClientAuth,
    /// Every request the client sent the mock server (the MCP server's
    /// origin).
    requests: &'a [InboundRequest],
    /// The client's GETs of protected resource metadata at the mock server.
    metadata_lookups: Vec<&'a InboundRequest>,
    did_oauth: bool,
}

impl<'a> Evidence<'a> {
    fn new(record: &'a HttpClientRecord, auth: &'a ClientAuthRecord, setup: &'a ClientAuth) -> Self {
        let challenge_path = auth.challenge_metadata.as_deref().map(path_of);
        let metadata_lookups: Vec<_> = record
            .requests
            .iter()
            .filter(|r| r.method == "GET")
            .filter(|r| {
                let path = path_of(&r.target);
                path.starts_with(WELL_KNOWN) || Some(path) == challenge_path
            })
            .collect();
        let did_oauth = auth.did_oauth(metadata_lookups.len());
        Evidence {
            auth,
            setup,
            requests: &record.requests,
            metadata_lookups,
            did_oauth,
        }
    }

    /// A finding with nothing to judge yet: not observed, saying why (a
    /// client that did no OAuth at all, first).
    fn finding(&self, name: &'static str, requirement: RequirementId, level: Level, none: &str) -> Finding {
        let mut finding = Finding::new(name, requirement, level);
        finding.unobserved = Some(if self.did_oauth { none } else { NO_OAUTH }.to_owned());
        finding
    }

    /// Clears `finding`'s reason for being unobserved when `seen`.
    fn observed(mut finding: Finding, seen: bool) -> Finding {
        if seen {
            finding.unobserved = None;
        }
        finding
    }

    /// AUTH-034: the `resource_metadata` of the 401 challenge is fetched.
    fn challenge_followed(&self) -> Finding {
        let mut finding = self.finding(
            "the metadata the 401 challenge names is fetched",
            cite::AUTH_034,
            Level::Must,
            "the challenge named no metadata",
        );
        let Some(url) = self.auth.challenge_metadata.as_deref().filter(|_| self.did_oauth) else {
            return finding;
        };
        finding.unobserved = None;
        let fetched = self
            .metadata_lookups
            .iter()
            .any(|r| path_of(&r.target) == path_of(url));
        if !fetched {
            let first = self.auth.tokens.iter().find(|t| t.refused.is_some());
            let label = first.map_or("the client", |t| t.label.as_str());
            finding.problem_at(
                label,
                format!("the 401 challenge named {url}, which the client never fetched"),
            );
        }
        finding
    }

    /// AUTH-036: protected resource metadata is looked for at the
    /// challenge's URL, then the well-known URL with the endpoint's path,
    /// then the root one, up to the first that answers.
    fn resource_metadata_order(&self) -> Finding {
        let finding = self.finding(
            "protected resource metadata is looked up in order",
            cite::AUTH_036,
            Level::Must,
            "the client looked up no protected resource metadata",
        );
        let (Ok(resource), Ok(served)) = (
            Url::parse(&self.auth.resource),
            Url::parse(&self.auth.metadata_url),
        ) else {
            return finding;
        };
        let challenge = self
            .auth
            .challenge_metadata
            .as_deref()
            .and_then(|u| Url::parse(u).ok());
        let order: Vec<String> = protected_resource_metadata_urls(&resource, challenge.as_ref())
            .iter()
            .map(|url| url.path().to_owned())
            .collect();
        let tried: Vec<(&str, &str, u16)> = self
            .metadata_lookups
            .iter()
            .map(|r| (r.label.as_str(), path_of(&r.target), r.status))
            .collect();
        let finding = Self::observed(finding, !tried.is_empty());
        in_order(finding, &tried, &order, served.path())
    }

    /// AUTH-038 (2025-06-18) and AUTH-039 (from 2025-11-25): the
    /// authorization server's metadata is looked for at the URLs its
    /// version gives, in their order, up to the first that answers.
    fn authorization_server_metadata_order(&self, version: ProtocolVersion) -> Finding {
        let requirement = match version {
            ProtocolVersion::V2025_06_18 => cite::AUTH_038,
            _ => cite::AUTH_039,
        };
        let finding = self.finding(
            "authorization server metadata is looked up in order",
            requirement,
            Level::Must,
            "the client looked up no authorization server metadata",
        );
        let Ok(issuer) = Url::parse(&self.auth.issuer) else {
            return finding;
        };
        let order: Vec<String> = authorization_server_metadata_urls(&issuer, version)
            .iter()
            .map(|url| url.path().to_owned())
            .collect();
        let tried: Vec<(&str, &str, u16)> = self
            .issuer_metadata_lookups()
            .map(|r| (r.label.as_str(), r.path.as_str(), r.status))
            .collect();
        let finding = Self::observed(finding, !tried.is_empty());
        // The scripted server serves its metadata at the one URL of its kind.
        let served = self
            .setup
            .issuer_metadata
            .path(issuer.path().trim_end_matches('/'));
        in_order(finding, &tried, &order, &served)
    }

    /// AUTH-050: every authorization request carries a PKCE challenge, and
    /// every code is redeemed with a verifier.
    fn pkce(&self) -> Finding {
        let mut finding = self.authorization_finding("authorization uses PKCE", cite::AUTH_050, Level::Must);
        fault_each(&mut finding, self.auth.authorizations(), |request| {
            let missing = request.param("code_challenge").is_none();
            missing.then(|| "an authorization request without code_challenge".into())
        });
        fault_each(&mut finding, self.redemptions(), |request| {
            let missing = request.param("code_verifier").is_none();
            missing.then(|| "a code redeemed without code_verifier".into())
        });
        finding
    }

    /// AUTH-051: the PKCE method is S256.
    fn pkce_s256(&self) -> Finding {
        let finding = self.finding("PKCE uses S256", cite::AUTH_051, Level::Must, NO_AUTHORIZATION);
        judge_each(finding, self.auth.authorizations(), |request| {
            let method = request.param("code_challenge_method");
            if request.param("code_challenge").is_none() || method == Some("S256") {
                return None;
            }
            let method = method.map_or("no code_challenge_method (plain)".into(), |m| {
                format!("code_challenge_method `{m}`")
            });
            Some(format!("{method}, not S256"))
        })
    }

    /// AUTH-053: authorization and token requests name the MCP server in
    /// `resource`.
    fn resource_parameter(&self) -> Finding {
        let finding = self.finding(
            "authorization and token requests carry resource",
            cite::AUTH_053,
            Level::Must,
            NO_AUTHORIZATION,
        );
        judge_each(finding, self.resource_bearing(), |request| {
            match request.param("resource") {
                None => Some("no resource parameter".into()),
                Some(value) if !same_resource(value, &self.auth.resource) => Some(format!(
                    "resource `{value}` is not the MCP server {}",
                    self.auth.resource
                )),
                Some(_) => None,
            }
        })
    }

    /// AUTH-054: `resource` is the server's URI exactly (no slash added).
    fn resource_most_specific(&self) -> Finding {
        let finding = self.finding(
            "resource is the server's most specific URI",
            cite::AUTH_054,
            Level::Should,
            NO_AUTHORIZATION,
        );
        let naming = self.resource_bearing().filter(|r| r.param("resource").is_some());
        judge_each(finding, naming, |request| {
            let value = request.param("resource")?;
            let resource = &self.auth.resource;
            (same_resource(value, resource) && value != resource)
                .then(|| format!("resource `{value}`, where the server's URI is {resource}"))
        })
    }

    /// AUTH-056: once the client holds a token, every request carries it in
    /// the `Authorization` header.
    fn token_in_header(&self) -> Finding {
        let finding = self.finding(
            "the token goes on every request, in the Authorization header",
            cite::AUTH_056,
            Level::Must,
            "the client never sent a token in the Authorization header",
        );
        let tokens = &self.auth.tokens;
        let first = tokens.iter().position(|t| t.in_header).unwrap_or(tokens.len());
        judge_each(finding, &tokens[first..], |token| {
            (!token.in_header).then(|| "no bearer token in the Authorization header".into())
        })
    }

    /// AUTH-057: no token in a query string.
    fn token_not_in_query(&self) -> Finding {
        let finding = self.finding(
            "the token is never put in the query string",
            cite::AUTH_057,
            Level::Must,
            "the client never sent a token",
        );
        let presented = self.auth.tokens.iter().filter(|t| t.in_header || t.in_query);
        judge_each(finding, presented, |token| {
            token.in_query.then(|| "access_token in the query string".into())
        })
    }

    /// AUTH-061: every authorization request carries `state`.
    fn sends_state(&self) -> Finding {
        let finding = self.finding(
            "authorization requests carry state",
            cite::AUTH_061,
            Level::Should,
            NO_AUTHORIZATION,
        );
        judge_each(finding, self.auth.authorizations(), |request| {
            let missing = request.param("state").is_none();
            missing.then(|| "an authorization request without state".into())
        })
    }

    /// AUTH-045: a Dynamic Client Registration names its
    /// `application_type`.
    fn registers_application_type(&self) -> Finding {
        let finding = self.finding(
            "a registration names its application_type",
            cite::AUTH_045,
            Level::Must,
            "the client registered no client (Dynamic Client Registration)",
        );
        judge_each(finding, self.registrations(), |request| {
            let unnamed = registration::application_type(request).is_none();
            unnamed.then(|| "a registration without application_type".into())
        })
    }

    /// AUTH-059: every redirect URI, registered or asked for, is a
    /// localhost URL or an https one.
    fn redirects_locally_or_securely(&self) -> Finding {
        let finding = self.finding(
            "redirect URIs are localhost or https URLs",
            cite::AUTH_059,
            Level::Must,
            "the client named no redirect URI",
        );
        let asked = self
            .auth
            .authorizations()
            .filter_map(|r| Some((r.label.as_str(), r.param("redirect_uri")?.to_owned())));
        let registered = self.registrations().flat_map(|r| {
            registration::redirect_uris(r)
                .into_iter()
                .map(move |uri| (r.label.as_str(), uri))
        });
        judge_each(finding, asked.chain(registered), |(_, uri)| {
            (!local_or_https(uri)).then(|| format!("redirect URI `{uri}` is neither localhost nor https"))
        })
    }

    /// What the client must refuse in this scenario, each a finding: an
    /// authorization response with a wrong or missing `state` (AUTH-061) or
    /// `iss` (AUTH-067) is never redeemed, and authorization server
    /// metadata without `code_challenge_methods_supported` stops it before
    /// any authorization request (AUTH-052).
    fn refusals(&self) -> Vec<Finding> {
        let mut findings = Vec::new();
        if self.setup.state != StateParameter::Echoed {
            let refused = format!(
                "the authorization response's state was {}",
                state_name(self.setup.state)
            );
            findings.push(self.never_redeemed(
                "a response with a wrong state is thrown away",
                cite::AUTH_061,
                Level::Should,
                &refused,
            ));
        }
        if self.setup.iss != IssParameter::Correct {
            let refused = format!(
                "the authorization response's iss was {}",
                iss_name(self.setup.iss)
            );
            findings.push(self.never_redeemed(
                "a response with a wrong iss is refused",
                cite::AUTH_067,
                Level::Must,
                &refused,
            ));
        }
        if !self.setup.code_challenge_methods {
            findings.push(self.stops_without_pkce_support());
        }
        findings
    }

    /// No code is redeemed, once the client has shown that it authorizes.
    fn never_redeemed(
        &self,
        name: &'static str,
        requirement: RequirementId,
        level: Level,
        why: &str,
    ) -> Finding {
        let mut finding = self.authorization_finding(name, requirement, level);
        fault_each(&mut finding, self.redemptions(), |_| {
            Some(format!("the code was redeemed, though {why}"))
        });
        finding
    }

    /// AUTH-052: metadata without `code_challenge_methods_supported` ends
    /// the attempt before any authorization request.
    fn stops_without_pkce_support(&self) -> Finding {
        let mut finding = self.finding(
            "no authorization without code_challenge_methods_supported",
            cite::AUTH_052,
            Level::Must,
            "the client never read the authorization server's metadata",
        );
        let read = self.issuer_metadata_lookups().any(|r| r.status == 200);
        let authorized = fault_each(&mut finding, self.auth.authorizations(), |_| {
            Some(
                "an authorization request, though the metadata lists no code_challenge_methods_supported"
                    .into(),
            )
        });
        // A client on the client_credentials grant never sends an
        // authorization request, so its silence is no refusal: a pass would be vacuous.
        if !authorized
            && self
                .auth
                .conversation
                .iter()
                .any(|r| r.is_grant("client_credentials"))
        {
            finding.unobserved = Some(CODELESS_GRANT.to_owned());
            return finding;
        }
        Self::observed(finding, read)
    }

    /// A finding observed once the client sent an authorization request.
    fn authorization_finding(&self, name: &'static str, requirement: RequirementId, level: Level) -> Finding {
        let finding = self.finding(name, requirement, level, NO_AUTHORIZATION);
        Self::observed(finding, self.auth.authorizations().next().is_some())
    }

    /// The client's GETs of metadata at the authorization server.
    fn issuer_metadata_lookups(&self) -> impl Iterator<Item = &OAuthRequest> {
        self.auth
            .conversation
            .iter()
            .filter(|r| r.method == "GET" && r.path.contains("/.well-known/"))
    }

    /// Dynamic Client Registration requests.
    fn registrations(&self) -> impl Iterator<Item = &OAuthRequest> {
        self.auth
            .conversation
            .iter()
            .filter(|r| r.method == "POST" && r.path == REGISTER_PATH)
    }

    /// Token requests redeeming a code.
    fn redemptions(&self) -> impl Iterator<Item = &OAuthRequest> {
        self.auth
            .conversation
            .iter()
            .filter(|r| r.is_grant("authorization_code"))
    }

    /// Authorization requests and the token requests of the code and
    /// refresh grants: those that must carry `resource`.
    fn resource_bearing(&self) -> impl Iterator<Item = &OAuthRequest> {
        self.auth.conversation.iter().filter(|r| {
            r.method == "GET" && r.path == AUTHORIZE_PATH
                || r.is_grant("authorization_code")
                || r.is_grant("refresh_token")
        })
    }
}

/// What a problem is reported at: a request (to the authorization server
/// or the mock server), a token's use, or a value
/// paired with the label of the request that carried it.
trait Labelled {
    fn label(&self) -> &str;
}

impl Labelled for &OAuthRequest {
    fn label(&self) -> &str {
        &self.label
    }
}

impl Labelled for &InboundRequest {
    fn label(&self) -> &str {
        &self.label
    }
}

impl Labelled for &TokenUse {
    fn label(&self) -> &str {
        &self.label
    }
}

impl Labelled for (&str, String) {
    fn label(&self) -> &str {
        self.0
    }
}

/// Adds to `finding` a problem at each of `items` that `wrong` finds fault
/// with, saying what it says; whether there was any item to judge.
fn fault_each<T: Labelled>(
    finding: &mut Finding,
    items: impl IntoIterator<Item = T>,
    wrong: impl Fn(&T) -> Option<String>,
) -> bool {
    let mut seen = false;
    for item in items {
        seen = true;
        if let Some(what) = wrong(&item) {
            finding.problem_at(item.label(), what);
        }
    }
    seen
}

/// `finding` judged on each of `items` by `wrong` ([`fault_each`]),
/// observed once there was one to judge.
fn judge_each<T: Labelled>(
    mut finding: Finding,
    items: impl IntoIterator<Item = T>,
    wrong: impl Fn(&T) -> Option<String>,
) -> Finding {
    let seen = fault_each(&mut finding, items, wrong);
    Evidence::observed(finding, seen)
}

/// Judges lookups `tried` (label, path, status) against `order`, the paths
/// to try in turn: up to the first that answered, the client tried them in
/// that order, skipping none, and one that found nothing tried `served`,
/// where the document is, before it stopped.
fn in_order(mut finding: Finding, tried: &[(&str, &str, u16)], order: &[String], served: &str) -> Finding {
    let found = tried.iter().position(|(_, _, status)| *status == 200);
    let until_found = found.map_or(tried, |found| &tried[..=found]);
    // A client that gave up before the URL where the metadata is went in
    // order as far as it went, but not through the order: the URLs it left
    // were its to try.
    let stopped = found.is_none() && !tried.iter().any(|(_, path, _)| *path == served);
    let last = order
        .iter()
        .position(|path| path == served)
        .unwrap_or(order.len().saturating_sub(1));
    let expected = &order[..=last.min(order.len().saturating_sub(1))];
    let matches = until_found.len() <= expected.len()
        && until_found
            .iter()
            .zip(expected)
            .all(|((_, path, _), want)| path == want);
    if let (false, Some((label, _, _))) = (matches && !stopped, until_found.first()) {
        let asked: Vec<&str> = until_found.iter().map(|(_, path, _)| *path).collect();
        finding.problem_at(
            label,
            format!(
                "looked up {}{}; the order is {}",
                asked.join(", "),
                if stopped { " and stopped there" } else { "" },
                expected.join(", ")
            ),
        );
    }
    finding
}

/// Whether `value` names `resource` (case of scheme and host and a
/// trailing slash aside).
fn same_resource(value: &str, resource: &str) -> bool {
    let normal = |text: &str| {
        Url::parse(text).ok().map(|mut url| {
            let path = url.path().trim_end_matches('/').to_owned();
            url.set_path(&path);
            url
        })
    };
    normal(value).is_some_and(|value| Some(value) == normal(resource))
}

/// Whether `uri` is an https URL, or an http one on this machine.
fn local_or_https(uri: &str) -> bool {
    Url::parse(uri).is_ok_and(|url| url.scheme() == "https" || is_loopback_http(&url))
}

/// Whether `url` is a plain http URL on this machine.
fn is_loopback_http(url: &Url) -> bool {
    url.scheme() == "http"
        && match url.host() {
            Some(url::Host::Domain(name)) => name == "localhost",
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            None => false,
        }
}

/// A request target's or URL's path, without the query.
fn path_of(target: &str) -> &str {
    let without_origin = target
        .split_once("://")
        .map_or(target, |(_, rest)| rest.find('/').map_or("/", |at| &rest[at..]));
    without_origin.split('?').next().unwrap_or_default()
}

fn state_name(state: StateParameter) -> &'static str {
    match state {
        StateParameter::Echoed => "the client's own",
        StateParameter::Wrong => "one the client never sent",
        StateParameter::Missing => "missing",
    }
}

fn iss_name(iss: IssParameter) -> &'static str {
    match iss {
        IssParameter::Correct => "the issuer",
        IssParameter::Wrong => "another authorization server's",
        IssParameter::Missing => "missing, where the metadata promises it",
        IssParameter::Normalized => "the issuer with a trailing slash",
    }
}

#[cfg(test)]
mod tests;
