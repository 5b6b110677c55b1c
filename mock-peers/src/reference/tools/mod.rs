//! The tool catalogue, `tools/list`, and `tools/call` routing.

pub(crate) mod answers;
pub(crate) mod args;
mod interactive;
mod local;
pub(crate) mod multi_turn;

use mcp_conform_core::version::{Era, ProtocolVersion};
use serde_json::{Map, Value, json};

use self::args::{ArgError, Args};
use super::dispatch::Server;
use super::pagination;
use super::sink::Sink;
use mcp_conform_core::wire::jsonrpc::RpcError;

/// Tools per `tools/list` page.
const PAGE_SIZE: usize = 4;

/// What a tool call may touch. The legacy session and a stateless request
/// differ in where log levels, added tools and change notifications live.
pub(crate) trait Host: Send + Sync + std::fmt::Debug {
    /// The protocol version the call is served under.
    fn version(&self) -> ProtocolVersion;
    /// Where notifications about this call go (progress, log messages).
    fn sink(&self) -> &Sink;
    /// Whether a log message of severity `rank` may be sent for this call.
    fn log_enabled(&self, rank: usize) -> bool;
    /// What decides which log messages are sent, for the tool's answer.
    fn log_filter(&self) -> &'static str;
    /// The tools added at run time, in the order they were added.
    fn dynamic_tools(&self) -> Vec<String>;
    /// Registers a tool added at run time (never a built-in name); false
    /// when it cannot be added.
    fn add_dynamic_tool(&self, name: &str) -> bool;
    /// Tells whoever asked that the tool list changed.
    fn tools_changed(&self);
    /// Tells whoever subscribed to `uri` that it changed; false when nobody had.
    fn resource_updated(&self, uri: &str) -> bool;
}

/// One tool as this server describes it.
#[derive(Debug, Clone)]
pub(crate) struct ToolDef {
    name: String,
    title: String,
    description: String,
    input_schema: Value,
    /// Present only for tools returning structured content.
    output_schema: Option<Value>,
    read_only: bool,
}

fn object_schema(properties: Value, required: &[&str]) -> Value {
    json!({ "type": "object", "properties": properties, "required": required })
}

fn def(name: &str, title: &str, description: &str, input_schema: Value, read_only: bool) -> ToolDef {
    ToolDef {
        name: name.into(),
        title: title.into(),
        description: description.into(),
        input_schema,
        output_schema: None,
        read_only,
    }
}

/// The built-in tools of `era`, in listing order: the same under every
/// version, plus in 2026-07-28 the tools that exercise its own rules.
fn static_tools(era: Era) -> Vec<ToolDef> {
    let mut tools = legacy_tools();
    if era == Era::Stateless {
        for tool in &mut tools {
            if let Some(description) = stateless_description(&tool.name) {
                tool.description = description.to_owned();
            }
        }
        tools.extend(stateless_tools());
    }
    tools
}

/// How a tool that behaves differently without a session describes itself then.
fn stateless_description(name: &str) -> Option<&'static str> {
    Some(match name {
        "connect" => {
            "Needs the user to connect an account at a URL, asked through a URL-mode elicitation in an InputRequiredResult."
        }
        "log" => {
            "Sends notifications/message at the given level, or at every level without one, at or above the request's io.modelcontextprotocol/logLevel (nothing without one)."
        }
        "add_tool" => {
            "Registers a new echo-like tool for every client and announces notifications/tools/list_changed on the listen streams that asked."
        }
        "touch" => "Marks a resource as updated, notifying the listen streams subscribed to it.",
        _ => return None,
    })
}

/// Tools only the stateless revision lists.
fn stateless_tools() -> Vec<ToolDef> {
    vec![
        def(
            "region_echo",
            "Region echo",
            "Echoes `text` for a `region`; over HTTP the region travels in the Mcp-Param-Region header too.",
            object_schema(
                json!({
                    "region": { "type": "string", "description": "Where to echo", "x-mcp-header": "Region" },
                    "text": { "type": "string" },
                }),
                &["region", "text"],
            ),
            true,
        ),
        def(
            "confirm_then_elicit",
            "Confirm, then elicit",
            "Asks for a confirmation in an InputRequiredResult on the call, before it becomes a task; once confirmed, a request that opted in to the tasks extension gets a task that asks the elicit form through inputRequests, under the confirmation's key (the two phases' keys are independent). Without the opt-in it answers once confirmed.",
            object_schema(json!({ "message": { "type": "string" } }), &[]),
            false,
        ),
        def(
            "end_listen",
            "End listen",
            "Ends the subscriptions/listen streams opened by the request with id `subscriptionId`, each with a complete result.",
            object_schema(
                json!({ "subscriptionId": { "type": ["string", "integer"] } }),
                &["subscriptionId"],
            ),
            false,
        ),
    ]
}

/// The tools of every version, in listing order.
fn legacy_tools() -> Vec<ToolDef> {
    let text = json!({ "text": { "type": "string", "description": "Text to send back" } });
    vec![
        def(
            "echo",
            "Echo",
            "Returns its text argument unchanged.",
            object_schema(text, &["text"]),
            true,
        ),
        ToolDef {
            output_schema: Some(object_schema(json!({ "sum": { "type": "number" } }), &["sum"])),
            ..def(
                "add",
                "Add",
                "Adds two numbers.",
                object_schema(
                    json!({ "a": { "type": "number" }, "b": { "type": "number" } }),
                    &["a", "b"],
                ),
                true,
            )
        },
        def(
            "fail",
            "Fail",
            "Always reports a tool execution error.",
            object_schema(json!({}), &[]),
            true,
        ),
        def(
            "elicit",
            "Elicit",
            "Asks the user for a name and an age through elicitation/create.",
            object_schema(json!({ "message": { "type": "string" } }), &[]),
            true,
        ),
        def(
            "connect",
            "Connect",
            "Needs the user to connect an account at a URL: asks through URL-mode elicitation, or with `required` fails with -32042.",
            object_schema(json!({ "required": { "type": "boolean" } }), &[]),
            true,
        ),
        def(
            "sample",
            "Sample",
            "Asks the client's model to answer a prompt through sampling/createMessage.",
            object_schema(json!({ "prompt": { "type": "string" } }), &["prompt"]),
            true,
        ),
        def(
            "roots",
            "Roots",
            "Lists the client's roots through roots/list.",
            object_schema(json!({}), &[]),
            true,
        ),
        def(
            "progress",
            "Progress",
            "Reports `steps` progress notifications to the caller's progress token.",
            object_schema(
                json!({ "steps": { "type": "integer", "minimum": 0, "maximum": 1000 } }),
                &["steps"],
            ),
            true,
        ),
        def(
            "slow",
            "Slow",
            "Waits `ms` milliseconds before answering; cancellable.",
            object_schema(
                json!({ "ms": { "type": "integer", "minimum": 0, "maximum": 600000 } }),
                &["ms"],
            ),
            true,
        ),
        def(
            "log",
            "Log",
            "Sends notifications/message at the given level, or at every level without one, honouring logging/setLevel.",
            object_schema(
                json!({
                    "level": { "type": "string", "enum": super::session::LOG_LEVELS },
                    "message": { "type": "string" },
                }),
                &["message"],
            ),
            true,
        ),
        def(
            "add_tool",
            "Add tool",
            "Registers a new echo-like tool and announces notifications/tools/list_changed.",
            object_schema(
                json!({ "name": { "type": "string", "pattern": "^[A-Za-z0-9_.-]{1,128}$" } }),
                &["name"],
            ),
            false,
        ),
        def(
            "touch",
            "Touch",
            "Marks a resource as updated, notifying subscribers.",
            object_schema(json!({ "uri": { "type": "string" } }), &["uri"]),
            true,
        ),
        def(
            multi_turn::BOOK,
            "Book a trip",
            "Places a hold, then in one call asks for a seat (elicitation), has the client's model summarise the trip (sampling) and asks for a confirmation (elicitation); the result names all three answers.",
            object_schema(json!({ "destination": { "type": "string" } }), &["destination"]),
            false,
        ),
        def(
            multi_turn::BOOKINGS,
            "Bookings",
            "How many holds `book` placed for `destination` since this tool was last called for it (it then starts again from zero).",
            object_schema(json!({ "destination": { "type": "string" } }), &["destination"]),
            false,
        ),
    ]
}

/// A tool registered at run time by `add_tool`: it echoes its text.
fn dynamic_tool(name: &str) -> ToolDef {
    let text = json!({ "text": { "type": "string" } });
    def(
        name,
        name,
        "Added at run time; echoes its text argument.",
        object_schema(text, &["text"]),
        true,
    )
}

/// The tool that runs only as a task (2025-11-25, and the extension).
pub(crate) const REPORT: &str = "report";

fn report_tool() -> ToolDef {
    def(
        REPORT,
        "Report",
        "Waits `ms` milliseconds, then reports; runs only as a task.",
        object_schema(
            json!({ "ms": { "type": "integer", "minimum": 0, "maximum": 600000 } }),
            &["ms"],
        ),
        true,
    )
}

fn all_tools(host: &dyn Host) -> Vec<ToolDef> {
    let mut tools = static_tools(host.version().era());
    // 2026-07-28 has it too, for the tasks extension.
    if host.version() >= super::tasks::VERSION {
        tools.push(report_tool());
    }
    tools.extend(host.dynamic_tools().iter().map(|name| dynamic_tool(name)));
    tools
}

/// The `x-mcp-header` names of a built-in tool's parameters, with the
/// parameter each mirrors: what HTTP requests calling it carry as
/// `Mcp-Param-{Name}` (tools added at run time mirror nothing).
pub(crate) fn header_parameters(tool: &str) -> Vec<(String, String)> {
    let Some(tool) = static_tools(Era::Stateless).into_iter().find(|t| t.name == tool) else {
        return Vec::new();
    };
    let properties = tool.input_schema["properties"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    properties
        .into_iter()
        .filter_map(|(parameter, schema)| {
            let header = schema.get("x-mcp-header")?.as_str()?.to_owned();
            Some((header, parameter))
        })
        .collect()
}

/// How `tool` appears in `tools/list` under `version`.
fn describe(tool: &ToolDef, version: ProtocolVersion) -> Value {
    let mut out = json!({
        "name": tool.name,
        "description": tool.description,
        "inputSchema": tool.input_schema,
    });
    if version >= ProtocolVersion::V2025_03_26 {
        out["annotations"] = json!({
            "title": tool.title,
            "readOnlyHint": tool.read_only,
            "destructiveHint": false,
            "openWorldHint": false,
        });
    }
    if version >= ProtocolVersion::V2025_06_18 {
        out["title"] = json!(tool.title);
        if let Some(schema) = &tool.output_schema {
            out["outputSchema"] = schema.clone();
        }
    }
    if let Some(support) = super::tasks::support(&tool.name).filter(|_| version == super::tasks::VERSION) {
        out["execution"] = json!({ "taskSupport": support });
    }
    out
}

/// `tools/list`.
pub(crate) fn list(host: &dyn Host, params: &Map<String, Value>) -> Result<Value, RpcError> {
    let version = host.version();
    let page = pagination::page("tools", &all_tools(host), params, PAGE_SIZE)?;
    let tools: Vec<Value> = page.items.iter().map(|tool| describe(tool, version)).collect();
    Ok(page.finish(Map::from_iter([("tools".to_owned(), Value::Array(tools))])))
}

/// A tool result with one text block.
pub(crate) fn text_result(text: impl Into<String>) -> Value {
    json!({ "content": [{ "type": "text", "text": text.into() }], "isError": false })
}

/// A tool execution error: reported in the result, not as a JSON-RPC error.
pub(crate) fn error_result(text: impl Into<String>) -> Value {
    json!({ "content": [{ "type": "text", "text": text.into() }], "isError": true })
}

/// What a call to one named tool needs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Call<'a> {
    pub host: &'a dyn Host,
    pub args: Args<'a>,
    /// `params._meta.progressToken` of the `tools/call` request.
    pub progress_token: Option<&'a Value>,
}

/// The tool a `tools/call` names, its arguments and its progress token.
pub(crate) fn target(params: &Map<String, Value>) -> Result<(&str, &Map<String, Value>), RpcError> {
    static EMPTY: std::sync::LazyLock<Map<String, Value>> = std::sync::LazyLock::new(Map::new);
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::invalid_params("tools/call needs a string `name`"))?;
    let arguments = match params.get("arguments") {
        None => &EMPTY,
        Some(Value::Object(arguments)) => arguments,
        Some(_) => return Err(RpcError::invalid_params("`arguments` must be an object")),
    };
    Ok((name, arguments))
}

/// `params._meta.progressToken` of a request.
pub(crate) fn progress_token(params: &Map<String, Value>) -> Option<&Value> {
    params.get("_meta").and_then(|meta| meta.get("progressToken"))
}

/// `tools/call` in a legacy session.
pub(crate) async fn call(server: &Server, params: &Map<String, Value>) -> Result<Value, RpcError> {
    let (name, arguments) = target(params)?;
    let call = Call {
        host: server,
        args: Args(arguments),
        progress_token: progress_token(params),
    };
    let outcome = match name {
        "connect" => return interactive::connect(server, call).await,
        "elicit" => interactive::elicit(server, call).await,
        "sample" => interactive::sample(server, call).await,
        "roots" => interactive::roots(server).await,
        multi_turn::BOOK => interactive::book(server, call).await,
        other => match run_local(call, other).await {
            Some(outcome) => outcome,
            None => return Err(unknown_tool(other)),
        },
    };
    finish(call.host, name, outcome)
}

/// Runs a tool that needs nothing from the client; `None` when `name` is
/// no such tool of the host's era.
pub(crate) async fn run_local(call: Call<'_>, name: &str) -> Option<Result<Value, ArgError>> {
    let stateless = call.host.version().era() == Era::Stateless;
    Some(match name {
        "echo" => local::echo(call),
        "add" => local::add(call),
        "fail" => Ok(error_result("the fail tool always fails")),
        "progress" => local::progress(call).await,
        "slow" => local::slow(call).await,
        REPORT if call.host.version() == super::tasks::VERSION || stateless => local::slow(call).await,
        "log" => local::log(call),
        "add_tool" => local::add_tool(call),
        "touch" => local::touch(call),
        multi_turn::BOOKINGS => multi_turn::bookings(call.args),
        "region_echo" if stateless => local::region_echo(call),
        dynamic if call.host.dynamic_tools().iter().any(|t| t == dynamic) => {
            local::dynamic_echo(call, dynamic)
        }
        _ => return None,
    })
}

/// The error for a tool this server does not have.
pub(crate) fn unknown_tool(name: &str) -> RpcError {
    RpcError::invalid_params(format!("unknown tool: {name}"))
}

/// A tool's outcome as the call's answer: invalid arguments are a tool
/// error from 2025-11-25 (SEP-1303), a protocol error before.
pub(crate) fn finish(
    host: &dyn Host,
    name: &str,
    outcome: Result<Value, ArgError>,
) -> Result<Value, RpcError> {
    outcome.or_else(|ArgError(message)| {
        if host.version() >= ProtocolVersion::V2025_11_25 {
            Ok(error_result(format!("invalid arguments for {name}: {message}")))
        } else {
            Err(RpcError::invalid_params(format!(
                "invalid arguments for {name}: {message}"
            )))
        }
    })
}

/// Whether `name` is one of the built-in tools of `era`.
fn is_builtin(name: &str, era: Era) -> bool {
    static_tools(era).iter().any(|tool| tool.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_schema_and_title_appear_only_from_2025_06_18() {
        let add = legacy_tools().into_iter().find(|t| t.name == "add").unwrap();
        let old = describe(&add, ProtocolVersion::V2025_03_26);
        assert!(old.get("outputSchema").is_none() && old.get("title").is_none());
        assert!(old.get("annotations").is_some());
        assert!(
            describe(&add, ProtocolVersion::V2024_11_05)
                .get("annotations")
                .is_none()
        );
        let new = describe(&add, ProtocolVersion::V2025_06_18);
        assert_eq!(new["outputSchema"]["required"], json!(["sum"]));
        assert_eq!(new["title"], json!("Add"));
    }

    #[test]
    fn every_input_schema_is_an_object_schema() {
        for tool in static_tools(Era::Stateless) {
            assert_eq!(tool.input_schema["type"], json!("object"), "{}", tool.name);
            assert!(tool.input_schema["properties"].is_object(), "{}", tool.name);
        }
    }

    #[test]
    fn the_stateless_catalogue_adds_its_tools_and_describes_what_differs() {
        let legacy = static_tools(Era::Stateful);
        let stateless = static_tools(Era::Stateless);
        assert_eq!(stateless.len(), legacy.len() + 3);
        let connect = |tools: &[ToolDef]| {
            tools
                .iter()
                .find(|t| t.name == "connect")
                .unwrap()
                .description
                .clone()
        };
        assert!(connect(&legacy).contains("-32042") && !connect(&stateless).contains("-32042"));
        assert_eq!(
            header_parameters("region_echo"),
            vec![("Region".to_owned(), "region".to_owned())]
        );
        assert!(header_parameters("echo").is_empty());
        assert!(is_builtin("region_echo", Era::Stateless) && !is_builtin("region_echo", Era::Stateful));
    }

    #[test]
    fn legacy_catalogue_spans_four_pages() {
        let count = static_tools(Era::Stateful).len();
        assert!(count > 3 * PAGE_SIZE && count <= 4 * PAGE_SIZE, "{count} tools");
    }
}
