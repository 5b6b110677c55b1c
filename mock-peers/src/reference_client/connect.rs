//! Reaching the server and finding its era. On stdio the probe goes first
//! on the one connection there is. Over HTTP it is a stateless POST of its
//! own: a stateless server goes on over that stateless transport, a legacy one
//! over a fresh Streamable HTTP transport, exactly as a legacy client would.

use super::era::{self, ServerEra};
use super::http_faults::FaultProxy;
use super::oauth::{self, Authorized, Credential};
use super::{ANSWER_TIMEOUT, ClientFault, ServerAddress};
use crate::session::{Envelope, MockSession};
use crate::transport::{HttpMode, HttpOptions, HttpTransport, StdioTransport, Transport};

/// A connection ready for the plan.
pub(super) struct Connection {
    pub session: MockSession,
    /// The era the probe found, or why the client cannot go on.
    pub found: Result<ServerEra, String>,
    /// The HTTP fault's proxy; it stops when dropped.
    pub proxy: Option<FaultProxy>,
    /// The token the server asked for, if it asked.
    pub authorized: Option<Authorized>,
}

/// Starts (or reaches) the server and probes its era, announcing the client
/// as `envelope` says.
pub(super) async fn connect(
    server: &ServerAddress,
    fault: Option<ClientFault>,
    envelope: &Envelope,
) -> Result<Connection, String> {
    match server {
        ServerAddress::Command(command) => {
            let transport = StdioTransport::spawn(command).map_err(|e| e.to_string())?;
            let mut session = MockSession::new(transport);
            // Without the probe, initialize goes first (see `Host::initialize`).
            let found = if fault == Some(ClientFault::ModernNoProbe) {
                Ok(ServerEra::Legacy)
            } else {
                era::probe(&mut session, envelope, any_code(fault)).await
            };
            Ok(Connection {
                session,
                found,
                proxy: None,
                authorized: None,
            })
        }
        ServerAddress::Url(url) => connect_http(url, fault, envelope).await,
    }
}

async fn connect_http(
    url: &str,
    fault: Option<ClientFault>,
    envelope: &Envelope,
) -> Result<Connection, String> {
    let proxy = match fault.filter(|f| f.is_http() && !f.is_auth()) {
        Some(fault) => Some(FaultProxy::start(url, fault).await?),
        None => None,
    };
    // The proxy stands in front of the transport of its fault's era only.
    let through_proxy = |stateless: bool| {
        proxy
            .as_ref()
            .filter(|_| fault.is_some_and(|f| f.is_modern()) == stateless)
            .map_or(url, FaultProxy::url)
            .to_owned()
    };
    let mut session = MockSession::new(http(through_proxy(true), true, None)?);
    let mut found = era::probe(&mut session, envelope, any_code(fault)).await;
    let mut authorized = None;
    if let Some(challenge) = oauth::challenge_in(session.transcript()) {
        let granted = oauth::authorize(url, &challenge, fault).await?;
        session = MockSession::new(http(through_proxy(true), true, Some(&granted.credential))?);
        found = era::probe(&mut session, envelope, any_code(fault)).await;
        authorized = Some(granted);
    }
    if found == Ok(ServerEra::Legacy) {
        let credential = authorized.as_ref().map(|a| &a.credential);
        session = MockSession::new(http(through_proxy(false), false, credential)?);
    }
    Ok(Connection {
        session,
        found,
        proxy,
        authorized,
    })
}

/// Whether any error but a stateless one means a legacy server (MODN-010).
fn any_code(fault: Option<ClientFault>) -> bool {
    fault != Some(ClientFault::ProbeFallsBackOnOneCode)
}

/// A Streamable HTTP transport of the stateless era, or of the legacy one,
/// presenting `credential` when the server asked for one.
fn http(url: String, stateless: bool, credential: Option<&Credential>) -> Result<Transport, String> {
    let (url, headers) = match credential {
        None => (url, Vec::new()),
        Some(Credential::Header(token)) => {
            (url, vec![("Authorization".to_owned(), format!("Bearer {token}"))])
        }
        Some(Credential::Query(token)) => (format!("{url}?access_token={token}"), Vec::new()),
    };
    let options = HttpOptions {
        mode: HttpMode::Streamable,
        answer_timeout: ANSWER_TIMEOUT,
        stateless,
        headers,
        ..HttpOptions::new(url)
    };
    HttpTransport::new(options)
        .map(Transport::from)
        .map_err(|e| e.to_string())
}
