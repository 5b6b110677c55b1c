//! Which of a server's tools or prompts each profile trigger binds, judged
//! from their names, descriptions and schemas only. A trigger is bound
//! when a candidate is obvious; otherwise it is left for the user, with the
//! candidates.

use serde_json::{Map, Value, json};

use super::inventory::Inventory;
use super::skeleton::{self, Hints};

/// A trigger the bundled scenarios read, and what it stands for.
#[derive(Debug)]
pub struct Trigger {
    pub name: &'static str,
    /// What the bound tool (or prompt) must do, for the profile's comment.
    pub purpose: &'static str,
    /// What it binds: a tool, a prompt, or a completion reference.
    pub kind: Kind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Tool,
    Prompt,
    Completion,
}

/// Every trigger of the bundled scenarios (a test keeps this list whole).
pub const TRIGGERS: &[Trigger] = &[
    tool(
        "safe_tool",
        "A tool that is safe to call with any arguments (an echo).",
    ),
    tool(
        "elicit_tool",
        "Sends a form-mode elicitation/create while it runs.",
    ),
    tool("sample_tool", "Sends sampling/createMessage while it runs."),
    tool(
        "list_changed_tool",
        "Changes the tool list and sends notifications/tools/list_changed.",
    ),
    tool(
        "progress_tool",
        "Sends notifications/progress for the call's progress token.",
    ),
    tool("roots_tool", "Sends roots/list while it runs."),
    tool(
        "slow_tool",
        "Takes about 1.5 s, and honours notifications/cancelled.",
    ),
    tool(
        "resource_update_tool",
        "Announces a change of resource `uri` (notifications/resources/updated).",
    ),
    tool("error_tool", "Fails while running: a result with isError."),
    tool(
        "structured_tool",
        "Declares an outputSchema and returns structuredContent.",
    ),
    tool(
        "log_tool",
        "Sends notifications/message at every level, honouring logging/setLevel.",
    ),
    tool("url_elicit_tool", "Sends a URL-mode elicitation while it runs."),
    tool(
        "url_required_tool",
        "Fails with -32042, listing a URL elicitation the user must complete.",
    ),
    tool(
        "end_listen_tool",
        "2026-07-28: ends the listen streams opened by a request.",
    ),
    tool(
        "header_tool",
        "2026-07-28: takes a parameter sent as an Mcp-Param-* header (`header`: its name).",
    ),
    tool(
        "task_tool",
        "2025-11-25: may run as a task (execution.taskSupport optional or required).",
    ),
    tool(
        "long_task_tool",
        "2025-11-25: runs as a task long enough to be cancelled.",
    ),
    tool(
        "task_required_tool",
        "2025-11-25: runs only as a task (execution.taskSupport required).",
    ),
    tool(
        "task_forbidden_tool",
        "2025-11-25: never runs as a task (execution.taskSupport forbidden or absent).",
    ),
    tool(
        "task_error_tool",
        "2025-11-25: runs as a task, and its result has isError.",
    ),
    tool(
        "task_rpc_error_tool",
        "2026-07-28: may run as a task, and fails with a JSON-RPC error (no obvious candidate: the same tool may fail either way).",
    ),
    tool(
        "progress_task_tool",
        "May run as a task, and sends notifications/progress for the call's progress token while it runs.",
    ),
    tool(
        "multi_turn_tool",
        "Asks for a form (elicitation), the client's model (sampling) and a confirmation (elicitation) in one call.",
    ),
    tool(
        "pre_task_input_tool",
        "2026-07-28: asks for a form-mode elicitation in an InputRequiredResult on the call before it becomes a task, then another inside the task.",
    ),
    Trigger {
        name: "argument_prompt",
        purpose: "A prompt with arguments, and valid ones for it.",
        kind: Kind::Prompt,
    },
    Trigger {
        name: "completion",
        purpose: "A reference and argument completion/complete answers for.",
        kind: Kind::Completion,
    },
];

const fn tool(name: &'static str, purpose: &'static str) -> Trigger {
    Trigger {
        name,
        purpose,
        kind: Kind::Tool,
    }
}

/// Triggers whose scenarios give the arguments themselves (the id of the
/// request whose listen streams `end_listen_tool` ends): only the name is read.
pub const SCENARIO_ARGUMENTS: &[&str] = &["end_listen_tool"];

/// Members of a trigger only the server's behaviour tells, never its
/// declarations: left as comments in a bound trigger.
pub const UNKNOWABLE: &[(&str, &str, &str)] = &[
    (
        "elicit_tool",
        "content",
        "an answer valid for the form the tool sends",
    ),
    (
        "elicit_tool",
        "invalid_content",
        "an answer that breaks that form",
    ),
    (
        "sample_tool",
        "model_preferences",
        "the modelPreferences the tool sends",
    ),
    (
        "multi_turn_tool",
        "choice",
        "an answer valid for the first form the tool sends",
    ),
    (
        "multi_turn_tool",
        "choice_text",
        "the text of that answer the result shows",
    ),
    (
        "multi_turn_tool",
        "confirm",
        "an answer valid for the confirmation form",
    ),
    (
        "pre_task_input_tool",
        "first_content",
        "an answer valid for the form asked on the call",
    ),
    (
        "pre_task_input_tool",
        "content",
        "an answer valid for the form asked inside the task",
    ),
];

/// What `init` decided for one trigger.
#[derive(Debug, Clone, PartialEq)]
pub enum Choice {
    /// Bound: the trigger's members, and why this candidate.
    Bound { binding: Value, why: String },
    /// Left for the user: the names to choose from, and a template.
    Open {
        candidates: Vec<String>,
        template: Value,
    },
}

/// The choice for `trigger` on `inventory`.
pub fn choose(trigger: &Trigger, inventory: &Inventory) -> Choice {
    let bound = match trigger.kind {
        Kind::Tool => bind_tool(trigger.name, inventory),
        Kind::Prompt => argument_prompt(inventory),
        Kind::Completion => completion(inventory),
    };
    bound.map_or_else(
        || Choice::Open {
            candidates: match trigger.kind {
                Kind::Tool => Inventory::names(&inventory.tools),
                Kind::Prompt | Kind::Completion => Inventory::names(&inventory.prompts),
            }
            .into_iter()
            .map(str::to_owned)
            .collect(),
            template: template(trigger.kind),
        },
        |(binding, why)| Choice::Bound { binding, why },
    )
}

fn template(kind: Kind) -> Value {
    match kind {
        Kind::Tool | Kind::Prompt => json!({"name": "NAME", "arguments": {}}),
        Kind::Completion => json!({
            "ref": {"type": "ref/prompt", "name": "PROMPT"},
            "argument": {"name": "ARGUMENT", "value": ""}
        }),
    }
}

/// A tool as the rules read it: its name's words and its description.
struct Described<'t> {
    tool: &'t Value,
    words: Vec<String>,
    description: String,
}

impl<'t> Described<'t> {
    fn new(tool: &'t Value) -> Self {
        Described {
            tool,
            words: words(tool["name"].as_str().unwrap_or_default()),
            description: tool["description"].as_str().unwrap_or_default().to_lowercase(),
        }
    }

    fn name(&self) -> &str {
        self.tool["name"].as_str().unwrap_or_default()
    }

    /// Whether its name has one of `words`.
    fn named(&self, words: &[&str]) -> bool {
        self.words.iter().any(|w| words.contains(&w.as_str()))
    }

    /// Whether its description says one of `phrases`.
    fn says(&self, phrases: &[&str]) -> bool {
        phrases.iter().any(|p| self.description.contains(p))
    }

    fn task_support(&self) -> &str {
        self.tool["execution"]["taskSupport"]
            .as_str()
            .unwrap_or("forbidden")
    }

    fn schema(&self) -> &Value {
        &self.tool["inputSchema"]
    }
}

/// The words of a name: split at anything not a letter or digit, and
/// where a lower-case letter meets an upper-case one (`getTinyImage`).
fn words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        let boundary = !c.is_alphanumeric() || (c.is_uppercase() && previous_lower);
        if boundary && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        if c.is_alphanumeric() {
            current.extend(c.to_lowercase());
        }
        previous_lower = c.is_lowercase();
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// Whether `tool` is an obvious candidate for `trigger`.
fn fits(trigger: &str, tool: &Described<'_>) -> bool {
    let url = tool.named(&["url"]) || tool.says(&["url-mode", "url mode"]);
    let elicits = tool.named(&["elicit", "elicitation"]) || tool.says(&["elicitation"]);
    let slow = tool.named(&["slow", "sleep", "delay", "wait"])
        || (tool.named(&["long"]) && tool.named(&["running"]))
        || tool.says(&["cancellable", "long-running"]);
    match trigger {
        "safe_tool" => tool.named(&["echo"]),
        "task_forbidden_tool" => tool.named(&["echo"]) && tool.task_support() == "forbidden",
        "elicit_tool" => !url && (elicits || tool.says(&["asks the user"])),
        "multi_turn_tool" => tool.says(&["multi-turn"]) || (elicits && tool.says(&["sampling"])),
        "url_elicit_tool" | "url_required_tool" => url && elicits,
        "sample_tool" => tool.named(&["sample", "sampling", "llm"]) || tool.says(&["sampling"]),
        "list_changed_tool" => {
            tool.says(&["list_changed", "list changed"]) || (tool.named(&["add"]) && tool.named(&["tool"]))
        }
        "progress_tool" => tool.named(&["progress"]) || tool.says(&["progress"]),
        "roots_tool" => tool.named(&["roots"]),
        "slow_tool" => slow,
        "resource_update_tool" => {
            tool.named(&["touch"])
                || tool.says(&["resources/updated", "resource as updated", "resource changed"])
        }
        "error_tool" => {
            tool.named(&["fail", "error", "raise", "throw"]) || tool.says(&["always fails", "always raises"])
        }
        "structured_tool" => tool.tool.get("outputSchema").is_some_and(Value::is_object),
        "log_tool" => tool.named(&["log"]) && !tool.named(&["toggle"]) && tool.says(&["level"]),
        "end_listen_tool" => tool.named(&["listen"]) && tool.named(&["end", "stop", "close"]),
        "header_tool" => header_parameter(tool.schema()).is_some(),
        // A task that fails is task_error_tool's.
        "task_tool" => tool.task_support() != "forbidden" && !fits("error_tool", tool),
        "pre_task_input_tool" => tool.says(&["before it becomes a task"]),
        "long_task_tool" => tool.task_support() != "forbidden" && (slow || timed(tool.schema())),
        "task_required_tool" => tool.task_support() == "required",
        "task_error_tool" => tool.task_support() != "forbidden" && fits("error_tool", tool),
        "progress_task_tool" => tool.task_support() != "forbidden" && fits("progress_tool", tool),
        _ => false,
    }
}

/// Among several candidates, the one a trigger prefers: the tool whose
/// name says it outright, else the server's first.
fn preferred<'t>(trigger: &str, candidates: Vec<Described<'t>>) -> Option<Described<'t>> {
    let outright: &[&str] = match trigger {
        "structured_tool" => &["structured"],
        "progress_tool" => &["progress"],
        "task_tool" => &["optional"],
        _ => &[],
    };
    let mut candidates = candidates;
    if trigger == "task_tool" {
        // A tool that may run either way is the plainest task.
        candidates.sort_by_key(|t| t.task_support() != "optional");
    }
    let first_outright = candidates.iter().position(|t| t.named(outright));
    let index = first_outright.unwrap_or(0);
    (index < candidates.len()).then(|| candidates.swap_remove(index))
}

/// The binding of a tool trigger, when a candidate is obvious.
fn bind_tool(trigger: &str, inventory: &Inventory) -> Option<(Value, String)> {
    let candidates: Vec<Described<'_>> = inventory
        .tools
        .iter()
        .map(Described::new)
        .filter(|tool| fits(trigger, tool))
        .collect();
    let count = candidates.len();
    let tool = preferred(trigger, candidates)?;
    let uri = first_resource_uri(inventory);
    let slow = matches!(trigger, "slow_tool" | "long_task_tool");
    let mut arguments = skeleton::arguments(
        tool.schema(),
        Hints {
            slow,
            uri: uri.as_deref(),
        },
    );
    let mut binding = Map::new();
    binding.insert("name".into(), json!(tool.name()));
    match trigger {
        "url_required_tool" => {
            // The URL tool's error path, when a boolean argument asks for it.
            let switch = boolean_switch(tool.schema())?;
            arguments[switch] = json!(true);
        }
        "resource_update_tool" => {
            let announced = arguments
                .as_object()
                .and_then(|a| a.iter().find(|(k, _)| k.to_lowercase().contains("uri")))
                .map(|(_, v)| v.clone())
                .or_else(|| uri.clone().map(Value::from))?;
            binding.insert("uri".into(), announced);
        }
        "header_tool" => {
            binding.insert("header".into(), json!(header_parameter(tool.schema())?));
        }
        _ => {}
    }
    binding.insert("arguments".into(), arguments);
    let others = if count > 1 {
        format!(" (first of {count} candidates)")
    } else {
        String::new()
    };
    Some((Value::Object(binding), format!("{}{others}", reason(trigger))))
}

/// Why a candidate was taken, in words.
fn reason(trigger: &str) -> &'static str {
    match trigger {
        "structured_tool" => "its outputSchema",
        "header_tool" => "its parameter with x-mcp-header",
        "task_tool" | "long_task_tool" | "task_required_tool" | "task_forbidden_tool" | "task_error_tool" => {
            "its execution.taskSupport, name and description"
        }
        _ => "its name and description",
    }
}

/// The `x-mcp-header` name of a parameter of `schema`.
fn header_parameter(schema: &Value) -> Option<String> {
    schema["properties"]
        .as_object()?
        .values()
        .find_map(|p| p["x-mcp-header"].as_str().map(str::to_owned))
}

/// A boolean parameter that switches a tool to its error path
/// (`required`, `errorPath`, `fail`).
fn boolean_switch(schema: &Value) -> Option<&str> {
    schema["properties"].as_object()?.iter().find_map(|(name, p)| {
        let lower = name.to_lowercase();
        let switch = ["required", "error", "fail"].iter().any(|w| lower.contains(w));
        (switch && p["type"] == "boolean").then_some(name.as_str())
    })
}

/// Whether `schema` has a duration parameter the skeleton sets.
fn timed(schema: &Value) -> bool {
    let slow = Hints {
        slow: true,
        uri: None,
    };
    skeleton::arguments(schema, slow) != skeleton::arguments(schema, Hints::default())
}

fn first_resource_uri(inventory: &Inventory) -> Option<String> {
    inventory
        .resources
        .iter()
        .find_map(|r| r["uri"].as_str().map(str::to_owned))
}

/// The prompt with the fewest arguments among those that take a required one.
fn argument_prompt(inventory: &Inventory) -> Option<(Value, String)> {
    let prompt = inventory
        .prompts
        .iter()
        .filter(|p| !required_arguments(p).is_empty())
        .min_by_key(|p| p["arguments"].as_array().map_or(0, Vec::len))?;
    let arguments: Map<String, Value> = required_arguments(prompt)
        .into_iter()
        .map(|name| (name.to_owned(), json!(skeleton_word(name))))
        .collect();
    Some((
        json!({"name": prompt["name"], "arguments": arguments}),
        "its required argument".into(),
    ))
}

fn skeleton_word(name: &str) -> String {
    let schema = json!({"properties": {name: {"type": "string"}}, "required": [name]});
    skeleton::arguments(&schema, Hints::default())[name]
        .as_str()
        .unwrap_or("hello")
        .to_owned()
}

fn required_arguments(prompt: &Value) -> Vec<&str> {
    prompt["arguments"]
        .as_array()
        .map(|arguments| {
            arguments
                .iter()
                .filter(|a| a["required"] == true)
                .filter_map(|a| a["name"].as_str())
                .collect()
        })
        .unwrap_or_default()
}

/// For a server declaring `completions`: the prompt whose name says it
/// completes, else the first prompt with an argument, and its first argument.
fn completion(inventory: &Inventory) -> Option<(Value, String)> {
    if inventory
        .capabilities
        .get("completions")
        .is_none_or(Value::is_null)
    {
        return None;
    }
    let with_argument = |p: &&Value| p["arguments"].get(0).is_some();
    let prompt = inventory
        .prompts
        .iter()
        .filter(with_argument)
        .find(|p| {
            words(p["name"].as_str().unwrap_or_default())
                .iter()
                .any(|w| w.starts_with("complet"))
        })
        .or_else(|| inventory.prompts.iter().find(with_argument))?;
    Some((
        json!({
            "ref": {"type": "ref/prompt", "name": prompt["name"]},
            "argument": {"name": prompt["arguments"][0]["name"], "value": ""}
        }),
        "the completions capability and the prompt's argument".into(),
    ))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn every_trigger_of_the_bundled_scenarios_is_known() {
        let scenarios = crate::select::load_scenarios(&[], &[]).expect("the bundled suite loads");
        let wanted: BTreeSet<&str> = scenarios
            .iter()
            .flat_map(|s| &s.requires.triggers)
            .map(|t| t.split('.').next().unwrap_or_default())
            .collect();
        let known: BTreeSet<&str> = TRIGGERS.iter().map(|t| t.name).collect();
        assert_eq!(wanted, known);
    }

    #[test]
    fn names_split_into_words() {
        assert_eq!(
            words("trigger-url-elicitation"),
            ["trigger", "url", "elicitation"]
        );
        assert_eq!(words("getTinyImage"), ["get", "tiny", "image"]);
        assert_eq!(words("add_tool"), ["add", "tool"]);
    }

    fn inventory(tools: Value) -> Inventory {
        Inventory {
            tools: tools.as_array().cloned().unwrap_or_default(),
            ..Inventory::default()
        }
    }

    #[test]
    fn an_obvious_tool_is_bound_with_arguments_from_its_schema() {
        let inventory = inventory(json!([
            {"name": "echo", "description": "Returns its text.", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
            {"name": "connect", "description": "Asks through URL-mode elicitation.", "inputSchema": {"type": "object", "properties": {"required": {"type": "boolean"}}}}
        ]));
        let safe = TRIGGERS.iter().find(|t| t.name == "safe_tool").expect("known");
        assert!(matches!(
            choose(safe, &inventory),
            Choice::Bound { binding, .. } if binding == json!({"name": "echo", "arguments": {"text": "hello"}})
        ));
        let url_required = TRIGGERS
            .iter()
            .find(|t| t.name == "url_required_tool")
            .expect("known");
        assert!(matches!(
            choose(url_required, &inventory),
            Choice::Bound { binding, .. } if binding["arguments"] == json!({"required": true})
        ));
    }

    #[test]
    fn without_an_obvious_candidate_the_trigger_is_left_open_with_every_tool() {
        let inventory =
            inventory(json!([{"name": "weather", "description": "Forecast.", "inputSchema": {}}]));
        let error = TRIGGERS.iter().find(|t| t.name == "error_tool").expect("known");
        assert_eq!(
            choose(error, &inventory),
            Choice::Open {
                candidates: vec!["weather".into()],
                template: json!({"name": "NAME", "arguments": {}})
            }
        );
    }
}
