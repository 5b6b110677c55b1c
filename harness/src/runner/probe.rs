//! Which protocol versions a server speaks, for `--protocol all`: every
//! stateful version is offered in an `initialize` of its own (the server
//! speaks those it echoes), and `server/discover` asks for the stateless
//! ones (a legacy server refuses it). The probes run at once, each on its
//! own connection, and end at the startup timeout.

use std::time::Duration;

use mcp_conform_core::judge::discover::{Probe, classify};
use mcp_conform_core::version::{Era, ProtocolVersion};
use mcp_mock_peers::session::{DefaultHandler, Envelope, MockSession, WaitError};
use serde_json::{Value, json};
use tokio::task::{JoinSet, LocalSet};
use tokio::time::Instant;

use super::RunConfig;
use super::scenario::{default_client_info, open_transport};

/// How long a probe's connection gets to close.
const CLOSE_GRACE: Duration = Duration::from_millis(300);

/// What one probe learnt.
enum Learnt {
    Speaks(Vec<ProtocolVersion>),
    /// The server could not be reached at all.
    Unreachable(String),
}

/// The versions the server speaks, oldest first; an error when it could
/// not be reached, or speaks none of the versions mcp-conform knows.
pub async fn supported_versions(config: &RunConfig) -> Result<Vec<ProtocolVersion>, String> {
    // Sessions are not `Send`: the probes share this thread.
    LocalSet::new().run_until(probe_all(config)).await
}

async fn probe_all(config: &RunConfig) -> Result<Vec<ProtocolVersion>, String> {
    let mut probes = JoinSet::new();
    let stateful = ProtocolVersion::ALL
        .into_iter()
        .filter(|v| v.era() == Era::Stateful);
    for version in stateful {
        let config = RunConfig {
            protocol: version,
            ..config.clone()
        };
        probes.spawn_local(async move { initialize(&config).await });
    }
    let newest_stateless = ProtocolVersion::ALL
        .into_iter()
        .rfind(|v| v.era() == Era::Stateless);
    if let Some(newest) = newest_stateless {
        let config = RunConfig {
            protocol: newest,
            ..config.clone()
        };
        probes.spawn_local(async move { discover(&config).await });
    }
    let mut spoken = Vec::new();
    let mut unreachable = Vec::new();
    while let Some(learnt) = probes.join_next().await {
        match learnt {
            Ok(Learnt::Speaks(versions)) => spoken.extend(versions),
            Ok(Learnt::Unreachable(why)) => unreachable.push(why),
            Err(error) => unreachable.push(format!("a probe failed: {error}")),
        }
    }
    spoken.sort();
    spoken.dedup();
    match (spoken.is_empty(), unreachable.first()) {
        (false, _) => Ok(spoken),
        (true, Some(why)) => Err(format!("could not ask the server which versions it speaks: {why}")),
        (true, None) => Err("the server speaks none of the versions mcp-conform knows (its initialize echoed none, and it refused server/discover)".into()),
    }
}

/// Offers `config.protocol` in `initialize`: spoken when echoed.
async fn initialize(config: &RunConfig) -> Learnt {
    let offered = config.protocol;
    let params = json!({
        "protocolVersion": offered.as_str(),
        "capabilities": {},
        "clientInfo": default_client_info(),
    });
    match ask(config, None, "initialize", params).await {
        Answer::Message(answer) => {
            let echoed = answer.pointer("/result/protocolVersion").and_then(Value::as_str);
            Learnt::Speaks(if echoed == Some(offered.as_str()) {
                vec![offered]
            } else {
                Vec::new()
            })
        }
        Answer::Refused(_) | Answer::Silent => Learnt::Speaks(Vec::new()),
        Answer::Unreachable(why) => Learnt::Unreachable(why),
    }
}

/// Asks `server/discover` in the stateless era: the versions it lists (or,
/// refusing ours, names) that mcp-conform knows.
async fn discover(config: &RunConfig) -> Learnt {
    let envelope = Envelope {
        protocol_version: config.protocol.to_string(),
        capabilities: json!({}),
        info: default_client_info(),
    };
    let answer = match ask(config, Some(envelope), "server/discover", Value::Null).await {
        Answer::Message(answer) => Ok(answer),
        Answer::Refused(refusal) => Err(refusal),
        Answer::Silent => return Learnt::Speaks(Vec::new()),
        Answer::Unreachable(why) => return Learnt::Unreachable(why),
    };
    let named: Vec<String> = match classify(answer) {
        Probe::Modern(result) => result
            .get("supportedVersions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
        Probe::Unsupported { supported } => supported,
        Probe::Refused(_) | Probe::Legacy(_) => Vec::new(),
    };
    let known = named
        .iter()
        .filter_map(|v| v.parse::<ProtocolVersion>().ok())
        .filter(|v| v.era() == Era::Stateless);
    Learnt::Speaks(known.collect())
}

/// How one probe request ended.
enum Answer {
    /// A response.
    Message(Value),
    /// The transport's refusal instead of a response (an HTTP error without a message).
    Refused(String),
    /// No answer in time, or the server went away.
    Silent,
    /// The server could not be reached at all.
    Unreachable(String),
}

/// Sends one request on a connection of its own and waits for its answer.
async fn ask(config: &RunConfig, envelope: Option<Envelope>, method: &str, params: Value) -> Answer {
    let transport = match open_transport(config) {
        Ok(transport) => transport,
        Err(error) => return Answer::Unreachable(error.to_string()),
    };
    let mut session = MockSession::new(transport);
    if let Some(envelope) = envelope {
        session.speak_stateless(envelope);
    }
    let params = (!params.is_null()).then_some(params);
    // Counted from the send, which over HTTP may wait for the headers.
    let deadline = Instant::now() + config.startup_timeout;
    let answer = match session.request(method, params, None).await {
        Ok(id) => match session.wait_response(&id, deadline, &mut DefaultHandler).await {
            Ok(received) => Answer::Message(received.message),
            Err(WaitError::Transport(refusal)) => Answer::Refused(refusal),
            // Under a wrong id, still the server's answer: the scenarios judge the id.
            Err(WaitError::Stray(received) | WaitError::Malformed { answer: received, .. }) => {
                Answer::Message(received.message)
            }
            Err(WaitError::TimedOut | WaitError::Closed(_)) => Answer::Silent,
        },
        Err(error) => Answer::Unreachable(error.to_string()),
    };
    session.shutdown(CLOSE_GRACE).await;
    answer
}
