//! Validation of `auth:`: it belongs to `role: client` scenarios over HTTP
//! from 2025-03-26. It plays either the authorization of 2025-03-26 (the
//! MCP server's origin is the authorization server) or that from
//! 2025-06-18 (a 401 and protected resource metadata), with the keys of
//! that one only, and its settings must leave the client a way to find the
//! metadata.

use super::Validator;
use crate::scenario::file::{self, MetadataPlacement, Role, TransportName};
use crate::scenario::model;
use crate::span::{Located, Span};
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
        let legacy = self.auth_versions(setup, span, versions);
        if transport == Some(TransportName::Stdio) {
            self.error(
                span,
                "authorization is a matter of HTTP: `auth` cannot run over stdio",
                "with `requires: {transport: stdio}`",
            );
        }
        let flag = |value: &Option<Located<bool>>| value.as_ref().is_none_or(|v| v.value);
        let metadata = setup.metadata.as_ref().map(|m| m.value).unwrap_or_default();
        let layout = if legacy {
            model::AuthLayout::ServerOrigin {
                metadata: flag(&setup.server_metadata),
            }
        } else {
            model::AuthLayout::ProtectedResource
        };
        let names_metadata = !legacy && flag(&setup.resource_metadata);
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
        let issuer_metadata = self.issuer_metadata(setup, versions);
        Some(model::ClientAuth {
            layout,
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
            metadata_documents: !legacy && flag(&setup.metadata_documents),
            issuer_path,
            issuer_metadata,
            mismatch: setup.mismatch.as_ref().map(|m| m.value),
            pre_registered: setup.pre_registered.as_ref().map(|p| p.value),
            offline_access: setup.offline_access.as_ref().is_some_and(|o| o.value),
            refuse_registration: setup.refuse_registration.as_ref().map(|r| r.value),
            expire_first_token: setup.expire_first_token.as_ref().is_some_and(|e| e.value),
            span,
        })
    }

    /// Which authorization `auth` plays: that of 2025-03-26 (true: the MCP
    /// server's origin is the authorization server) or that from
    /// 2025-06-18, never both in one scenario, nothing before 2025-03-26;
    /// the keys of the other one are errors.
    fn auth_versions(&mut self, setup: &file::AuthSetup, span: Span, versions: VersionSet) -> bool {
        if versions.contains(ProtocolVersion::V2024_11_05) {
            self.error_help(
                span,
                "`auth` plays the authorization of 2025-03-26 and later, and this scenario applies to 2024-11-05",
                "no authorization in 2024-11-05",
                "write `versions: 2025-03-26`, or `versions: 2025-06-18+`",
            );
        }
        let legacy = versions.contains(ProtocolVersion::V2025_03_26);
        let later = VersionSet::range(ProtocolVersion::V2025_06_18, ProtocolVersion::V2026_07_28);
        if let (true, Some(newer)) = (legacy, versions.intersect(later).iter().next()) {
            self.error_help(
                span,
                format!(
                    "`auth` cannot play both the authorization of 2025-03-26 and that of {newer}: the one has the authorization server at the MCP server's origin, the other finds it from protected resource metadata"
                ),
                "for 2025-03-26 and later versions at once",
                "write one scenario with `versions: 2025-03-26` and another with `versions: 2025-06-18+`",
            );
            return legacy;
        }
        let (keys, help) = if legacy {
            (
                modern_keys(setup),
                "on 2025-03-26 `auth` takes `server_metadata`, `registration` and `pre_registered`",
            )
        } else {
            (
                legacy_keys(setup),
                "`server_metadata` is for `versions: 2025-03-26`; from 2025-06-18 the metadata is placed with `metadata`",
            )
        };
        let era = if legacy {
            "2025-03-26"
        } else {
            "2025-06-18 and later"
        };
        for (key, key_span) in keys {
            self.error_help(
                key_span,
                format!("`{key}` means nothing in the authorization of {era}"),
                "not on this scenario's versions",
                help,
            );
        }
        legacy
    }

    /// OpenID Connect Discovery metadata is looked for from 2025-11-25: a
    /// 2025-06-18 client knows RFC 8414's URL only, and would find none.
    /// Appended to an issuer without a path, it would be at `openid`'s URL.
    fn issuer_metadata(&mut self, setup: &file::AuthSetup, versions: VersionSet) -> model::IssuerMetadata {
        let Some(Located { value: kind, span }) = &setup.issuer_metadata else {
            return model::IssuerMetadata::default();
        };
        if *kind == model::IssuerMetadata::OpenIdAppended && setup.issuer_path.is_none() {
            self.error_help(
                *span,
                "OpenID metadata appended to the issuer's path needs an issuer with a path",
                "without `issuer_path`",
                "add `issuer_path: /tenant1`, or write `issuer_metadata: openid` for an issuer without a path",
            );
        }
        if *kind != model::IssuerMetadata::OAuth && versions.contains(ProtocolVersion::V2025_06_18) {
            self.error_help(
                *span,
                "a 2025-06-18 client looks for RFC 8414 metadata only, and the authorization server would have none",
                "OpenID metadata on 2025-06-18",
                "write `versions: 2025-11-25+`: OpenID Connect Discovery is looked for from then on",
            );
        }
        *kind
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

/// The keys set in `setup` that only the authorization from 2025-06-18
/// reads: protected resource metadata, scopes and step-up, `iss`, `state`,
/// PKCE support, refresh, Client ID Metadata Documents, issuers with a
/// path, mismatched metadata (none has a 2025-03-26 rule to judge).
fn modern_keys(setup: &file::AuthSetup) -> Vec<(&'static str, Span)> {
    let spans = [
        ("metadata", setup.metadata.as_ref().map(|v| v.span)),
        (
            "resource_metadata",
            setup.resource_metadata.as_ref().map(|v| v.span),
        ),
        ("scope", setup.scope.as_ref().map(|v| v.span)),
        ("challenge_scope", setup.challenge_scope.as_ref().map(|v| v.span)),
        (
            "scopes_supported",
            setup.scopes_supported.as_ref().map(|v| v.span),
        ),
        ("iss", setup.iss.as_ref().map(|v| v.span)),
        ("state", setup.state.as_ref().map(|v| v.span)),
        (
            "code_challenge_methods",
            setup.code_challenge_methods.as_ref().map(|v| v.span),
        ),
        ("step_up", setup.step_up.as_ref().map(|v| v.span)),
        ("refresh_tokens", setup.refresh_tokens.as_ref().map(|v| v.span)),
        (
            "metadata_documents",
            setup.metadata_documents.as_ref().map(|v| v.span),
        ),
        ("issuer_path", setup.issuer_path.as_ref().map(|v| v.span)),
        ("issuer_metadata", setup.issuer_metadata.as_ref().map(|v| v.span)),
        ("mismatch", setup.mismatch.as_ref().map(|v| v.span)),
    ];
    spans
        .into_iter()
        .filter_map(|(key, span)| Some((key, span?)))
        .collect()
}

/// The keys set in `setup` that only the authorization of 2025-03-26 reads.
fn legacy_keys(setup: &file::AuthSetup) -> Vec<(&'static str, Span)> {
    setup
        .server_metadata
        .as_ref()
        .map(|v| ("server_metadata", v.span))
        .into_iter()
        .collect()
}
