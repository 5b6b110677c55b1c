//! The peers mcp-conform plays on the wire.
//!
//! - [`transport`]: stdio (and later Streamable HTTP) carrying raw frames.
//! - [`client`]: the mock client session: ids, pending requests, scripted
//!   answers to the peer's requests, and the transcript of everything.

pub mod client;
mod faults;
pub mod reference;
pub mod reference_client;
pub mod reference_gateway;
pub mod transport;
