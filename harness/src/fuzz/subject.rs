//! What a fuzz case calls: a tool, a prompt, a resource template, a
//! completion argument, or a method nobody defined. Each subject knows the
//! JSON-RPC request a generated argument object becomes, so generation
//! (`arguments`), the oracle and the reproducer stay the same for all.

use std::fmt;

use mcp_conform_core::protocol;
use mcp_conform_core::wire::jsonrpc::code;
use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::arguments::Flaw;

/// The kinds of subject, as `--kind` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// `tools/call` of the allowed tools.
    Tools,
    /// `prompts/get` with generated arguments.
    Prompts,
    /// `resources/read` of URIs made from the resource templates.
    Resources,
    /// `completion/complete` of prompt and template arguments.
    Completions,
    /// Requests of methods no version of the spec defines.
    Methods,
    /// Lines that are not JSON, or not a request (stdio only).
    Frames,
}

impl Kind {
    pub const ALL: [Kind; 6] = [
        Kind::Tools,
        Kind::Prompts,
        Kind::Resources,
        Kind::Completions,
        Kind::Methods,
        Kind::Frames,
    ];
}

/// One thing to call with generated arguments.
#[derive(Debug, Clone, PartialEq)]
pub enum Subject {
    Tool {
        name: String,
        schema: Value,
    },
    /// A prompt, its declared arguments as an object schema of strings.
    Prompt {
        name: String,
        schema: Value,
    },
    /// A resource template, its variables as an object schema of strings.
    Template {
        template: String,
        schema: Value,
    },
    /// One argument of a prompt or template, completed with generated text.
    Completion {
        reference: Value,
        argument: String,
    },
    /// Methods no version defines, drawn by name.
    UnknownMethod,
    /// Malformed lines, drawn by [`malformed_frames`].
    Frame,
}

impl Subject {
    pub fn kind(&self) -> Kind {
        match self {
            Subject::Tool { .. } => Kind::Tools,
            Subject::Prompt { .. } => Kind::Prompts,
            Subject::Template { .. } => Kind::Resources,
            Subject::Completion { .. } => Kind::Completions,
            Subject::UnknownMethod => Kind::Methods,
            Subject::Frame => Kind::Frames,
        }
    }

    /// The schema generated arguments follow; `None` for unknown methods
    /// and malformed frames, drawn by [`unknown_method_names`] and
    /// [`malformed_frames`].
    pub fn schema(&self) -> Option<Value> {
        match self {
            Subject::Tool { schema, .. }
            | Subject::Prompt { schema, .. }
            | Subject::Template { schema, .. } => Some(schema.clone()),
            Subject::Completion { .. } => Some(strings_schema([("value", true)])),
            Subject::UnknownMethod | Subject::Frame => None,
        }
    }

    /// Whether a generated argument object may be sent: an unknown method's
    /// name must really be unknown.
    pub fn admits(&self, arguments: &Value) -> bool {
        match self {
            Subject::UnknownMethod => unknown_method(arguments).is_some(),
            _ => true,
        }
    }

    /// The request `arguments` become: method and params (a malformed
    /// frame is sent as its raw text instead: see [`raw_frame`]).
    pub fn request(&self, arguments: &Value) -> (String, Value) {
        match self {
            Subject::Tool { name, .. } => {
                ("tools/call".into(), json!({"name": name, "arguments": arguments}))
            }
            Subject::Prompt { name, .. } => (
                "prompts/get".into(),
                json!({"name": name, "arguments": arguments}),
            ),
            Subject::Template { template, .. } => (
                "resources/read".into(),
                json!({"uri": expand(template, arguments)}),
            ),
            Subject::Completion { reference, argument } => (
                "completion/complete".into(),
                json!({"ref": reference, "argument": {"name": argument, "value": as_text(&arguments["value"])}}),
            ),
            Subject::UnknownMethod => (
                unknown_method(arguments).unwrap_or_default().to_owned(),
                json!({}),
            ),
            Subject::Frame => (String::new(), arguments.clone()),
        }
    }

    /// Whether `flaw` breaks what the request's own schema allows (a
    /// prompt's arguments are strings: a non-string breaks `prompts/get`).
    pub fn breaks_request(&self, flaw: Option<Flaw>) -> bool {
        match self {
            Subject::Tool { .. } | Subject::Prompt { .. } => flaw.is_some_and(Flaw::breaks_schema),
            // The URI and the completion value are text whatever was drawn.
            Subject::Template { .. }
            | Subject::Completion { .. }
            | Subject::UnknownMethod
            | Subject::Frame => false,
        }
    }
}

impl fmt::Display for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Subject::Tool { name, .. } => write!(f, "tool {name}"),
            Subject::Prompt { name, .. } => write!(f, "prompt {name}"),
            Subject::Template { template, .. } => write!(f, "template {template}"),
            Subject::Completion { reference, argument } => {
                let of = reference["name"].as_str().or(reference["uri"].as_str());
                write!(f, "completion of {} argument {argument}", of.unwrap_or("?"))
            }
            Subject::UnknownMethod => write!(f, "unknown methods"),
            Subject::Frame => write!(f, "malformed frames"),
        }
    }
}

/// The generated method name, if no version of the spec defines it.
fn unknown_method(arguments: &Value) -> Option<&str> {
    let name = arguments["method"].as_str()?;
    (!name.is_empty() && protocol::method(name).is_none()).then_some(name)
}

/// An object schema of string properties, `true` marking required ones.
fn strings_schema<'a>(properties: impl IntoIterator<Item = (&'a str, bool)>) -> Value {
    let mut declared = Map::new();
    let mut required = Vec::new();
    for (name, is_required) in properties {
        declared.insert(name.to_owned(), json!({"type": "string"}));
        if is_required {
            required.push(json!(name));
        }
    }
    json!({"type": "object", "properties": declared, "required": required})
}

/// The subjects a server's listings offer, of the `kinds` asked for.
/// `tools` are the allowed ones already; `prompts` and `templates` are the
/// entries of `prompts/list` and `resources/templates/list`.
pub fn subjects(
    kinds: &[Kind],
    tools: Vec<(String, Value)>,
    prompts: &[Value],
    templates: &[Value],
) -> Vec<Subject> {
    let wanted = |kind| kinds.contains(&kind);
    let mut subjects = Vec::new();
    if wanted(Kind::Tools) {
        subjects.extend(
            tools
                .into_iter()
                .map(|(name, schema)| Subject::Tool { name, schema }),
        );
    }
    for prompt in prompts {
        let Some(name) = prompt["name"].as_str() else {
            continue;
        };
        let arguments: Vec<(&str, bool)> = prompt["arguments"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|a| Some((a["name"].as_str()?, a["required"].as_bool().unwrap_or(false))))
            .collect();
        if wanted(Kind::Prompts) {
            subjects.push(Subject::Prompt {
                name: name.to_owned(),
                schema: strings_schema(arguments.iter().copied()),
            });
        }
        if wanted(Kind::Completions) {
            subjects.extend(arguments.iter().map(|(argument, _)| Subject::Completion {
                reference: json!({"type": "ref/prompt", "name": name}),
                argument: (*argument).to_owned(),
            }));
        }
    }
    for template in templates {
        let Some(uri_template) = template["uriTemplate"].as_str() else {
            continue;
        };
        let variables = variables(uri_template);
        if wanted(Kind::Resources) {
            subjects.push(Subject::Template {
                template: uri_template.to_owned(),
                schema: strings_schema(variables.iter().map(|v| (v.as_str(), true))),
            });
        }
        if wanted(Kind::Completions) {
            subjects.extend(variables.iter().map(|variable| Subject::Completion {
                reference: json!({"type": "ref/resource", "uri": uri_template}),
                argument: variable.clone(),
            }));
        }
    }
    if wanted(Kind::Methods) {
        subjects.push(Subject::UnknownMethod);
    }
    if wanted(Kind::Frames) {
        subjects.push(Subject::Frame);
    }
    subjects
}

/// The variable names of an RFC 6570 template, operators and modifiers
/// dropped (`{+path}`, `{?q,page}`, `{id*}`).
fn variables(template: &str) -> Vec<String> {
    let mut names = Vec::new();
    for expression in template
        .split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}'))
    {
        let list = expression
            .0
            .trim_start_matches(['+', '#', '.', '/', ';', '?', '&']);
        for name in list.split(',') {
            let name = name.split([':', '*']).next().unwrap_or_default();
            if !name.is_empty() && !names.iter().any(|n| n == name) {
                names.push(name.to_owned());
            }
        }
    }
    names
}

/// `template` with each expression replaced by its variables' generated
/// values, percent-encoded except under `+` and `#` (RFC 6570's reserved
/// expansion); the query forms become `?name=value&…`.
fn expand(template: &str, arguments: &Value) -> String {
    let mut uri = String::new();
    let mut rest = template;
    while let Some((before, after)) = rest.split_once('{') {
        uri.push_str(before);
        let Some((expression, tail)) = after.split_once('}') else {
            uri.push('{');
            rest = after;
            continue;
        };
        let operator = expression.chars().next().filter(|c| "+#./;?&".contains(*c));
        let list = operator.map_or(expression, |_| &expression[1..]);
        let values: Vec<(String, String)> = list
            .split(',')
            .map(|name| name.split([':', '*']).next().unwrap_or_default())
            .map(|name| {
                let text = as_text(&arguments[name]);
                let encoded = match operator {
                    Some('+' | '#') => text,
                    _ => percent_encode(&text),
                };
                (name.to_owned(), encoded)
            })
            .collect();
        let joined = |separator: &str, named: bool| {
            values
                .iter()
                .map(|(name, value)| {
                    if named {
                        format!("{name}={value}")
                    } else {
                        value.clone()
                    }
                })
                .collect::<Vec<_>>()
                .join(separator)
        };
        match operator {
            Some('?') => uri.push_str(&format!("?{}", joined("&", true))),
            Some('&') => uri.push_str(&format!("&{}", joined("&", true))),
            Some('/') => uri.push_str(&format!("/{}", joined("/", false))),
            Some('.') => uri.push_str(&format!(".{}", joined(".", false))),
            Some(';') => uri.push_str(&format!(";{}", joined(";", true))),
            Some('#') => uri.push_str(&format!("#{}", joined(",", false))),
            _ => uri.push_str(&joined(",", false)),
        }
        rest = tail;
    }
    uri.push_str(rest);
    uri
}

/// A generated value as the text a URI or completion carries: strings as
/// they are, anything else (a flaw's wrong type) as its JSON.
fn as_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// RFC 3986 percent-encoding of everything but the unreserved characters.
fn percent_encode(text: &str) -> String {
    text.bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(byte).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}

/// Method names for [`Subject::UnknownMethod`]: plain and namespaced
/// words, look-alikes of real methods, and any printable text.
pub fn unknown_method_names() -> BoxedStrategy<Value> {
    prop_oneof![
        "[a-z]{1,10}(/[a-zA-Z]{1,12})?",
        "(tools|prompts|resources|completion|logging|notifications)/[a-z]{1,8}",
        "\\PC{1,20}",
    ]
    .prop_map(|method| json!({"method": method}))
    .boxed()
}

/// A generated malformed frame: its text, and the error code JSON-RPC
/// gives it (-32700 parse error, -32600 invalid request).
pub fn raw_frame(arguments: &Value) -> (&str, i64) {
    (
        arguments["raw"].as_str().unwrap_or_default(),
        arguments["expects"].as_i64().unwrap_or(code::PARSE_ERROR),
    )
}

/// The id of the generated malformed frames; the driver makes it unique
/// per frame sent (`<FRAME_ID>-<n>`).
pub const FRAME_ID: &str = "mcp-conform-fuzz";
/// A request that is valid but for what each malformed frame breaks.
const PING: &str = r#"{"jsonrpc": "2.0", "id": "mcp-conform-fuzz", "method": "ping"}"#;

/// Lines a client may not send (MCP forbids anything but valid messages on
/// stdio), each on one line: text that does not parse as JSON (a request
/// cut short, a trailing comma, single quotes, any printable text), and
/// JSON that is not a request (a wrong or missing `jsonrpc`, a `method`
/// that is not a string, an id that is no string, number or null, a
/// scalar). Arrays are left out (2025-03-26 allowed batches), and so is an
/// object with an id and no method, which a server may take for a response.
pub fn malformed_frames() -> BoxedStrategy<Value> {
    let not_json = prop_oneof![
        (1..PING.len()).prop_map(|cut| PING[..cut].to_owned()),
        Just(PING.replace("\"ping\"", "\"ping\",")),
        Just(PING.replace('"', "'")),
        "\\PC{1,40}",
    ]
    .prop_filter("not JSON", |text| {
        !text.trim().is_empty() && serde_json::from_str::<Value>(text).is_err()
    })
    .prop_map(|text| json!({"raw": text, "expects": code::PARSE_ERROR}));
    let id = || json!(FRAME_ID);
    let invalid = prop_oneof![
        prop_oneof![Just(json!("1.0")), Just(json!(2)), Just(Value::Null)]
            .prop_map(move |version| json!({"jsonrpc": version, "id": id(), "method": "ping"})),
        Just(json!({"id": id(), "method": "ping"})),
        prop_oneof![
            Just(json!(7)),
            Just(Value::Null),
            Just(json!({})),
            Just(json!(["ping"]))
        ]
        .prop_map(move |method| json!({"jsonrpc": "2.0", "id": id(), "method": method})),
        prop_oneof![Just(json!({})), Just(json!([1])), Just(json!(true))]
            .prop_map(|bad| json!({"jsonrpc": "2.0", "id": bad, "method": "ping"})),
        prop_oneof![
            Just(json!(7)),
            Just(json!("ping")),
            Just(Value::Null),
            Just(json!(true))
        ],
    ]
    .prop_map(|frame| json!({"raw": frame.to_string(), "expects": code::INVALID_REQUEST}));
    prop_oneof![not_json, invalid].boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_variables_and_their_expansion() {
        let template = "file:///{+path}/x{?q,page}{#frag}";
        assert_eq!(variables(template), ["path", "q", "page", "frag"]);
        let values = json!({"path": "a/b c", "q": "x y", "page": 2, "frag": "f"});
        assert_eq!(expand(template, &values), "file:///a/b c/x?q=x%20y&page=2#f");
        assert_eq!(expand("item://{id}", &json!({"id": "é/1"})), "item://%C3%A9%2F1");
    }

    #[test]
    fn listings_become_subjects_of_the_kinds_asked_for() {
        let prompts =
            [json!({"name": "greet", "arguments": [{"name": "who", "required": true}, {"name": "tone"}]})];
        let templates = [json!({"uriTemplate": "item://{id}", "name": "item"})];
        let all = subjects(&Kind::ALL, vec![("echo".into(), json!({}))], &prompts, &templates);
        let kinds: Vec<Kind> = all.iter().map(Subject::kind).collect();
        assert_eq!(
            kinds,
            [
                Kind::Tools,
                Kind::Prompts,
                Kind::Completions,
                Kind::Completions,
                Kind::Resources,
                Kind::Completions,
                Kind::Methods,
                Kind::Frames
            ]
        );
        let Subject::Prompt { schema, .. } = &all[1] else {
            panic!()
        };
        assert_eq!(schema["required"], json!(["who"]));
        let only_prompts = subjects(
            &[Kind::Prompts],
            vec![("echo".into(), json!({}))],
            &prompts,
            &templates,
        );
        assert_eq!(only_prompts.len(), 1);
    }

    #[test]
    fn requests_of_each_subject() {
        let template = Subject::Template {
            template: "item://{id}".into(),
            schema: json!({}),
        };
        assert_eq!(
            template.request(&json!({"id": "7"})),
            ("resources/read".into(), json!({"uri": "item://7"}))
        );
        let completion = Subject::Completion {
            reference: json!({"type": "ref/prompt", "name": "greet"}),
            argument: "who".into(),
        };
        let (method, params) = completion.request(&json!({"value": "a"}));
        assert_eq!(method, "completion/complete");
        assert_eq!(params["argument"], json!({"name": "who", "value": "a"}));
        assert!(!Subject::UnknownMethod.admits(&json!({"method": "tools/list"})));
        assert!(Subject::UnknownMethod.admits(&json!({"method": "tools/frobnicate"})));
    }

    #[test]
    fn malformed_frames_are_one_line_and_what_they_claim() {
        let frames = super::super::arguments::sample(&malformed_frames(), 3, 300);
        let codes: Vec<i64> = frames.iter().map(|f| raw_frame(f).1).collect();
        assert!(codes.contains(&code::PARSE_ERROR) && codes.contains(&code::INVALID_REQUEST));
        for frame in &frames {
            let (text, expects) = raw_frame(frame);
            assert!(!text.contains('\n') && !text.is_empty(), "{text:?}");
            let parsed = serde_json::from_str::<Value>(text);
            match expects {
                code::PARSE_ERROR => assert!(parsed.is_err(), "{text}"),
                _ => assert!(!parsed.unwrap().is_array(), "{text}"),
            }
        }
    }
}
