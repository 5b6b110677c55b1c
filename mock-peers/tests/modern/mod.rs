//! What the stdio and HTTP tests of the reference server's stateless mode
//! (2026-07-28) share: the per-request `_meta`, a scripted tour that touches
//! every rule the server follows, the wire evidence each fault leaves on
//! that tour, and the frame checker's judgement of the transcript.

use std::collections::BTreeMap;

use mcp_conform_core::protocol::{FrameChecker, PeerRole};
use mcp_conform_core::wire::Frame;
use serde_json::{Value, json};
use tokio::task::JoinHandle;

pub const VERSION: &str = "2026-07-28";

/// The per-request `_meta` of a client declaring `capabilities`.
pub fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": { "name": "modern-test", "version": "0" },
    })
}

/// A stateless request: `params` plus `_meta` declaring `capabilities`.
pub fn request(id: impl Into<Value>, method: &str, params: Value, capabilities: Value) -> Value {
    let mut params = params;
    params["_meta"] = meta(capabilities);
    json!({ "jsonrpc": "2.0", "id": id.into(), "method": method, "params": params })
}

/// A `tools/call` declaring `capabilities`.
pub fn call(id: impl Into<Value>, tool: &str, arguments: Value, capabilities: Value) -> Value {
    request(
        id,
        "tools/call",
        json!({ "name": tool, "arguments": arguments }),
        capabilities,
    )
}

/// The server's side of a conversation, however it travels.
pub(crate) trait Wire {
    /// Sends a request; its response, or `None` when none came in time.
    async fn call(&mut self, request: Value) -> Option<Value>;
    /// Sends a request whose response is not awaited.
    async fn start(&mut self, request: Value);
    /// Cancels request `id`: `notifications/cancelled` on stdio, closing
    /// its stream over HTTP.
    async fn cancel(&mut self, id: &Value);
    /// Lets `ms` pass, taking in whatever arrives.
    async fn settle(&mut self, ms: u64);
    /// Every frame the server sent so far, in the order it arrived.
    fn received(&self) -> Vec<Value>;
    /// Both directions, for the frame checker.
    fn frames(&self) -> Vec<Frame>;
    fn is_stdio(&self) -> bool;
}

/// What the tour saw: each step's response by label, and everything else.
#[derive(Debug, Default)]
pub struct Tour {
    pub responses: BTreeMap<&'static str, Option<Value>>,
    /// The tool names of each walk through `tools/list`, page after page.
    pub walks: Vec<Vec<String>>,
    /// The `cacheScope` of every page of every walk.
    pub scopes: Vec<Value>,
    pub received: Vec<Value>,
    /// Requirement IDs the frame checker holds against the server.
    pub violations: Vec<&'static str>,
}

impl Tour {
    pub fn response(&self, label: &str) -> &Value {
        self.responses
            .get(label)
            .and_then(Option::as_ref)
            .unwrap_or(&Value::Null)
    }

    pub fn result(&self, label: &str) -> &Value {
        &self.response(label)["result"]
    }

    pub fn error_code(&self, label: &str) -> Option<i64> {
        self.response(label)
            .pointer("/error/code")
            .and_then(Value::as_i64)
    }

    /// Notifications with `method`, in order.
    pub fn notes(&self, method: &str) -> Vec<&Value> {
        self.received
            .iter()
            .filter(|frame| frame["method"] == json!(method) && frame.get("id").is_none())
            .collect()
    }

    /// The frames of the listen stream `id`: its notifications, and the
    /// result that ends it.
    pub fn on_stream(&self, id: &str) -> Vec<&Value> {
        let tag = "/_meta/io.modelcontextprotocol~1subscriptionId";
        let id = json!(id);
        self.received
            .iter()
            .filter(|f| {
                f.pointer(&format!("/params{tag}")) == Some(&id)
                    || f.pointer(&format!("/result{tag}")) == Some(&id)
            })
            .collect()
    }
}

const ELICITATION: fn() -> Value = || json!({ "elicitation": {} });

/// Walks every page of `tools/list`.
async fn walk<W: Wire>(wire: &mut W, tour: &mut Tour, ids: &mut u64) {
    let mut names = Vec::new();
    let mut cursor: Option<Value> = None;
    for _ in 0..10 {
        *ids += 1;
        let params = cursor.as_ref().map_or(json!({}), |c| json!({ "cursor": c }));
        let Some(page) = wire.call(request(*ids, "tools/list", params, json!({}))).await else {
            break;
        };
        tour.scopes.push(page["result"]["cacheScope"].clone());
        let tools = page["result"]["tools"].as_array().cloned().unwrap_or_default();
        names.extend(tools.iter().filter_map(|t| t["name"].as_str().map(str::to_owned)));
        cursor = page["result"].get("nextCursor").cloned();
        if cursor.is_none() {
            break;
        }
    }
    tour.walks.push(names);
}

/// Takes the tour: every rule the server follows, touched once.
pub(crate) async fn take<W: Wire>(wire: &mut W) -> Tour {
    let mut tour = Tour::default();
    let mut ids = 100;
    macro_rules! step {
        ($label:literal, $request:expr) => {{
            let response = wire.call($request).await;
            tour.responses.insert($label, response);
        }};
    }
    step!("discover", request(1, "server/discover", json!({}), json!({})));
    walk(wire, &mut tour, &mut ids).await;
    walk(wire, &mut tour, &mut ids).await;
    let first_stream =
        json!({ "toolsListChanged": true, "resourceSubscriptions": ["ref://text/counter", "ref://nope"] });
    wire.start(request(
        "L1",
        "subscriptions/listen",
        json!({ "notifications": first_stream }),
        json!({}),
    ))
    .await;
    wire.settle(200).await;
    step!("add", call(2, "add_tool", json!({ "name": "extra" }), json!({})));
    step!(
        "touch",
        call(3, "touch", json!({ "uri": "ref://text/counter" }), json!({}))
    );
    let mut progress = call(4, "progress", json!({ "steps": 2 }), json!({}));
    progress["params"]["_meta"]["progressToken"] = json!("tok");
    step!("progress", progress);
    step!("log-none", call(5, "log", json!({ "message": "m" }), json!({})));
    let mut logged = call(6, "log", json!({ "message": "m" }), json!({}));
    logged["params"]["_meta"]["io.modelcontextprotocol/logLevel"] = json!("error");
    step!("log-error", logged);
    step!("elicit", call(7, "elicit", json!({}), ELICITATION()));
    let state = tour.result("elicit")["requestState"].clone();
    let retry = |id: u64, responses: Option<Value>, state: &Value| {
        let mut retry = call(id, "elicit", json!({}), ELICITATION());
        retry["params"]["requestState"] = state.clone();
        if let Some(responses) = responses {
            retry["params"]["inputResponses"] = responses;
        }
        retry
    };
    let accept = json!({ "profile": { "action": "accept", "content": { "name": "Ada", "age": 36 } } });
    step!("elicit-accept", retry(8, Some(accept.clone()), &state));
    step!("elicit-missing", retry(9, None, &state));
    step!(
        "elicit-decline",
        retry(10, Some(json!({ "profile": { "action": "decline" } })), &state)
    );
    let tampered = json!(format!("{}0", state.as_str().unwrap_or_default()));
    step!("elicit-tampered", retry(11, Some(accept), &tampered));
    step!("elicit-undeclared", call(12, "elicit", json!({}), json!({})));
    step!(
        "connect-required",
        call(
            13,
            "connect",
            json!({ "required": true }),
            json!({ "elicitation": { "url": {} } })
        )
    );
    step!(
        "sample",
        call(14, "sample", json!({ "prompt": "hi" }), json!({ "sampling": {} }))
    );
    step!("roots", call(15, "roots", json!({}), json!({ "roots": {} })));
    step!(
        "read-missing",
        request(16, "resources/read", json!({ "uri": "ref://nope" }), json!({}))
    );
    step!(
        "read",
        request(
            17,
            "resources/read",
            json!({ "uri": "ref://text/readme" }),
            json!({})
        )
    );
    step!("ping", request(18, "ping", json!({}), json!({})));
    let mut unsupported = request(19, "tools/list", json!({}), json!({}));
    unsupported["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    step!("unsupported", unsupported);
    let mut bare = request(20, "tools/list", json!({}), json!({}));
    bare["params"]["_meta"]
        .as_object_mut()
        .unwrap()
        .remove("io.modelcontextprotocol/clientCapabilities");
    step!("no-capabilities", bare);
    let mut loud = request(21, "tools/list", json!({}), json!({}));
    loud["params"]["_meta"]["io.modelcontextprotocol/logLevel"] = json!("loud");
    step!("loud", loud);
    wire.start(call(22, "slow", json!({ "ms": 300 }), json!({})))
        .await;
    wire.settle(50).await;
    wire.cancel(&json!(22)).await;
    wire.settle(700).await;
    tour.responses.insert(
        "slow-cancelled",
        wire.received().into_iter().find(|frame| frame["id"] == json!(22)),
    );
    step!(
        "end",
        call(23, "end_listen", json!({ "subscriptionId": "L1" }), json!({}))
    );
    wire.start(request(
        "L2",
        "subscriptions/listen",
        json!({ "notifications": { "promptsListChanged": true } }),
        json!({}),
    ))
    .await;
    wire.settle(200).await;
    step!(
        "add-2",
        call(24, "add_tool", json!({ "name": "extra2" }), json!({}))
    );
    wire.settle(100).await;
    wire.cancel(&json!("L2")).await;
    wire.settle(100).await;
    step!(
        "add-3",
        call(25, "add_tool", json!({ "name": "extra3" }), json!({}))
    );
    wire.settle(200).await;
    tour.received = wire.received();
    tour.violations = server_violations(&wire.frames(), wire.is_stdio());
    tour
}

/// The requirements the frame checker holds against the server in `frames`
/// (the client's own deliberate mistakes are left out).
pub fn server_violations(frames: &[Frame], stdio: bool) -> Vec<&'static str> {
    let mut checker = FrameChecker::new(PeerRole::Client);
    if stdio {
        checker = checker.on_stdio();
    }
    let mut found: Vec<&'static str> = frames
        .iter()
        .flat_map(|frame| checker.check(frame))
        .filter(|v| !v.by_us)
        .map(|v| v.requirement.as_str())
        .collect();
    found.sort_unstable();
    found.dedup();
    found
}

/// What the correct server does on the tour, rule by rule.
pub fn assert_correct(tour: &Tour) {
    let discover = tour.result("discover");
    assert_eq!(discover["resultType"], json!("complete"), "{discover}");
    assert_eq!(
        discover["supportedVersions"],
        json!([
            "2026-07-28",
            "2025-11-25",
            "2025-06-18",
            "2025-03-26",
            "2024-11-05"
        ])
    );
    assert!(discover["ttlMs"].is_u64() && discover["cacheScope"] == json!("public"));
    assert!(discover["_meta"]["io.modelcontextprotocol/serverInfo"]["name"].is_string());
    assert!(discover["capabilities"]["tools"]["listChanged"] == json!(true));
    // The tasks extension replaces the 2025-11-25 capability (TASKX-027).
    assert_eq!(
        discover["capabilities"]["extensions"]["io.modelcontextprotocol/tasks"],
        json!({})
    );
    assert!(discover["capabilities"].get("tasks").is_none());
    // Both walks list the same tools in the same order, every page public.
    assert_eq!(tour.walks.len(), 2);
    assert_eq!(tour.walks[0], tour.walks[1]);
    assert!(tour.walks[0].iter().any(|n| n == "region_echo"));
    // `report` (which runs only as a task), `book`, `bookings` and
    // `confirm_then_elicit` included.
    assert_eq!(
        tour.walks[0].len(),
        18,
        "every tool, page after page: {:?}",
        tour.walks[0]
    );
    assert!(tour.scopes.iter().all(|s| s == "public"), "{:?}", tour.scopes);
    // The first stream: acknowledged first, with the honoured subset, then
    // only what it asked for, each tagged; ended with a complete result.
    let first = tour.on_stream("L1");
    assert_eq!(
        first[0]["method"],
        json!("notifications/subscriptions/acknowledged"),
        "{first:?}"
    );
    assert_eq!(
        first[0]["params"]["notifications"],
        json!({ "toolsListChanged": true, "resourceSubscriptions": ["ref://text/counter"] })
    );
    let methods: Vec<&Value> = first.iter().map(|f| &f["method"]).collect();
    assert_eq!(
        methods[1..],
        [
            &json!("notifications/tools/list_changed"),
            &json!("notifications/resources/updated"),
            &Value::Null
        ],
        "then the list change, the update, and the closing result: {first:?}"
    );
    assert_eq!(first.last().unwrap()["result"]["resultType"], json!("complete"));
    assert_eq!(
        tour.result("end")["content"][0]["text"],
        json!("ended 1 listen stream(s)")
    );
    // The second stream asked for prompts only: its acknowledgement, nothing else.
    let second = tour.on_stream("L2");
    assert_eq!(second.len(), 1, "{second:?}");
    assert_eq!(
        second[0]["params"]["notifications"],
        json!({ "promptsListChanged": true })
    );
    // Progress on the request's own stream, untagged; logs only as asked.
    let progress = tour.notes("notifications/progress");
    assert_eq!(progress.len(), 2);
    assert!(progress.iter().all(|p| p["params"].get("_meta").is_none()));
    let logs = tour.notes("notifications/message");
    let levels: Vec<&Value> = logs.iter().map(|l| &l["params"]["level"]).collect();
    assert_eq!(
        levels,
        ["error", "critical", "alert", "emergency"]
            .map(|l| json!(l))
            .iter()
            .collect::<Vec<_>>()
    );
    assert!(
        tour.result("log-none")["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("filtered out")
    );
    // MRTR: asked, answered, asked again, declined, tampered, undeclared.
    let asked = tour.result("elicit");
    assert_eq!(asked["resultType"], json!("input_required"));
    assert_eq!(asked["inputRequests"]["profile"]["params"]["mode"], json!("form"));
    assert!(asked["requestState"].is_string());
    assert!(
        tour.result("elicit-accept")["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("Ada")
    );
    assert_eq!(tour.result("elicit-accept")["resultType"], json!("complete"));
    assert_eq!(
        tour.result("elicit-missing")["resultType"],
        json!("input_required")
    );
    assert_eq!(
        tour.result("elicit-decline")["content"][0]["text"],
        json!("action=decline")
    );
    assert_eq!(tour.error_code("elicit-tampered"), Some(-32602));
    assert_eq!(tour.error_code("elicit-undeclared"), Some(-32021));
    assert_eq!(
        tour.response("elicit-undeclared")["error"]["data"],
        json!({ "requiredCapabilities": { "elicitation": { "form": {} } } })
    );
    let url = &tour.result("connect-required")["inputRequests"]["connection"];
    assert_eq!(url["params"]["mode"], json!("url"));
    assert!(url["params"].get("elicitationId").is_none(), "{url}");
    assert_eq!(
        tour.result("sample")["inputRequests"]["completion"]["method"],
        json!("sampling/createMessage")
    );
    assert_eq!(
        tour.result("roots")["inputRequests"]["roots"]["method"],
        json!("roots/list")
    );
    // Resources, removed methods and refused requests.
    assert_eq!(tour.error_code("read-missing"), Some(-32602));
    let read = tour.result("read");
    assert_eq!(read["contents"][0]["uri"], json!("ref://text/readme"));
    assert!(read["ttlMs"].is_u64() && read["cacheScope"] == json!("public"));
    assert_eq!(tour.error_code("ping"), Some(-32601));
    assert_eq!(tour.error_code("unsupported"), Some(-32022));
    assert_eq!(
        tour.response("unsupported")["error"]["data"]["requested"],
        json!("2099-01-01")
    );
    assert_eq!(tour.error_code("no-capabilities"), Some(-32602));
    assert_eq!(tour.error_code("loud"), Some(-32602));
    assert_eq!(
        tour.responses["slow-cancelled"], None,
        "a cancelled call answers nothing"
    );
    // No request from the server, and no log message it was not asked for.
    assert!(
        tour.received
            .iter()
            .all(|f| f.get("method").is_none() || f.get("id").is_none())
    );
    assert!(
        tour.violations.is_empty(),
        "the frame checker found {:?}",
        tour.violations
    );
}

/// One deliberate fault: what it leaves on the tour, and what the frame
/// checker sees of it (over stdio and over HTTP), if anything.
pub struct Evidence {
    pub fault: &'static str,
    pub witness: fn(&Tour) -> bool,
    checker_stdio: Option<&'static str>,
    checker_http: Option<&'static str>,
}

impl Evidence {
    /// The requirement the frame checker cites for this fault on the
    /// transport, if the transcript can show it.
    pub fn checker(&self, stdio: bool) -> Option<&'static str> {
        if stdio {
            self.checker_stdio
        } else {
            self.checker_http
        }
    }

    /// Whether the tour shows the fault: its witness, and the checker's
    /// finding where there is one.
    pub fn shown_by(&self, tour: &Tour, stdio: bool) -> bool {
        let checked = self
            .checker(stdio)
            .is_none_or(|requirement| tour.violations.contains(&requirement));
        (self.witness)(tour) && checked
    }
}

const fn seen(
    fault: &'static str,
    checker_stdio: Option<&'static str>,
    checker_http: Option<&'static str>,
    witness: fn(&Tour) -> bool,
) -> Evidence {
    Evidence {
        fault,
        witness,
        checker_stdio,
        checker_http,
    }
}

/// Waits for the faults' tours and prints what each showed; fails unless
/// every one showed its evidence.
pub async fn assert_shown(runs: Vec<JoinHandle<(&'static Evidence, Tour)>>, stdio: bool) {
    let mut missed = Vec::new();
    for run in runs {
        let (evidence, tour) = run.await.expect("tour");
        let shown = evidence.shown_by(&tour, stdio);
        eprintln!(
            "{:<48} {:<6} checker {:?} found {:?}",
            evidence.fault,
            if shown { "shown" } else { "MISSED" },
            evidence.checker(stdio),
            tour.violations
        );
        if !shown {
            missed.push(evidence.fault);
        }
    }
    assert!(missed.is_empty(), "faults without their evidence: {missed:?}");
}

/// Every fault of the stateless mode that the tour exposes.
pub const EVIDENCE: &[Evidence] = &[
    seen("modern-no-result-type", Some("RPC-015"), Some("RPC-015"), |t| {
        t.result("discover").get("resultType").is_none()
    }),
    seen("modern-no-server-info", Some("MODN-003"), Some("MODN-003"), |t| {
        t.result("discover")
            .pointer("/_meta/io.modelcontextprotocol~1serverInfo")
            .is_none()
    }),
    seen("modern-missing-meta-accepted", None, None, |t| {
        t.result("no-capabilities")["tools"].is_array()
    }),
    seen(
        "modern-remembers-capabilities",
        Some("MRTR-004"),
        Some("MRTR-004"),
        |t| t.result("elicit-undeclared")["resultType"] == json!("input_required"),
    ),
    seen("modern-wrong-version-code", None, None, |t| {
        t.error_code("unsupported") == Some(-32602)
    }),
    seen("modern-discover-missing", None, None, |t| {
        t.error_code("discover") == Some(-32601)
    }),
    seen(
        "modern-missing-capability-data",
        Some("MODN-008"),
        Some("MODN-008"),
        |t| {
            t.error_code("elicit-undeclared") == Some(-32021)
                && t.response("elicit-undeclared")["error"].get("data").is_none()
        },
    ),
    seen(
        "modern-removed-method-served",
        Some("PING-002"),
        Some("PING-002"),
        |t| t.result("ping").is_object(),
    ),
    seen("modern-server-request", Some("STDIO-007"), Some("RPC-017"), |t| {
        t.received
            .iter()
            .any(|f| f["method"] == json!("roots/list") && f.get("id").is_some())
    }),
    seen(
        "modern-url-required-error",
        Some("RPC-018"),
        Some("RPC-018"),
        |t| t.error_code("connect-required") == Some(-32042),
    ),
    seen(
        "modern-input-required-for-list",
        Some("MRTR-001"),
        Some("MRTR-001"),
        |t| t.scopes.iter().all(Value::is_null),
    ),
    seen(
        "modern-input-required-empty",
        Some("MRTR-002"),
        Some("MRTR-002"),
        |t| t.result("elicit").get("inputRequests").is_none(),
    ),
    seen(
        "modern-input-for-undeclared-capability",
        Some("MRTR-004"),
        Some("MRTR-004"),
        |t| t.result("elicit-undeclared")["resultType"] == json!("input_required"),
    ),
    seen("modern-state-tamper-accepted", None, None, |t| {
        t.result("elicit-tampered")["resultType"] == json!("complete")
    }),
    seen("modern-missing-input-error", None, None, |t| {
        t.error_code("elicit-missing").is_some()
    }),
    seen("modern-decline-breaks", None, None, |t| {
        t.error_code("elicit-decline") == Some(-32603)
    }),
    seen(
        "modern-unacknowledged-listen",
        Some("SUBS-001"),
        Some("SUBS-001"),
        |t| t.notes("notifications/subscriptions/acknowledged").is_empty(),
    ),
    seen(
        "modern-notification-without-subscription-id",
        Some("SUBS-003"),
        Some("SUBS-003"),
        |t| {
            t.notes("notifications/tools/list_changed").iter().any(|n| {
                n.pointer("/params/_meta/io.modelcontextprotocol~1subscriptionId")
                    .is_none()
            })
        },
    ),
    seen(
        "modern-unrequested-notification",
        Some("LIST-003"),
        Some("LIST-003"),
        |t| {
            t.on_stream("L2")
                .iter()
                .any(|n| n["method"] == json!("notifications/tools/list_changed"))
        },
    ),
    seen("modern-tools-reordered", None, None, |t| {
        t.walks.first() != t.walks.get(1)
    }),
    seen(
        "modern-log-without-level",
        Some("LOG-006"),
        Some("LOG-006"),
        |t| t.notes("notifications/message").len() > 4,
    ),
    seen(
        "modern-log-on-listen-stream",
        Some("LOG-006"),
        Some("LOG-006"),
        |t| {
            t.on_stream("L1")
                .iter()
                .any(|n| n["method"] == json!("notifications/message"))
        },
    ),
    seen("modern-unknown-log-level-accepted", None, None, |t| {
        t.result("loud")["tools"].is_array()
    }),
    seen(
        "modern-progress-on-listen",
        Some("PROG-006"),
        Some("PROG-006"),
        |t| {
            t.notes("notifications/progress")
                .iter()
                .any(|p| p["params"].get("_meta").is_some())
        },
    ),
    seen("modern-answers-cancelled", None, None, |t| {
        t.responses["slow-cancelled"].is_some()
    }),
    seen(
        "modern-legacy-not-found-code",
        Some("RES-005"),
        Some("RES-005"),
        |t| t.error_code("read-missing") == Some(-32002),
    ),
    seen("modern-empty-contents-not-found", None, None, |t| {
        t.result("read-missing")["contents"] == json!([])
    }),
    seen(
        "modern-no-cache-fields",
        Some("CACHE-001"),
        Some("CACHE-001"),
        |t| t.result("discover").get("ttlMs").is_none(),
    ),
    seen(
        "modern-page-scope-varies",
        Some("CACHE-002"),
        Some("CACHE-002"),
        |t| t.scopes.iter().any(|s| s == "private"),
    ),
    seen(
        "modern-http-unrelated-notification",
        Some("SUBS-003"),
        Some("SUBS-003"),
        |t| {
            t.notes("notifications/tools/list_changed")
                .iter()
                .any(|n| n.get("params").is_none())
        },
    ),
];
