//! Starting the gateway under test for one scenario: the config that points
//! at the scenario's backends (commands over stdio, or URLs over HTTP), the
//! command line's placeholders, and the front connection (its stdio, or
//! Streamable HTTP on a free port, with the front's token when the harness
//! is its authorization server).

use std::path::{Path, PathBuf};
use std::time::Duration;

use mcp_conform_core::scenario::Scenario;
use mcp_mock_peers::session::MockSession;
use mcp_mock_peers::transport::{HttpMode, HttpOptions, HttpTransport, StdioCommand, StdioTransport};
use serde_json::{Map, Value, json};
use tokio::time::Instant;

use super::super::mock_server::relay_command;
use super::backends::{BackendTransport, Hub, socket_path};
use crate::auth::FrontToken;

/// How often we try the gateway's port while it starts.
const POLL: Duration = Duration::from_millis(100);

/// A gateway under test: a command line with placeholders. `{config}` is a
/// generated `{"mcpServers": {...}}` file naming every backend, and
/// `{server:NAME}` one backend's command line (its URL over HTTP); `{port}`
/// a free loopback port where the gateway serves Streamable HTTP at `path`
/// (without it, the gateway is spoken to over its stdio); `{issuer}` the
/// mock issuer whose tokens a protected front accepts.
#[derive(Debug, Clone)]
pub struct GatewayUnderTest {
    pub command: String,
    pub path: String,
    /// The mcp-conform binary whose `serve --connect` plays the backends.
    pub serve_program: PathBuf,
    /// How the gateway reaches its backends.
    pub backends: BackendTransport,
}

impl GatewayUnderTest {
    /// A gateway whose backends run this very binary.
    pub fn new(command: &str, path: &str) -> GatewayUnderTest {
        GatewayUnderTest {
            command: command.to_owned(),
            path: path.to_owned(),
            serve_program: std::env::current_exe().unwrap_or_else(|_| PathBuf::from("mcp-conform")),
            backends: BackendTransport::Stdio,
        }
    }

    /// Whether the front is the gateway's stdio (no `{port}`).
    pub fn front_is_stdio(&self) -> bool {
        !self.command.contains("{port}")
    }

    /// The front's URL on `port`: the resource its tokens name.
    pub fn front_url(&self, port: u16) -> String {
        format!("http://127.0.0.1:{port}{}", self.path)
    }

    /// Whether the command line can start this backend.
    pub fn reaches(&self, backend: &str) -> bool {
        self.command.contains("{config}") || self.command.contains(&format!("{{server:{backend}}}"))
    }
}

/// The started gateway: the front session, and the process when the
/// session does not own it (HTTP).
pub struct Launched {
    pub session: MockSession,
    pub process: Option<StdioTransport>,
}

/// Why the gateway could not be started: a note and its stderr.
pub type LaunchError = (String, Option<String>);

/// The gateway's front for one scenario: its port (none: stdio), and the
/// token the client presents there when it is protected.
#[derive(Debug, Clone, Default)]
pub struct Front {
    pub port: Option<u16>,
    pub token: Option<FrontToken>,
}

/// How the config reaches one backend.
enum Reach {
    Command(StdioCommand),
    Url(String),
}

impl Reach {
    /// As `{server:NAME}` spells it.
    fn placeholder(&self) -> String {
        match self {
            Reach::Command(relay) => shell_word(&relay.display()),
            Reach::Url(url) => shell_word(url),
        }
    }
}

/// Writes the config, starts the gateway and connects the front.
pub async fn launch(
    gateway: &GatewayUnderTest,
    scenario: &Scenario,
    (dir, hub): (&Path, &Hub),
    front: &Front,
    startup_timeout: Duration,
) -> Result<Launched, LaunchError> {
    let reaches: Vec<(&str, Reach)> = scenario
        .backends
        .iter()
        .map(|b| {
            let reach = match hub.url(&b.name) {
                Some(url) => Reach::Url(url),
                None => Reach::Command(relay_command(&gateway.serve_program, &socket_path(dir, &b.name))),
            };
            (b.name.as_str(), reach)
        })
        .collect();
    let config = dir.join("mcp.json");
    std::fs::write(&config, mcp_servers(&reaches).to_string())
        .map_err(|e| (format!("cannot write {}: {e}", config.display()), None))?;
    let mut line = gateway
        .command
        .replace("{config}", &shell_word(&config.display().to_string()));
    for (name, reach) in &reaches {
        line = line.replace(&format!("{{server:{name}}}"), &reach.placeholder());
    }
    if let Some(token) = &front.token {
        line = line.replace("{issuer}", &shell_word(&token.issuer));
    }
    let port = front.port;
    if let Some(port) = port {
        line = line.replace("{port}", &port.to_string());
    }
    let command = StdioCommand::parse(&line).map_err(|e| (format!("--command: {e}"), None))?;
    let mut process = StdioTransport::spawn(&command).map_err(|e| (e.to_string(), None))?;
    let Some(port) = port else {
        return Ok(Launched {
            session: MockSession::new(process),
            process: None,
        });
    };
    if let Err(note) = wait_for_port(&mut process, port, startup_timeout).await {
        let tail = process.stderr_tail();
        process.shutdown(Duration::ZERO).await;
        return Err((note, (!tail.trim().is_empty()).then_some(tail)));
    }
    let bearer = front
        .token
        .iter()
        .map(|t| ("authorization".to_owned(), format!("Bearer {}", t.token)));
    let http = HttpTransport::new(HttpOptions {
        url: gateway.front_url(port),
        headers: bearer.collect(),
        mode: HttpMode::Streamable,
        answer_timeout: startup_timeout,
        stateless: false,
    });
    match http {
        Ok(http) => Ok(Launched {
            session: MockSession::new(http),
            process: Some(process),
        }),
        Err(error) => {
            process.shutdown(Duration::ZERO).await;
            Err((error.to_string(), None))
        }
    }
}

/// `{"mcpServers": {NAME: {"command": ..., "args": [...]}}}` (over HTTP
/// `{NAME: {"url": ...}}`), the format most gateways and hosts read.
fn mcp_servers(reaches: &[(&str, Reach)]) -> Value {
    let servers: Map<String, Value> = reaches
        .iter()
        .map(|(name, reach)| {
            let entry = match reach {
                Reach::Command(relay) => json!({"command": relay.program, "args": relay.args}),
                Reach::Url(url) => json!({"url": url}),
            };
            ((*name).to_owned(), entry)
        })
        .collect();
    json!({ "mcpServers": servers })
}

/// A text as one word of a shell-like command line.
pub fn shell_word(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// A loopback port nothing listens on right now, for a peer to bind later.
pub fn free_loopback_port() -> std::io::Result<u16> {
    // The port is free when asked but bound later by the peer. Ports the
    // kernel hands out (bind to port 0, outgoing connections) come from its
    // ephemeral range, where any process may take ours in between, or be
    // told the same port (another test binary's peer, which our readiness
    // probe would then reach). So pick at random below that range, never
    // hand out a port twice in one process, and claim it across processes
    // with a lock file held for this process's lifetime (two test binaries
    // once drew the same port in the same second).
    static HANDED_OUT: std::sync::Mutex<std::collections::BTreeMap<u16, Option<std::fs::File>>> =
        std::sync::Mutex::new(std::collections::BTreeMap::new());
    const LOWEST: u16 = 20_000;
    let mut handed_out = HANDED_OUT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let below = ephemeral_range_start().max(LOWEST + 1000);
    for _ in 0..1000 {
        let port = LOWEST + u16::try_from(random() % u64::from(below - LOWEST)).unwrap_or(0);
        if handed_out.contains_key(&port) {
            continue;
        }
        let Ok(claim) = claim_across_processes(port) else {
            continue;
        };
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            handed_out.insert(port, claim);
            return Ok(port);
        }
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::AddrInUse,
        format!("no free loopback port between {LOWEST} and {below}"),
    ))
}

/// An exclusive lock on a file named after `port` in the temporary
/// directory: `Err` while another process holds it, `Ok(None)` where no lock
/// file can be made (the bind check alone then decides).
fn claim_across_processes(port: u16) -> Result<Option<std::fs::File>, ()> {
    let directory = std::env::temp_dir().join("mcp-conform-ports");
    let file = std::fs::create_dir_all(&directory).and_then(|()| {
        std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(directory.join(port.to_string()))
    });
    match file {
        Ok(file) => match file.try_lock() {
            Ok(()) => Ok(Some(file)),
            Err(_) => Err(()),
        },
        Err(_) => Ok(None),
    }
}

/// The first port of the kernel's ephemeral range (Linux; 32768 elsewhere).
fn ephemeral_range_start() -> u16 {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|text| text.split_whitespace().next()?.parse().ok())
        .unwrap_or(32_768)
}

/// A number no other process derives the same way: std's hasher keys are
/// random per process and per instance.
fn random() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish()
}

/// Waits until something accepts connections on the port, while the
/// gateway runs.
pub async fn wait_for_port(process: &mut StdioTransport, port: u16, within: Duration) -> Result<(), String> {
    let deadline = Instant::now() + within;
    loop {
        if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            return Ok(());
        }
        if let Some(exit) = process.try_exit() {
            return Err(format!(
                "the gateway {} before listening on 127.0.0.1:{port}",
                exit.description
            ));
        }
        if Instant::now() > deadline {
            return Err(format!(
                "the gateway did not listen on 127.0.0.1:{port} within {} ms",
                within.as_millis()
            ));
        }
        tokio::time::sleep(POLL).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_port_is_handed_out_twice() {
        let ports: Vec<u16> = (0..200).map(|_| free_loopback_port().unwrap()).collect();
        let distinct: std::collections::BTreeSet<&u16> = ports.iter().collect();
        assert_eq!(distinct.len(), ports.len());
    }

    #[test]
    fn a_port_handed_out_is_claimed_against_other_processes() {
        // flock conflicts between open file descriptions, so a second
        // claim in this process stands in for another process's.
        let port = free_loopback_port().unwrap();
        assert!(claim_across_processes(port).is_err());
    }

    #[test]
    fn the_config_names_every_backend_with_its_relay_or_url() {
        let relay = relay_command(Path::new("/bin/mcp-conform"), Path::new("/tmp/x/alpha.sock"));
        let config = mcp_servers(&[("alpha", Reach::Command(relay))]);
        assert_eq!(
            config,
            json!({"mcpServers": {"alpha": {
                "command": "/bin/mcp-conform",
                "args": ["serve", "--connect", "/tmp/x/alpha.sock"]
            }}})
        );
        let config = mcp_servers(&[("alpha", Reach::Url("http://127.0.0.1:4000/mcp".into()))]);
        assert_eq!(
            config,
            json!({"mcpServers": {"alpha": {"url": "http://127.0.0.1:4000/mcp"}}})
        );
    }

    #[test]
    fn placeholders_say_which_backends_a_command_reaches() {
        let named = GatewayUnderTest::new("bridge --stdio {server:alpha} --port {port}", "/mcp");
        assert!(named.reaches("alpha") && !named.reaches("beta"));
        assert!(!named.front_is_stdio());
        let configured = GatewayUnderTest::new("proxy {config}", "/mcp");
        assert!(configured.reaches("beta") && configured.front_is_stdio());
        assert_eq!(shell_word("it's"), r"'it'\''s'");
    }
}
