//! One stdio connection of the dual-era server. It serves a legacy session
//! until a request says otherwise: `initialize` settles on legacy, a
//! request with the per-request `_meta` of 2026-07-28 settles on stateless,
//! and from then on the connection stays in that mode. Anything before
//! either (a `ping`, a request sent too early) is answered as a legacy
//! server answers it before `initialize`.

use std::sync::{Arc, Mutex};

use mcp_conform_core::version::Era;
use serde_json::Value;

use super::dispatch::Server;
use super::era;
use super::sink::Sink;
use super::stateless::{Connection, StatelessServer};

#[derive(Debug)]
pub(crate) struct DualEra {
    legacy: Arc<Server>,
    stateless: Arc<Connection>,
    era: Mutex<Option<Era>>,
}

impl DualEra {
    pub fn new(sink: Sink) -> DualEra {
        DualEra {
            legacy: Server::new(sink.clone()),
            stateless: Connection::new(StatelessServer::new(), sink, None),
            era: Mutex::new(None),
        }
    }

    /// Handles one input line in the connection's mode.
    pub fn on_line(&self, line: &str) {
        match self.era_of(line) {
            Era::Stateful => self.legacy.on_line(line),
            Era::Stateless => self.stateless.on_line(line),
        }
    }

    /// The mode `line` is served in, settling it if `line` decides.
    fn era_of(&self, line: &str) -> Era {
        let mut settled = self.era.lock().expect("era lock");
        if let Some(era) = *settled {
            return era;
        }
        let message: Value = serde_json::from_str(line).unwrap_or(Value::Null);
        let decided = if era::is_stateless_request(&message) {
            Some(Era::Stateless)
        } else {
            let opens = message.get("method").and_then(Value::as_str) == Some("initialize");
            (opens && message.get("id").is_some()).then_some(Era::Stateful)
        };
        *settled = decided;
        decided.unwrap_or(Era::Stateful)
    }

    /// The input ended.
    pub async fn shut_down(&self) {
        let era = *self.era.lock().expect("era lock");
        match era {
            Some(Era::Stateless) => self.stateless.shut_down().await,
            _ => self.legacy.shut_down().await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dual() -> DualEra {
        let (out, _) = tokio::io::duplex(64);
        DualEra::new(Sink::spawn(out, None))
    }

    #[tokio::test]
    async fn the_first_deciding_request_settles_the_mode() {
        let legacy = dual();
        assert_eq!(
            legacy.era_of(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            Era::Stateful
        );
        assert_eq!(*legacy.era.lock().unwrap(), None, "ping decides nothing");
        legacy.era_of(r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{}}"#);
        let stateless_request = r#"{"jsonrpc":"2.0","id":3,"method":"server/discover"}"#;
        assert_eq!(legacy.era_of(stateless_request), Era::Stateful);
        let stateless = dual();
        assert_eq!(stateless.era_of(stateless_request), Era::Stateless);
        let initialize = r#"{"jsonrpc":"2.0","id":4,"method":"initialize","params":{}}"#;
        assert_eq!(stateless.era_of(initialize), Era::Stateless);
    }
}
