//! A second authorization server that replaces the first mid-run (`auth:
//! {switch_authorization_server: …}`): from the switch on, the protected
//! resource metadata names only the second, and the mock server refuses
//! the first one's tokens. The client then registers again at the second
//! rather than bring it a client ID the first one issued (AUTH-048), and
//! once it has read the metadata naming the second it sends the mock server
//! no token of the first (AUTH-058).
//!
//! Both rules are judged only on a client seen admitted with a token of the
//! first server and reading the metadata again after the switch: a client
//! that did no OAuth, never reached the switch, or gave up there is
//! not-observed, never a pass.

use super::{Evidence, judge_each, path_of};
use crate::Level;
use crate::evidence::oauth::{AuthSwitch, REGISTER_PATH, issued_client_id};
use crate::protocol::cite;
use crate::protocol::client_http::Finding;

impl Evidence<'_> {
    /// The findings of the switch, when the scenario scripts one.
    pub(super) fn switch(&self) -> Vec<Finding> {
        let Some(switch) = &self.auth.switch else {
            return Vec::new();
        };
        vec![self.registers_again(switch), self.old_tokens_dropped(switch)]
    }

    /// AUTH-048: no request to the second authorization server carries a
    /// client ID the first one registered (a Client ID Metadata Document's
    /// URL is the client's own, and carries over).
    fn registers_again(&self, switch: &AuthSwitch) -> Finding {
        let first_ids: Vec<String> = self
            .auth
            .conversation
            .iter()
            .filter(|r| r.method == "POST" && r.path == REGISTER_PATH && r.status == 201)
            .map(|r| issued_client_id(&r.label))
            .collect();
        let unfollowed = self.switch_unfollowed(switch).or_else(|| {
            first_ids.is_empty().then(|| {
                "the first authorization server registered no client: it issued no client ID to carry over"
                    .to_owned()
            })
        });
        let finding = self.finding(
            "client IDs of one authorization server are not used at another",
            cite::AUTH_048,
            Level::Must,
            unfollowed
                .as_deref()
                .unwrap_or("the client sent the second authorization server no client ID"),
        );
        if unfollowed.is_some() {
            return finding;
        }
        let presented = switch
            .conversation
            .iter()
            .filter_map(|r| Some((r.label.as_str(), r.client_id()?)));
        judge_each(finding, presented, |(_, client_id)| {
            first_ids.iter().any(|id| id == client_id).then(|| {
                format!(
                    "client_id `{client_id}`, which {} registered, sent to {}",
                    self.auth.issuer, switch.issuer
                )
            })
        })
    }

    /// AUTH-058: once the client has read the metadata naming the second
    /// authorization server, every token it presents is the second's.
    fn old_tokens_dropped(&self, switch: &AuthSwitch) -> Finding {
        let unfollowed = self.switch_unfollowed(switch);
        let finding = self.finding(
            "no token of another authorization server is sent",
            cite::AUTH_058,
            Level::Must,
            unfollowed.as_deref().unwrap_or(
                "the client presented no token after it read the metadata naming the second authorization server",
            ),
        );
        let Some(read) = self
            .switched_metadata_read(switch)
            .filter(|_| unfollowed.is_none())
        else {
            return finding;
        };
        let presented = self.auth.tokens.iter().filter(|token| {
            (token.in_header || token.in_query) && self.position(&token.label).is_some_and(|at| at > read)
        });
        judge_each(finding, presented, |token| {
            (token.issuer.as_deref() == Some(self.auth.issuer.as_str())).then(|| {
                format!(
                    "a token of {}, though the metadata the client read names only {}",
                    self.auth.issuer, switch.issuer
                )
            })
        })
    }

    /// Why the client cannot be judged on the switch: it was never
    /// admitted with a token of the first authorization server, never
    /// reached the switch, or never read the metadata after it; `None`
    /// when it did all three.
    fn switch_unfollowed(&self, switch: &AuthSwitch) -> Option<String> {
        let admitted = self.auth.tokens.iter().any(|token| {
            token.refused.is_none() && token.issuer.as_deref() == Some(self.auth.issuer.as_str())
        });
        if !admitted {
            return Some(
                "the client was never admitted with a token of the first authorization server".into(),
            );
        }
        if switch.from.is_none() {
            let method = self.setup.switch_from.as_deref().unwrap_or_default();
            return Some(format!(
                "the client never sent `{method}`, from which on the second authorization server takes over"
            ));
        }
        self.switched_metadata_read(switch)
            .is_none()
            .then(|| "the client never read the protected resource metadata again after the switch".into())
    }

    /// Where in the mock server's log the client first read the protected
    /// resource metadata after the switch.
    fn switched_metadata_read(&self, switch: &AuthSwitch) -> Option<usize> {
        let from = self.position(switch.from.as_deref()?)?;
        let served = path_of(&self.auth.metadata_url);
        self.metadata_lookups
            .iter()
            .filter(|r| r.status == 200 && path_of(&r.target) == served)
            .filter_map(|r| self.position(&r.label))
            .find(|at| *at > from)
    }

    /// The place of the request labelled `label` in the mock server's log.
    fn position(&self, label: &str) -> Option<usize> {
        self.requests.iter().position(|r| r.label == label)
    }
}

#[cfg(test)]
mod tests;
