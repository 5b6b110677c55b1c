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

use super::tap::Tap;
use crate::runner::mock_server::{relay_command, socket_dir};

/// How long a started client has to exit once its server has gone.
const CLIENT_GRACE: Duration = Duration::from_secs(5);

/// Who the client is.
#[derive(Debug, Clone)]
pub enum Client {
    /// It started us: it speaks on our stdin and stdout.
    OwnStdio,
    /// We start it; `{server}` in its words is the command that reaches us.
    Command(Vec<String>),
}

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
        Client::OwnStdio => {
            let mut client = StreamTransport::new(tokio::io::stdin(), tokio::io::stdout());
            pass(&mut client, &mut server, None, tap).await;
        }
        Client::Command(words) => {
            let dir = socket_dir();
            let relayed = started(words, &dir, &mut server, tap, startup).await;
            let _ = std::fs::remove_dir_all(&dir);
            relayed?;
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
    let command = client_command(words, &relay_command(&program, &socket))?;
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

/// The client's command line with `{server}` expanded: a word that is
/// exactly `{server}` becomes the relay's words, and inside a longer word
/// its command line.
fn client_command(words: &[String], relay: &StdioCommand) -> Result<StdioCommand, String> {
    if !words.iter().any(|w| w.contains("{server}")) {
        return Err(
            "the client's command line has no {server}: put it where the client takes its server's command"
                .into(),
        );
    }
    let mut expanded = Vec::new();
    for word in words {
        match word.as_str() {
            "{server}" => {
                expanded.push(relay.program.clone());
                expanded.extend(relay.args.iter().cloned());
            }
            other => expanded.push(other.replace("{server}", &relay.display())),
        }
    }
    let mut words = expanded.into_iter();
    Ok(StdioCommand {
        program: words.next().unwrap_or_default(),
        args: words.collect(),
        env: Vec::new(),
        cwd: None,
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_in_the_client_command_becomes_the_relay() {
        let relay = StdioCommand::parse("mcp-conform serve --connect /tmp/s").expect("parses");
        let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let command = client_command(&words(&["client", "--", "{server}"]), &relay).expect("expands");
        assert_eq!(command.program, "client");
        assert_eq!(
            command.args,
            words(&["--", "mcp-conform", "serve", "--connect", "/tmp/s"])
        );
        let command = client_command(&words(&["client", "--server={server}"]), &relay).expect("expands");
        assert_eq!(
            command.args,
            words(&["--server=mcp-conform serve --connect /tmp/s"])
        );
        assert!(client_command(&words(&["client"]), &relay).is_err());
    }
}
