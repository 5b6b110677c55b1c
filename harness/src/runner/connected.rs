//! A session opened and handshaken by the engine, for a driver that sends
//! its own requests (`mcp-conform fuzz`) instead of a scenario's steps:
//! the same transport, handshake (or `server/discover`) and frame checks a
//! scenario run gets.

use mcp_conform_core::Verdict;
use mcp_conform_core::protocol::PeerRole;
use mcp_conform_core::scenario::Scenario;
use mcp_mock_peers::session::WaitError;
use serde_json::Value;
use tokio::time::{Duration, Instant};

use super::RunConfig;
use super::discover::discover;
use super::frames::check_frames;
use super::handshake::{Handshaken, handshake};
use super::outcome::Check;
use super::scenario::{client_session, open_transport};
use super::steps::{StepRunner, Stop, Wait};

/// How long a peer gets to exit by itself once we close its stdin.
const EXIT_GRACE: Duration = Duration::from_millis(500);

/// A live session with the server under test, past its handshake.
pub(crate) struct Connected<'s> {
    runner: StepRunner<'s>,
    config: &'s RunConfig,
}

impl<'s> Connected<'s> {
    /// Opens the transport and performs the handshake `scenario` (which
    /// carries the client's capabilities and info) asks for. An `Err` says
    /// why no session could be had.
    pub async fn open(scenario: &'s Scenario, config: &'s RunConfig) -> Result<Connected<'s>, String> {
        let transport = open_transport(config).map_err(|error| error.to_string())?;
        let session = client_session(transport, scenario, config);
        let mut runner = StepRunner::new(scenario, session, config);
        let handshaken = match runner.is_stateless() {
            true => discover(&mut runner, config).await,
            false => handshake(&mut runner, config).await,
        };
        let failed = runner.checks.iter().find(|check| check.verdict == Verdict::Fail);
        match (handshaken, failed) {
            (Handshaken::Stopped(Stop::Halted { note, .. }), _) => Err(note),
            (_, Some(check)) => Err(format!(
                "handshake: {}",
                check.message.clone().unwrap_or_else(|| check.name.clone())
            )),
            (Handshaken::Stopped(_), None) => Err("the handshake did not complete".into()),
            (Handshaken::Ready, None) => Ok(Connected { runner, config }),
        }
    }

    /// What the handshake (or discovery) told of the server: its
    /// `capabilities`, `info` and `protocolVersion`, as scenarios read `${server}`.
    pub fn server(&self) -> Value {
        self.runner.ctx.vars.get("server").cloned().unwrap_or(Value::Null)
    }

    /// Sends a request and waits for its response until `within` has passed.
    pub async fn request(
        &mut self,
        method: &str,
        params: Value,
        within: Duration,
    ) -> Result<Value, WaitError> {
        let deadline = Instant::now() + within;
        let id = self
            .runner
            .session
            .request(method, Some(params), None)
            .await
            .map_err(|error| WaitError::Transport(error.to_string()))?;
        self.runner
            .wait(Wait::Response(&id), deadline, &[])
            .await
            .map(|got| got.message())
    }

    /// Sends `text` as one line (malformed input), then a `ping`. The
    /// answer to the text if one came before the ping's answer, or within
    /// `grace` after it (a server may answer out of order); `None` when
    /// only the ping was answered: the text was ignored. `TimedOut` when
    /// not even the ping was answered within `within`.
    pub async fn send_raw(
        &mut self,
        text: &str,
        within: Duration,
        grace: Duration,
    ) -> Result<Option<Value>, WaitError> {
        let deadline = Instant::now() + within;
        let transport =
            |error: mcp_mock_peers::transport::TransportError| WaitError::Transport(error.to_string());
        self.runner
            .session
            .send_raw(format!("{text}\n").as_bytes())
            .await
            .map_err(transport)?;
        let ping = self
            .runner
            .session
            .request("ping", None, None)
            .await
            .map_err(transport)?;
        let first = self
            .runner
            .wait(Wait::AnyResponse, deadline, &[])
            .await?
            .message();
        if first.get("id") != Some(&ping) {
            // The text's answer came first; the ping's is still to come.
            self.runner.wait(Wait::Response(&ping), deadline, &[]).await?;
            return Ok(Some(first));
        }
        match self
            .runner
            .wait(Wait::AnyResponse, Instant::now() + grace, &[])
            .await
        {
            Ok(late) => Ok(Some(late.message())),
            Err(WaitError::TimedOut) => Ok(None),
            Err(error) => Err(error),
        }
    }

    /// Whether this session has taken in half of what one session may: a
    /// driver sending thousands of requests opens another before the
    /// received-frames budget would end a correct server as a flood.
    pub fn worn(&self) -> bool {
        self.runner.session.budget_half_spent()
    }

    /// Ends the session and judges every frame the server sent in it.
    pub async fn close(mut self) -> Vec<Check> {
        self.runner.session.shutdown(EXIT_GRACE).await;
        let mut checks = std::mem::take(&mut self.runner.checks);
        checks.extend(check_frames(
            self.runner.session.transcript(),
            self.runner.version,
            self.config.target.frames_on_stdio(),
            self.config,
            PeerRole::Client,
        ));
        checks
    }
}
