//! The mock authorization server the harness runs for a protected server
//! under test (issue 17): its signing keys, the tokens it mints on a
//! scenario's demand, and the documents it publishes (RFC 8414 metadata and
//! the JWKS). Serving them over HTTP and the reference server's protected
//! mode build on these pieces.

mod keys;
mod metadata;
mod minter;

pub use keys::{KeyGenerationFailed, SigningKey};
pub use metadata::{authorization_server_metadata, jwks};
pub use minter::{Claims, Minter, TokenChoice};
