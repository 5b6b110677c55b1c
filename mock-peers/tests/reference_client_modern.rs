//! The reference client as a dual-era client: the `server/discover` probe
//! first, the stateless era (2026-07-28) against the dual-era reference
//! server over stdio and HTTP (envelope on every request, input rounds
//! retried with a new id and the exact state, a listen stream whose list
//! changes are walked again), the legacy handshake against servers that
//! refuse or ignore the probe, and each `modern-` fault changing the wire
//! as its name says.

use std::time::Instant;

use mcp_mock_peers::reference_client::ClientFault;
use serde_json::{Value, json};

mod client_wire;

use client_wire::stdio::{self, REQUEST_ID, Server, reply};
use client_wire::{
    CAPABILITIES_KEY, INFO_KEY, SUBSCRIPTION_KEY, VERSION_KEY, has_envelope, http, meta, method,
};

/// A plan that touches every modern rule the client follows: lists (one of
/// them changing), input rounds of every kind, and a list change. The
/// plans of input rounds withhold tasks: opted in to the extension, the
/// reference server would ask inside a task instead of by retried rounds.
fn tour() -> Value {
    json!({
        "withhold": ["tasks"],
        "list": ["tools", "prompts"],
        "calls": [
            {"name": "elicit", "arguments": {}},
            {"name": "sample", "arguments": {"prompt": "Say hi"}},
            {"name": "roots", "arguments": {}},
            {"name": "add_tool", "arguments": {"name": "added_by_the_tour"}},
        ],
        "linger_ms": 800,
    })
}

/// A plan of one input round.
fn one_round() -> Value {
    json!({"withhold": ["tasks"], "calls": [{"name": "elicit", "arguments": {}}], "linger_ms": 100})
}

/// A plan of one list walk.
fn one_list() -> Value {
    json!({"list": ["tools"], "linger_ms": 100})
}

/// The capabilities the client declares when the plan withholds nothing.
fn declared() -> Value {
    json!({"roots": {"listChanged": true}, "sampling": {}, "elicitation": {"form": {}}})
}

/// The `tools/call` requests of a tool, first attempts and retries alike.
fn calls_of<'a>(requests: &[&'a Value], tool: &str) -> Vec<&'a Value> {
    requests
        .iter()
        .copied()
        .filter(|r| method(r) == "tools/call" && r["params"]["name"] == tool)
        .collect()
}

/// The names of the tools listed by every page of `tools/list` received.
fn tool_walks(wire: &stdio::Wire) -> Vec<Vec<String>> {
    let mut walks: Vec<Vec<String>> = Vec::new();
    for request in wire.requests_of("tools/list") {
        if request["params"].get("cursor").is_none() {
            walks.push(Vec::new());
        }
        let page = wire.response_to(&request["id"]).expect("every page is answered");
        let names = page["result"]["tools"].as_array().into_iter().flatten();
        let walk = walks.last_mut().expect("a walk starts without a cursor");
        walk.extend(names.filter_map(|t| t["name"].as_str().map(str::to_owned)));
    }
    walks
}

#[tokio::test]
async fn over_stdio_the_probe_comes_first_and_every_request_carries_the_envelope() {
    let wire = stdio::run(Server::Reference, tour(), None).await;
    assert_eq!(wire.outcome, Ok(()));
    let probe = &wire.sent[0];
    assert_eq!(method(probe), "server/discover");
    assert_eq!(meta(probe)[VERSION_KEY], "2026-07-28");
    assert_eq!(meta(probe)[CAPABILITIES_KEY], declared());
    assert_eq!(meta(probe)[INFO_KEY]["name"], "mcp-conform-reference-client");
    let requests = wire.requests();
    assert!(requests.len() > 10, "{requests:?}");
    for request in &requests {
        assert!(has_envelope(request), "{request}");
        assert_ne!(method(request), "initialize");
        assert_ne!(method(request), "ping");
    }
    for sent in &wire.sent {
        assert!(
            sent.get("method").is_some(),
            "no response goes to the server (RPC-017): {sent}"
        );
        assert_ne!(method(sent), "notifications/initialized");
    }
}

#[tokio::test]
async fn over_stdio_each_input_round_is_retried_with_a_new_id_the_exact_state_and_every_answer() {
    let wire = stdio::run(Server::Reference, tour(), None).await;
    let requests = wire.requests();
    for tool in ["elicit", "sample", "roots"] {
        let calls = calls_of(&requests, tool);
        assert_eq!(calls.len(), 2, "{tool}: one call and one retry: {calls:?}");
        let (first, retry) = (calls[0], calls[1]);
        let asked = &wire.response_to(&first["id"]).expect("answered")["result"];
        assert_eq!(asked["resultType"], "input_required");
        assert_ne!(retry["id"], first["id"], "{tool}: a new id");
        assert_eq!(retry["params"]["requestState"], asked["requestState"]);
        assert!(asked["requestState"].is_string());
        let keys = |v: &Value| v.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>());
        assert_eq!(
            keys(&retry["params"]["inputResponses"]),
            keys(&asked["inputRequests"])
        );
        assert_eq!(retry["params"]["arguments"], first["params"]["arguments"]);
        let done = &wire.response_to(&retry["id"]).expect("answered")["result"];
        assert_eq!(done["resultType"], "complete", "{tool}: {done}");
    }
}

#[tokio::test]
async fn over_stdio_a_listen_stream_is_opened_and_a_list_change_walks_the_list_again() {
    let wire = stdio::run(Server::Reference, tour(), None).await;
    let listens = wire.requests_of("subscriptions/listen");
    assert_eq!(listens.len(), 1);
    let listen = listens[0];
    assert_eq!(
        listen["params"]["notifications"],
        json!({"toolsListChanged": true, "promptsListChanged": true})
    );
    let acknowledged = wire.received.iter().any(|m| {
        method(m) == "notifications/subscriptions/acknowledged" && meta(m)[SUBSCRIPTION_KEY] == listen["id"]
    });
    assert!(acknowledged);
    let position = |wanted: &Value| wire.sent.iter().position(|m| m == wanted).unwrap();
    assert!(position(listen) < position(wire.requests_of("tools/list")[0]));
    let walks = tool_walks(&wire);
    assert_eq!(walks.len(), 2, "{walks:?}");
    assert!(!walks[0].contains(&"added_by_the_tour".to_owned()));
    assert!(walks[1].contains(&"added_by_the_tour".to_owned()));
    let added = calls_of(&wire.requests(), "add_tool")[0];
    let rewalk = wire
        .requests_of("tools/list")
        .into_iter()
        .filter(|r| r["params"].get("cursor").is_none())
        .nth(1)
        .unwrap();
    assert!(position(added) < position(rewalk));
}

/// A scripted modern server's answer to the probe, declaring `capabilities`.
fn discovered(capabilities: Value) -> Vec<Value> {
    vec![reply(
        "result",
        json!({"supportedVersions": ["2026-07-28"], "capabilities": capabilities}),
    )]
}

/// A `tools/list` page of tools named `names`.
fn page(names: &[&str], next: Option<&str>) -> Value {
    let tools: Vec<Value> = names
        .iter()
        .map(|name| json!({"name": name, "inputSchema": {"type": "object"}}))
        .collect();
    let mut result = json!({"tools": tools});
    if let Some(cursor) = next {
        result["nextCursor"] = json!(cursor);
    }
    reply("result", result)
}

#[tokio::test]
async fn a_list_change_of_another_subscription_or_of_none_is_not_acted_on() {
    let changed = |meta: Value| json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {"_meta": meta}});
    let acknowledged = json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
        "params": {"notifications": {"toolsListChanged": true}, "_meta": {SUBSCRIPTION_KEY: REQUEST_ID}}});
    let replies = vec![
        discovered(json!({"tools": {"listChanged": true}})),
        // The listen request gets no response: its stream stays open.
        vec![acknowledged],
        vec![
            page(&["a"], None),
            changed(json!({SUBSCRIPTION_KEY: "someone-else"})),
            changed(json!({})),
        ],
    ];
    let wire = stdio::run(
        Server::Scripted(replies),
        json!({"list": ["tools"], "linger_ms": 500}),
        None,
    )
    .await;
    assert_eq!(wire.requests_of("subscriptions/listen").len(), 1);
    assert_eq!(wire.received.len(), 5, "{:?}", wire.received);
    assert_eq!(wire.requests_of("tools/list").len(), 1, "{:?}", wire.sent);
}

#[tokio::test]
async fn against_a_server_that_refuses_the_probe_it_initializes_exactly_as_a_legacy_client() {
    let plan = json!({
        "list": ["tools", "prompts", "resources"],
        "calls": [{"name": "elicit", "arguments": {}}, {"name": "roots", "arguments": {}}],
        "linger_ms": 300,
    });
    let fallback = stdio::run(Server::RefuseFirst, plan.clone(), None).await;
    assert_eq!(fallback.outcome, Ok(()));
    assert_eq!(method(&fallback.sent[0]), "server/discover");
    assert_eq!(method(&fallback.sent[1]), "initialize");
    assert_eq!(fallback.sent[1]["params"].get("_meta"), None);
    assert_eq!(fallback.sent[2]["method"], "notifications/initialized");
    // The same plan from a client that never probes, on a dual-era server
    // that settles on legacy at its initialize: what a legacy client sends.
    let legacy = stdio::run(Server::Reference, plan, Some(ClientFault::ModernNoProbe)).await;
    assert_eq!(fallback.sent[1..], legacy.sent[..]);
    assert!(fallback.requests_of("elicitation/create").is_empty());
    assert!(
        fallback.sent.iter().any(|m| m["result"]["action"] == "accept"),
        "the legacy server's elicitation is answered"
    );
}

#[tokio::test]
async fn a_server_silent_to_the_probe_is_legacy_after_a_short_wait() {
    let started = Instant::now();
    let wire = stdio::run(
        Server::IgnoreFirst,
        json!({"list": ["tools"], "linger_ms": 100}),
        None,
    )
    .await;
    assert_eq!(wire.outcome, Ok(()));
    assert!(started.elapsed().as_secs() >= 3);
    assert_eq!(method(&wire.sent[1]), "initialize");
    let walk = wire.requests_of("tools/list");
    assert!(walk.len() > 1, "every page: {walk:?}");
    assert!(walk.iter().all(|r| r["params"].get("_meta").is_none()));
}

#[tokio::test]
async fn a_modern_server_of_other_versions_only_is_no_server_to_fall_back_from() {
    let unsupported = json!({"code": -32022, "message": "Unsupported protocol version",
        "data": {"supported": ["2031-01-01"], "requested": "2026-07-28"}});
    let wire = stdio::run(
        Server::Scripted(vec![vec![reply("error", unsupported)]]),
        json!({}),
        None,
    )
    .await;
    let error = wire.outcome.clone().unwrap_err();
    assert!(error.contains("no compatible protocol version"), "{error}");
    assert_eq!(wire.requests().len(), 1, "nothing after the probe");
}

#[tokio::test]
async fn an_empty_cursor_is_a_cursor_unless_the_walk_ignores_it() {
    let pages = || {
        vec![
            discovered(json!({"tools": {}})),
            vec![page(&["a"], Some(""))],
            vec![page(&["b"], None)],
        ]
    };
    let correct = stdio::run(Server::Scripted(pages()), one_list(), None).await;
    let walk = correct.requests_of("tools/list");
    assert_eq!(walk.len(), 2);
    assert_eq!(walk[1]["params"]["cursor"], "");
    let broken = stdio::run(
        Server::Scripted(pages()),
        one_list(),
        Some(ClientFault::ModernIgnoresEmptyCursor),
    )
    .await;
    assert_eq!(broken.requests_of("tools/list").len(), 1);
}

#[tokio::test]
async fn an_ignored_input_request_gives_the_call_up_or_gets_the_hosts_own_answer() {
    let ignored = |host_timeout: Option<u64>| {
        let mut plan = json!({
            "withhold": ["tasks"],
            "elicitation": "ignore",
            "calls": [{"name": "elicit", "arguments": {}}],
            "linger_ms": 400,
        });
        if let Some(ms) = host_timeout {
            plan["host_timeout_ms"] = json!(ms);
        }
        stdio::run(Server::Reference, plan, None)
    };
    let given_up = ignored(None).await;
    assert_eq!(given_up.outcome, Ok(()));
    assert_eq!(calls_of(&given_up.requests(), "elicit").len(), 1, "no retry");
    // The round is the only chance to answer: the host's own answer goes in it.
    let answered = ignored(Some(100)).await;
    let calls = calls_of(&answered.requests(), "elicit");
    assert_eq!(calls.len(), 2, "one retry");
    let responses = calls[1]["params"]["inputResponses"].as_object().unwrap();
    assert!(
        responses.values().all(|r| r["action"] == "cancel"),
        "{responses:?}"
    );
    for sent in given_up.sent.iter().chain(&answered.sent) {
        assert!(sent.get("method").is_some(), "no late answer: {sent}");
    }
}

#[tokio::test]
async fn a_call_that_times_out_is_cancelled_by_its_current_id() {
    let plan = json!({
        "calls": [{"name": "slow", "arguments": {"ms": 3000}}],
        "call_timeout_ms": 300,
        "linger_ms": 100,
        // Else the server may run the call as a task, which has no timeout.
        "withhold": ["tasks"],
    });
    let wire = stdio::run(Server::Reference, plan, None).await;
    let call = calls_of(&wire.requests(), "slow")[0];
    let cancelled: Vec<&Value> = wire
        .sent
        .iter()
        .filter(|m| method(m) == "notifications/cancelled")
        .collect();
    assert_eq!(cancelled.len(), 1);
    assert_eq!(cancelled[0]["params"]["requestId"], call["id"]);
}

/// The `mcp-param-*` headers of a POST.
fn param_headers(post: &http::Request) -> Vec<(&String, &String)> {
    post.headers
        .iter()
        .filter(|(name, _)| name.starts_with("mcp-param-"))
        .collect()
}

/// A plan that lists the tools (learning their `x-mcp-header` arguments)
/// and calls one with such an argument.
fn header_call() -> Value {
    json!({
        "list": ["tools"],
        "calls": [{"name": "region_echo", "arguments": {"region": "eu-west", "text": "hi"}}],
        "linger_ms": 100,
    })
}

#[tokio::test]
async fn over_http_every_post_mirrors_its_body_and_the_plan_is_followed() {
    let wire = http::run(false, tour(), None).await;
    assert_eq!(wire.outcome, Ok(()));
    let first = &wire.requests[0];
    assert_eq!(first.method, "POST");
    assert_eq!(method(&first.body), "server/discover");
    assert!(has_envelope(&first.body));
    for request in &wire.requests {
        assert_eq!(request.method, "POST", "no GET stream, no DELETE: {request:?}");
        assert!(has_envelope(&request.body), "{request:?}");
        assert_eq!(request.header("mcp-protocol-version"), Some("2026-07-28"));
        assert_eq!(request.header("mcp-method"), Some(method(&request.body)));
        assert_eq!(request.header("mcp-session-id"), None);
    }
    let elicit = wire.posts_of("tools/call");
    assert!(
        elicit
            .iter()
            .all(|post| post.header("mcp-name") == post.body["params"]["name"].as_str())
    );
    let rounds: Vec<&&http::Request> = elicit
        .iter()
        .filter(|post| post.body["params"]["name"] == "elicit")
        .collect();
    assert_eq!(rounds.len(), 2);
    assert_ne!(rounds[0].body["id"], rounds[1].body["id"]);
    let state = rounds[1].body["params"]["requestState"]
        .as_str()
        .expect("the state is echoed");
    assert!(
        wire.received.contains(&json!(state).to_string()),
        "the state the server gave"
    );
    assert_eq!(wire.posts_of("subscriptions/listen").len(), 1);
    let walks = wire
        .posts_of("tools/list")
        .iter()
        .filter(|post| post.body["params"].get("cursor").is_none())
        .count();
    assert_eq!(walks, 2, "walked again after add_tool");
}

#[tokio::test]
async fn over_http_an_x_mcp_header_argument_travels_in_its_header_unless_the_fault_drops_it() {
    let wire = http::run(false, header_call(), None).await;
    let call = wire.posts_of("tools/call")[0];
    let expected = ("mcp-param-region".to_owned(), "eu-west".to_owned());
    assert_eq!(param_headers(call), vec![(&expected.0, &expected.1)]);
    assert!(!wire.received.contains("-32020"));
    let broken = http::run(false, header_call(), Some(ClientFault::ModernHttpNoParamHeader)).await;
    let call = broken.posts_of("tools/call")[0];
    assert!(param_headers(call).is_empty(), "{call:?}");
    assert_eq!(call.header("mcp-name"), Some("region_echo"));
    assert!(broken.received.contains("-32020"), "the server refuses it");
}

/// One list walk over HTTP from a client with `fault`: its probe, and the
/// POSTs after it.
async fn probe_and_rest(fault: ClientFault) -> (http::Request, Vec<http::Request>) {
    let wire = http::run(false, one_list(), Some(fault)).await;
    let (probe, rest) = wire.requests.split_first().expect("requests");
    assert!(!rest.is_empty(), "{fault}: the walk follows the probe");
    (probe.clone(), rest.to_vec())
}

#[tokio::test]
async fn over_http_a_broken_client_leaves_out_mcp_method_after_the_probe() {
    let (probe, rest) = probe_and_rest(ClientFault::ModernHttpNoMethodHeader).await;
    assert_eq!(probe.header("mcp-method"), Some("server/discover"));
    for post in rest {
        assert_eq!(post.header("mcp-method"), None, "{post:?}");
        assert_eq!(post.header("mcp-protocol-version"), Some("2026-07-28"));
    }
}

#[tokio::test]
async fn over_http_a_broken_client_names_another_version_in_its_header_than_in_its_body() {
    let (probe, rest) = probe_and_rest(ClientFault::ModernHttpVersionMismatch).await;
    assert_eq!(probe.header("mcp-protocol-version"), Some("2026-07-28"));
    for post in rest {
        assert_eq!(post.header("mcp-protocol-version"), Some("2025-11-25"));
        assert_eq!(meta(&post.body)[VERSION_KEY], "2026-07-28");
        assert_eq!(post.header("mcp-method"), Some(method(&post.body)));
    }
}

#[tokio::test]
async fn over_http_a_legacy_refusal_of_the_probe_gets_a_legacy_session() {
    let plan = json!({"list": ["tools"], "calls": [{"name": "echo", "arguments": {"text": "hi"}}], "linger_ms": 300});
    let wire = http::run(true, plan, None).await;
    assert_eq!(wire.outcome, Ok(()));
    let (probe, legacy) = wire.requests.split_first().expect("requests");
    assert_eq!(method(&probe.body), "server/discover");
    let initialize = &legacy[0];
    assert_eq!(method(&initialize.body), "initialize");
    assert_eq!(initialize.body["params"].get("_meta"), None);
    assert_eq!(initialize.header("mcp-method"), None);
    let session = legacy[1].header("mcp-session-id").expect("a session was issued");
    for request in &legacy[1..] {
        assert_eq!(request.header("mcp-session-id"), Some(session), "{request:?}");
        assert_eq!(request.header("mcp-protocol-version"), Some("2025-11-25"));
        assert_eq!(request.header("mcp-method"), None);
    }
    assert!(legacy.iter().any(|r| r.method == "GET"), "the standalone stream");
    assert_eq!(legacy.last().map(|r| r.method.as_str()), Some("DELETE"));
}

#[tokio::test]
async fn over_http_a_legacy_fault_acts_on_the_legacy_session_only() {
    let wire = http::run(true, one_list(), Some(ClientFault::HttpNoVersionHeader)).await;
    let (probe, legacy) = wire.requests.split_first().expect("requests");
    assert_eq!(probe.header("mcp-protocol-version"), Some("2026-07-28"));
    assert!(legacy.len() > 2);
    assert!(legacy.iter().all(|r| r.header("mcp-protocol-version").is_none()));
    let modern = http::run(false, one_list(), Some(ClientFault::HttpNoVersionHeader)).await;
    assert!(
        modern
            .requests
            .iter()
            .all(|r| r.header("mcp-protocol-version") == Some("2026-07-28"))
    );
}

/// One input round with the reference server, from a client with `fault`.
async fn one_round_with(fault: ClientFault) -> stdio::Wire {
    stdio::run(Server::Reference, one_round(), Some(fault)).await
}

/// The first `tools/call` of the run and its retry.
fn call_and_retry(wire: &stdio::Wire) -> (&Value, &Value) {
    let calls = wire.requests_of("tools/call");
    assert!(calls.len() >= 2, "a call and its retry: {:?}", wire.sent);
    (calls[0], calls[1])
}

#[tokio::test]
async fn without_the_probe_initialize_goes_first_and_the_probe_follows_its_refusal() {
    let wire = stdio::run(Server::RefuseFirst, one_list(), Some(ClientFault::ModernNoProbe)).await;
    assert_eq!(wire.outcome, Ok(()));
    let requests = wire.requests();
    assert_eq!(method(requests[0]), "initialize");
    assert_eq!(method(requests[1]), "server/discover");
    assert!(requests[1..].iter().all(|r| has_envelope(r)));
    assert!(!wire.requests_of("tools/list").is_empty(), "it goes on modern");
}

#[tokio::test]
async fn a_broken_client_leaves_an_envelope_key_out_of_every_request_after_the_probe() {
    for (fault, left_out) in [
        (ClientFault::ModernNoCapabilities, CAPABILITIES_KEY),
        (ClientFault::ModernNoClientInfo, INFO_KEY),
    ] {
        let wire = stdio::run(Server::Reference, one_list(), Some(fault)).await;
        let requests = wire.requests();
        assert!(has_envelope(requests[0]), "{fault}: the probe is whole");
        assert!(requests.len() > 1, "{fault}");
        for request in &requests[1..] {
            let meta = meta(request);
            assert!(meta.get(left_out).is_none(), "{fault}: {request}");
            assert_eq!(meta[VERSION_KEY], "2026-07-28", "{fault}");
            let kept = if left_out == INFO_KEY {
                CAPABILITIES_KEY
            } else {
                INFO_KEY
            };
            assert!(meta.get(kept).is_some(), "{fault}: {request}");
        }
    }
}

#[tokio::test]
async fn a_broken_retry_reuses_the_id() {
    let wire = one_round_with(ClientFault::ModernRetrySameId).await;
    let (first, retry) = call_and_retry(&wire);
    assert_eq!(retry["id"], first["id"]);
    assert!(retry["params"]["requestState"].is_string());
}

#[tokio::test]
async fn a_broken_retry_alters_the_state() {
    let wire = one_round_with(ClientFault::ModernStateAltered).await;
    let (first, retry) = call_and_retry(&wire);
    let given = wire.response_to(&first["id"]).expect("answered")["result"]["requestState"]
        .as_str()
        .expect("a state");
    let echoed = retry["params"]["requestState"].as_str().expect("a state");
    assert_ne!(echoed, given);
    assert!(echoed.starts_with(given));
    assert_ne!(retry["id"], first["id"]);
}

#[tokio::test]
async fn a_broken_retry_invents_a_state_the_result_did_not_carry() {
    let asked = json!({"resultType": "input_required", "inputRequests": {"q": {"method": "roots/list"}}});
    let rounds = || {
        vec![
            discovered(json!({"tools": {}})),
            vec![reply("result", asked.clone())],
            vec![reply("result", json!({"resultType": "complete", "content": []}))],
        ]
    };
    let plan = json!({"calls": [{"name": "t", "arguments": {}}], "linger_ms": 100});
    let correct = stdio::run(Server::Scripted(rounds()), plan.clone(), None).await;
    let (_, retry) = call_and_retry(&correct);
    assert!(retry["params"].get("requestState").is_none());
    assert!(retry["params"]["inputResponses"]["q"]["roots"].is_array());
    let broken = stdio::run(
        Server::Scripted(rounds()),
        plan,
        Some(ClientFault::ModernStateInvented),
    )
    .await;
    let (_, retry) = call_and_retry(&broken);
    assert!(retry["params"]["requestState"].is_string());
}

#[tokio::test]
async fn a_broken_retry_leaves_an_input_out_and_the_next_round_brings_it() {
    let wire = one_round_with(ClientFault::ModernMissingInput).await;
    let calls = wire.requests_of("tools/call");
    assert_eq!(calls.len(), 3, "the server asks again: {calls:?}");
    assert_eq!(calls[1]["params"]["inputResponses"], json!({}));
    assert_eq!(
        calls[2]["params"]["inputResponses"]["profile"]["action"],
        "accept"
    );
    let done = &wire.response_to(&calls[2]["id"]).expect("answered")["result"];
    assert_eq!(done["resultType"], "complete");
}

#[tokio::test]
async fn the_modern_faults_leave_a_legacy_conversation_alone() {
    let plan = json!({"list": ["tools"], "calls": [{"name": "elicit", "arguments": {}}], "linger_ms": 100});
    let correct = stdio::run(Server::RefuseFirst, plan.clone(), None).await;
    assert_eq!(method(&correct.sent[1]), "initialize");
    let faults = ClientFault::ALL
        .iter()
        .filter(|f| f.is_modern() && !f.is_http() && **f != ClientFault::ModernNoProbe);
    // The client's future is not `Send`: the runs share this thread.
    let together = tokio::task::LocalSet::new();
    let runs: Vec<_> = faults
        .map(|fault| {
            let run = stdio::run(Server::RefuseFirst, plan.clone(), Some(*fault));
            (fault, together.spawn_local(run))
        })
        .collect();
    assert_eq!(runs.len(), 12);
    together
        .run_until(async {
            for (fault, run) in runs {
                let wire = run.await.expect("the run ends");
                assert_eq!(wire.sent, correct.sent, "{fault}");
            }
        })
        .await;
}
