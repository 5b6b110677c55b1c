//! A scripted MCP client for ordinary Rust tests: start a server (or reach
//! it at a URL), declare the client's capabilities, queue the answers its
//! user and model give, call one tool, and get the result, the transcript
//! and the checker's findings back as values.
//!
//! The exchange is a one-step scenario run by the same engine and judged by
//! the same checker as `mcp-conform run`: queued answers follow the rules of
//! scenarios/README.md (answers of one kind are used in order; each must be
//! asked for; a request past the queue is a finding), and every frame is
//! checked against the protocol version spoken.
//!
//! ```
//! use mcp_conform::{assert_conformant, mock_client::MockClient};
//! use serde_json::json;
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! // The bundled reference server, in-process; `MockClient::command` starts one instead.
//! let (ours, theirs) = tokio::io::duplex(64 * 1024);
//! let (server_in, server_out) = tokio::io::split(theirs);
//! tokio::spawn(mcp_mock_peers::reference::serve(server_in, server_out, None));
//! let (client_in, client_out) = tokio::io::split(ours);
//! let exchange = MockClient::stream(client_in, client_out)
//!     .capabilities(json!({ "elicitation": {}, "sampling": {} }))
//!     .elicit_accept(json!({ "seat": "window" }))
//!     .sample_text("A sunny trip.")
//!     .elicit_accept(json!({ "confirm": true }))
//!     .call_tool_async("book", json!({ "destination": "Lisbon" }))
//!     .await
//!     .unwrap();
//! assert!(exchange.text().contains("summary=A sunny trip."), "{}", exchange.text());
//! assert_conformant!(exchange);
//! # }
//! ```

mod exchange;
mod script;

use std::time::Duration;

use mcp_conform_core::requirements::UserCatalogue;
use mcp_conform_core::scenario::load::load_text;
use mcp_conform_core::scenario::validate::Origin;
use mcp_conform_core::version::ProtocolVersion;
use mcp_mock_peers::transport::{HttpMode, StdioCommand, StreamTransport};
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite};

use crate::runner::{RunConfig, Target, run_scenario, run_scenario_over};
pub use exchange::Exchange;
use script::Script;

/// Why an exchange could not be run at all (a server that misbehaves is a
/// finding of the [`Exchange`], not an error).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MockClientError(pub String);

impl std::fmt::Display for MockClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MockClientError {}

/// A client to script, then run against one server with [`MockClient::call_tool`].
#[derive(Debug)]
pub struct MockClient {
    peer: Result<Peer, MockClientError>,
    protocol: ProtocolVersion,
    script: Script,
}

/// Where the server is.
enum Peer {
    /// Started or reached by the engine.
    Target(Target),
    /// The two halves of a byte stream to a server the caller runs.
    Stream(
        Box<dyn AsyncRead + Send + Unpin>,
        Box<dyn AsyncWrite + Send + Unpin>,
    ),
}

impl std::fmt::Debug for Peer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Peer::Target(target) => f.write_str(&target.display()),
            Peer::Stream(..) => f.write_str("a byte stream"),
        }
    }
}

/// How an in-process server's stream reads in reports: framed like stdio.
fn in_process() -> Target {
    Target::Stdio(StdioCommand {
        program: "in-process".into(),
        args: Vec::new(),
        env: Vec::new(),
        cwd: None,
    })
}

impl MockClient {
    /// A server started from `command_line` (split like a shell would, no
    /// shell run), spoken to over stdio.
    pub fn command(command_line: &str) -> MockClient {
        let target = StdioCommand::parse(command_line)
            .map(|command| Peer::Target(Target::Stdio(command)))
            .map_err(|e| MockClientError(e.to_string()));
        MockClient::to(target)
    }

    /// A server already listening at `url` (Streamable HTTP).
    pub fn url(url: &str) -> MockClient {
        MockClient::to(Ok(Peer::Target(Target::Http {
            url: url.to_owned(),
            headers: Vec::new(),
            mode: HttpMode::Streamable,
        })))
    }

    /// A server the caller runs (say, in-process on a `tokio::io::duplex`),
    /// reached through `reader` and `writer`, one message per line as on
    /// stdio. Only [`MockClient::call_tool_async`] can use it, on the
    /// runtime the server runs on.
    pub fn stream(
        reader: impl AsyncRead + Send + Unpin + 'static,
        writer: impl AsyncWrite + Send + Unpin + 'static,
    ) -> MockClient {
        MockClient::to(Ok(Peer::Stream(Box::new(reader), Box::new(writer))))
    }

    fn to(peer: Result<Peer, MockClientError>) -> MockClient {
        MockClient {
            peer,
            protocol: ProtocolVersion::V2025_11_25,
            script: Script::default(),
        }
    }

    /// The protocol version to speak (default 2025-11-25; 2026-07-28 asks
    /// in input rounds instead of server requests).
    pub fn protocol(mut self, version: ProtocolVersion) -> MockClient {
        self.protocol = version;
        self
    }

    /// The client's capabilities (default none): what the server may ask for.
    pub fn capabilities(mut self, capabilities: Value) -> MockClient {
        self.script.capabilities = capabilities;
        self
    }

    /// The user accepts the next form with `content`.
    pub fn elicit_accept(mut self, content: Value) -> MockClient {
        self.script
            .elicit(serde_json::json!({ "accept": { "content": content } }));
        self
    }

    /// The user declines the next form.
    pub fn elicit_decline(mut self) -> MockClient {
        self.script.elicit(Value::from("decline"));
        self
    }

    /// The user cancels the next form.
    pub fn elicit_cancel(mut self) -> MockClient {
        self.script.elicit(Value::from("cancel"));
        self
    }

    /// The model answers the next sampling request with `text`.
    pub fn sample_text(mut self, text: &str) -> MockClient {
        self.script.sample(text);
        self
    }

    /// How long the call may take, asks included (default 15 s).
    pub fn timeout(mut self, timeout: Duration) -> MockClient {
        self.script.timeout = timeout;
        self
    }

    /// Calls tool `name` with `arguments` and answers what the server asks
    /// from the queues, on a runtime of its own.
    pub fn call_tool(self, name: &str, arguments: Value) -> Result<Exchange, MockClientError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| MockClientError(format!("cannot start a runtime: {e}")))?;
        runtime.block_on(self.call_tool_async(name, arguments))
    }

    /// [`MockClient::call_tool`] on the caller's runtime.
    pub async fn call_tool_async(self, name: &str, arguments: Value) -> Result<Exchange, MockClientError> {
        let peer = self.peer?;
        let text = self.script.scenario(name, arguments).to_string();
        let path = std::path::Path::new("mock-client");
        let scenario =
            load_text(path, &text, Origin::User(&UserCatalogue::default())).map_err(|diagnostics| {
                let rendered: Vec<String> = diagnostics.iter().map(|d| d.render(false)).collect();
                MockClientError(rendered.join("\n"))
            })?;
        let (target, stream) = match peer {
            Peer::Target(target) => (target, None),
            Peer::Stream(reader, writer) => (in_process(), Some(StreamTransport::new(reader, writer))),
        };
        let config = RunConfig {
            protocol: self.protocol,
            ..RunConfig::new(target)
        };
        let outcome = match stream {
            None => run_scenario(&scenario, &config).await,
            Some(stream) => run_scenario_over(&scenario, &config, stream.into()).await,
        };
        Ok(Exchange::new(outcome))
    }
}

/// Fails the test with the exchange's findings unless every check passed
/// and nothing kept the exchange from being judged.
#[macro_export]
macro_rules! assert_conformant {
    ($exchange:expr) => {{
        let exchange: &$crate::mock_client::Exchange = &$exchange;
        assert!(exchange.is_conformant(), "{}", exchange.findings_report());
    }};
}
