//! The man page (roff, section 1): the synopsis, the options of the binary,
//! then each command with its options.

use std::fmt::Write as _;

use super::{Node, Opt, Takes};

/// The page of `command` (the CLI definition).
pub fn page(command: &clap::Command) -> String {
    let root = Node::of(command);
    let binary = root.name();
    let version = root.version.clone().unwrap_or_default();
    let mut out = String::new();
    let mut line = |text: &str| writeln!(out, "{text}").expect("String");
    line(&format!(
        ".TH {} 1 \"\" \"{binary} {version}\" \"User Commands\"",
        binary.to_uppercase()
    ));
    line(".SH NAME");
    line(&format!("{} \\- {}", escape(binary), escape(&root.about)));
    line(".SH SYNOPSIS");
    line(&format!(
        "\\fB{}\\fR [\\fIOPTIONS\\fR] \\fICOMMAND\\fR",
        escape(binary)
    ));
    if let Some(long) = &root.long_about {
        line(".SH DESCRIPTION");
        line(&paragraphs(long));
    }
    line(".SH OPTIONS");
    for option in &root.options {
        line(&item(option));
    }
    line(".SH COMMANDS");
    for node in root.all().into_iter().skip(1) {
        line(&format!(".SS \"{}\"", escape(&node.path.join(" "))));
        line(&paragraphs(node.long_about.as_deref().unwrap_or(&node.about)));
        let positionals: Vec<String> = node
            .positionals
            .iter()
            .map(|(name, _)| format!("\\fI{}\\fR", escape(name)))
            .collect();
        if !positionals.is_empty() {
            line(&format!(".PP\nArguments: {}", positionals.join(" ")));
        }
        for option in &node.options {
            line(&item(option));
        }
    }
    out
}

/// `.TP`, the option's spellings and value, and its help.
fn item(option: &Opt) -> String {
    let mut spellings: Vec<String> = option.short.iter().map(|s| format!("\\fB\\-{s}\\fR")).collect();
    spellings.extend(option.long.iter().map(|l| format!("\\fB\\-\\-{}\\fR", escape(l))));
    let value = match &option.takes {
        Takes::Nothing => String::new(),
        Takes::OneOf(choices) => format!(" \\fI{}\\fR", escape(&choices.join("|"))),
        Takes::Anything | Takes::Path => format!(" \\fI{}\\fR", escape(&option.value_name)),
    };
    format!(
        ".TP\n{}{value}\n{}",
        spellings.join(", "),
        escape_line(&option.help)
    )
}

/// Text as roff paragraphs: blank lines become `.PP`.
fn paragraphs(text: &str) -> String {
    text.lines()
        .map(|l| {
            if l.trim().is_empty() {
                ".PP".to_owned()
            } else {
                escape_line(l)
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Roff's special characters: backslashes and dashes.
fn escape(text: &str) -> String {
    text.replace('\\', "\\e").replace('-', "\\-")
}

/// A line of text that roff must not read as a request (a leading `.` or `'`).
fn escape_line(text: &str) -> String {
    let text = escape(text);
    if text.starts_with(['.', '\'']) {
        format!("\\&{text}")
    } else {
        text
    }
}
