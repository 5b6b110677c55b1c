//! `mcp-conform serve --connect SOCKET`: what the client under test starts.
//! It carries bytes unchanged between its stdin/stdout and the engine
//! listening on the socket, so the transcript is the client's own output.

use std::path::Path;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::UnixStream;

/// How long the engine's last words get once the client closed our stdin.
const LAST_WORDS: Duration = Duration::from_secs(1);

/// Relays until the engine ends the connection (or the client closes our
/// stdin and the engine has had its last words).
pub async fn serve_connected(socket: &Path) -> std::io::Result<()> {
    let stream = UnixStream::connect(socket).await?;
    let (from_engine, mut to_engine) = stream.into_split();
    let downstream = pump(from_engine, tokio::io::stdout());
    tokio::pin!(downstream);
    tokio::select! {
        done = &mut downstream => return done,
        _ = pump(tokio::io::stdin(), &mut to_engine) => {}
    }
    to_engine.shutdown().await?;
    let _ = tokio::time::timeout(LAST_WORDS, downstream).await;
    Ok(())
}

/// Copies until end-of-file, flushing every chunk so no line waits.
async fn pump(mut from: impl AsyncRead + Unpin, mut to: impl AsyncWrite + Unpin) -> std::io::Result<()> {
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let n = from.read(&mut buffer).await?;
        if n == 0 {
            return Ok(());
        }
        to.write_all(&buffer[..n]).await?;
        to.flush().await?;
    }
}
