//! The bundled reference MCP server: small, hand-written, and meant to follow
//! each stateful protocol version (2024-11-05 through 2025-11-25) exactly, so
//! that `mcp-conform run` without a server argument comes out all green.
//!
//! Transport is stdio: newline-delimited JSON-RPC on stdin/stdout, diagnostics
//! on stderr, exit on stdin EOF. Requests are served concurrently: a
//! `tools/call` waiting on the client (elicitation, sampling, roots) or
//! sleeping never blocks `ping` or other requests.

mod completion;
mod dispatch;
mod fault;
mod jsonrpc;
mod outbound;
mod pagination;
mod prompts;
mod resources;
mod session;
mod sink;
mod tools;

use std::sync::Arc;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, BufReader};

use self::dispatch::Server;
pub use self::fault::Fault;
use self::fault::FaultLayer;
use self::sink::Sink;

/// Serves one MCP session over `input`/`output` until `input` ends,
/// breaking the rule `fault` names, if any.
pub async fn serve<R, W>(input: R, output: W, fault: Option<Fault>) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let fault = fault.map(|fault| Arc::new(FaultLayer::new(fault)));
    let sink = Sink::spawn(output, fault.clone());
    let server = Server::new(sink.clone());
    let mut lines = BufReader::new(input);
    let mut line = Vec::new();
    let read_result = loop {
        line.clear();
        match lines.read_until(b'\n', &mut line).await {
            Ok(0) => break Ok(()),
            Ok(_) => {
                let text = String::from_utf8_lossy(&line);
                let text = text.trim();
                if text.is_empty() {
                    continue;
                }
                match &fault {
                    None => server.on_line(text),
                    Some(fault) => {
                        let inbound = fault.incoming(text);
                        if let Some(answer) = inbound.answer {
                            sink.send(answer);
                        }
                        if let Some(line) = inbound.line {
                            server.on_line(&line);
                        }
                    }
                }
            }
            Err(error) => break Err(error),
        }
    };
    server.shut_down().await;
    sink.close().await;
    read_result
}

/// Serves one MCP session on the process's stdin and stdout.
pub async fn serve_stdio(fault: Option<Fault>) -> std::io::Result<()> {
    serve(tokio::io::stdin(), tokio::io::stdout(), fault).await
}

/// The correct server on stdio, on a fresh current-thread runtime, for
/// callers without one.
pub fn serve_stdio_blocking() -> std::io::Result<()> {
    serve_stdio_blocking_with(None)
}

/// [`serve_stdio`] on a fresh current-thread runtime, for callers without one.
pub fn serve_stdio_blocking_with(fault: Option<Fault>) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let outcome = runtime.block_on(serve_stdio(fault));
    // Don't wait for tokio's blocking stdin reader: the session is over.
    runtime.shutdown_background();
    outcome
}
