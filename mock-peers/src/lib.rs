//! The peers mcp-conform plays on the wire, in two layers; nothing below
//! imports anything above.
//!
//! - [`transport`], the bottom: stdio, the Streamable HTTP and HTTP+SSE
//!   client, and the server side of HTTP (`transport::http_server`: the one
//!   Streamable HTTP server core, parameterized by a request handler, and
//!   the mock server's endpoint on it), carrying raw frames; the SSE and
//!   header code both sides share. JSON-RPC framing and MCP header names
//!   come from the core crate (`mcp_conform_core::wire`).
//! - The peers, on top: [`session`] (the session the engine drives, as mock
//!   client or mock server), and the correct peers with their fault layers
//!   (their mutants): [`reference`](mod@reference) (the reference server, a handler on the
//!   HTTP core), [`reference_client`], [`reference_gateway`].
//! - [`auth`], beside the peers: the mock authorization server for a
//!   protected server under test (its keys, minted tokens, metadata and
//!   loopback HTTP issuer) and the resource-side token check.
//!
//! `faults` and `stateless_result` are leaves any layer may use (as is core's
//! `base64`).

use mcp_conform_core::wire::base64;
pub mod auth;
mod faults;
pub mod reference;
pub mod reference_client;
pub mod reference_gateway;
pub mod session;
mod stateless_result;
pub mod transport;
