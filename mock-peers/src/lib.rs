//! The peers mcp-conform plays on the wire.
//!
//! - [`transport`]: stdio, Streamable HTTP and HTTP+SSE carrying raw frames,
//!   and the mock server's own HTTP endpoint for clients under test.
//! - [`client`]: the mock client session: ids, pending requests, scripted
//!   answers to the peer's requests, and the transcript of everything.

pub mod client;
mod faults;
pub mod reference;
pub mod reference_client;
pub mod reference_gateway;
mod stateless_result;
pub mod transport;
