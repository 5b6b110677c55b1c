//! The judge's rules beyond the frame checker: each turns what the runner
//! collected (a response, the transcript, what a step saw) into a [`Check`].
//! The runner only waits, sends and collects.
//!
//! - [`Check`]: the judgement of one expectation or rule.
//! - [`handshake`]: the answer to `initialize`.
//! - [`discover`]: the answer to the stateless era's `server/discover`.
//! - [`opening`]: how a client (or a gateway) opens a connection.
//! - [`origin`]: URLs a server named outside its origin.
//! - [`passthrough`]: a gateway keeps the client's token from its backends.
//! - [`defaults`]: what a check cites when the scenario names nothing.
//! - [`unanswered`]: a request of ours that got no response.
//! - [`generated`]: the answer to a generated request (`mcp-conform fuzz`).
//! - [`task_stored`]: a task of the extension, polled as soon as it is created.

mod check;
pub mod defaults;
mod describe;
pub mod discover;
pub mod generated;
pub mod handshake;
pub mod opening;
pub mod origin;
pub mod passthrough;
pub mod task_stored;
pub mod unanswered;

pub use check::Check;
pub use describe::summarize;
