//! The stdio relay: the server is started from its command line (in its own
//! process group, like every server we start), and the client is either
//! whoever started us (our stdin and stdout) or a command we start with
//! `{server}` standing for a relay back to us over a Unix socket (the way
//! `test-client` reaches its clients). Frames pass unchanged, one line at a
//! time, each through the tap.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use mcp_mock_peers::transport::{StdioCommand, StdioTransport, StreamTransport, TransportEvent};
use tokio::net::UnixListener;
use tokio::time::Instant;

use super::client::{Client, expand};
use super::tap::Tap;
use crate::runner::mock_server::relay_command;
use crate::runner::socket_dir::SocketDir;

/// How long a started client has to exit once its server has gone.
const CLIENT_GRACE: Duration = Duration::from_secs(5);

/// Relays between `client` and the server started by `server` until either
/// side leaves; hands back the server with its stdin closed, to be shut
/// down once the recording is safe (a client may kill us soon after it
/// leaves).
pub async fn relay<W: Write>(
    server: &StdioCommand,
    client: &Client,
    tap: &mut Tap<W>,
    startup: Duration,
) -> Result<StdioTransport, String> {
    let mut server = StdioTransport::spawn(server).map_err(|e| e.to_string())?;
    match client {
        Client::Elsewhere => {
            let mut client = StreamTransport::new(tokio::io::stdin(), tokio::io::stdout());
            pass(&mut client, &mut server, None, tap).await;
        }
        Client::Command(words) => {
            let dir = SocketDir::new();
            started(words, dir.path(), &mut server, tap, startup).await?;
        }
    }
    server.close_stdin();
    Ok(server)
}

/// Starts the client and relays once its `{server}` has connected.
async fn started<W: Write>(
    words: &[String],
    dir: &Path,
    server: &mut StdioTransport,
    tap: &mut Tap<W>,
    startup: Duration,
) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let socket = dir.join("record.sock");
    let listener =
        UnixListener::bind(&socket).map_err(|e| format!("cannot listen on {}: {e}", socket.display()))?;
    let program = std::env::current_exe().map_err(|e| format!("cannot find mcp-conform itself: {e}"))?;
    let relay = relay_command(&program, &socket);
    let words_of_relay: Vec<String> = std::iter::once(relay.program.clone())
        .chain(relay.args.clone())
        .collect();
    let command = expand(words, "{server}", &words_of_relay, &relay.display())?;
    let mut process = StdioTransport::spawn(&command).map_err(|e| e.to_string())?;
    let accepted = tokio::time::timeout_at(Instant::now() + startup, listener.accept()).await;
    let Ok(Ok((stream, _))) = accepted else {
        let tail = process.stderr_tail();
        return Err(format!(
            "the client never started its server ({{server}}) within {} s; its stderr:\n{tail}",
            startup.as_secs()
        ));
    };
    let (reader, writer) = stream.into_split();
    let mut client = StreamTransport::new(reader, writer);
    pass(&mut client, server, Some(&mut process), tap).await;
    process.wait_exit(CLIENT_GRACE).await;
    Ok(())
}

/// Passes frames both ways until one side leaves. A started client's own
/// stdout is read and dropped (it is not the connection).
async fn pass<W: Write>(
    client: &mut StreamTransport,
    server: &mut StdioTransport,
    mut process: Option<&mut StdioTransport>,
    tap: &mut Tap<W>,
) {
    loop {
        tokio::select! {
            event = client.recv() => {
                let Some(TransportEvent::Frame(frame)) = event else { return };
                tap.client_sent(&frame);
                if server.send(&frame.raw).await.is_err() {
                    return;
                }
            }
            event = server.recv() => {
                let Some(TransportEvent::Frame(frame)) = event else { return };
                tap.server_sent(&frame);
                if client.send(&frame.raw).await.is_err() {
                    return;
                }
            }
            event = async { process.as_mut()?.recv().await }, if process.is_some() => {
                if !matches!(event, Some(TransportEvent::Frame(_))) {
                    // The client is gone; its relay's last frames may still come.
                    process = None;
                }
            }
        }
    }
}
