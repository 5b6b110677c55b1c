//! What travels on the wire, kept byte for byte.
//!
//! A [`Frame`] is one message as sent or received: its raw bytes, when it was
//! seen, which way it went and what the transport knew about it. [`classify`]
//! reads a frame's bytes as JSON-RPC without normalising anything, and says
//! precisely why a frame is not a valid message when it is not.

//!
//! [`jsonrpc`] is the framing of the peers that answer messages, built on
//! the same reading; [`headers`] names the HTTP headers MCP defines, and
//! [`mirror`] says what a stateless POST mirrors of its body into them
//! (values not header-safe in [`base64`]).

pub mod base64;
mod classify;
mod frame;
pub mod headers;
pub mod jsonrpc;
pub mod mirror;

pub use classify::{Classified, ErrorObject, Invalid, RequestId, classify, malformed_answer};
pub use frame::{Direction, Frame, FrameMeta};
