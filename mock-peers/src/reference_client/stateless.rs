//! What the stateless era (2026-07-28) changes in how the host follows the
//! plan: the session carries the envelope on every request and answers
//! input rounds by retrying; list changes are heard on a listen stream of
//! the host's own; and the stateless faults break those rules on purpose.

use mcp_conform_core::protocol::meta_key::{CLIENT_CAPABILITIES, CLIENT_INFO};
use serde_json::{Value, json};
use tokio::time::Instant;

use super::era::{self, ServerEra};
use super::{ANSWER_TIMEOUT, ClientFault, Host, listen, tasks};
use crate::session::{MockSession, RetryFault, WaitError};

impl Host {
    /// Speaks the stateless era from now on, to a server that declared
    /// `capabilities` in its discover result.
    pub(super) fn go_stateless(&mut self, capabilities: Value) {
        self.stateless = true;
        self.server_capabilities = capabilities;
        self.answers.stateless = true;
        let withheld = self.answers.plan.withholds("tasks");
        let capabilities = tasks::opted_in(self.answers.capabilities(), &self.server_capabilities, withheld);
        self.session.speak_stateless(era::envelope(capabilities));
        if let Some(fault) = self.retry_fault() {
            self.session.break_retries(fault);
        }
    }

    /// `modern-no-probe`: initialize was refused, so the probe comes after
    /// all; `false` (the client leaves) when it finds no stateless server.
    pub(super) async fn probe_after_refusal(&mut self) -> Result<bool, String> {
        let envelope = era::envelope(self.answers.capabilities());
        match era::probe(&mut self.session, &envelope, true).await? {
            ServerEra::Modern { capabilities } => {
                self.go_stateless(capabilities);
                Ok(true)
            }
            ServerEra::Legacy => Ok(false),
        }
    }

    /// Opens a listen stream for the lists of `nouns` whose changes the
    /// server announces, and waits for its acknowledgement; a stream that
    /// is refused, or never acknowledged, is not listened to.
    pub(super) async fn listen(&mut self, nouns: &[String]) -> Result<(), String> {
        let Some(filter) = listen::filter(nouns, &self.server_capabilities) else {
            return Ok(());
        };
        let id = self
            .send(listen::LISTEN, json!({"notifications": filter}))
            .await?;
        let settled = |session: &MockSession| {
            listen::acknowledged(session.notifications(), &id) || session.response_to(&id).is_some()
        };
        let deadline = Instant::now() + ANSWER_TIMEOUT;
        match self
            .session
            .wait_until(deadline, &mut self.answers, settled)
            .await
        {
            Ok(()) | Err(WaitError::TimedOut) => {}
            Err(other) => return Err(format!("{}: {other:?}", listen::LISTEN)),
        }
        if listen::acknowledged(self.session.notifications(), &id) {
            self.listening = Some(id);
        }
        Ok(())
    }

    /// Whether a list change `notification` is one the host hears: any, in
    /// the legacy era; in the stateless era, one on its own listen stream.
    pub(super) fn heard(&self, notification: &Value) -> bool {
        !self.stateless
            || self
                .listening
                .as_ref()
                .is_some_and(|id| listen::belongs_to(notification, id))
    }

    /// The envelope key a broken client leaves out of its requests' `_meta`.
    pub(super) fn meta_left_out(&self) -> Option<&'static str> {
        match self.fault? {
            ClientFault::ModernNoCapabilities if self.stateless => Some(CLIENT_CAPABILITIES),
            ClientFault::ModernNoClientInfo if self.stateless => Some(CLIENT_INFO),
            _ => None,
        }
    }

    /// How a broken client's retries break MRTR-006.
    fn retry_fault(&self) -> Option<RetryFault> {
        match self.fault? {
            ClientFault::ModernRetrySameId => Some(RetryFault::SameId),
            ClientFault::ModernStateAltered => Some(RetryFault::AlteredState),
            ClientFault::ModernStateInvented => Some(RetryFault::InventedState),
            ClientFault::ModernMissingInput => Some(RetryFault::MissingInput),
            _ => None,
        }
    }
}
