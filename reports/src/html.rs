//! `report.html`: one self-contained page (inline CSS and JS, no network):
//! the gate, a requirement × protocol version matrix of the spec, the
//! product checks (the user's own requirements, or none), and every case
//! with its checks, diffs and transcript, filterable by verdict and area.
//!
//! The URL fragment presets the filters (`#verdict=fail,non-strict&area=tools`),
//! so a link can share a view and a headless browser can test the filters
//! without driving clicks.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::Verdict;
use crate::model::{BaselineNote, Case, CheckResult, Report, TranscriptCut, WireFrame};
use crate::text;

const STYLE: &str = include_str!("html/report.css");
const SCRIPT: &str = include_str!("html/report.js");

/// The report as a single HTML page.
pub fn write(report: &Report) -> String {
    let mut page = Page::default();
    let title = report.gate.decision();
    page.raw("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    page.raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    page.line(format_args!("<title>mcp-conform: {}</title>", esc(&title)));
    page.line(format_args!("<style>\n{STYLE}</style>\n</head>\n<body>"));
    header(&mut page, report, &title);
    gate_section(&mut page, report);
    matrix(&mut page, &report.cases);
    product_checks(&mut page, report);
    cases(&mut page, &report.cases);
    page.line(format_args!("<script>\n{SCRIPT}</script>\n</body>\n</html>"));
    page.0
}

/// The page under construction.
#[derive(Default)]
struct Page(String);

impl Page {
    fn raw(&mut self, text: &str) {
        self.0.push_str(text);
    }

    fn line(&mut self, args: std::fmt::Arguments<'_>) {
        self.0.write_fmt(args).expect("writing to a String");
        self.0.push('\n');
    }
}

/// Text safe in HTML content and in quoted attribute values.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn badge(verdict: Verdict) -> String {
    format!("<span class=\"v v-{0}\">{0}</span>", verdict.as_str())
}

fn header(page: &mut Page, report: &Report, title: &str) {
    let run = &report.run;
    let class = if report.gate.is_green() { "green" } else { "red" };
    page.line(format_args!(
        "<header class=\"{class}\"><h1>mcp-conform: {}</h1>",
        esc(title)
    ));
    page.line(format_args!(
        "<p class=\"meta\">target <code>{}</code> · protocol {} · profile {} · suite {} ({} scenarios){} · mcp-conform {} · format {} · {}</p>",
        esc(&run.target),
        esc(&run.protocol_versions.join(", ")),
        esc(run.profile.as_deref().unwrap_or("none")),
        esc(&run.suite.digest),
        run.suite.scenarios,
        if run.strict { " · strict" } else { "" },
        esc(&report.tool.version),
        report.format_version,
        esc(&report.generated_at),
    ));
    page.raw("<table class=\"summary\"><tr>");
    for verdict in Verdict::ALL.iter().rev() {
        page.line(format_args!(
            "<td>{}<b>{}</b></td>",
            badge(*verdict),
            report.summary.count(*verdict)
        ));
    }
    page.line(format_args!(
        "<td>cases <b>{}</b></td></tr></table></header>",
        report.summary.cases
    ));
}

fn gate_section(page: &mut Page, report: &Report) {
    let gate = &report.gate;
    page.raw("<section id=\"gate\"><h2>Gate</h2>\n");
    if let Some(baseline) = &report.run.baseline {
        page.line(format_args!(
            "<p>baseline <code>{}</code> ({} entries, {}): {} failing checks accepted</p>",
            esc(&baseline.path),
            baseline.entries,
            esc(&baseline.digest),
            gate.accepted
        ));
    }
    if gate.new_failures.is_empty() {
        page.raw("<p>No new failures.</p>\n");
    } else {
        page.raw(
            "<table><tr><th>case</th><th>requirement</th><th>check</th><th>verdict</th><th>why</th></tr>\n",
        );
        for failure in &gate.new_failures {
            let case = match &failure.protocol_version {
                Some(version) => format!("{}@{version}", failure.scenario),
                None => failure.scenario.clone(),
            };
            page.line(format_args!(
                "<tr><td><a href=\"#{}\">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&anchor(&case)),
                esc(&case),
                esc(failure.cited()),
                esc(&failure.name),
                badge(failure.verdict),
                esc(failure.message.as_deref().unwrap_or(""))
            ));
        }
        page.raw("</table>\n");
    }
    baseline_notes(
        page,
        "Stale baseline entries: the check passes now, delete them",
        &gate.stale,
    );
    baseline_notes(
        page,
        "Expired baseline entries: they accept nothing",
        &gate.expired,
    );
    page.raw("</section>\n");
}

fn baseline_notes(page: &mut Page, title: &str, notes: &[BaselineNote]) {
    if notes.is_empty() {
        return;
    }
    page.line(format_args!("<h3>{}</h3><ul>", esc(title)));
    for note in notes {
        page.line(format_args!(
            "<li>line {}: <code>{}</code></li>",
            note.line,
            esc(&note.text)
        ));
    }
    page.raw("</ul>\n");
}

/// Spec requirements down, protocol versions across; each cell the worst
/// verdict of that requirement's checks in that version's cases.
fn matrix(page: &mut Page, cases: &[Case]) {
    let versions: BTreeSet<&str> = cases.iter().map(version_of).collect();
    let mut cells: BTreeMap<&str, BTreeMap<&str, (Verdict, usize)>> = BTreeMap::new();
    for case in cases {
        for check in case.checks.iter().filter(|c| c.scope.is_spec()) {
            let cell = cells
                .entry(check.requirement.as_str())
                .or_default()
                .entry(version_of(case))
                .or_insert((Verdict::Pass, 0));
            cell.0 = cell.0.max(check.verdict);
            cell.1 += 1;
        }
    }
    page.raw("<section id=\"matrix\"><h2>Requirements × protocol versions</h2>\n<table class=\"matrix\"><tr><th>requirement</th>");
    for version in &versions {
        page.line(format_args!("<th>{}</th>", esc(version)));
    }
    page.raw("</tr>\n");
    for (requirement, row) in &cells {
        page.line(format_args!("<tr><th>{}</th>", esc(requirement)));
        for version in &versions {
            match row.get(version) {
                Some((verdict, checks)) => page.line(format_args!(
                    "<td class=\"v-{}\" title=\"{checks} checks\">{}</td>",
                    verdict.as_str(),
                    verdict.as_str()
                )),
                None => page.raw("<td class=\"none\">–</td>\n"),
            }
        }
        page.raw("</tr>\n");
    }
    page.raw("</table></section>\n");
}

/// Every product check, apart from the spec's matrix: the case, the
/// user's requirement (or none), the check and its verdict.
fn product_checks(page: &mut Page, report: &Report) {
    let rows = report.product_checks();
    if rows.is_empty() {
        return;
    }
    page.raw("<section id=\"product\"><h2>Product checks</h2>\n<table><tr><th>case</th><th>requirement</th><th>level</th><th>check</th><th>verdict</th><th>why</th></tr>\n");
    for (case, check) in rows {
        let name = case.name();
        page.line(format_args!(
            "<tr><td><a href=\"#{}\">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&anchor(&name)),
            esc(&name),
            esc(check.cited()),
            check.level,
            esc(&check.name),
            badge(check.verdict),
            esc(check.message.as_deref().unwrap_or(""))
        ));
    }
    page.raw("</table></section>\n");
}

fn version_of(case: &Case) -> &str {
    case.protocol_version.as_deref().unwrap_or("unknown")
}

fn cases(page: &mut Page, cases: &[Case]) {
    let areas: BTreeSet<&str> = cases.iter().map(|c| c.area.as_str()).collect();
    page.raw("<section id=\"cases\"><h2>Cases</h2>\n<form id=\"filters\">\n");
    for verdict in Verdict::ALL {
        page.line(format_args!(
            "<label><input type=\"checkbox\" name=\"verdict\" value=\"{0}\" checked> {0}</label>",
            verdict.as_str()
        ));
    }
    page.raw("<label>area <select name=\"area\"><option value=\"\">all</option>\n");
    for area in areas {
        page.line(format_args!("<option>{}</option>", esc(area)));
    }
    page.line(format_args!(
        "</select></label></form>\n<p id=\"shown\">{0} of {0} cases shown</p>",
        cases.len()
    ));
    for case in cases {
        case_block(page, case);
    }
    page.raw("</section>\n");
}

fn anchor(case_name: &str) -> String {
    format!(
        "case-{}",
        case_name.replace(|c: char| !c.is_ascii_alphanumeric(), "-")
    )
}

fn case_block(page: &mut Page, case: &Case) {
    let id = anchor(&case.name());
    page.line(format_args!(
        "<div class=\"case\" id=\"{}\" data-verdict=\"{}\" data-area=\"{}\">",
        esc(&id),
        case.verdict.as_str(),
        esc(&case.area)
    ));
    let open = if case.verdict >= Verdict::NonStrict {
        " open"
    } else {
        ""
    };
    page.line(format_args!(
        "<details{open}><summary>{} <b>{}</b> {}</summary>",
        badge(case.verdict),
        esc(&case.name()),
        esc(&case.title)
    ));
    page.line(format_args!("<p class=\"file\">{}</p>", esc(&case.file)));
    if let Some(note) = &case.note {
        page.line(format_args!("<p class=\"note\">{}</p>", esc(note)));
    }
    checks_table(page, "Checks", &case.checks, &id);
    checks_table(
        page,
        "Remarks (do not count toward the verdict)",
        &case.remarks,
        &id,
    );
    transcript(page, &case.transcript, case.transcript_cut.as_ref(), &id);
    if let Some(tail) = &case.stderr_tail {
        page.line(format_args!(
            "<h4>stderr of the peer (last lines)</h4><pre>{}</pre>",
            esc(tail)
        ));
    }
    page.raw("</details></div>\n");
}

fn checks_table(page: &mut Page, title: &str, checks: &[CheckResult], case_id: &str) {
    if checks.is_empty() {
        return;
    }
    page.line(format_args!(
        "<h4>{}</h4><table class=\"checks\"><tr><th>verdict</th><th>requirement</th><th>level</th><th>check</th><th>at</th><th>why</th></tr>",
        esc(title)
    ));
    for check in checks {
        let at = check.location.as_deref().unwrap_or("");
        let frame = check
            .frame
            .map(|i| format!(" {}", frame_link(case_id, i, &format!("frame #{i}"))))
            .unwrap_or_default();
        let accepted = check
            .accepted
            .as_ref()
            .map(|a| {
                format!(
                    "<br><i>accepted by baseline line {}: {}</i>",
                    a.line,
                    esc(&a.reason)
                )
            })
            .unwrap_or_default();
        page.line(format_args!(
            "<tr><td>{}{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}{frame}</td><td>{}{accepted}{}</td></tr>",
            badge(check.verdict),
            check.basis.label().map(|l| format!(" <i>{l}</i>")).unwrap_or_default(),
            esc(check.cited()),
            check.level,
            esc(&check.name),
            esc(at),
            esc(check.message.as_deref().unwrap_or("")),
            diff(check)
        ));
    }
    page.raw("</table>\n");
}

/// A link to frame `index` of a case's transcript.
fn frame_link(case_id: &str, index: usize, label: &str) -> String {
    format!("<a href=\"#{}-f{index}\">{}</a>", esc(case_id), esc(label))
}

fn diff(check: &CheckResult) -> String {
    let (Some(expected), Some(actual)) = (&check.expected, &check.actual) else {
        return String::new();
    };
    let mut out = String::from("<pre class=\"diff\" title=\"- expected, + actual\">");
    for line in text::diff(expected, actual) {
        let class = match line.tag {
            '-' => "del",
            '+' => "add",
            _ => "ctx",
        };
        writeln!(
            out,
            "<span class=\"{class}\">{}{}</span>",
            line.tag,
            esc(&line.text)
        )
        .expect("String");
    }
    out.push_str("</pre>");
    out
}

fn transcript(page: &mut Page, frames: &[WireFrame], cut: Option<&TranscriptCut>, case_id: &str) {
    if frames.is_empty() {
        return;
    }
    page.raw("<h4>Transcript</h4><table class=\"transcript\"><tr><th>#</th><th></th><th>message</th><th>answers</th></tr>\n");
    for frame in frames {
        let answers = frame
            .answers
            .map(|i| frame_link(case_id, i, &format!("#{i}")))
            .unwrap_or_default();
        let http = frame
            .http
            .as_ref()
            .map(|meta| {
                let mut parts: Vec<String> = meta.status.iter().map(|s| format!("HTTP {s}")).collect();
                parts.extend(meta.stream.iter().map(|s| format!("stream {s}")));
                parts.extend(
                    meta.headers
                        .iter()
                        .map(|(name, value)| format!("{name}: {value}")),
                );
                format!("<div class=\"http\">{}</div>", esc(&parts.join(" · ")))
            })
            .unwrap_or_default();
        page.line(format_args!(
            "<tr id=\"{}-f{}\" class=\"{:?}\"><td>{}</td><td>{}</td><td>{http}<code>{}</code></td><td>{answers}</td></tr>",
            esc(case_id),
            frame.index,
            frame.direction,
            frame.index,
            text::arrow(frame.direction),
            esc(&frame.text)
        ));
    }
    if let Some(cut) = cut {
        page.line(format_args!(
            "<tr><td colspan=\"4\">{}</td></tr>",
            esc(&cut.note())
        ));
    }
    page.raw("</table>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_for_content_and_attributes() {
        assert_eq!(
            esc("<a href='x'>&\"</a>"),
            "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;"
        );
    }

    #[test]
    fn anchors_are_plain_ascii() {
        assert_eq!(anchor("tools.call@2025-11-25"), "case-tools-call-2025-11-25");
    }
}
