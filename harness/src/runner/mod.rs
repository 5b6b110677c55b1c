//! Runs scenarios against a peer and produces [`ScenarioOutcome`]s.
//!
//! - [`scenario`]: one scenario, start to end (applicability, handshake,
//!   steps, shutdown, frame checks).
//! - [`steps`]: what each step kind does on the wire.
//! - [`handshake`], [`discover`]: the handshake of a stateful version, and
//!   `server/discover` in its place in the stateless era.
//! - [`answers`]: scripted answers to the peer's own requests (delivered by
//!   the session as responses, or as input responses of a retry).
//! - [`verify`]: matcher results turned into checks.
//! - [`suite`]: many scenarios on worker threads, reported as events.
//! - [`schedule`]: which of them start first.
//! - [`connected`]: a handshaken session for a driver of its own (`fuzz`).
//! - [`failfast`]: when a run stops starting scenarios on an unusable peer.

mod answers;
mod connected;
mod discover;
mod failfast;
mod frames;
mod gateway;
mod handshake;
pub mod latency;
pub(crate) mod mock_server;
mod outcome;
mod probe;
mod scenario;
mod schedule;
pub(crate) mod socket_dir;
mod steps;
mod suite;
mod verify;

use std::time::Duration;

use mcp_conform_core::protocol::official::OfficialSchemas;
use mcp_conform_core::scenario::profile::Profile;
use mcp_conform_core::version::ProtocolVersion;
use mcp_mock_peers::transport::{HttpMode, StdioCommand, http::headers};

pub(crate) use connected::Connected;
pub use gateway::{BackendTransport, GatewayUnderTest, free_loopback_port, shell_word, wait_for_port};
pub use mock_server::{ClientUnderTest, serve_connected, serve_http, serve_stdio};
pub use outcome::{Check, ScenarioOutcome};
pub use probe::supported_versions;
pub use scenario::{run_scenario, run_scenario_over};
pub use suite::{RunEvent, case_count, run_matrix, run_suite, stream_matrix};

/// The peer under test and how to reach it.
#[derive(Debug, Clone)]
pub enum Target {
    /// A server started as a child process, spoken to over stdin/stdout.
    Stdio(StdioCommand),
    /// A server already listening at a URL, spoken to over Streamable HTTP
    /// or the legacy HTTP+SSE transport.
    Http {
        url: String,
        /// Sent on every request (`--header`).
        headers: Vec<(String, String)>,
        mode: HttpMode,
    },
    /// A client (or host) under test, started once per scenario; it starts
    /// our mock server itself (`role: client` scenarios).
    Client(ClientUnderTest),
    /// A gateway under test, started once per scenario with a config that
    /// points at the scenario's mock servers (`role: gateway` scenarios).
    Gateway(GatewayUnderTest),
}

impl Target {
    /// How the target reads in reports (secret header values redacted).
    pub fn display(&self) -> String {
        match self {
            Target::Stdio(command) => format!("stdio: {}", command.display()),
            Target::Http {
                url,
                headers: sent,
                mode,
            } => {
                let mut text = format!("http: {url} ({mode})");
                for (name, value) in sent {
                    text.push_str(&format!(" -H '{name}: {}'", headers::redacted(name, value)));
                }
                text
            }
            Target::Client(client) => format!("client: {}", client.command),
            Target::Gateway(gateway) => format!("gateway: {}", gateway.command),
        }
    }

    /// Whether the peer under test speaks to us over stdio (a client under
    /// test speaks it to `serve`; a gateway, unless it serves HTTP).
    pub fn frames_on_stdio(&self) -> bool {
        match self {
            Target::Stdio(_) => true,
            Target::Client(client) => !client.over_http,
            Target::Http { .. } => false,
            Target::Gateway(gateway) => gateway.front_is_stdio(),
        }
    }
}

/// Everything a run needs besides the scenarios.
#[derive(Debug, Clone)]
pub struct RunConfig {
    pub target: Target,
    /// The version the mock client offers.
    pub protocol: ProtocolVersion,
    pub profile: Option<Profile>,
    /// How long the peer has to answer `initialize`.
    pub startup_timeout: Duration,
    /// Official schemas to validate every frame against, on top of our model.
    pub official: Option<std::sync::Arc<OfficialSchemas>>,
    /// Whether a run stops starting scenarios once the peer has shown
    /// itself unusable (`failfast`); the CLI's default, off for the library.
    pub fail_fast: bool,
    /// Whether the HTTP server is protected and the tokens to present, when
    /// the harness is its authorization server (`crate::auth`).
    pub auth: Option<std::sync::Arc<crate::auth::AuthContext>>,
    /// Whether each case records how long its peer process took to start
    /// (`--timings`).
    pub timings: bool,
    /// The bounds of a `request` step's wait fitted to the peer's latency.
    pub timeouts: latency::TimeoutBounds,
}

impl RunConfig {
    /// A configuration with the defaults: newest stateful version, no profile.
    pub fn new(target: Target) -> RunConfig {
        RunConfig {
            target,
            protocol: ProtocolVersion::V2025_11_25,
            profile: None,
            startup_timeout: Duration::from_secs(10),
            official: None,
            fail_fast: false,
            auth: None,
            timings: false,
            timeouts: latency::TimeoutBounds::default(),
        }
    }
}
