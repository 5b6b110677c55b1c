//! The client's own rules of Streamable HTTP, judged on what the mock
//! server saw of it ([`HttpClientRecord`]): every request's headers, one
//! message per POST, the session id and protocol version once known, and
//! DELETE when it is done. These facts are not messages, so the frame
//! checker never sees them.
//!
//! In the stateless era (2026-07-28+) there is no session and no version
//! to negotiate: the headers each POST mirrors from its body are judged
//! instead (`client_http/stateless.rs`).
//!
//! A broken rule is judged wherever it is seen (the runner keeps SHOULDs
//! of other scenarios as remarks). A kept rule is a pass only in a
//! scenario that cites it, and there a rule that could not be observed
//! says so instead of passing by default.

use crate::evidence::http::{HttpClientRecord, InboundRequest, MCP_PATH};
use crate::judge::Check;
use crate::protocol::cite;
use crate::requirements::RequirementId;
use crate::requirements::catalogue;
use crate::scenario::Scenario;
use crate::span::Span;
use crate::version::ProtocolVersion;
use crate::wire::{Direction, Frame};
use crate::{Level, Verdict};

mod stateless;

/// At most this many offending requests are spelled out per rule.
const SHOWN: usize = 5;

/// A check of `finding`'s rule with `verdict`.
pub(super) fn check(finding: &Finding, verdict: Verdict, message: Option<String>) -> Check {
    Check {
        message,
        ..Check::pass(finding.name, finding.requirement, finding.level, Span::default()).with_verdict(verdict)
    }
}

/// One rule over the record: what it found, if it could look at all.
pub(super) struct Finding {
    pub name: &'static str,
    pub requirement: RequirementId,
    pub level: Level,
    /// Why nothing could be judged, when nothing could.
    pub unobserved: Option<String>,
    /// Each offending request: its label and what is wrong with it.
    pub problems: Vec<(String, String)>,
}

impl Finding {
    pub(super) fn new(name: &'static str, requirement: RequirementId, level: Level) -> Finding {
        Finding {
            name,
            requirement,
            level,
            unobserved: None,
            problems: Vec::new(),
        }
    }

    fn problem(&mut self, request: &InboundRequest, what: String) {
        self.problem_at(&request.label, what);
    }

    /// Whether its requirement applies at `version`.
    pub(super) fn applies(&self, version: ProtocolVersion) -> bool {
        catalogue()
            .get(self.requirement.as_str())
            .is_some_and(|r| r.applies_to(version))
    }

    /// Whether `scenario` cites its requirement.
    pub(super) fn cited_by(&self, scenario: &Scenario) -> bool {
        scenario
            .requirements
            .iter()
            .any(|r| r == self.requirement.as_str())
    }

    /// A problem of the request labelled `label`.
    pub(super) fn problem_at(&mut self, label: &str, what: String) {
        self.problems.push((label.to_owned(), format!("{label}: {what}")));
    }

    /// Nothing could be seen when `requests` is empty.
    fn over(mut self, requests: &[&InboundRequest], none: &str) -> Finding {
        if requests.is_empty() {
            self.unobserved = Some(none.to_owned());
        }
        self
    }
}

/// What the mock server saw of a client in one scenario: the input of its
/// HTTP rules and of its authorization rules (`client_auth`).
#[derive(Debug, Clone, Copy)]
pub struct ClientEvidence<'a> {
    pub record: &'a HttpClientRecord,
    /// The version the run serves.
    pub version: ProtocolVersion,
    pub scenario: &'a Scenario,
    pub transcript: &'a [Frame],
}

impl ClientEvidence<'_> {
    /// The findings whose rules apply at the run's version, each with
    /// whether the scenario cites it.
    fn applicable(&self, findings: Vec<Finding>) -> impl Iterator<Item = (Finding, bool)> {
        findings
            .into_iter()
            .filter(|finding| finding.applies(self.version))
            .map(|finding| {
                let cited = finding.cited_by(self.scenario);
                (finding, cited)
            })
    }

    /// The checks of those of `findings` whose rules apply at the run's
    /// version.
    pub(super) fn checks(&self, findings: Vec<Finding>) -> Vec<Check> {
        self.applicable(findings)
            .filter_map(|(finding, cited)| verdict(finding, cited, self.transcript))
            .collect()
    }
}

/// The checks of every rule that applies at the evidence's version.
pub fn judge(evidence: ClientEvidence) -> Vec<Check> {
    let record = evidence.record;
    let mut findings = vec![posts_accept_both(record), single_messages(record)];
    if record.stateless {
        findings.extend(stateless::findings(record, evidence.transcript));
    } else {
        findings.extend([
            session_id_repeated(record),
            version_header_sent(record),
            version_header_negotiated(record),
            get_accepts_sse(record),
            session_deleted(record),
        ]);
    }
    if record.legacy {
        // These are Streamable HTTP's rules; HTTP+SSE has none of them.
        return evidence
            .applicable(findings)
            .filter_map(|(finding, cited)| cited.then(|| not_applicable(&finding)))
            .collect();
    }
    evidence.checks(findings)
}

fn not_applicable(finding: &Finding) -> Check {
    let why = "the client spoke HTTP+SSE (2024-11-05), not Streamable HTTP";
    check(finding, Verdict::NotApplicable, Some(why.into()))
}

fn verdict(finding: Finding, cited: bool, transcript: &[Frame]) -> Option<Check> {
    let problems = &finding.problems;
    if let Some((label, _)) = problems.first() {
        let mut lines: Vec<String> = problems
            .iter()
            .take(SHOWN)
            .map(|(_, line)| line.clone())
            .collect();
        if problems.len() > SHOWN {
            lines.push(format!("… and {} more", problems.len() - SHOWN));
        }
        let frame = transcript
            .iter()
            .position(|f| f.direction == Direction::Received && f.meta.stream.as_deref() == Some(label));
        let broken = finding.level.verdict_when_broken();
        return Some(check(&finding, broken, Some(lines.join("\n"))).at_frame(frame));
    }
    if !cited {
        return None;
    }
    Some(match finding.unobserved.clone() {
        Some(why) => check(&finding, Verdict::NotObserved, Some(why)),
        None => check(&finding, Verdict::Pass, None),
    })
}

fn posts(record: &HttpClientRecord) -> Vec<&InboundRequest> {
    record.requests.iter().filter(|r| r.method == "POST").collect()
}

/// The requests after a version was negotiated, or why there are none: a
/// version answered that no client can speak leaves none to name (the
/// client should leave, LIFE-006).
fn after_negotiation(record: &HttpClientRecord) -> (Vec<&InboundRequest>, &'static str) {
    let known = record
        .version
        .as_deref()
        .is_some_and(|v| v.parse::<ProtocolVersion>().is_ok());
    if known {
        (
            after_initialize(record),
            "the client made no request after initialize",
        )
    } else {
        (Vec::new(), "no version was negotiated")
    }
}

/// Requests made once our `initialize` answer was out (the client knows
/// the session id and the version from then on).
/// The requests to the MCP endpoint after our answer to `initialize`: a
/// lookup of OAuth metadata (a client stepping up its authorization may
/// look again) is no MCP request, and carries no session.
fn after_initialize(record: &HttpClientRecord) -> Vec<&InboundRequest> {
    let metadata = record
        .auth
        .as_ref()
        .and_then(|auth| url::Url::parse(&auth.metadata_url).ok());
    let is_metadata_lookup = |r: &InboundRequest| {
        path(r).starts_with("/.well-known/") || metadata.as_ref().is_some_and(|url| url.path() == path(r))
    };
    match record.answered_at {
        Some(answered) => record
            .requests
            .iter()
            .filter(|r| r.at > answered && !is_metadata_lookup(r))
            .collect(),
        None => Vec::new(),
    }
}

fn path(request: &InboundRequest) -> &str {
    request.target.split('?').next().unwrap_or_default()
}

/// HTTP-004: every POST goes to the endpoint and accepts both JSON and SSE.
fn posts_accept_both(record: &HttpClientRecord) -> Finding {
    let posts = posts(record);
    let mut finding = Finding::new(
        "each message is its own POST, accepting JSON and SSE",
        cite::HTTP_004,
        Level::Must,
    );
    for post in &posts {
        if !(post.accepts("application/json") && post.accepts("text/event-stream")) {
            let accept = post
                .header("accept")
                .map_or("no Accept header".into(), |a| format!("Accept `{a}`"));
            finding.problem(
                post,
                format!("{accept} does not list both application/json and text/event-stream"),
            );
        }
        if path(post) != MCP_PATH {
            finding.problem(
                post,
                format!("POST to {}, not the MCP endpoint {MCP_PATH}", post.target),
            );
        }
    }
    finding.over(&posts, "the client POSTed nothing")
}

/// HTTP-005: no POST body is a JSON array.
fn single_messages(record: &HttpClientRecord) -> Finding {
    let posts = posts(record);
    let mut finding = Finding::new(
        "a POST body holds one message, not an array",
        cite::HTTP_005,
        Level::Must,
    );
    for post in posts.iter().filter(|p| p.array) {
        finding.problem(post, "the body is a JSON array".into());
    }
    finding.over(&posts, "the client POSTed nothing")
}

/// HTTP-016: once issued, the session id is on every request.
fn session_id_repeated(record: &HttpClientRecord) -> Finding {
    let mut finding = Finding::new(
        "requests after initialize carry the session id",
        cite::HTTP_016,
        Level::Must,
    );
    let Some(issued) = record.session_id.as_deref() else {
        finding.unobserved = Some("no session id was issued".into());
        return finding;
    };
    let later = after_initialize(record);
    for request in &later {
        match request.header("mcp-session-id") {
            None => finding.problem(request, "no Mcp-Session-Id".into()),
            Some(sent) if sent != issued => {
                finding.problem(
                    request,
                    format!("Mcp-Session-Id `{sent}`, not the issued `{issued}`"),
                );
            }
            Some(_) => {}
        }
    }
    finding.over(&later, "the client made no request after initialize")
}

/// HTTP-018 (MUST): once initialized, every request names a version.
fn version_header_sent(record: &HttpClientRecord) -> Finding {
    let (later, none) = after_negotiation(record);
    let mut finding = Finding::new(
        "requests after initialize carry MCP-Protocol-Version",
        cite::HTTP_018,
        Level::Must,
    );
    for request in later
        .iter()
        .filter(|r| r.header("mcp-protocol-version").is_none())
    {
        finding.problem(request, "no MCP-Protocol-Version".into());
    }
    finding.over(&later, none)
}

/// HTTP-018 (SHOULD): the version named is the negotiated one.
fn version_header_negotiated(record: &HttpClientRecord) -> Finding {
    let (later, none) = after_negotiation(record);
    let mut finding = Finding::new(
        "MCP-Protocol-Version names the negotiated version",
        cite::HTTP_018,
        Level::Should,
    );
    let negotiated = record.version.as_deref().unwrap_or_default();
    for request in &later {
        if let Some(sent) = request.header("mcp-protocol-version")
            && sent != negotiated
        {
            finding.problem(
                request,
                format!("MCP-Protocol-Version `{sent}`, negotiated `{negotiated}`"),
            );
        }
    }
    finding.over(&later, none)
}

/// HTTP-012 (the client's half): a GET on the endpoint accepts SSE.
fn get_accepts_sse(record: &HttpClientRecord) -> Finding {
    let gets: Vec<&InboundRequest> = record
        .requests
        .iter()
        .filter(|r| r.method == "GET" && path(r) == MCP_PATH)
        .collect();
    let mut finding = Finding::new(
        "a GET on the endpoint accepts text/event-stream",
        cite::HTTP_012,
        Level::Must,
    );
    for get in gets.iter().filter(|g| !g.accepts("text/event-stream")) {
        let accept = get
            .header("accept")
            .map_or("no Accept header".into(), |a| format!("Accept `{a}`"));
        finding.problem(get, format!("{accept} does not list text/event-stream"));
    }
    finding.over(&gets, "the client opened no GET stream (it need not)")
}

/// HTTP-017: a client that leaves ends its session with DELETE first.
/// Judged only when the client was seen to leave (or to DELETE).
fn session_deleted(record: &HttpClientRecord) -> Finding {
    let mut finding = Finding::new(
        "the client ends its session with DELETE",
        cite::HTTP_017,
        Level::Should,
    );
    let deleted = record
        .requests
        .iter()
        .any(|r| r.method == "DELETE" && path(r) == MCP_PATH);
    match (&record.session_id, deleted, &record.left) {
        (None, ..) => finding.unobserved = Some("no session id was issued".into()),
        (Some(_), true, _) => {}
        (Some(_), false, Some(exit)) => finding.problems.push((
            String::new(),
            format!("the client left ({exit}) without a DELETE for its session"),
        )),
        (Some(_), false, None) => {
            finding.unobserved = Some("the client was still connected when the scenario ended".into());
        }
    }
    finding
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::Path;
    use std::time::Duration;

    use serde_json::{Value, json};

    use super::*;
    use crate::scenario::load::load_str;
    use crate::wire::mirror::{ToolHeaders, learn_tools, mirrored};

    const SESSION: &str = "s1";

    fn scenario(requirements: &str) -> Scenario {
        let text = format!(
            "id: t\ntitle: t\nrole: client\nrequirements: [{requirements}]\nsteps:\n  - request: {{ method: ping }}\n"
        );
        load_str(Path::new("t.yaml"), &text).unwrap()
    }

    /// A request `at` ms in, with `headers`.
    fn request(at: u64, method: &str, headers: &[(&str, &str)]) -> InboundRequest {
        InboundRequest {
            at: Duration::from_millis(at),
            label: format!("{}#{at}", method.to_ascii_lowercase()),
            method: method.into(),
            target: MCP_PATH.into(),
            headers: headers
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect::<BTreeMap<_, _>>(),
            status: 200,
            array: false,
            refusal: None,
            cancelled: false,
            watched: Vec::new(),
        }
    }

    const BOTH: (&str, &str) = ("accept", "application/json, text/event-stream");
    const SESSION_ID: (&str, &str) = ("mcp-session-id", SESSION);
    const VERSION: (&str, &str) = ("mcp-protocol-version", "2025-11-25");

    /// A correct client: initialize, initialized, the GET stream, DELETE.
    fn correct() -> HttpClientRecord {
        HttpClientRecord {
            requests: vec![
                request(1, "POST", &[BOTH]),
                request(3, "POST", &[BOTH, SESSION_ID, VERSION]),
                request(4, "GET", &[("accept", "text/event-stream"), SESSION_ID, VERSION]),
                request(9, "DELETE", &[SESSION_ID, VERSION]),
            ],
            legacy: false,
            stateless: false,
            session_id: Some(SESSION.into()),
            answered_at: Some(Duration::from_millis(2)),
            version: Some("2025-11-25".into()),
            left: None,
            auth: None,
        }
    }

    fn verdicts(record: &HttpClientRecord, cited: impl AsRef<str>) -> Vec<(String, Verdict)> {
        judge(ClientEvidence {
            record,
            version: ProtocolVersion::V2025_11_25,
            scenario: &scenario(cited.as_ref()),
            transcript: &[],
        })
        .into_iter()
        .map(|c| (c.requirement.to_string(), c.verdict))
        .collect()
    }

    #[test]
    fn a_correct_client_passes_where_cited_and_is_silent_elsewhere() {
        assert!(verdicts(&correct(), cite::LIFE_001).is_empty());
        let cited = verdicts(&correct(), "HTTP-004, HTTP-005, HTTP-016, HTTP-017, HTTP-018");
        assert!(cited.iter().all(|(_, v)| *v == Verdict::Pass), "{cited:?}");
        assert_eq!(cited.len(), 6);
    }

    #[test]
    fn no_version_is_asked_for_when_none_was_negotiated() {
        let mut record = correct();
        record.version = Some("1999-01-01".into());
        record.requests.truncate(1);
        record.requests.push(request(9, "DELETE", &[SESSION_ID]));
        let found = verdicts(&record, cite::HTTP_018);
        assert!(found.iter().all(|(_, v)| *v != Verdict::Fail), "{found:?}");
    }

    #[test]
    fn each_broken_rule_is_found() {
        let mut record = correct();
        record.requests[1].headers.remove("mcp-session-id");
        record.requests[1].headers.remove("mcp-protocol-version");
        record.requests[1].array = true;
        record.requests[0]
            .headers
            .insert("accept".into(), "application/json".into());
        record.requests[2].headers.insert("accept".into(), "*/*".into());
        record.requests[3]
            .headers
            .insert("mcp-protocol-version".into(), "2025-06-18".into());
        let found = verdicts(&record, cite::LIFE_001);
        let expected = [
            (cite::HTTP_004, Verdict::Fail),
            (cite::HTTP_005, Verdict::Fail),
            (cite::HTTP_016, Verdict::Fail),
            (cite::HTTP_018, Verdict::Fail),
            (cite::HTTP_018, Verdict::NonStrict),
            (cite::HTTP_012, Verdict::Fail),
        ];
        let expected: Vec<(String, Verdict)> = expected.iter().map(|(r, v)| (r.to_string(), *v)).collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn delete_is_judged_only_when_the_client_is_seen_to_leave() {
        let mut record = correct();
        record.requests.pop();
        assert_eq!(
            verdicts(&record, cite::HTTP_017),
            [(cite::HTTP_017.to_string(), Verdict::NotObserved)]
        );
        record.left = Some("exited with status 0".into());
        assert_eq!(
            verdicts(&record, cite::LIFE_001),
            [(cite::HTTP_017.to_string(), Verdict::NonStrict)]
        );
    }

    #[test]
    fn headers_before_the_initialize_answer_and_older_versions_are_not_judged() {
        let mut record = correct();
        record.requests[0].headers.clear();
        record.requests[0].headers.insert("accept".into(), BOTH.1.into());
        let judged = judge(ClientEvidence {
            record: &record,
            version: ProtocolVersion::V2025_03_26,
            scenario: &scenario(cite::HTTP_018.as_str()),
            transcript: &[],
        });
        assert!(judged.is_empty(), "{judged:?}");
    }

    #[test]
    fn an_http_sse_client_makes_the_cited_rules_not_applicable() {
        let record = HttpClientRecord {
            legacy: true,
            ..correct()
        };
        assert!(verdicts(&record, cite::LIFE_001).is_empty());
        assert_eq!(
            verdicts(&record, cite::HTTP_016),
            [(cite::HTTP_016.to_string(), Verdict::NotApplicable)]
        );
    }

    /// What a correct client does in the stateless era: it lists tools (one
    /// with marked arguments, one whose `x-mcp-header` use is invalid),
    /// calls the valid one with a value that is not header-safe, reads a
    /// resource, and mirrors each body into its headers.
    fn stateless_conversation() -> (HttpClientRecord, Vec<Frame>) {
        let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
        let listed = json!({"tools": [
            {"name": "execute_sql", "inputSchema": {"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "limit": {"type": "integer", "x-mcp-header": "Limit"},
                "query": {"type": "string"}}}},
            {"name": "ratio", "inputSchema": {"type": "object", "properties": {
                "r": {"type": "number", "x-mcp-header": "R"}}}}]});
        let mut tools = ToolHeaders::new();
        learn_tools(&listed, &mut tools);
        let messages = [
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "execute_sql",
                "arguments": {"region": "Hello, 世界", "limit": 42, "query": "SELECT 1"}, "_meta": meta}}),
            json!({"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": "file:///é", "_meta": meta}}),
        ];
        let mut record = HttpClientRecord {
            stateless: true,
            ..HttpClientRecord::default()
        };
        let mut transcript = Vec::new();
        for (n, message) in (1..).zip(messages) {
            let mut headers: Vec<(String, String)> = mirrored(&message, &tools);
            headers.push((BOTH.0.into(), BOTH.1.into()));
            let pairs: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            let posted = request(n * 10, "POST", &pairs);
            let mut frame = Frame::new(Direction::Received, message.to_string().into_bytes(), posted.at);
            frame.meta.stream = Some(posted.label.clone());
            record.requests.push(posted);
            transcript.push(frame);
            if n == 1 {
                let answer = json!({"jsonrpc": "2.0", "id": 1, "result": listed});
                transcript.push(Frame::new(
                    Direction::Sent,
                    answer.to_string().into_bytes(),
                    Duration::ZERO,
                ));
            }
        }
        (record, transcript)
    }

    fn stateless_verdicts(
        record: &HttpClientRecord,
        transcript: &[Frame],
        cited: impl AsRef<str>,
    ) -> Vec<(String, Verdict)> {
        judge(ClientEvidence {
            record,
            version: ProtocolVersion::V2026_07_28,
            scenario: &scenario(cited.as_ref()),
            transcript,
        })
        .into_iter()
        .map(|c| (c.requirement.to_string(), c.verdict))
        .collect()
    }

    const STATELESS_RULES: &str = "HTTP-004, HTTP-005, HTTP-016, HTTP-018, HTTP-020, HTTP-023, HTTP-024";

    #[test]
    fn a_correct_stateless_client_passes_the_header_rules_and_no_session_rule_is_asked() {
        let (record, transcript) = stateless_conversation();
        assert!(stateless_verdicts(&record, &transcript, cite::LIFE_001).is_empty());
        let cited = stateless_verdicts(&record, &transcript, STATELESS_RULES);
        let ids: Vec<&str> = cited.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(
            ids,
            [
                cite::HTTP_004.as_str(),
                cite::HTTP_005.as_str(),
                cite::HTTP_020.as_str(),
                cite::HTTP_023.as_str(),
                cite::HTTP_024.as_str()
            ]
        );
        assert!(cited.iter().all(|(_, v)| *v == Verdict::Pass), "{cited:?}");
    }

    /// The verdicts on the conversation once `post` (1: tools/list,
    /// 2: tools/call, 3: resources/read) has `header` set to `value`
    /// (removed when `None`).
    fn with_header(post: usize, header: &str, value: Option<&str>) -> Vec<(String, Verdict)> {
        let (mut record, transcript) = stateless_conversation();
        let headers = &mut record.requests[post - 1].headers;
        match value {
            Some(value) => headers.insert(header.into(), value.into()),
            None => headers.remove(header),
        };
        stateless_verdicts(&record, &transcript, cite::LIFE_001)
    }

    #[test]
    fn each_standard_header_that_is_missing_or_disagrees_breaks_http_020() {
        let fail = [(cite::HTTP_020.to_string(), Verdict::Fail)];
        assert_eq!(with_header(1, "mcp-method", None), fail);
        assert_eq!(with_header(1, "mcp-protocol-version", None), fail);
        assert_eq!(with_header(2, "mcp-protocol-version", Some("2025-11-25")), fail);
        assert_eq!(with_header(2, "mcp-name", Some("drop_tables")), fail);
        assert_eq!(with_header(3, "mcp-name", Some("=?base64?!!?=")), fail);
        assert_eq!(with_header(3, "mcp-name", None), fail);
    }

    #[test]
    fn marked_arguments_must_be_mirrored_exactly_and_encoded_where_unsafe() {
        let fail = [(cite::HTTP_023.to_string(), Verdict::Fail)];
        assert_eq!(with_header(2, "mcp-param-region", None), fail);
        assert_eq!(with_header(2, "mcp-param-region", Some("Hello, 世界")), fail);
        assert_eq!(with_header(2, "mcp-param-limit", Some("43")), fail);
        assert_eq!(with_header(3, "mcp-name", Some("file:///é")), fail);
        assert!(
            with_header(2, "mcp-param-limit", Some("42.0")).is_empty(),
            "integers compare by value"
        );
        let (mut record, mut transcript) = stateless_conversation();
        let call = &mut transcript[2];
        let mut message: Value = serde_json::from_slice(&call.raw).unwrap();
        message["params"]["arguments"]["limit"] = Value::Null;
        call.raw = message.to_string().into_bytes();
        assert_eq!(
            stateless_verdicts(&record, &transcript, cite::LIFE_001),
            fail,
            "a header for a null argument"
        );
        record.requests[1].headers.remove("mcp-param-limit");
        assert!(stateless_verdicts(&record, &transcript, cite::LIFE_001).is_empty());
    }

    #[test]
    fn calling_a_tool_whose_x_mcp_header_use_is_invalid_breaks_http_024() {
        let (mut record, mut transcript) = stateless_conversation();
        let call = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "ratio",
            "arguments": {"r": 0.5}, "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}});
        let headers = [
            BOTH,
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "ratio"),
        ];
        let posted = request(40, "POST", &headers);
        let mut frame = Frame::new(Direction::Received, call.to_string().into_bytes(), posted.at);
        frame.meta.stream = Some(posted.label.clone());
        record.requests.push(posted);
        transcript.push(frame);
        assert_eq!(
            stateless_verdicts(&record, &transcript, cite::LIFE_001),
            [(cite::HTTP_024.to_string(), Verdict::Fail)]
        );
    }

    #[test]
    fn header_rules_that_could_not_be_seen_say_so() {
        let (mut record, mut transcript) = stateless_conversation();
        transcript.truncate(2);
        record.requests.truncate(1);
        let cited = stateless_verdicts(&record, &transcript, cite::HTTP_023);
        assert_eq!(cited, [(cite::HTTP_023.to_string(), Verdict::NotObserved)]);
        transcript.truncate(1);
        let cited = stateless_verdicts(&record, &transcript, cite::HTTP_024);
        assert_eq!(cited, [(cite::HTTP_024.to_string(), Verdict::NotObserved)]);
    }
}
