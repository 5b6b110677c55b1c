//! The `_meta` keys MCP defines: the per-request protocol fields (2026-07-28)
//! and the related-task key of 2025-11-25 tasks, named once for the checker
//! and the mock peers.

pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";
