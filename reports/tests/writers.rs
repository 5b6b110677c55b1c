//! The writers on one hand-made report that holds every verdict, an
//! accepted failure, a stale and an expired baseline entry and hostile
//! text: golden Markdown and JUnit, escaping everywhere, and a merge of
//! shards that gives back the whole.

use mcp_conform_report::{
    Acceptance, BaselineInfo, BaselineNote, Basis, Case, CheckResult, Direction, FORMAT_VERSION, Gate, Level,
    Report, RunInfo, Scope, Shard, Suite, Summary, Tool, TranscriptCut, Verdict, WireFrame, html, json,
    junit, markdown, merge,
};
use serde_json::json;

const HOSTILE: &str = "</script><script>alert('x')</script> | `tick`";

fn check(requirement: &str, level: Level, verdict: Verdict) -> CheckResult {
    CheckResult {
        requirement: requirement.into(),
        scope: Scope::Spec,
        name: format!("response to {requirement}"),
        level,
        basis: Basis::Keyword,
        verdict,
        message: (verdict != Verdict::Pass).then(|| format!("broken: {HOSTILE}")),
        expected: (verdict == Verdict::Fail).then(|| json!({"isError": false, "content": "*"})),
        actual: (verdict == Verdict::Fail).then(|| json!({"isError": true, "content": "*"})),
        location: Some("12:7".into()),
        frame: Some(1),
        accepted: None,
    }
}

fn case(scenario: &str, verdict: Verdict, checks: Vec<CheckResult>) -> Case {
    Case {
        scenario: scenario.into(),
        title: format!("title of {scenario}"),
        area: scenario.split('.').next().unwrap().into(),
        file: format!("scenarios/{scenario}.yaml"),
        protocol_version: Some("2025-11-25".into()),
        verdict,
        note: (checks.is_empty()).then(|| "the server does not declare tools".into()),
        checks,
        remarks: Vec::new(),
        transcript: vec![
            WireFrame {
                index: 0,
                direction: Direction::Sent,
                text: r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#.into(),
                answers: None,
                http: None,
            },
            WireFrame {
                index: 1,
                direction: Direction::Received,
                text: format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"text":"{HOSTILE}"}}}}"#),
                answers: Some(0),
                http: None,
            },
        ],
        transcript_cut: None,
        stderr_tail: None,
        startup_ms: None,
    }
}

fn note(line: usize, scenario: &str) -> BaselineNote {
    BaselineNote {
        line,
        text: format!("- scenario: {scenario}\n  requirement: RES-001\n  reason: old"),
        scenario: scenario.into(),
        requirement: "RES-001".into(),
        protocol_version: None,
    }
}

fn report() -> Report {
    let mut inferred = check("TOOL-005", Level::Should, Verdict::NonStrict);
    inferred.basis = Basis::Inference;
    let mut accepted = check("TOOL-002", Level::Must, Verdict::Fail);
    accepted.accepted = Some(Acceptance {
        reason: "upstream issue 12".into(),
        expires: Some("2999-01-01".into()),
        line: 1,
    });
    let cases = vec![
        case(
            "prompts.get",
            Verdict::Pass,
            vec![check("PROMPT-001", Level::Must, Verdict::Pass)],
        ),
        case("tools.accepted", Verdict::Fail, vec![accepted]),
        case(
            "tools.broken",
            Verdict::Fail,
            vec![check("TOOL-003", Level::Must, Verdict::Fail)],
        ),
        case(
            "tools.lenient",
            Verdict::NonStrict,
            vec![check("TOOL-004", Level::Should, Verdict::NonStrict), inferred],
        ),
        case("tools.undeclared", Verdict::NotApplicable, Vec::new()),
    ];
    let run = RunInfo {
        target: "stdio: ./server --token <redacted>".into(),
        protocol_versions: vec!["2025-11-25".into()],
        profile: Some("reference".into()),
        suite: Suite {
            digest: "fnv1a64:0123456789abcdef".into(),
            scenarios: 5,
        },
        strict: false,
        shard: None,
        baseline: Some(BaselineInfo {
            path: "baseline.yaml".into(),
            digest: "fnv1a64:fedcba9876543210".into(),
            entries: 3,
        }),
    };
    Report {
        format_version: FORMAT_VERSION,
        generated_at: "2026-11-23T12:00:00Z".into(),
        tool: Tool {
            name: "mcp-conform".into(),
            version: "0.1.0".into(),
        },
        summary: Summary::of(&cases),
        gate: Gate::decide(
            &cases,
            false,
            vec![note(5, "prompts.get")],
            vec![note(9, "tools.gone")],
        ),
        run,
        cases,
    }
}

#[test]
fn the_gate_counts_new_accepted_and_stale() {
    let report = report();
    assert_eq!(report.gate.exit_code, 1);
    assert_eq!(report.gate.accepted, 1);
    let new: Vec<&str> = report
        .gate
        .new_failures
        .iter()
        .map(|f| f.requirement.as_str())
        .collect();
    assert_eq!(new, ["TOOL-003"], "non-strict is not a failure without --strict");
    let strict = Gate::decide(&report.cases, true, Vec::new(), Vec::new());
    assert_eq!(strict.new_failures.len(), 3);
}

#[test]
fn a_verdict_on_an_inference_says_so_in_every_format() {
    let mut report = report();
    report.run.strict = true;
    report.gate = Gate::decide(&report.cases, true, Vec::new(), Vec::new());
    let inferred = |text: &str| text.contains("non-strict (inferred)");
    assert!(inferred(&markdown::write(&report)));
    assert!(inferred(&junit::write(&report, None)));
    assert!(html::write(&report).contains("<i>inferred</i>"));
    let json = json::write(&report);
    assert_eq!(
        json.matches("\"basis\": \"inference\"").count(),
        2,
        "the check and its gate entry"
    );
    assert!(
        !json.contains("\"basis\": \"keyword\""),
        "a keyword basis is left out"
    );
    assert_eq!(json::read(&json).unwrap(), report);
}

#[test]
fn markdown_is_golden() {
    insta::assert_snapshot!(markdown::write(&report()));
}

/// The same report, its failing case run on 2026-07-28 too.
fn two_versions() -> Report {
    let mut report = report();
    let mut modern = report.cases[0].clone();
    modern.protocol_version = Some("2026-07-28".into());
    modern.verdict = Verdict::Fail;
    report.cases.push(modern);
    report.run.protocol_versions = vec!["2025-11-25".into(), "2026-07-28".into()];
    report.summary = Summary::of(&report.cases);
    report
}

#[test]
fn every_format_shows_the_protocol_versions_of_a_run_on_several() {
    let report = two_versions();
    let markdown = markdown::write(&report);
    assert!(markdown.contains("| version | error | fail |"), "{markdown}");
    assert!(markdown.contains("| 2026-07-28 | 0 | 1 |"), "{markdown}");
    assert!(markdown.contains("| `prompts.get` | pass | fail |"), "{markdown}");
    assert!(!markdown::write(&self::report()).contains("### Protocol versions"));
    let junit = junit::write(&report, None);
    assert!(
        junit.contains(r#"<testsuite name="prompts.get@2025-11-25""#),
        "{junit}"
    );
    assert!(
        junit.contains(r#"<testsuite name="prompts.get@2026-07-28""#),
        "{junit}"
    );
    let page = html::write(&report);
    assert!(
        page.contains("<th>2026-07-28</th>"),
        "the HTML matrix has a column per version"
    );
    let back = json::read(&json::write(&report)).unwrap();
    let versions: Vec<_> = back
        .cases
        .iter()
        .filter_map(|c| c.protocol_version.as_deref())
        .collect();
    assert!(versions.contains(&"2026-07-28") && versions.contains(&"2025-11-25"));
}

#[test]
fn junit_is_golden() {
    insta::assert_snapshot!(junit::write(&report(), None));
}

#[test]
fn html_escapes_everything_it_is_given() {
    let page = html::write(&report());
    assert!(
        !page.contains("<script>alert"),
        "peer text reached the page unescaped"
    );
    assert!(page.contains("&lt;/script&gt;&lt;script&gt;alert(&#39;x&#39;)"));
    assert_eq!(page.matches("<script>").count(), 1, "only the page's own script");
    assert!(
        !page.contains("src=") && !page.contains("<link"),
        "the page must load nothing"
    );
    for needle in [
        "case-tools-broken-2025-11-25",
        "<span class=\"del\">",
        "<span class=\"add\">",
        "data-area=\"prompts\"",
    ] {
        assert!(page.contains(needle), "{needle}");
    }
}

#[test]
fn json_round_trips_and_refuses_other_versions() {
    let report = report();
    let text = json::write(&report);
    assert_eq!(json::read(&text).unwrap(), report);
    let future = text.replacen("\"format_version\": 1", "\"format_version\": 2", 1);
    assert!(json::read(&future).unwrap_err().contains("format_version 2"));
}

#[test]
fn merging_shards_gives_back_the_whole() {
    let whole = report();
    let shard = |index: usize, keep: &[&str]| {
        let mut part = whole.clone();
        part.run.shard = Some(Shard { index, count: 2 });
        part.cases.retain(|c| keep.contains(&c.scenario.as_str()));
        part.summary = Summary::of(&part.cases);
        part
    };
    let first = shard(1, &["prompts.get", "tools.lenient"]);
    let second = shard(2, &["tools.accepted", "tools.broken", "tools.undeclared"]);
    assert_eq!(merge(vec![second.clone(), first.clone()]).unwrap(), whole);
    assert!(
        merge(vec![first.clone()])
            .unwrap_err()
            .contains("missing shard(s): 2/2")
    );
    assert!(
        merge(vec![first.clone(), first])
            .unwrap_err()
            .contains("given twice")
    );
    let mut other = second;
    other.run.target = "another server".into();
    assert!(
        merge(vec![shard(1, &[]), other])
            .unwrap_err()
            .contains("ran something else")
    );
}

/// What a hostile peer writes into every string: terminal escapes (a
/// hyperlink, clear-screen, a window title), NUL, backspace, a bidi
/// override, a Markdown image, a `javascript:` link and raw HTML.
const ACTIVE: &str = "\x1b]8;;http://evil/\x1b\\link\x1b]8;;\x1b\\ \x1b[2J \x1b]0;title\x07 \0\x08 \u{202e}txt.exe ![p](http://evil/p.png) [go](javascript:alert(1)) <img src=x>";

#[test]
fn markdown_and_junit_show_active_peer_text_inert() {
    let mut report = report();
    for case in &mut report.cases {
        case.note = Some(ACTIVE.into());
        case.stderr_tail = Some(ACTIVE.into());
        for check in &mut case.checks {
            check.name = format!("check {ACTIVE}");
            check.message = Some(ACTIVE.into());
        }
        case.transcript[1].text = ACTIVE.into();
    }
    report.gate = Gate::decide(&report.cases, false, Vec::new(), Vec::new());
    let markdown = markdown::write(&report);
    let junit = junit::write(&report, None);
    for (name, text) in [("report.md", &markdown), ("junit.xml", &junit)] {
        let raw: Vec<char> = text
            .chars()
            .filter(|c| {
                (c.is_control() && !matches!(c, '\n' | '\t')) || ('\u{202a}'..='\u{202e}').contains(c)
            })
            .collect();
        assert!(raw.is_empty(), "{name} carries raw controls {raw:?}:\n{text}");
        assert!(text.contains("\\x1b"), "{name} does not show the escape:\n{text}");
        assert!(text.contains("\\u{202e}"), "{name}");
    }
    for live in ["![p](", "[go](javascript", "<img"] {
        assert!(
            !markdown.contains(live),
            "report.md keeps `{live}` live:\n{markdown}"
        );
    }
    assert!(markdown.contains("!\\[p\\](http://evil/p.png)"), "{markdown}");
}

#[test]
fn every_report_cuts_a_flood_at_its_first_frames_with_a_note() {
    let mut flooded = case(
        "tools.call",
        Verdict::Fail,
        vec![
            check("TOOL-001", Level::Must, Verdict::Fail),
            check("TOOL-002", Level::Must, Verdict::Fail),
        ],
    );
    flooded.transcript = (0..1000)
        .map(|index| WireFrame {
            index,
            direction: Direction::Received,
            text: "garbage".into(),
            answers: None,
            http: None,
        })
        .collect();
    flooded.transcript_cut = Some(TranscriptCut {
        frames: 500,
        bytes: 3500,
    });
    let mut report = report();
    report.cases = vec![flooded];
    let note = "… 500 more frames (3500 bytes) not kept";
    let junit = junit::write(&report, None);
    assert_eq!(junit.matches("#999 ← garbage").count(), 1, "{junit}");
    assert!(!junit.contains("#1000 ←"));
    assert_eq!(junit.matches(note).count(), 1);
    let html = html::write(&report);
    assert!(html.contains(">999</td>") && !html.contains(">1000</td>"));
    assert_eq!(html.matches(note).count(), 1);
    let read = json::read(&json::write(&report)).unwrap();
    assert_eq!(read.cases[0].transcript.len(), 1000);
    assert_eq!(
        read.cases[0].transcript_cut.map(|cut| cut.note()).as_deref(),
        Some(note)
    );
}

/// What the CI test views read from `junit.xml` (GitHub's junit-report
/// actions, GitLab's `artifacts:reports:junit`): a failing check is a test
/// case named by its requirement, classed by its scenario, whose `<failure>`
/// carries a one-line message; its suite's `<system-out>` holds the transcript.
#[test]
fn junit_carries_what_ci_test_views_read() {
    let junit = junit::write(&report(), None);
    let start = junit
        .find(r#"<testsuite name="tools.broken@2025-11-25""#)
        .expect("the failing case's suite");
    let suite = &junit[start..start + junit[start..].find("</testsuite>").unwrap()];
    assert!(suite.contains(r#"failures="1""#), "{suite}");
    assert!(
        suite.contains(r#"<testcase name="TOOL-003 response to TOOL-003" classname="tools.broken">"#),
        "{suite}"
    );
    let failure = &suite[suite.find("<failure ").expect("a <failure>")..];
    let message = failure
        .split("message=\"")
        .nth(1)
        .and_then(|m| m.split('"').next())
        .unwrap();
    assert!(message.starts_with("fail: broken: "), "{message}");
    assert!(!message.contains('\n'), "the message is one line: {message}");
    assert!(failure.contains(r#"type="fail""#), "{failure}");
    let out = &suite[suite.find("<system-out>").expect("the transcript")..];
    assert!(out.contains("#0 → ") && out.contains("tools/call"), "{out}");
    assert!(
        !suite.contains("[[ATTACHMENT|"),
        "no files, no attachment: {suite}"
    );
}

/// With the transcripts written as files, each failing test case attaches
/// its case's (GitLab links `[[ATTACHMENT|path]]` in a test case's
/// `<system-out>`); passing and skipped test cases attach nothing.
#[test]
fn junit_attaches_the_transcript_file_to_each_failing_test_case() {
    let report = report();
    let junit = junit::write(&report, Some(std::path::Path::new("conformance/transcripts")));
    let failing = report
        .cases
        .iter()
        .find(|c| c.scenario == "tools.broken")
        .unwrap();
    assert_eq!(junit::transcript_file(failing), "tools.broken_2025-11-25.txt");
    let line = "<system-out>[[ATTACHMENT|conformance/transcripts/tools.broken_2025-11-25.txt]]</system-out>";
    let start = junit
        .find(r#"<testcase name="TOOL-003 response to TOOL-003""#)
        .unwrap();
    let test = &junit[start..start + junit[start..].find("</testcase>").unwrap()];
    assert!(test.contains(line), "{test}");
    let attached = junit.matches("[[ATTACHMENT|").count();
    let failing_tests = junit.matches("<failure ").count() + junit.matches("<error ").count();
    assert_eq!(attached, failing_tests, "{junit}");
    assert!(attached > 0);
}
