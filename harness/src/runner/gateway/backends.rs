//! The mock servers behind a gateway under test. Over stdio the gateway
//! starts a backend with `mcp-conform serve --connect SOCKET`, as often as
//! it likes; each connection on a backend's socket gets a task that plays the
//! backend's script by itself while the steps run on the front. Over HTTP
//! each backend is one mock server on a loopback port, one session, that
//! records every request's headers (and where a watched value was in them). What every
//! connection sees is published to the [`Hub`], which the backend steps read
//! and command, and which is judged at the end.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use mcp_conform_core::evidence::http::HttpClientRecord;
use mcp_conform_core::matcher::MatchContext;
use mcp_conform_core::scenario::Scenario;
use mcp_conform_core::scenario::model::{Backend, Reply, ScriptedAnswer};
use mcp_conform_core::version::{ProtocolVersion, VersionSet};
use mcp_conform_core::wire::{Frame, RequestId};
use mcp_mock_peers::session::{MockSession, PeerRequest, RequestHandler, WaitError};
use mcp_mock_peers::transport::{HttpServerTransport, StreamTransport};
use serde_json::{Value, json};
use tokio::net::UnixListener;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::super::answers::{AnswerSource, ScriptHandler};
use super::super::frames::heard;
use super::super::mock_server::InitializeHandler;
use super::super::outcome::Check;

/// How often a connection's task takes commands and publishes what it saw.
pub const TICK: Duration = Duration::from_millis(10);
/// How long connection tasks get to publish their last frames at the end.
const LAST_PUBLISH: Duration = Duration::from_millis(200);

/// What the steps ask of one connection.
enum Command {
    Request {
        method: String,
        params: Option<Value>,
        answer: oneshot::Sender<Result<Value, WaitError>>,
    },
    Notify {
        method: String,
        params: Option<Value>,
    },
    Reply {
        id: RequestId,
        reply: Reply,
    },
}

/// Everything one connection from the gateway to a backend saw.
#[derive(Debug)]
pub struct ConnectionLog {
    pub transcript: Vec<Frame>,
    /// Each frame's place in the order of everything the backends saw.
    pub order: Vec<u64>,
    /// The gateway's requests, with their place in that order.
    pub requests: Vec<(u64, PeerRequest)>,
    /// Requests whose answer said `hold`, not replied to yet.
    held: Vec<PeerRequest>,
    /// The version we answered `initialize` with.
    pub version: Option<ProtocolVersion>,
    pub open: bool,
    /// What the scripted answers judged (their `expect`).
    pub checks: Vec<Check>,
    /// Over HTTP: every request the gateway made.
    pub http: Option<HttpClientRecord>,
    commands: mpsc::UnboundedSender<Command>,
}

impl ConnectionLog {
    /// The params of the gateway's `initialize`, if it sent one.
    pub fn initialize(&self) -> Option<&Value> {
        self.requests
            .iter()
            .find(|(_, r)| r.method == "initialize")
            .map(|(_, r)| r.params.as_ref().unwrap_or(&Value::Null))
    }

    /// The order of its latest request, if any.
    fn latest_request(&self) -> Option<u64> {
        self.requests.last().map(|(order, _)| *order)
    }
}

/// One backend: its answers and its connections.
#[derive(Debug)]
pub struct BackendLog {
    /// Answers added by `script` steps, newest first; they win over the
    /// backend's own.
    scripted: Vec<ScriptedAnswer>,
    pub connections: Vec<ConnectionLog>,
    /// The backend's own answers that served a request on any connection.
    pub used: BTreeSet<usize>,
    /// Over HTTP: where the gateway reaches it.
    pub url: Option<String>,
}

#[derive(Debug, Default)]
struct HubState {
    /// Frames seen by all backends so far: the order's next number.
    next: u64,
    backends: BTreeMap<String, BackendLog>,
    stopping: bool,
}

/// The backends of one scenario run. Cheap to clone; every clone is the
/// same hub. Its tasks run on a `LocalSet`.
#[derive(Debug, Clone)]
pub struct Hub {
    state: Arc<Mutex<HubState>>,
    tasks: Arc<Mutex<Vec<JoinHandle<()>>>>,
}

/// What a connection's task needs to answer `initialize`.
#[derive(Debug, Clone, Copy)]
struct Versions {
    accepted: VersionSet,
    fallback: ProtocolVersion,
}

/// How the gateway reaches its backends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum BackendTransport {
    /// A command on stdio (`mcp-conform serve --connect SOCKET`).
    #[default]
    Stdio,
    /// A URL over Streamable HTTP.
    Http,
}

impl Hub {
    /// Serves each backend of the scenario: on `DIR/NAME.sock` over stdio,
    /// on a loopback port over HTTP, where each request records which of
    /// its headers held one of the `watched` values.
    pub async fn listen(
        scenario: &Scenario,
        dir: &Path,
        fallback: ProtocolVersion,
        transport: BackendTransport,
        watched: &[String],
    ) -> std::io::Result<Hub> {
        let hub = Hub {
            state: Arc::default(),
            tasks: Arc::default(),
        };
        let versions = Versions {
            accepted: scenario.versions,
            fallback,
        };
        for backend in &scenario.backends {
            let served = Arc::new(backend.clone());
            let mut log = BackendLog {
                scripted: Vec::new(),
                connections: Vec::new(),
                used: BTreeSet::new(),
                url: None,
            };
            let task = match transport {
                BackendTransport::Stdio => {
                    let listener = UnixListener::bind(socket_path(dir, &backend.name))?;
                    hub.lock().backends.insert(backend.name.clone(), log);
                    tokio::task::spawn_local(accept(hub.clone(), served, listener, versions))
                }
                BackendTransport::Http => {
                    let server = HttpServerTransport::bind("127.0.0.1:0")
                        .await
                        .map_err(|e| std::io::Error::other(e.to_string()))?;
                    server.watch(watched.to_vec());
                    log.url = Some(server.url().to_owned());
                    hub.lock().backends.insert(backend.name.clone(), log);
                    let session = MockSession::new(server);
                    tokio::task::spawn_local(hub.clone().serve(served, session, versions))
                }
            };
            hub.tasks().push(task);
        }
        Ok(hub)
    }

    /// Where the gateway reaches each backend over HTTP.
    pub fn url(&self, backend: &str) -> Option<String> {
        self.with_backend(backend, |log| log.url.clone()).flatten()
    }

    /// Plays `backend` on one connection's `session` until it ends.
    async fn serve(self, backend: Arc<Backend>, session: MockSession, versions: Versions) {
        let (sender, commands) = mpsc::unbounded_channel();
        let Some(index) = self.open(&backend.name, sender) else {
            return;
        };
        let connection = Connection {
            hub: self,
            backend,
            index,
            versions,
        };
        connection.serve(session, commands).await;
    }

    fn lock(&self) -> MutexGuard<'_, HubState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn tasks(&self) -> MutexGuard<'_, Vec<JoinHandle<()>>> {
        self.tasks.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Reads one backend's log.
    pub fn with_backend<T>(&self, name: &str, read: impl FnOnce(&BackendLog) -> T) -> Option<T> {
        self.lock().backends.get(name).map(read)
    }

    /// The order's next number: everything seen later has this or more.
    pub fn mark(&self) -> u64 {
        self.lock().next
    }

    /// The open connection a backend's own request goes out on: the one
    /// that carried the gateway's latest request, else the newest.
    pub fn active_connection(&self, backend: &str) -> Option<usize> {
        self.with_backend(backend, |log| {
            let open = log.connections.iter().enumerate().filter(|(_, c)| c.open);
            open.max_by_key(|(i, c)| (c.latest_request(), *i)).map(|(i, _)| i)
        })
        .flatten()
    }

    /// The capabilities the gateway declared on a connection.
    pub fn client_capabilities(&self, backend: &str, connection: usize) -> Value {
        self.with_backend(backend, |log| {
            log.connections[connection]
                .initialize()
                .and_then(|p| p.get("capabilities"))
                .cloned()
        })
        .flatten()
        .unwrap_or(Value::Null)
    }

    /// Sends a request of the backend on a connection; the receiver gets the
    /// gateway's response message.
    pub fn request(
        &self,
        backend: &str,
        connection: usize,
        method: &str,
        params: Option<Value>,
    ) -> oneshot::Receiver<Result<Value, WaitError>> {
        let (answer, receiver) = oneshot::channel();
        let command = Command::Request {
            method: method.to_owned(),
            params,
            answer,
        };
        self.command(backend, connection, command);
        receiver
    }

    /// Sends a notification on every open connection of the backend;
    /// returns how many there were.
    pub fn notify(&self, backend: &str, method: &str, params: Option<&Value>) -> usize {
        let open: Vec<usize> = self
            .with_backend(backend, |log| {
                (0..log.connections.len())
                    .filter(|i| log.connections[*i].open)
                    .collect()
            })
            .unwrap_or_default();
        for connection in &open {
            let command = Command::Notify {
                method: method.to_owned(),
                params: params.cloned(),
            };
            self.command(backend, *connection, command);
        }
        open.len()
    }

    /// Answers the oldest held request of `method`; false when none is held.
    pub fn reply(&self, backend: &str, method: &str, reply: Reply) -> bool {
        let mut state = self.lock();
        let Some(log) = state.backends.get_mut(backend) else {
            return false;
        };
        let oldest = log
            .connections
            .iter()
            .enumerate()
            .flat_map(|(i, c)| c.held.iter().enumerate().map(move |(j, r)| (i, j, r)))
            .filter(|(_, _, r)| r.method == method)
            .min_by_key(|(i, _, r)| (log.connections[*i].order.get(r.index).copied(), *i))
            .map(|(i, j, _)| (i, j));
        let Some((connection, position)) = oldest else {
            return false;
        };
        let held = log.connections[connection].held.remove(position);
        let _ = log.connections[connection]
            .commands
            .send(Command::Reply { id: held.id, reply });
        true
    }

    /// From now on the backend answers from `answers` first.
    pub fn script(&self, backend: &str, answers: &[ScriptedAnswer]) {
        if let Some(log) = self.lock().backends.get_mut(backend) {
            let older = std::mem::take(&mut log.scripted);
            log.scripted = answers.iter().cloned().chain(older).collect();
        }
    }

    /// The requests of `method` the backend received at or after `from`, in order.
    pub fn requests_since(&self, backend: &str, from: u64, method: &str) -> Vec<(u64, PeerRequest)> {
        let mut found: Vec<(u64, PeerRequest)> = self
            .with_backend(backend, |log| {
                log.connections
                    .iter()
                    .flat_map(|c| c.requests.iter())
                    .filter(|(order, r)| *order >= from && r.method == method)
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        found.sort_by_key(|(order, _)| *order);
        found
    }

    /// What reached the backend at or after `from` (see [`heard`]).
    pub fn heard_since(&self, backend: &str, from: u64, forbid: &[String]) -> Vec<String> {
        self.with_backend(backend, |log| {
            log.connections
                .iter()
                .flat_map(|c| {
                    heard(
                        &c.transcript,
                        |i| c.order.get(i).is_some_and(|o| *o >= from),
                        forbid,
                    )
                })
                .collect()
        })
        .unwrap_or_default()
    }

    /// Stops the backends: connection tasks publish what they have left and
    /// end, then every task of the hub is aborted.
    pub async fn stop(&self) {
        self.lock().stopping = true;
        let deadline = Instant::now() + LAST_PUBLISH;
        while Instant::now() < deadline
            && self
                .lock()
                .backends
                .values()
                .any(|b| b.connections.iter().any(|c| c.open))
        {
            tokio::time::sleep(TICK).await;
        }
        for task in self.tasks().drain(..) {
            task.abort();
        }
    }

    fn command(&self, backend: &str, connection: usize, command: Command) {
        let state = self.lock();
        let sender = state
            .backends
            .get(backend)
            .and_then(|log| log.connections.get(connection))
            .map(|c| c.commands.clone());
        drop(state);
        match (sender, command) {
            (Some(sender), command) => {
                if let Err(mpsc::error::SendError(Command::Request { answer, .. })) = sender.send(command) {
                    let _ = answer.send(Err(closed()));
                }
            }
            (None, Command::Request { answer, .. }) => {
                let _ = answer.send(Err(closed()));
            }
            (None, _) => {}
        }
    }

    /// Registers a new connection of `backend`; returns its index.
    fn open(&self, backend: &str, commands: mpsc::UnboundedSender<Command>) -> Option<usize> {
        let mut state = self.lock();
        let log = state.backends.get_mut(backend)?;
        log.connections.push(ConnectionLog {
            transcript: Vec::new(),
            order: Vec::new(),
            requests: Vec::new(),
            held: Vec::new(),
            version: None,
            open: true,
            checks: Vec::new(),
            http: None,
            commands,
        });
        Some(log.connections.len() - 1)
    }
}

/// The socket of a backend in the scenario's directory.
pub fn socket_path(dir: &Path, backend: &str) -> PathBuf {
    dir.join(format!("{backend}.sock"))
}

fn closed() -> WaitError {
    WaitError::Transport("the gateway's connection to this backend is closed".into())
}

/// Accepts the gateway's connections to one backend.
async fn accept(hub: Hub, backend: Arc<Backend>, listener: UnixListener, versions: Versions) {
    while let Ok((stream, _)) = listener.accept().await {
        let (reader, writer) = stream.into_split();
        let session = MockSession::new(StreamTransport::new(reader, writer));
        let task = tokio::task::spawn_local(hub.clone().serve(backend.clone(), session, versions));
        hub.tasks().push(task);
    }
}

/// Answers the gateway on one connection: `initialize` from the backend's
/// server model, the rest from its script; `hold` keeps a request open.
struct BackendHandler<'a> {
    initialize: InitializeHandler<'a>,
    script: ScriptHandler<'a>,
    held: Vec<PeerRequest>,
}

impl RequestHandler for BackendHandler<'_> {
    fn answer(&mut self, request: &PeerRequest) -> Reply {
        if request.method == "initialize" {
            return self.initialize.answer(request);
        }
        match self.script.answer(request) {
            Reply::Hold => {
                self.held.push(request.clone());
                Reply::Hold
            }
            reply => reply,
        }
    }
}

/// One connection's task.
struct Connection {
    hub: Hub,
    backend: Arc<Backend>,
    index: usize,
    versions: Versions,
}

/// How far a connection's session has been published.
#[derive(Default)]
struct Published {
    frames: usize,
    requests: usize,
}

impl Connection {
    async fn serve(self, mut session: MockSession, mut commands: mpsc::UnboundedReceiver<Command>) {
        let mut vars = MatchContext::default();
        let no_capabilities = json!({});
        let mut published = Published::default();
        let mut pending: Vec<(Value, oneshot::Sender<Result<Value, WaitError>>)> = Vec::new();
        let mut answered = None;
        loop {
            let scripted = self
                .hub
                .with_backend(&self.backend.name, |log| log.scripted.clone())
                .unwrap_or_default();
            let mut handler = BackendHandler {
                initialize: InitializeHandler {
                    server: &self.backend.server,
                    versions: self.versions.accepted,
                    fallback: self.versions.fallback,
                    answered: answered.take(),
                },
                script: ScriptHandler {
                    step: &scripted,
                    scenario: &self.backend.answers,
                    vars: &mut vars,
                    declared: &no_capabilities,
                    checks: Vec::new(),
                    used: Vec::new(),
                    queues: None,
                },
                held: Vec::new(),
            };
            let mut gone = session
                .idle_until(Instant::now() + TICK, &mut handler)
                .await
                .is_some();
            while let Ok(command) = commands.try_recv() {
                gone |= run_command(&mut session, command, &mut pending).await;
            }
            let mut still = Vec::new();
            for (id, answer) in pending.drain(..) {
                match session.wait_response(&id, Instant::now(), &mut handler).await {
                    Ok(response) => {
                        let _ = answer.send(Ok(response.message));
                    }
                    Err(WaitError::TimedOut) => still.push((id, answer)),
                    Err(error) => {
                        let _ = answer.send(Err(error));
                    }
                }
            }
            pending = still;
            answered = handler.initialize.answered.take();
            let found = Found {
                checks: std::mem::take(&mut handler.script.checks),
                used: std::mem::take(&mut handler.script.used),
                held: std::mem::take(&mut handler.held),
                version: answered.as_deref().and_then(|v| v.parse().ok()),
            };
            drop(handler);
            let stopping = self.publish(&session, &mut published, found, gone);
            if gone || stopping {
                for (_, answer) in pending.drain(..) {
                    let _ = answer.send(Err(closed()));
                }
                self.publish(&session, &mut published, Found::default(), true);
                return;
            }
        }
    }

    /// Copies what is new in the session to the hub; returns whether the
    /// hub is stopping.
    fn publish(&self, session: &MockSession, published: &mut Published, found: Found, closed: bool) -> bool {
        let mut state = self.hub.lock();
        let state = &mut *state;
        let stopping = state.stopping;
        let Some(log) = state.backends.get_mut(&self.backend.name) else {
            return true;
        };
        log.used
            .extend(found.used.into_iter().filter_map(|source| match source {
                AnswerSource::Scenario(index) => Some(index),
                AnswerSource::Step(_) => None,
            }));
        let connection = &mut log.connections[self.index];
        for frame in &session.transcript()[published.frames..] {
            connection.transcript.push(frame.clone());
            connection.order.push(state.next);
            state.next += 1;
        }
        published.frames = session.transcript().len();
        for request in &session.peer_requests()[published.requests..] {
            let order = connection.order.get(request.index).copied().unwrap_or(state.next);
            connection.requests.push((order, request.clone()));
        }
        published.requests = session.peer_requests().len();
        connection.held.extend(found.held);
        connection.checks.extend(found.checks);
        if let Some(record) = session.http_client_record() {
            connection.http = Some(record);
        }
        if found.version.is_some() {
            connection.version = found.version;
        }
        if closed {
            connection.open = false;
        }
        stopping
    }
}

/// What one round of a connection's handler found.
#[derive(Default)]
struct Found {
    checks: Vec<Check>,
    used: Vec<AnswerSource>,
    held: Vec<PeerRequest>,
    version: Option<ProtocolVersion>,
}

/// Carries out one command; returns whether the connection is gone.
async fn run_command(
    session: &mut MockSession,
    command: Command,
    pending: &mut Vec<(Value, oneshot::Sender<Result<Value, WaitError>>)>,
) -> bool {
    match command {
        Command::Request {
            method,
            params,
            answer,
        } => match session.request(&method, params, None).await {
            Ok(id) => {
                pending.push((id, answer));
                false
            }
            Err(error) => {
                let _ = answer.send(Err(WaitError::Transport(error.to_string())));
                true
            }
        },
        Command::Notify { method, params } => session.notify(&method, params).await.is_err(),
        Command::Reply { id, reply } => session.answer(&id, reply).await.is_err(),
    }
}
