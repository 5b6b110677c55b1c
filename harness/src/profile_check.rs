//! `mcp-conform profile check FILE`: a profile against the live server. The
//! tools and prompts its triggers name exist, and their arguments are valid
//! for what the server declares (a tool's `inputSchema`, a prompt's
//! required arguments). Each problem is located in the profile file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use mcp_conform_core::diag::Diagnostic;
use mcp_conform_core::scenario::profile::Profile;
use mcp_conform_core::span::{Located, SourceFile};
use mcp_conform_core::version::ProtocolVersion;
use mcp_conform_report::ExitCode;
use serde::Deserialize;
use serde_json::Value;

use crate::cli::{CliError, ServerArgs, at_least_one};
use crate::init::inventory::Inventory;
use crate::init::triggers::{Kind, SCENARIO_ARGUMENTS, TRIGGERS};

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The profile file.
    pub file: PathBuf,
    #[command(flatten)]
    pub server: ServerArgs,
    /// The protocol version to speak; the profile's triggers are read as a
    /// run of this version reads them (with `modern` overrides from 2026-07-28).
    #[arg(long, default_value = "2025-11-25", value_name = "VERSION")]
    pub protocol: ProtocolVersion,
    /// Seconds the server has to answer `initialize`.
    #[arg(long, default_value_t = 10, value_parser = at_least_one::<u64>)]
    pub startup_timeout: u64,
}

/// The profile's triggers with where each member is written.
#[derive(Deserialize)]
struct LocatedTriggers {
    #[serde(default)]
    triggers: BTreeMap<String, Located<BTreeMap<String, Located<Value>>>>,
}

pub fn check(args: CheckArgs) -> Result<ExitCode, CliError> {
    let text = std::fs::read_to_string(&args.file)
        .map_err(|e| CliError::Usage(format!("{}: {e}", args.file.display())))?;
    let profile =
        Profile::parse(&text).map_err(|e| CliError::Usage(format!("{}: {e}", args.file.display())))?;
    let located: LocatedTriggers = serde_saphyr::from_str(&text)
        .map_err(|e| CliError::Usage(format!("{}: {e}", args.file.display())))?;
    let inventory = Inventory::read(
        &args.server,
        args.protocol,
        Duration::from_secs(args.startup_timeout),
    )?;
    let file = SourceFile {
        path: args.file.clone(),
        text: Arc::from(text.as_str()),
    };
    let used = used_on(args.protocol);
    let (triggers, unused): (BTreeMap<String, Value>, BTreeMap<String, Value>) = profile
        .triggers_for(args.protocol.era())
        .into_iter()
        .partition(|(name, _)| {
            // The user's own scenarios may read a trigger the bundled ones do not.
            let bundled = TRIGGERS.iter().any(|t| t.name == name);
            !bundled || used.contains(name)
        });
    if !unused.is_empty() {
        let names: Vec<&str> = unused.keys().map(String::as_str).collect();
        println!(
            "not checked: no bundled scenario of {} uses {}",
            args.protocol,
            names.join(", ")
        );
    }
    let diagnostics = diagnose(&triggers, &located, &inventory, &file);
    if !diagnostics.is_empty() {
        return Err(CliError::Diagnostics {
            diagnostics,
            what: "the profile",
        });
    }
    println!(
        "{}: {} triggers, each naming what the server declares with valid arguments",
        args.file.display(),
        triggers.len()
    );
    Ok(ExitCode::Ok)
}

/// The bundled triggers a run of `version` reads: those its scenarios of
/// that version need (the task triggers are for 2025-11-25 only, and a
/// server lists their tools there only).
fn used_on(version: ProtocolVersion) -> BTreeSet<String> {
    let scenarios = crate::select::load_scenarios(&[], &[]).unwrap_or_default();
    scenarios
        .iter()
        .filter(|s| s.versions.contains(version))
        .flat_map(|s| &s.requires.triggers)
        .filter_map(|t| t.split('.').next().map(str::to_owned))
        .collect()
}

/// The problems of `triggers` (as a run reads them) on `inventory`.
fn diagnose(
    triggers: &BTreeMap<String, Value>,
    located: &LocatedTriggers,
    inventory: &Inventory,
    file: &SourceFile,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (name, binding) in triggers {
        let Some(kind) = kind_of(name) else { continue };
        let entry = located.triggers.get(name);
        // A member's own span, else the trigger's (a `modern` override).
        let at = |member: &str| {
            entry
                .and_then(|e| e.value.get(member).map(|m| m.span))
                .or_else(|| entry.map(|e| e.span))
                .unwrap_or_default()
        };
        let problem = |member: &str, message: String| Diagnostic::error(file, at(member), message);
        match kind {
            Kind::Tool => out.extend(tool_problems(name, binding, inventory, problem)),
            Kind::Prompt => out.extend(prompt_problems(name, binding, inventory, problem)),
            Kind::Completion => out.extend(completion_problems(name, binding, inventory, problem)),
        }
    }
    out
}

/// A trigger's kind: from the bundled table, else by its name's ending.
fn kind_of(name: &str) -> Option<Kind> {
    TRIGGERS
        .iter()
        .find(|t| t.name == name)
        .map(|t| t.kind)
        .or_else(|| name.ends_with("_tool").then_some(Kind::Tool))
        .or_else(|| name.ends_with("_prompt").then_some(Kind::Prompt))
}

/// The tool or prompt (`what`) a trigger's `member` names, or the problem
/// with it: it names none, or one the server does not list.
fn declared<'i>(
    trigger: &str,
    name: Option<&str>,
    (what, items): (&str, &'i [Value]),
    member: &str,
    problem: &impl Fn(&str, String) -> Diagnostic,
) -> Result<(&'i Value, String), Vec<Diagnostic>> {
    let Some(name) = name else {
        return Err(vec![problem(
            member,
            format!("trigger `{trigger}` names no {what}"),
        )]);
    };
    items
        .iter()
        .find(|item| item["name"] == name)
        .map(|item| (item, name.to_owned()))
        .ok_or_else(|| {
            let listed = Inventory::names(items).join(", ");
            vec![
                problem(
                    member,
                    format!("trigger `{trigger}`: the server lists no {what} `{name}`"),
                )
                .with_label(format!("not in {what}s/list"))
                .with_help(format!("the server lists {what}s: {listed}")),
            ]
        })
}

fn tool_problems(
    trigger: &str,
    binding: &Value,
    inventory: &Inventory,
    problem: impl Fn(&str, String) -> Diagnostic,
) -> Vec<Diagnostic> {
    let tools = ("tool", inventory.tools.as_slice());
    let (tool, name) = match declared(trigger, binding["name"].as_str(), tools, "name", &problem) {
        Ok(found) => found,
        Err(diagnostics) => return diagnostics,
    };
    if SCENARIO_ARGUMENTS.contains(&trigger) {
        return Vec::new();
    }
    let arguments = binding
        .get("arguments")
        .cloned()
        .unwrap_or(Value::Object(Default::default()));
    let schema = &tool["inputSchema"];
    let Ok(validator) = jsonschema::validator_for(schema) else {
        return vec![problem(
            "name",
            format!(
                "trigger `{trigger}`: tool `{name}` declares an inputSchema that is not a valid JSON Schema"
            ),
        )];
    };
    validator
        .iter_errors(&arguments)
        .map(|error| {
            let path = error.instance_path().to_string();
            problem(
                "arguments",
                format!("trigger `{trigger}`: `arguments{path}` does not match the inputSchema of `{name}`: {error}"),
            )
            .with_label("invalid for the tool's inputSchema")
            .with_help(format!("`{name}` takes: {schema}"))
        })
        .collect()
}

fn prompt_problems(
    trigger: &str,
    binding: &Value,
    inventory: &Inventory,
    problem: impl Fn(&str, String) -> Diagnostic,
) -> Vec<Diagnostic> {
    let prompts = ("prompt", inventory.prompts.as_slice());
    let (prompt, name) = match declared(trigger, binding["name"].as_str(), prompts, "name", &problem) {
        Ok(found) => found,
        Err(diagnostics) => return diagnostics,
    };
    prompt["arguments"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|a| a["required"] == true)
        .filter_map(|a| a["name"].as_str())
        .filter(|required| binding["arguments"].get(required).is_none())
        .map(|missing| {
            problem(
                "arguments",
                format!("trigger `{trigger}`: prompt `{name}` requires argument `{missing}`"),
            )
            .with_label("missing a required argument")
        })
        .collect()
}

fn completion_problems(
    trigger: &str,
    binding: &Value,
    inventory: &Inventory,
    problem: impl Fn(&str, String) -> Diagnostic,
) -> Vec<Diagnostic> {
    if binding["ref"]["type"] != "ref/prompt" {
        return Vec::new();
    }
    let prompts = ("prompt", inventory.prompts.as_slice());
    let (prompt, name) = match declared(trigger, binding["ref"]["name"].as_str(), prompts, "ref", &problem) {
        Ok(found) => found,
        Err(diagnostics) => return diagnostics,
    };
    let argument = binding["argument"]["name"].as_str().unwrap_or_default();
    let declared = prompt["arguments"].as_array().into_iter().flatten();
    if declared.clone().any(|a| a["name"] == argument) {
        return Vec::new();
    }
    let names: Vec<&str> = declared.filter_map(|a| a["name"].as_str()).collect();
    vec![
        problem(
            "argument",
            format!("trigger `{trigger}`: prompt `{name}` has no argument `{argument}`"),
        )
        .with_help(format!("its arguments: {}", names.join(", "))),
    ]
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::json;

    use super::*;

    const PROFILE: &str = "\
name: acme
triggers:
  safe_tool:
    name: echo
    arguments: { text: 42 }
  error_tool:
    name: explode
    arguments: {}
  argument_prompt:
    name: greet
    arguments: {}
";

    fn inventory() -> Inventory {
        Inventory {
            tools: vec![
                json!({"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}),
            ],
            prompts: vec![json!({"name": "greet", "arguments": [{"name": "name", "required": true}]})],
            ..Inventory::default()
        }
    }

    fn problems(text: &str) -> Vec<Diagnostic> {
        let profile = Profile::parse(text).expect("parses");
        let located: LocatedTriggers = serde_saphyr::from_str(text).expect("parses");
        let file = SourceFile {
            path: Path::new("acme.yaml").to_owned(),
            text: Arc::from(text),
        };
        diagnose(
            &profile.triggers_for(ProtocolVersion::LATEST_STATEFUL.era()),
            &located,
            &inventory(),
            &file,
        )
    }

    #[test]
    fn each_problem_is_located_at_the_member_that_has_it() {
        let found: Vec<(u32, String)> = problems(PROFILE)
            .into_iter()
            .map(|d| (d.span.line, d.message))
            .collect();
        assert_eq!(
            found,
            [
                (11, "trigger `argument_prompt`: prompt `greet` requires argument `name`".to_owned()),
                (7, "trigger `error_tool`: the server lists no tool `explode`".to_owned()),
                (
                    5,
                    "trigger `safe_tool`: `arguments/text` does not match the inputSchema of `echo`: 42 is not of type \"string\""
                        .to_owned()
                ),
            ]
        );
    }

    #[test]
    fn a_profile_matching_the_server_has_no_problem() {
        let good = PROFILE
            .replace("{ text: 42 }", "{ text: hi }")
            .replace("explode", "echo")
            .replace(
                "    arguments: {}\n  argument_prompt",
                "    arguments: { text: x }\n  argument_prompt",
            )
            .replace(
                "name: greet\n    arguments: {}",
                "name: greet\n    arguments: { name: Ada }",
            );
        assert_eq!(problems(&good), Vec::new());
    }
}
