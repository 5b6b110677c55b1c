//! Quiet terminal output: which finished cases get a line of their own, and
//! the folded lines that stand for the rest. What needs attention (failures,
//! non-strict findings, errors, not-observed cases) is listed case by case
//! as it finishes; passes are folded into a line per area and not-applicable
//! cases into a line per reason, so a green run fits one screen.
//! `--verbose` (or `--show VERDICT`) lists them one by one too. The report
//! files always hold every case.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use mcp_conform_core::scenario::Scenario;
use mcp_conform_core::scenario::model::Role;
use mcp_conform_core::version::ProtocolVersion;
use mcp_conform_report::{Case, Verdict, sanitize};

use crate::output::label;

/// Which cases the terminal lists one by one (`run`, `test-client`,
/// `test-gateway`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct Listing {
    /// List every case on a line of its own as it finishes, passes and
    /// not-applicable ones (with the reason) too.
    #[arg(long, short = 'v')]
    pub verbose: bool,
    /// List the cases of this verdict one by one instead of folding them
    /// into a line per area (pass) or per reason (not-applicable).
    #[arg(long = "show", value_name = "VERDICT")]
    pub show: Vec<Folded>,
}

/// A verdict whose cases are folded unless asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Folded {
    Pass,
    NotApplicable,
}

impl Listing {
    /// Whether a case of `verdict` gets a line of its own as it finishes.
    pub fn lists(&self, verdict: Verdict) -> bool {
        let folded = match verdict {
            Verdict::Pass => Folded::Pass,
            Verdict::NotApplicable => Folded::NotApplicable,
            _ => return true,
        };
        self.verbose || self.show.contains(&folded)
    }

    /// The lines standing for the cases not listed one by one: the passes
    /// by area, the not-applicable cases by reason.
    pub fn folded(&self, cases: &[Case], named: bool) -> String {
        let mut out = String::new();
        if !self.lists(Verdict::Pass) {
            out.push_str(&passes(cases, named));
        }
        if !self.lists(Verdict::NotApplicable) {
            out.push_str(&not_applicable(cases, named));
        }
        out
    }
}

/// `pass  tools: call, list, …`: a line per area (the id up to its last
/// dot: `client.elicitation` for `client.elicitation.accept`), each
/// scenario named once however many versions it passed on.
fn passes(cases: &[Case], named: bool) -> String {
    let mut areas: BTreeMap<&str, (Vec<&str>, usize)> = BTreeMap::new();
    for case in cases.iter().filter(|c| c.verdict == Verdict::Pass) {
        let (area, name) = case.scenario.rsplit_once('.').unwrap_or(("", &case.scenario));
        let (names, count) = areas.entry(area).or_default();
        if !names.contains(&name) {
            names.push(name);
        }
        *count += 1;
    }
    let mut out = String::new();
    for (area, (mut names, count)) in areas {
        names.sort_unstable();
        let cases = if named {
            format!(" ({count} cases)")
        } else {
            String::new()
        };
        let area = if area.is_empty() {
            String::new()
        } else {
            format!("{area}{cases}: ")
        };
        let line = format!("{area}{}", names.join(", "));
        writeln!(out, "{} {}", column(Verdict::Pass), sanitize::controls(&line)).expect("String");
    }
    out
}

/// A line per reason a case did not apply, with a count; a reason of one
/// case names it. Notes may quote a peer: their controls are escaped.
fn not_applicable(cases: &[Case], named: bool) -> String {
    let mut reasons: BTreeMap<Reason, Vec<&Case>> = BTreeMap::new();
    for case in cases.iter().filter(|c| c.verdict == Verdict::NotApplicable) {
        let note = case.note.as_deref().unwrap_or("no reason given");
        reasons.entry(Reason::of(note)).or_default().push(case);
    }
    if reasons.is_empty() {
        return String::new();
    }
    let what = |n: usize| match (n, named) {
        (1, false) => "1 scenario".to_owned(),
        (1, true) => "1 case".to_owned(),
        (n, false) => format!("{n} scenarios"),
        (n, true) => format!("{n} cases"),
    };
    let mut out = String::new();
    for (reason, of_reason) in reasons {
        let line = match (&reason, of_reason.as_slice()) {
            (Reason::Other(note), [one]) => format!("{}  ({note})", crate::output::case_name(one, named)),
            (Reason::Other(note), many) => format!("{}: {note}", what(many.len())),
            (folded, many) => format!("{} {}", what(many.len()), folded.phrase()),
        };
        writeln!(
            out,
            "{} {}",
            column(Verdict::NotApplicable),
            sanitize::controls(&line)
        )
        .expect("String");
    }
    writeln!(out, "{:14} (--verbose lists each with its reason)", "").expect("String");
    out
}

/// Why a case did not apply, with the reasons that differ only in their
/// versions or transport made one.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Reason {
    /// "applies to 2026-07-28; this run speaks 2025-11-25" (or, with
    /// `--protocol all`, "the server speaks …"; for a client, "this run
    /// serves …" or "the client offered …; the scenario applies to …").
    OtherVersion,
    /// "tests the Streamable HTTP transport: HTTP only" on stdio.
    HttpOnly,
    /// "…: stdio only" over HTTP.
    StdioOnly,
    /// Any other note, as it is.
    Other(String),
}

impl Reason {
    /// The reason of a not-applicable case's note, as the runner words it
    /// (`runner::scenario::precondition`, `runner::suite`, `runner::mock_server`).
    fn of(note: &str) -> Reason {
        let ours = ["; this run speaks ", "; the server speaks ", "; this run serves "];
        let versions = (note.starts_with("applies to ") && ours.iter().any(|o| note.contains(o)))
            || (note.starts_with("the client offered ") && note.contains("; the scenario applies to "));
        if versions {
            Reason::OtherVersion
        } else if note.ends_with(": HTTP only") {
            Reason::HttpOnly
        } else if note.ends_with("stdio only") {
            Reason::StdioOnly
        } else {
            Reason::Other(note.to_owned())
        }
    }

    fn phrase(&self) -> &str {
        match self {
            Reason::OtherVersion => "of other protocol versions",
            Reason::HttpOnly => "of the HTTP transports (this run is over stdio)",
            Reason::StdioOnly => "of stdio (this run is over HTTP)",
            Reason::Other(note) => note,
        }
    }
}

/// A verdict in the status column of the case lines.
fn column(verdict: Verdict) -> String {
    let style = crate::output::style(verdict);
    format!("{style}{:<14}{style:#}", label(verdict))
}

/// The hint after a run with not-observed cases whose triggers no profile
/// binds: each missing trigger with how many cases wanted it, how many
/// cases wait on a profile, and the command that writes one. `None` when
/// no case lacked a trigger.
pub fn trigger_hint(unbound: &BTreeMap<&str, usize>, waiting: usize) -> Option<String> {
    if unbound.is_empty() {
        return None;
    }
    let wanted: Vec<String> = unbound.iter().map(|(name, n)| format!("{name} ({n})")).collect();
    let cases = match waiting {
        1 => "1 case waits".to_owned(),
        n => format!("{n} cases wait"),
    };
    Some(format!(
        "not-observed for want of a trigger: {}. Bind them to your server's tools in a profile \
         (--profile FILE; scenarios/profiles/reference.yaml documents every trigger). \
         `mcp-conform init` with this run's --stdio or --url writes one from the server's own \
         declarations, calling no tool: {cases} on it.",
        wanted.join(", ")
    ))
}

/// `list`: a line per scenario a plain `run` would run (the server
/// scenarios of the version it speaks by default), then a line per kind of
/// the others with their count; `verbose` lists every scenario.
pub fn scenario_list(scenarios: &[Scenario], verbose: bool) -> String {
    let default = ProtocolVersion::LATEST_STATEFUL;
    let mut out = String::new();
    // Server, client and gateway scenarios not listed.
    let mut others = [0usize; 3];
    for scenario in scenarios {
        if verbose || (scenario.role == Role::Server && scenario.versions.contains(default)) {
            let cites = match scenario.requirements.is_empty() {
                true => "(product checks)".to_owned(),
                false => scenario.requirements.join(","),
            };
            writeln!(
                out,
                "{:<40} {:<22} {cites:<24} {}",
                scenario.id,
                scenario.versions.to_string(),
                scenario.title
            )
            .expect("String");
        } else {
            let slot = match scenario.role {
                Role::Server => 0,
                Role::Client => 1,
                Role::Gateway => 2,
            };
            others[slot] += 1;
        }
    }
    if others == [0; 3] {
        return out;
    }
    out.push('\n');
    let kinds = [
        format!("server scenarios of other protocol versions than {default} (`run --protocol`)"),
        "client scenarios (`test-client`)".into(),
        "gateway scenarios (`test-gateway`)".into(),
    ];
    for (count, what) in others.iter().zip(kinds).filter(|(n, _)| **n > 0) {
        writeln!(out, "{count} {what}").expect("String");
    }
    out.push_str("(--verbose lists them all)\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(id: &str, verdict: Verdict, note: Option<&str>, version: &str) -> Case {
        Case {
            scenario: id.into(),
            title: String::new(),
            area: String::new(),
            file: String::new(),
            protocol_version: Some(version.into()),
            verdict,
            note: note.map(Into::into),
            checks: Vec::new(),
            remarks: Vec::new(),
            transcript: Vec::new(),
            transcript_cut: None,
            stderr_tail: None,
            startup_ms: None,
        }
    }

    fn quiet() -> Listing {
        Listing::default()
    }

    #[test]
    fn passes_fold_into_a_line_per_area() {
        let cases = [
            case("tools.list", Verdict::Pass, None, "2025-11-25"),
            case("tools.call", Verdict::Pass, None, "2025-11-25"),
            case("base.ping", Verdict::Pass, None, "2025-11-25"),
            case("client.tools.call", Verdict::Pass, None, "2025-11-25"),
            case("tools.unknown", Verdict::Fail, None, "2025-11-25"),
        ];
        assert_eq!(
            anstream::adapter::strip_str(&quiet().folded(&cases, false)).to_string(),
            "pass           base: ping\npass           client.tools: call\npass           tools: call, list\n"
        );
    }

    #[test]
    fn on_several_versions_a_scenario_is_named_once_and_the_cases_counted() {
        let cases = [
            case("tools.list", Verdict::Pass, None, "2025-06-18"),
            case("tools.list", Verdict::Pass, None, "2025-11-25"),
        ];
        assert_eq!(
            anstream::adapter::strip_str(&quiet().folded(&cases, true)).to_string(),
            "pass           tools (2 cases): list\n"
        );
    }

    #[test]
    fn not_applicable_cases_fold_into_a_line_per_reason() {
        let cases = [
            case(
                "a.x",
                Verdict::NotApplicable,
                Some("applies to 2026-07-28; this run speaks 2025-11-25"),
                "2025-11-25",
            ),
            case(
                "a.y",
                Verdict::NotApplicable,
                Some("applies to 2025-03-26; this run speaks 2025-11-25"),
                "2025-11-25",
            ),
            case(
                "c.z",
                Verdict::NotApplicable,
                Some(r#"the client offered "2025-11-25"; the scenario applies to 2026-07-28"#),
                "2025-11-25",
            ),
            case(
                "h.a",
                Verdict::NotApplicable,
                Some("tests the Streamable HTTP transport: HTTP only"),
                "2025-11-25",
            ),
            case(
                "h.b",
                Verdict::NotApplicable,
                Some("tests the HTTP+SSE transport: HTTP only"),
                "2025-11-25",
            ),
            case(
                "l.a",
                Verdict::NotApplicable,
                Some("the server declares `x`"),
                "2025-11-25",
            ),
            case(
                "l.b",
                Verdict::NotApplicable,
                Some("the server lacks `y`"),
                "2025-11-25",
            ),
            case(
                "l.c",
                Verdict::NotApplicable,
                Some("the server lacks `y`"),
                "2025-11-25",
            ),
        ];
        assert_eq!(
            anstream::adapter::strip_str(&quiet().folded(&cases, false)).to_string(),
            concat!(
                "not-applicable 3 scenarios of other protocol versions\n",
                "not-applicable 2 scenarios of the HTTP transports (this run is over stdio)\n",
                "not-applicable l.a  (the server declares `x`)\n",
                "not-applicable 2 scenarios: the server lacks `y`\n",
                "               (--verbose lists each with its reason)\n",
            )
        );
    }

    #[test]
    fn verbose_or_show_lists_them_and_folds_nothing() {
        let cases = [
            case("tools.list", Verdict::Pass, None, "2025-11-25"),
            case("a.x", Verdict::NotApplicable, Some("HTTP only"), "2025-11-25"),
        ];
        let verbose = Listing {
            verbose: true,
            show: Vec::new(),
        };
        assert_eq!(verbose.folded(&cases, false), "");
        let shown = Listing {
            verbose: false,
            show: vec![Folded::NotApplicable],
        };
        assert!(shown.lists(Verdict::NotApplicable) && !shown.lists(Verdict::Pass));
        let folded = anstream::adapter::strip_str(&shown.folded(&cases, false)).to_string();
        assert_eq!(folded, "pass           tools: list\n");
        for verdict in [
            Verdict::Fail,
            Verdict::NonStrict,
            Verdict::Error,
            Verdict::NotObserved,
        ] {
            assert!(quiet().lists(verdict), "{verdict:?} needs attention");
        }
    }

    #[test]
    fn the_trigger_hint_counts_each_missing_trigger_and_names_init() {
        assert_eq!(trigger_hint(&BTreeMap::new(), 0), None);
        let hint = trigger_hint(&BTreeMap::from([("elicit_tool", 2), ("log_tool", 1)]), 3).unwrap();
        assert!(
            hint.starts_with("not-observed for want of a trigger: elicit_tool (2), log_tool (1)."),
            "{hint}"
        );
        assert!(hint.contains("`mcp-conform init`"), "{hint}");
        assert!(hint.ends_with("calling no tool: 3 cases wait on it."), "{hint}");
    }
}
