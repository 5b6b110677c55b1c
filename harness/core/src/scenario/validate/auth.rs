//! Validation of `auth:`: it belongs to `role: client` scenarios over HTTP
//! from 2025-06-18 (the versions whose authorization starts from a 401 and
//! protected resource metadata), and its settings must leave the client a
//! way to find the metadata.

use super::Validator;
use crate::scenario::file::{self, MetadataPlacement, Role, TransportName};
use crate::scenario::model;
use crate::span::Located;
use crate::version::{ProtocolVersion, VersionSet};

impl Validator<'_> {
    pub(super) fn client_auth(
        &mut self,
        parsed: Option<&Located<file::AuthSetup>>,
        versions: VersionSet,
        transport: Option<TransportName>,
    ) -> Option<model::ClientAuth> {
        let Located { value: setup, span } = parsed?;
        let span = *span;
        if self.role != Role::Client {
            self.error_help(
                span,
                "`auth` is for scenarios that test a client",
                "only with `role: client`",
                "a protected server is tested with `requires: {protected: true}`",
            );
        }
        let before = VersionSet::range(ProtocolVersion::V2024_11_05, ProtocolVersion::V2025_03_26);
        if let Some(old) = versions.intersect(before).iter().next() {
            self.error_help(
                span,
                format!("`auth` plays the authorization of 2025-06-18 and later, and this scenario applies to {old}"),
                "protected from 2025-06-18 only",
                "write `versions: 2025-06-18+` (or a list of versions from 2025-06-18)",
            );
        }
        if transport == Some(TransportName::Stdio) {
            self.error(
                span,
                "authorization is a matter of HTTP: `auth` cannot run over stdio",
                "with `requires: {transport: stdio}`",
            );
        }
        let flag = |value: &Option<Located<bool>>| value.as_ref().is_none_or(|v| v.value);
        let metadata = setup.metadata.as_ref().map(|m| m.value).unwrap_or_default();
        let names_metadata = flag(&setup.resource_metadata);
        if let (MetadataPlacement::Challenge, Some(off)) = (metadata, &setup.resource_metadata)
            && !off.value
        {
            self.error_help(
                off.span,
                "the metadata is served only where the challenge names it, and the challenge names nothing",
                "with `metadata: challenge`",
                "leave `resource_metadata` true, or serve the metadata at a well-known URL (`metadata: path` or `root`)",
            );
        }
        let issuer_path = setup.issuer_path.as_ref().map(|path| self.issuer_path(path));
        Some(model::ClientAuth {
            metadata,
            names_metadata,
            scope: setup.scope.as_ref().map(|s| s.value.clone()),
            challenge_scope: flag(&setup.challenge_scope),
            scopes_supported: setup.scopes_supported.as_ref().map(|s| s.value.clone()),
            step_up: setup
                .step_up
                .as_ref()
                .map(|Located { value: step_up, .. }| model::StepUp {
                    method: step_up.method.clone(),
                    scope: step_up.scope.clone(),
                    granted: step_up.granted.unwrap_or(true),
                }),
            iss: setup.iss.as_ref().map(|i| i.value).unwrap_or_default(),
            state: setup.state.as_ref().map(|s| s.value).unwrap_or_default(),
            refresh_tokens: flag(&setup.refresh_tokens),
            code_challenge_methods: flag(&setup.code_challenge_methods),
            registration: flag(&setup.registration),
            metadata_documents: flag(&setup.metadata_documents),
            issuer_path,
            mismatch: setup.mismatch.as_ref().map(|m| m.value),
            pre_registered: setup.pre_registered.as_ref().map(|p| p.value),
            offline_access: setup.offline_access.as_ref().is_some_and(|o| o.value),
            refuse_registration: setup.refuse_registration.as_ref().map(|r| r.value),
            expire_first_token: setup.expire_first_token.as_ref().is_some_and(|e| e.value),
            span,
        })
    }

    /// An issuer's path is a URL path of at least one segment, without a
    /// trailing slash (RFC 8414 inserts the well-known part before it), a
    /// query or a fragment (an issuer has neither).
    fn issuer_path(&mut self, path: &Located<String>) -> String {
        let text = &path.value;
        let segments = text.strip_prefix('/').filter(|rest| !rest.is_empty());
        let is_path = segments.is_some_and(|rest| {
            !rest.ends_with('/') && !rest.contains(['?', '#', ' ']) && !rest.contains("//")
        });
        if !is_path {
            self.error_help(
                path.span,
                format!("`{text}` is not the path of an issuer"),
                "a path like `/tenant1`",
                "start with `/`, name at least one segment, and end without a slash, query or fragment",
            );
        }
        text.clone()
    }
}
