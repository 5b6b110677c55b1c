//! The reference gateway's connections: its front (stdio, or Streamable
//! HTTP on a loopback port, protected with `--auth`) and each server of its
//! config (a `command` on stdio, or a `url` over Streamable HTTP). Each
//! connection is a task of its own that turns what arrives into an
//! [`Event`] and writes what the gateway queues on its [`Link`].

use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::process::Command;
use tokio::sync::mpsc;

use super::front_guard::{FrontGuard, Presented};
use crate::auth::ResourceGuard;
use crate::transport::http_server::MCP_PATH;
use crate::transport::{
    HttpMode, HttpOptions, HttpServerTransport, HttpTransport, Transport, TransportEvent,
};

/// How long a backend over HTTP may take to answer `initialize`.
const BACKEND_ANSWER: Duration = Duration::from_secs(10);

/// Something that happened on one of the gateway's connections.
pub(super) enum Event {
    Front(Value),
    Backend(usize, Value),
    Closed,
}

/// What the gateway hands a connection's task.
enum Outgoing {
    Message(Value),
    /// Send `Authorization: Bearer` with this token from now on (HTTP only).
    Bearer(String),
}

/// Where the gateway writes to one connection.
pub(super) struct Link(mpsc::UnboundedSender<Outgoing>);

impl Link {
    pub(super) fn send(&self, message: &Value) {
        let _ = self.0.send(Outgoing::Message(message.clone()));
    }

    /// Presents `token` on every later request; stdio carries no headers.
    pub(super) fn bearer(&self, token: &str) {
        let _ = self.0.send(Outgoing::Bearer(token.to_owned()));
    }
}

/// How the gateway serves its client.
#[derive(Debug, Clone, Default)]
pub struct FrontOptions {
    /// Serve Streamable HTTP at `/mcp` on this loopback port (else stdio).
    pub port: Option<u16>,
    /// Accept only tokens this issuer (its URL) signs for the front's URL.
    pub auth: Option<String>,
}

/// The front: its link, and what the client presented, when protected.
pub(super) struct Front {
    pub link: Link,
    pub presented: Option<Presented>,
}

/// Starts serving the client as `options` say.
pub(super) async fn front(
    options: &FrontOptions,
    events: mpsc::UnboundedSender<Event>,
) -> Result<Front, String> {
    let (link, outgoing) = channel();
    let Some(port) = options.port else {
        tokio::spawn(read_lines(tokio::io::stdin(), events, Event::Front));
        tokio::spawn(write_lines(tokio::io::stdout(), outgoing));
        return Ok(Front {
            link,
            presented: None,
        });
    };
    // The guard is ready before the port opens: no request gets in unguarded.
    let front_guard = match &options.auth {
        Some(issuer) => {
            let url = format!("http://127.0.0.1:{port}{MCP_PATH}");
            let resource = url.parse().map_err(|e| format!("{url}: {e}"))?;
            Some(FrontGuard::new(ResourceGuard::discover(resource, issuer).await?))
        }
        None => None,
    };
    let server = HttpServerTransport::bind(&format!("127.0.0.1:{port}"))
        .await
        .map_err(|e| e.to_string())?;
    let presented = front_guard.as_ref().map(FrontGuard::presented);
    if let Some(front_guard) = front_guard {
        server.protect(Box::new(front_guard));
    }
    tokio::spawn(serve_http(
        server.into(),
        events,
        outgoing,
        Event::Front,
        Some(Event::Closed),
    ));
    Ok(Front { link, presented })
}

/// Connects to the backend `index` as its config `entry` says.
pub(super) fn backend(
    name: &str,
    index: usize,
    entry: &Value,
    events: &mpsc::UnboundedSender<Event>,
) -> Result<Link, String> {
    let (link, outgoing) = channel();
    if let Some(url) = entry["url"].as_str() {
        let options = HttpOptions {
            mode: HttpMode::Streamable,
            answer_timeout: BACKEND_ANSWER,
            ..HttpOptions::new(url)
        };
        let http = HttpTransport::new(options).map_err(|e| format!("{name}: {e}"))?;
        let as_event = move |message| Event::Backend(index, message);
        tokio::spawn(serve_http(http.into(), events.clone(), outgoing, as_event, None));
        return Ok(link);
    }
    let program = entry["command"].as_str().unwrap_or_default();
    let args: Vec<&str> = entry["args"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut child = Command::new(program)
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("{name}: {e}"))?;
    let stdin = child.stdin.take().ok_or("no stdin")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    tokio::spawn(read_lines(stdout, events.clone(), move |m| {
        Event::Backend(index, m)
    }));
    tokio::spawn(async move {
        write_lines(stdin, outgoing).await;
        // Held until the gateway stops writing, so that the child lives as long.
        drop(child);
    });
    Ok(link)
}

fn channel() -> (Link, mpsc::UnboundedReceiver<Outgoing>) {
    let (sender, receiver) = mpsc::unbounded_channel();
    (Link(sender), receiver)
}

/// Sends every JSON line of `from` as an event; the end of the front ends the gateway.
async fn read_lines(
    from: impl AsyncRead + Unpin,
    events: mpsc::UnboundedSender<Event>,
    event: impl Fn(Value) -> Event,
) {
    let mut lines = BufReader::new(from).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if let Ok(message) = serde_json::from_str(&line) {
            let _ = events.send(event(message));
        }
    }
    let _ = events.send(Event::Closed);
}

/// Writes each queued message as a line; stdio carries no bearer token.
async fn write_lines(mut to: impl AsyncWrite + Unpin, mut outgoing: mpsc::UnboundedReceiver<Outgoing>) {
    while let Some(next) = outgoing.recv().await {
        if let Outgoing::Message(message) = next {
            let mut line = message.to_string();
            line.push('\n');
            let _ = to.write_all(line.as_bytes()).await;
            let _ = to.flush().await;
        }
    }
}

/// One connection over Streamable HTTP (the client at the front, or a
/// backend): each message on as `as_event`, and `ended` once it ends.
async fn serve_http(
    mut transport: Transport,
    events: mpsc::UnboundedSender<Event>,
    mut outgoing: mpsc::UnboundedReceiver<Outgoing>,
    as_event: impl Fn(Value) -> Event,
    ended: Option<Event>,
) {
    loop {
        tokio::select! {
            next = outgoing.recv() => match next {
                Some(Outgoing::Message(message)) => {
                    let _ = transport.send(message.to_string().as_bytes()).await;
                }
                Some(Outgoing::Bearer(token)) => {
                    let _ = transport.set_bearer(&token);
                }
                None => return,
            },
            event = transport.recv() => if !pass_on(event, &events, &as_event) {
                if let Some(ended) = ended {
                    let _ = events.send(ended);
                }
                return;
            },
        }
    }
}

/// Passes a message that arrived on as an event; `false` once the
/// connection ended.
fn pass_on(
    event: Option<TransportEvent>,
    events: &mpsc::UnboundedSender<Event>,
    as_event: &impl Fn(Value) -> Event,
) -> bool {
    match event {
        Some(TransportEvent::Frame(frame)) => {
            if let Ok(message) = serde_json::from_slice(&frame.raw) {
                let _ = events.send(as_event(message));
            }
            true
        }
        Some(TransportEvent::Http(_)) => true,
        Some(TransportEvent::Closed(_)) | None => false,
    }
}
