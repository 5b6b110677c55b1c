//! `report.md`: the gate's decision and what needs a person's eyes, sized
//! for a pull-request comment or `$GITHUB_STEP_SUMMARY`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::model::{BaselineNote, Case, Report};
use crate::{Verdict, sanitize};

/// The report as GitHub-flavoured Markdown.
pub fn write(report: &Report) -> String {
    let mut out = String::new();
    let gate = &report.gate;
    let mark = if gate.is_green() { "✅" } else { "❌" };
    let run = &report.run;
    line(&mut out, format!("## mcp-conform: {mark} {}\n", gate.decision()));
    line(
        &mut out,
        format!(
            "{} cases · target `{}` · protocol {} · profile {} · mcp-conform {} · {}{}\n",
            report.summary.cases,
            code(&run.target),
            run.protocol_versions.join(", "),
            run.profile.as_deref().unwrap_or("none"),
            report.tool.version,
            report.generated_at,
            if run.strict { " · strict" } else { "" },
        ),
    );
    line(&mut out, "| verdict | cases |\n|---|---:|".into());
    for verdict in Verdict::ALL.iter().rev() {
        let count = report.summary.count(*verdict);
        if count > 0 {
            line(&mut out, format!("| {verdict} | {count} |"));
        }
    }
    out.push('\n');
    version_matrix(&mut out, report);
    product_checks(&mut out, report);
    if !gate.new_failures.is_empty() {
        line(
            &mut out,
            format!("### New failures ({})\n", gate.new_failures.len()),
        );
        line(
            &mut out,
            "| case | requirement | check | verdict | why |\n|---|---|---|---|---|".into(),
        );
        for failure in &gate.new_failures {
            let case = match &failure.protocol_version {
                Some(version) => format!("{}@{version}", failure.scenario),
                None => failure.scenario.clone(),
            };
            line(
                &mut out,
                format!(
                    "| `{}` | {} | {} | {} | {} |",
                    code(&case),
                    failure.cited(),
                    cell(&failure.name),
                    failure.basis.annotate(failure.verdict),
                    cell(failure.message.as_deref().unwrap_or("")),
                ),
            );
        }
        out.push('\n');
    }
    notes(
        &mut out,
        "Stale baseline entries (the check passes now: delete them)",
        &gate.stale,
    );
    notes(
        &mut out,
        "Expired baseline entries (they accept nothing)",
        &gate.expired,
    );
    if !gate.errors.is_empty() {
        line(
            &mut out,
            "### Errors (nothing is claimed about these cases)\n".into(),
        );
        for case in &gate.errors {
            line(&mut out, format!("- `{}`", code(case)));
        }
        out.push('\n');
    }
    if gate.accepted > 0 {
        line(
            &mut out,
            format!("{} failing checks accepted by the baseline.\n", gate.accepted),
        );
    }
    out
}

/// For a run on several protocol versions: the counts per version, and
/// (folded) every scenario's verdict per version.
fn version_matrix(out: &mut String, report: &Report) {
    let version_of = |case: &Case| case.protocol_version.clone().unwrap_or_else(|| "–".into());
    let versions: BTreeSet<String> = report.cases.iter().map(version_of).collect();
    if versions.len() < 2 {
        return;
    }
    line(out, "### Protocol versions\n".into());
    let verdicts: Vec<Verdict> = Verdict::ALL.iter().rev().copied().collect();
    let header: Vec<&str> = verdicts.iter().map(|v| v.as_str()).collect();
    line(out, format!("| version | {} |", header.join(" | ")));
    line(out, format!("|---|{}", "---:|".repeat(verdicts.len())));
    for version in &versions {
        let cases: Vec<&Case> = report
            .cases
            .iter()
            .filter(|c| version_of(c) == *version)
            .collect();
        let counts: Vec<String> = verdicts
            .iter()
            .map(|v| cases.iter().filter(|c| c.verdict == *v).count().to_string())
            .collect();
        line(out, format!("| {version} | {} |", counts.join(" | ")));
    }
    let mut rows: BTreeMap<&str, BTreeMap<String, Verdict>> = BTreeMap::new();
    for case in &report.cases {
        rows.entry(case.scenario.as_str())
            .or_default()
            .insert(version_of(case), case.verdict);
    }
    line(
        out,
        format!(
            "\n<details><summary>Scenarios × versions ({} cases)</summary>\n",
            report.cases.len()
        ),
    );
    let columns: Vec<&str> = versions.iter().map(String::as_str).collect();
    line(out, format!("| scenario | {} |", columns.join(" | ")));
    line(out, format!("|---|{}", "---|".repeat(columns.len())));
    for (scenario, row) in rows {
        let cells: Vec<&str> = versions
            .iter()
            .map(|v| row.get(v).map_or("–", |verdict| verdict.as_str()))
            .collect();
        line(out, format!("| `{}` | {} |", code(scenario), cells.join(" | ")));
    }
    line(out, "\n</details>\n".into());
}

/// Every product check (the user's own requirements, or none), apart from
/// the spec's figures.
fn product_checks(out: &mut String, report: &Report) {
    let rows = report.product_checks();
    if rows.is_empty() {
        return;
    }
    line(out, "### Product checks\n".into());
    let counts: Vec<String> = Verdict::ALL
        .iter()
        .rev()
        .filter_map(|verdict| {
            let n = rows.iter().filter(|(_, check)| check.verdict == *verdict).count();
            (n > 0).then(|| format!("{n} {verdict}"))
        })
        .collect();
    line(
        out,
        format!(
            "Your own requirements, or none; not in the spec's figures: {}.\n",
            counts.join(", ")
        ),
    );
    line(
        out,
        format!(
            "<details><summary>Every product check ({})</summary>\n",
            rows.len()
        ),
    );
    line(
        out,
        "| case | requirement | check | verdict | why |\n|---|---|---|---|---|".into(),
    );
    for (case, check) in rows {
        line(
            out,
            format!(
                "| `{}` | {} | {} | {} | {} |",
                code(&case.name()),
                code(check.cited()),
                cell(&check.name),
                check.basis.annotate(check.verdict),
                cell(check.message.as_deref().unwrap_or("")),
            ),
        );
    }
    line(out, "\n</details>\n".into());
}

fn notes(out: &mut String, title: &str, notes: &[BaselineNote]) {
    if notes.is_empty() {
        return;
    }
    line(out, format!("### {title}\n"));
    for note in notes {
        line(
            out,
            format!(
                "- line {}: `{}` {}",
                note.line,
                code(&note.scenario),
                code(&note.requirement)
            ),
        );
        // Indented under the item; a fence of tildes the entry's text cannot close.
        line(out, "\n  ~~~yaml".into());
        for entry_line in note.text.lines() {
            line(
                out,
                format!("  {}", sanitize::controls(entry_line).replace("~~~", "~ ~ ~")),
            );
        }
        line(out, "  ~~~".into());
    }
    out.push('\n');
}

fn line(out: &mut String, text: String) {
    writeln!(out, "{text}").expect("writing to a String");
}

/// Text safe inside a table cell: no pipes, no line breaks, nothing live
/// (see [`sanitize::markdown`]).
fn cell(text: &str) -> String {
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let short: String = one_line.chars().take(200).collect();
    let escaped = sanitize::markdown(&short).replace('|', "\\|");
    if short.len() < one_line.len() {
        escaped + "…"
    } else {
        escaped
    }
}

/// Text safe inside a code span: no backticks, no line breaks, no controls.
fn code(text: &str) -> String {
    sanitize::controls(text)
        .replace('`', "'")
        .replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_cannot_break_the_table_or_inject_html() {
        assert_eq!(cell("a | b\nc <script>"), "a \\| b c &lt;script&gt;");
        assert_eq!(code("x`y"), "x'y");
        assert_eq!(
            cell("![i](http://e/p.png) [go](javascript:x) \x1b]8;;u\x07"),
            "!\\[i\\](http://e/p.png) \\[go\\](javascript:x) \\x1b\\]8;;u\\x07"
        );
        assert_eq!(code("a\x1b[2Jb\u{202e}"), "a\\x1b[2Jb\\u{202e}");
    }
}
