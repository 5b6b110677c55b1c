//! Who this server is and what it offers: the same under every version,
//! with the fields each version knows.

use mcp_conform_core::version::{Era, ProtocolVersion};
use serde_json::{Value, json};

/// What the server tells clients about itself, for their models.
pub(crate) const INSTRUCTIONS: &str =
    "Reference MCP server bundled with mcp-conform; its tools exercise every protocol feature.";

/// The capabilities this server declares under `version`.
pub(crate) fn capabilities(version: ProtocolVersion) -> Value {
    let mut capabilities = json!({
        "tools": { "listChanged": true },
        "resources": { "subscribe": true, "listChanged": true },
        "prompts": { "listChanged": true },
        "logging": {},
    });
    if version >= ProtocolVersion::V2025_03_26 {
        capabilities["completions"] = json!({});
    }
    if version == super::tasks::VERSION {
        capabilities["tasks"] = super::tasks::capability();
    }
    if version.era() == Era::Stateless {
        capabilities["extensions"] = super::stateless::tasks::capability();
    }
    capabilities
}

/// How this server names itself under `version`.
pub(crate) fn server_info(version: ProtocolVersion) -> Value {
    let mut info = json!({ "name": "mcp-conform-reference", "version": env!("CARGO_PKG_VERSION") });
    if version >= ProtocolVersion::V2025_06_18 {
        info["title"] = json!("mcp-conform reference server");
    }
    if version >= ProtocolVersion::V2025_11_25 {
        info["description"] = json!("A small, spec-following MCP server used to calibrate mcp-conform.");
    }
    info
}
