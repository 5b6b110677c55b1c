//! The profile `init` writes: YAML with a comment per trigger saying what
//! it needs and why a tool was taken, the open triggers as commented
//! templates with their candidates.

use std::fmt::Write as _;

use serde_json::Value;

use super::inventory::Inventory;
use super::triggers::{Choice, TRIGGERS, UNKNOWABLE, choose};

/// How many candidates an open trigger's comment names.
const SHOWN_CANDIDATES: usize = 12;

/// The profile text for `inventory`; `command` is how the server was reached.
pub fn profile(inventory: &Inventory, command: &str) -> String {
    let server = inventory.info["name"].as_str().unwrap_or("server");
    let version = inventory.info["version"].as_str().unwrap_or("");
    let mut out = String::new();
    let mut line = |text: &str| writeln!(out, "{text}").expect("String");
    line(&format!(
        "# Written by `mcp-conform init` for {server} {version} ({command})."
    ));
    line("# Triggers bind what the scenarios need to this server's tools. init read the");
    line("# server's lists only and called nothing: check each binding, then run");
    line("# `mcp-conform profile check FILE` and `mcp-conform run --profile FILE` on the server.");
    line("# A commented trigger had no obvious candidate: uncomment it and fill it in.");
    line(&format!("name: {}", yaml_string(&profile_name(server))));
    line(&format!(
        "description: {}",
        yaml_string(&format!("{server} {version}, profile written by mcp-conform init").replace("  ", " "))
    ));
    line("triggers:");
    for trigger in TRIGGERS {
        line(&format!("  # {}", trigger.purpose));
        match choose(trigger, inventory) {
            Choice::Bound { binding, why } => {
                line(&format!("  {}:", trigger.name));
                line(&format!("    # Chosen for {why}."));
                for (key, value) in binding.as_object().into_iter().flatten() {
                    line(&format!("    {key}: {}", flow(value)));
                }
                for (_, member, what) in UNKNOWABLE.iter().filter(|(t, ..)| *t == trigger.name) {
                    line(&format!("    # {member}: {what}"));
                }
            }
            Choice::Open { candidates, template } => {
                let shown: Vec<&str> = candidates
                    .iter()
                    .take(SHOWN_CANDIDATES)
                    .map(String::as_str)
                    .collect();
                let more = candidates.len().saturating_sub(SHOWN_CANDIDATES);
                let rest = if more > 0 {
                    format!(", and {more} more")
                } else {
                    String::new()
                };
                if shown.is_empty() {
                    line("  # The server lists nothing to bind it to.");
                } else {
                    line(&format!(
                        "  # No obvious candidate among: {}{rest}.",
                        shown.join(", ")
                    ));
                }
                line(&format!("  # {}:", trigger.name));
                for (key, value) in template.as_object().into_iter().flatten() {
                    line(&format!("  #   {key}: {}", flow(value)));
                }
            }
        }
    }
    out
}

/// A profile name from the server's: lower case, words joined by dashes.
fn profile_name(server: &str) -> String {
    let name: Vec<String> = server
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    if name.is_empty() {
        "server".into()
    } else {
        name.join("-")
    }
}

/// A JSON value in YAML flow style (JSON is YAML).
fn flow(value: &Value) -> String {
    serde_json::to_string(value).expect("JSON values serialize")
}

/// A YAML scalar that reads back as `text`.
fn yaml_string(text: &str) -> String {
    flow(&Value::from(text))
}

#[cfg(test)]
mod tests {
    use mcp_conform_core::scenario::profile::Profile;
    use mcp_conform_core::version::Era;
    use serde_json::json;

    use super::*;

    #[test]
    fn the_profile_loads_and_binds_what_was_obvious_only() {
        let inventory = Inventory {
            info: json!({"name": "Acme Server", "version": "1.0"}),
            tools: vec![
                json!({"name": "echo", "description": "Returns its text.", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}),
                json!({"name": "weather", "description": "Forecast.", "inputSchema": {"type": "object"}}),
            ],
            ..Inventory::default()
        };
        let text = profile(&inventory, "--stdio acme");
        let profile = Profile::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(profile.name, "acme-server");
        let bound: Vec<String> = profile.triggers_for(Era::Stateful).into_keys().collect();
        assert_eq!(bound, ["safe_tool", "task_forbidden_tool"]);
        assert!(
            text.contains("  # No obvious candidate among: echo, weather.\n  # error_tool:\n"),
            "{text}"
        );
    }
}
