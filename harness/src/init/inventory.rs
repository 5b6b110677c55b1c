//! What a server offers, as its list requests answer: tools, prompts,
//! resources and resource templates, every page of each. Nothing is
//! called: `init` and `profile check` only read declarations.

use std::time::Duration;

use mcp_conform_core::scenario::Scenario;
use mcp_conform_core::scenario::load::load_str;
use mcp_conform_core::version::ProtocolVersion;
use serde_json::{Value, json};

use crate::cli::{CliError, ServerArgs};
use crate::runner::{Connected, RunConfig};

/// How long one list request may take.
const LIST_TIMEOUT: Duration = Duration::from_secs(10);
/// Most pages read of one list: a server repeating its cursor ends here.
const MAX_PAGES: usize = 100;

/// The session `init` speaks in: a client declaring every capability a
/// server may gate tools on (the everything server lists its elicitation,
/// sampling and roots tools only to such a client).
const SESSION_SCENARIO: &str = "\
id: init.session
title: mcp-conform init session
requirements: [TOOL-001]
client:
  capabilities: { elicitation: { form: {}, url: {} }, sampling: {}, roots: { listChanged: true } }
steps:
  - request: { method: tools/list }
";

/// A server's declarations.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Inventory {
    /// The capabilities it declared in the handshake (or discovery).
    pub capabilities: Value,
    /// Its `serverInfo` (`name`, `version`).
    pub info: Value,
    pub tools: Vec<Value>,
    pub prompts: Vec<Value>,
    pub resources: Vec<Value>,
    pub templates: Vec<Value>,
}

impl Inventory {
    /// Connects to the server of `server` speaking `protocol` and reads
    /// every list its capabilities announce.
    pub fn read(
        server: &ServerArgs,
        protocol: ProtocolVersion,
        startup: Duration,
    ) -> Result<Inventory, CliError> {
        let mut config = RunConfig::new(server.target().map_err(CliError::Usage)?);
        config.protocol = protocol;
        config.startup_timeout = startup;
        let scenario = session_scenario();
        let runtime = crate::cli::runtime()?;
        let _entered = runtime.enter();
        runtime.block_on(async {
            let mut connected = Connected::open(&scenario, &config)
                .await
                .map_err(|e| CliError::Infrastructure(format!("could not connect: {e}")))?;
            let server = connected.server();
            let capabilities = server["capabilities"].clone();
            let declares = |name: &str| capabilities.get(name).is_some_and(|c| !c.is_null());
            let mut inventory = Inventory {
                capabilities: capabilities.clone(),
                info: server["info"].clone(),
                ..Inventory::default()
            };
            if declares("tools") {
                inventory.tools = list_all(&mut connected, "tools/list", "tools").await?;
            }
            if declares("prompts") {
                inventory.prompts = list_all(&mut connected, "prompts/list", "prompts").await?;
            }
            if declares("resources") {
                inventory.resources = list_all(&mut connected, "resources/list", "resources").await?;
                inventory.templates =
                    list_all(&mut connected, "resources/templates/list", "resourceTemplates").await?;
            }
            connected.close().await;
            Ok(inventory)
        })
    }

    /// The names of `items` (tools, prompts), in the server's order.
    pub fn names(items: &[Value]) -> Vec<&str> {
        items.iter().filter_map(|item| item["name"].as_str()).collect()
    }
}

fn session_scenario() -> Scenario {
    load_str(std::path::Path::new("init-session.yaml"), SESSION_SCENARIO)
        .expect("the init session scenario is valid")
}

/// Every page of a list request: the items under `key` of each result,
/// following `nextCursor`.
async fn list_all(connected: &mut Connected<'_>, method: &str, key: &str) -> Result<Vec<Value>, CliError> {
    let mut items = Vec::new();
    let mut cursor: Option<Value> = None;
    for _ in 0..MAX_PAGES {
        let params = cursor
            .take()
            .map_or_else(|| json!({}), |c| json!({ "cursor": c }));
        let answer = connected
            .request(method, params, LIST_TIMEOUT)
            .await
            .map_err(|e| CliError::Infrastructure(format!("{method}: {e:?}")))?;
        let result = &answer["result"];
        let page = result[key].as_array().ok_or_else(|| {
            CliError::Infrastructure(format!("{method} answered without a `{key}` array: {answer}"))
        })?;
        items.extend(page.iter().cloned());
        match result.get("nextCursor") {
            Some(next) if !next.is_null() => cursor = Some(next.clone()),
            _ => return Ok(items),
        }
    }
    Ok(items)
}
