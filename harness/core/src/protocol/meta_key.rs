//! The `_meta` keys of the per-request protocol fields (2026-07-28), named
//! once for the checker and both mock peers.

pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
