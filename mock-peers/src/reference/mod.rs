//! The bundled reference MCP server: small, hand-written, and meant to follow
//! each protocol version exactly, so that `mcp-conform run` without a server
//! argument comes out all green. It is dual-era: the stateful versions
//! (2024-11-05 through 2025-11-25) after an `initialize` handshake, and the
//! stateless 2026-07-28 ([`stateless`]) for requests carrying its per-request
//! `_meta`; the first request that tells them apart settles the mode of a
//! stdio connection ([`dual`]), and each HTTP POST is judged on its own.
//!
//! Transports: stdio (newline-delimited JSON-RPC on stdin/stdout, diagnostics
//! on stderr, exit on stdin EOF), and HTTP ([`serve_http`]: Streamable HTTP
//! at `/mcp`, HTTP+SSE at `/sse`). Requests are served concurrently: a
//! `tools/call` waiting on the client (elicitation, sampling, roots) or
//! sleeping never blocks `ping` or other requests.

mod completion;
mod dispatch;
mod dual;
mod era;
mod fault;
mod http;
mod identity;
mod inflight;
mod outbound;
mod pagination;
mod prompts;
mod resources;
mod session;
pub(crate) mod sink;
mod stateless;
mod tasks;
mod tools;

use std::sync::Arc;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, BufReader};

use self::dual::DualEra;
pub use self::fault::Fault;
use self::fault::FaultLayer;
pub use self::http::{
    AuthorizationEndpoints, NEEDED_SCOPES, Protection, TokenValidation, serve_http, serve_http_protected,
};
use self::sink::Sink;
use crate::transport::http_server::MCP_PATH;

/// Serves one MCP session over `input`/`output` until `input` ends,
/// breaking the rule `fault` names, if any.
pub async fn serve<R, W>(input: R, output: W, fault: Option<Fault>) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let fault = fault.map(|fault| Arc::new(FaultLayer::new(fault)));
    let sink = Sink::spawn(output, fault.clone());
    let connection = DualEra::new(sink.clone());
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
                feed(|line| connection.on_line(line), &sink, fault.as_deref(), text);
            }
            Err(error) => break Err(error),
        }
    };
    connection.shut_down().await;
    sink.close().await;
    read_result
}

/// Hands one incoming message to `on_line`, through `fault` if any.
fn feed(on_line: impl Fn(&str), sink: &Sink, fault: Option<&FaultLayer>, text: &str) {
    match fault {
        None => on_line(text),
        Some(fault) => {
            let inbound = fault.incoming(text);
            if let Some(answer) = inbound.answer {
                sink.send(answer);
            }
            for line in &inbound.first {
                on_line(line);
            }
            if let Some(line) = inbound.line {
                on_line(&line);
            }
        }
    }
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

/// Binds `address` (e.g. `127.0.0.1:0`), prints
/// `listening on http://127.0.0.1:<port>/mcp` on stdout, and serves HTTP on
/// a fresh current-thread runtime until the process is killed. With an
/// `issuer` (its URL), the server is protected: its resource is that
/// endpoint URL, and its keys (or its introspection endpoint, as
/// `validation` says) come from the issuer's metadata; `endpoints` says
/// whether the origin offers that metadata or the default endpoints.
pub fn serve_http_blocking(
    address: &str,
    fault: Option<Fault>,
    issuer: Option<&str>,
    validation: TokenValidation,
    endpoints: AuthorizationEndpoints,
) -> std::io::Result<()> {
    use std::io::Write as _;

    ignore_sigpipe();

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(address).await?;
        let bound = listener.local_addr()?;
        let endpoint = format!("http://{bound}{MCP_PATH}");
        let protection = match issuer {
            Some(issuer) => {
                let resource = endpoint.parse().expect("a bound address makes a URL");
                let guard = crate::auth::ResourceGuard::discover(resource, issuer)
                    .await
                    .map_err(|why| std::io::Error::other(format!("--auth {issuer}: {why}")))?;
                let protection = Protection::new(guard, validation);
                let protection = match endpoints {
                    AuthorizationEndpoints::Metadata => protection,
                    AuthorizationEndpoints::Defaults => protection
                        .with_default_endpoints()
                        .map_err(|why| std::io::Error::other(format!("--auth-default-endpoints: {why}")))?,
                };
                Some(protection)
            }
            None => None,
        };
        let mut stdout = std::io::stdout();
        writeln!(stdout, "listening on {endpoint}")?;
        stdout.flush()?;
        serve_http_protected(listener, fault, protection).await
    })
}

/// A client that hangs up while its answer is written must cost an EPIPE
/// error, not the whole server: the `mcp-conform` binary restores SIGPIPE's
/// default action for its own piped output, so the server ignores it again.
#[expect(unsafe_code, reason = "signal(2) to ignore SIGPIPE; no memory is touched")]
fn ignore_sigpipe() {
    // SAFETY: setting a signal to SIG_IGN has no memory-safety preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
}
