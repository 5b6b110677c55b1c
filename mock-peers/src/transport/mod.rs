//! Transports carry frames between the mock peer and the peer under test.
//!
//! A transport never interprets what it carries: it delivers raw frames (and
//! the end of the connection) as [`TransportEvent`]s, so that malformed output
//! of the peer becomes a finding instead of an error on our side.

mod stdio;

pub use stdio::{StdioCommand, StdioTransport};

use mcp_conform_core::wire::Frame;

/// Something the transport observed.
#[derive(Debug, Clone)]
pub enum TransportEvent {
    /// A frame the peer sent.
    Frame(Frame),
    /// The peer went away; no more frames will come.
    Closed(PeerExit),
}

/// How the peer went away.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerExit {
    /// Exit code, when the process exited normally.
    pub code: Option<i32>,
    /// Signal number, when the process was killed by a signal.
    pub signal: Option<i32>,
    /// What we know in words ("exited with status 1", "stdout closed").
    pub description: String,
}

/// Our side could not carry on.
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    /// The peer could not be started at all.
    #[error("could not start `{program}`: {source}")]
    Spawn { program: String, source: std::io::Error },
    /// The command line was empty or could not be split.
    #[error("invalid command line: {0}")]
    CommandLine(String),
    /// Writing to the peer failed (it is probably gone).
    #[error("could not write to the peer: {0}")]
    Write(std::io::Error),
}
