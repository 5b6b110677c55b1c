//! Real OAuth-protected servers (issue 17): the official Python SDK, FastMCP
//! and the official TypeScript SDK, each guarding its endpoint the way its
//! guide has a user do it (`fixtures/peers/auth`), pointed at a `MockIssuer`
//! running in this process. Checked at the HTTP level: a request without a
//! token is refused with 401 and a challenge naming the protected resource
//! metadata; that document names this resource and the issuer; a valid token
//! opens a session, and the session id alone never authenticates. What every
//! broken token, a misplaced or malformed credential, and a valid token
//! without the scope the server requires get is snapshotted per SDK, so a
//! request an SDK lets through shows in its table, and any change of
//! behaviour fails. (`fixtures/peers/auth/README.md` explains each table.)
//! Without the peers the tests are ignored with the reason (`common::needs`).

use std::io::{BufRead, BufReader};
use std::time::Duration;

use common::needs::{PeersEnv, Tests, peers_with};
use mcp_conform::runner::free_loopback_port;
use mcp_conform::start::StartedServer;
use mcp_mock_peers::auth::{MockIssuer, TokenChoice};
use regex::Regex;
use serde_json::{Value, json};

mod common;

/// How long a peer may take to listen, and an answer to arrive.
const STARTUP: Duration = Duration::from_secs(30);
const ANSWER: Duration = Duration::from_secs(15);

/// The version the requests speak: the latest with sessions, which every
/// peer serves over HTTP.
const PROTOCOL: &str = "2025-11-25";

/// The scope a second instance of each peer requires, which the mock
/// issuer grants only when asked.
const REQUIRED_SCOPE: &str = "mcp-conform:required";

/// Tokens no verifier may accept whatever it skips: a forged or unsigned
/// one, one from a key nobody published, and no JWT at all.
const FORGERIES: [TokenChoice; 4] = [
    TokenChoice::BadSignature,
    TokenChoice::AlgNone,
    TokenChoice::UnknownKey,
    TokenChoice::Garbage,
];

/// One answer of the server, as the table shows it.
struct Answer {
    status: u16,
    challenge: Option<String>,
    session: Option<String>,
    body: String,
}

/// A protected peer started on a free port with its own mock issuer, whose
/// tokens are for that peer's endpoint.
struct ProtectedPeer {
    resource: String,
    issuer: MockIssuer,
    // Dropped after the issuer: its task runs on this runtime.
    _runtime: tokio::runtime::Runtime,
    _server: StartedServer,
}

impl ProtectedPeer {
    /// Starts the command `key` of peers.env, its placeholders filled, with
    /// `extra` arguments.
    fn start(env: &PeersEnv, key: &str, extra: &str) -> Self {
        let port = free_loopback_port().expect("a free loopback port");
        let resource = format!("http://127.0.0.1:{port}/mcp");
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a tokio runtime");
        let issuer = runtime
            .block_on(MockIssuer::start(&resource))
            .expect("the mock issuer starts");
        let command = env[key]
            .replace("{port}", &port.to_string())
            .replace("{issuer}", issuer.issuer())
            .replace("{jwks}", &issuer.jwks_url());
        let command = format!("{command} {extra}");
        let server = StartedServer::start(&command, &resource, STARTUP).unwrap_or_else(|e| panic!("{e}"));
        Self {
            resource,
            issuer,
            _runtime: runtime,
            _server: server,
        }
    }

    /// `message` POSTed to the endpoint with `query` appended to its URL
    /// and `headers` besides the ones every POST carries.
    fn post(&self, query: &str, headers: &[(&str, &str)], message: &Value) -> Answer {
        let mut post = agent()
            .post(&format!("{}{query}", self.resource))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream");
        for (name, value) in headers {
            post = post.header(*name, *value);
        }
        answer(post.send(message.to_string()))
    }

    /// `initialize` with `headers` (the credential, if any).
    fn initialize(&self, headers: &[(&str, &str)]) -> Answer {
        self.post("", headers, &initialize())
    }

    /// The `Authorization` value presenting a token of this kind.
    fn bearer(&self, choice: TokenChoice) -> String {
        format!("Bearer {}", self.issuer.minter().mint(choice))
    }

    fn initialize_with(&self, choice: TokenChoice) -> Answer {
        self.initialize(&[("Authorization", &self.bearer(choice))])
    }

    /// `text` with this run's URLs as placeholders, for a stable snapshot.
    fn placeholders(&self, text: &str) -> String {
        text.replace(&self.resource, "{resource}")
            .replace(self.issuer.issuer(), "{issuer}")
            .replace(self.resource.trim_end_matches("/mcp"), "{origin}")
    }
}

fn initialize() -> Value {
    json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": PROTOCOL,
            "capabilities": {},
            "clientInfo": {"name": "mcp-conform-real-auth-peers", "version": "0"},
        },
    })
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(ANSWER))
        .http_status_as_error(false)
        .build()
        .into()
}

/// The status and challenge of a response, and its JSON-RPC message: the
/// body, or the first `data:` line of an event stream (the stream of a
/// session may stay open after it).
fn answer(response: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> Answer {
    let mut response = response.unwrap_or_else(|e| panic!("no HTTP answer: {e}"));
    let status = response.status().as_u16();
    let header = |name| {
        let value = response.headers().get(name)?;
        Some(value.to_str().expect("an ASCII header").to_owned())
    };
    let challenge = header("www-authenticate");
    let session = header("mcp-session-id");
    let event_stream = header("content-type").is_some_and(|kind| kind.starts_with("text/event-stream"));
    let reader = BufReader::new(response.body_mut().as_reader());
    let mut lines = reader.lines().map_while(Result::ok);
    let body = if event_stream {
        lines
            .find_map(|line| line.strip_prefix("data:").map(|data| data.trim().to_owned()))
            .unwrap_or_default()
    } else {
        lines.collect::<Vec<_>>().join("\n")
    };
    Answer {
        status,
        challenge,
        session,
        body,
    }
}

/// The value of `name="…"` in a `WWW-Authenticate` challenge.
fn challenge_param(challenge: &str, name: &str) -> Option<String> {
    let pattern = Regex::new(&format!(r#"(?:^|[\s,]){name}="([^"]*)""#)).expect("a valid pattern");
    Some(pattern.captures(challenge)?[1].to_owned())
}

/// The table row of one request: the status and the challenge's `error`,
/// `scope` and `resource_metadata`, which is what the spec says a refusal
/// carries.
fn row(peer: &ProtectedPeer, request: &str, answer: &Answer) -> String {
    let params = ["error", "scope", "resource_metadata"].map(|name| {
        let value = answer.challenge.as_deref().and_then(|c| challenge_param(c, name));
        value.map_or_else(|| "-".to_owned(), |value| peer.placeholders(&value))
    });
    let [error, scope, metadata] = params;
    format!(
        "| {request} | {} | {error} | {scope} | {metadata} |",
        answer.status
    )
}

/// The peer `key` of peers.env against its mock issuer: the checks every
/// protected server passes, then the table of what each token gets.
fn protected(env: &PeersEnv, key: &str, snapshot: &str) {
    let peer = ProtectedPeer::start(env, key, "");
    let (refused, metadata) = discovery(&peer);
    let mut table = vec![
        "| request | status | error | scope | resource_metadata |".to_owned(),
        "|---|---|---|---|---|".to_owned(),
        refused,
        session(&peer),
    ];
    table.extend(broken_tokens(&peer));
    table.extend(misplaced_credentials(&peer));
    table.extend(within_session(&peer));
    drop(peer);
    table.extend(missing_scope(env, key));
    table.extend([String::new(), metadata]);
    insta::assert_snapshot!(snapshot, table.join("\n"));
}

/// Without a token: 401 with a Bearer challenge whose `resource_metadata`
/// serves a document naming this resource and its issuer. The row, and the
/// document as the snapshot shows it.
fn discovery(peer: &ProtectedPeer) -> (String, String) {
    let refused = peer.initialize(&[]);
    assert_eq!(refused.status, 401, "no token: {}", refused.body);
    let challenge = refused
        .challenge
        .as_deref()
        .expect("a 401 carries WWW-Authenticate");
    assert!(challenge.starts_with("Bearer "), "{challenge}");
    let metadata_url =
        challenge_param(challenge, "resource_metadata").expect("the challenge names resource_metadata");

    let served = answer(agent().get(&metadata_url).call());
    assert_eq!(served.status, 200, "{metadata_url}: {}", served.body);
    let document: Value = serde_json::from_str(&served.body).expect("the metadata is JSON");
    assert_eq!(document["resource"], peer.resource.as_str(), "{document}");
    assert_eq!(
        document["authorization_servers"],
        json!([peer.issuer.issuer()]),
        "{document}"
    );
    let shown = format!("metadata: {}", peer.placeholders(&document.to_string()));
    (row(peer, "no token", &refused), shown)
}

/// A valid token opens a session: `initialize` is answered.
fn session(peer: &ProtectedPeer) -> String {
    let opened = peer.initialize_with(TokenChoice::Valid);
    assert_eq!(opened.status, 200, "valid token: {}", opened.body);
    let message: Value = serde_json::from_str(&opened.body).expect("a JSON-RPC answer");
    assert!(message["result"]["protocolVersion"].is_string(), "{message}");
    row(peer, "valid", &opened)
}

/// Every token broken in one way: a forgery is refused with 401 by any
/// verifier; what the others get is the SDK's behaviour, for the table.
fn broken_tokens(peer: &ProtectedPeer) -> Vec<String> {
    let broken = TokenChoice::ALL
        .into_iter()
        .filter(|choice| *choice != TokenChoice::Valid);
    broken
        .map(|choice| {
            let answer = peer.initialize_with(choice);
            if FORGERIES.contains(&choice) {
                assert_eq!(answer.status, 401, "{choice:?}: {}", answer.body);
            }
            let name = serde_json::to_value(choice).expect("a token choice has a name");
            row(peer, name.as_str().unwrap_or_default(), &answer)
        })
        .collect()
}

/// A valid token in the query string (OAuth 2.1 §5.1.2 forbids it) and a
/// credential that is no bearer token: neither opens a session. A valid
/// token in both the header and the query, and a bearer credential of two
/// words, are malformed requests (AUTH-008 asks 400 `invalid_request`):
/// what they get is the SDK's, for the table.
fn misplaced_credentials(peer: &ProtectedPeer) -> Vec<String> {
    let valid = peer.bearer(TokenChoice::Valid);
    let token = valid.trim_start_matches("Bearer ");
    let query = format!("?access_token={token}");
    let in_query = peer.post(&query, &[], &initialize());
    let basic = peer.initialize(&[("Authorization", "Basic bWNwLWNvbmZvcm06c2VjcmV0")]);
    for (what, answer) in [("token in the query", &in_query), ("Basic credential", &basic)] {
        assert!(
            answer.status >= 400,
            "{what} was answered {}: {}",
            answer.status,
            answer.body
        );
    }
    let twice = peer.post(&query, &[("Authorization", &valid)], &initialize());
    let two_words = peer.initialize(&[("Authorization", &format!("{valid} {token}"))]);
    vec![
        row(peer, "valid, in the query string", &in_query),
        row(peer, "Basic credential", &basic),
        row(peer, "valid, in the header and the query", &twice),
        row(peer, "Bearer credential of two words", &two_words),
    ]
}

/// In a session a valid token keeps working (a tool call is answered), and
/// the session id never authenticates a request by itself: without a token,
/// or with a garbage one, it gets 401 (AUTH-018).
fn within_session(peer: &ProtectedPeer) -> Vec<String> {
    let valid = peer.bearer(TokenChoice::Valid);
    let garbage = peer.bearer(TokenChoice::Garbage);
    let opened = peer.initialize(&[("Authorization", &valid)]);
    let session = opened.session.expect("the peer opens a session");
    let headers = |authorization| session_headers(&session, authorization);
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let noted = peer.post("", &headers(Some(&valid)), &initialized);
    assert_eq!(noted.status, 202, "notifications/initialized: {}", noted.body);

    let call = json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "mcp-conform"}},
    });
    let answered = peer.post("", &headers(Some(&valid)), &call);
    let message: Value = serde_json::from_str(&answered.body).unwrap_or_default();
    assert_eq!(
        message["result"]["content"][0]["text"], "mcp-conform",
        "tools/call in the session: {}",
        answered.body
    );
    let alone = peer.post("", &headers(None), &call);
    let with_garbage = peer.post("", &headers(Some(&garbage)), &call);
    for (what, answer) in [("no token", &alone), ("a garbage token", &with_garbage)] {
        assert_eq!(answer.status, 401, "session id with {what}: {}", answer.body);
    }
    vec![
        row(peer, "valid, tools/call in the session", &answered),
        row(peer, "session id, no token", &alone),
        row(peer, "session id, garbage token", &with_garbage),
    ]
}

/// The headers of a request in `session`, with `authorization` if any.
fn session_headers<'a>(session: &'a str, authorization: Option<&'a str>) -> Vec<(&'a str, &'a str)> {
    let mut headers = vec![("Mcp-Session-Id", session), ("MCP-Protocol-Version", PROTOCOL)];
    headers.extend(authorization.map(|value| ("Authorization", value)));
    headers
}

/// A second instance of the peer requiring a scope: a valid token without
/// it is refused (with 403 `insufficient_scope`, says RFC 6750 §3.1; an SDK
/// that answers 401 shows in the table), and one granting it is served (so
/// the refusal is about the scope, not the instance).
fn missing_scope(env: &PeersEnv, key: &str) -> [String; 2] {
    let scoped = ProtectedPeer::start(env, key, &format!("--required-scope {REQUIRED_SCOPE}"));
    let refused = scoped.initialize_with(TokenChoice::Valid);
    assert!(
        matches!(refused.status, 401 | 403),
        "a token without the required scope was answered {}: {}",
        refused.status,
        refused.body
    );
    let granted = scoped
        .issuer
        .minter()
        .mint_scoped(TokenChoice::Valid, Some(REQUIRED_SCOPE));
    let served = scoped.initialize(&[("Authorization", &format!("Bearer {granted}"))]);
    assert_eq!(
        served.status, 200,
        "a token with the required scope: {}",
        served.body
    );
    [
        row(&scoped, "valid, scope missing", &refused),
        row(&scoped, "valid, with the required scope", &served),
    ]
}

fn main() -> std::process::ExitCode {
    let peer =
        |key: &'static str, snapshot: &'static str| move |env: PeersEnv| protected(&env, key, snapshot);
    let keys = [
        "AUTH_PYTHON_SERVER_CMD",
        "AUTH_FASTMCP_SERVER_CMD",
        "AUTH_TS_SERVER_CMD",
    ];
    let [python, fastmcp, ts] = keys.map(|key| peers_with(&[key]));
    Tests::default()
        .needing(
            &python,
            "python_sdk_protected_server",
            peer(keys[0], "python_sdk"),
        )
        .needing(&fastmcp, "fastmcp_protected_server", peer(keys[1], "fastmcp"))
        .needing(&ts, "ts_sdk_protected_server", peer(keys[2], "ts_sdk"))
        .run()
}
