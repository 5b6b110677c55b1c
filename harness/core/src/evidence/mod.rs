//! What a peer was seen to do beyond the messages it sent: facts a
//! transport records as plain data, so that the rules judging them live
//! here in core and need no I/O.
//!
//! - [`http`]: a client's HTTP requests to the mock server.
//! - [`oauth`]: a client's OAuth requests and how it presented tokens.
//! - [`origin`]: URLs a server named that the client refused to use.

pub mod http;
pub mod oauth;
pub mod origin;
