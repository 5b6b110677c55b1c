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
        if let (Some(switch), Some(_)) = (&setup.switch_authorization_server, &setup.pre_registered) {
            self.error_help(
                switch.span,
                "pre-registered credentials belong to one authorization server, and this one is replaced",
                "with `pre_registered`",
                "leave `pre_registered` out: the switch is judged on what the client registers during the run (pre-registered credentials at the wrong server are `pre_registered: another-server`)",
            );
        }
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
            switch_from: setup
                .switch_authorization_server
                .as_ref()
                .map(|s| s.value.from.clone()),
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
        let (era, help) = if legacy {
            (
                "2025-03-26",
                format!("on 2025-03-26 `auth` takes {}", legacy_key_list()),
            )
        } else {
            (
                "2025-06-18 and later",
                "`server_metadata` is for `versions: 2025-03-26`; from 2025-06-18 the metadata is placed with `metadata`".into(),
            )
        };
        for (key, key_span) in unread_keys(setup, legacy) {
            self.error_help(
                key_span,
                format!("`{key}` means nothing in the authorization of {era}"),
                "not on this scenario's versions",
                help.as_str(),
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

/// Which authorization reads a key of `auth:`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ReadBy {
    /// A rule of 2025-03-26 and one of the later authorization.
    Both,
    /// Only that of 2025-03-26, where the MCP server's origin is the
    /// authorization server.
    Legacy,
    /// Only that from 2025-06-18 (none has a 2025-03-26 rule to judge).
    Later,
}

/// Every key of `auth:`, with the authorization that reads it and where it
/// is set, if it is. The destructuring names every field, so a key added
/// to [`file::AuthSetup`] does not compile until it has its line here.
fn keys(setup: &file::AuthSetup) -> [(&'static str, ReadBy, Option<Span>); 21] {
    let file::AuthSetup {
        metadata,
        resource_metadata,
        scope,
        challenge_scope,
        scopes_supported,
        iss,
        state,
        code_challenge_methods,
        step_up,
        refresh_tokens,
        registration,
        metadata_documents,
        issuer_path,
        issuer_metadata,
        mismatch,
        pre_registered,
        server_metadata,
        offline_access,
        refuse_registration,
        expire_first_token,
        switch_authorization_server,
    } = setup;
    [
        // The origin's RFC 8414 metadata, or only the default endpoints.
        ("server_metadata", ReadBy::Legacy, span(server_metadata)),
        // Dynamic Client Registration (AUTH-044 on 2025-03-26) and
        // credentials handed over beforehand: both authorizations.
        ("registration", ReadBy::Both, span(registration)),
        ("pre_registered", ReadBy::Both, span(pre_registered)),
        // Protected resource metadata and its placement.
        ("metadata", ReadBy::Later, span(metadata)),
        ("resource_metadata", ReadBy::Later, span(resource_metadata)),
        // Scopes, scope selection and step-up.
        ("scope", ReadBy::Later, span(scope)),
        ("challenge_scope", ReadBy::Later, span(challenge_scope)),
        ("scopes_supported", ReadBy::Later, span(scopes_supported)),
        // The authorization response's `iss` (RFC 9207) and `state`.
        ("iss", ReadBy::Later, span(iss)),
        ("state", ReadBy::Later, span(state)),
        // Metadata the 2025-03-26 flow never reads or does not have.
        (
            "code_challenge_methods",
            ReadBy::Later,
            span(code_challenge_methods),
        ),
        ("step_up", ReadBy::Later, span(step_up)),
        ("refresh_tokens", ReadBy::Later, span(refresh_tokens)),
        ("metadata_documents", ReadBy::Later, span(metadata_documents)),
        ("issuer_path", ReadBy::Later, span(issuer_path)),
        ("issuer_metadata", ReadBy::Later, span(issuer_metadata)),
        ("mismatch", ReadBy::Later, span(mismatch)),
        // The rules of 2026-07-28 only (AUTH-070, AUTH-047, AUTH-069).
        ("offline_access", ReadBy::Later, span(offline_access)),
        ("refuse_registration", ReadBy::Later, span(refuse_registration)),
        ("expire_first_token", ReadBy::Later, span(expire_first_token)),
        // Two authorization servers, one after the other (AUTH-048, AUTH-058).
        (
            "switch_authorization_server",
            ReadBy::Later,
            span(switch_authorization_server),
        ),
    ]
}

/// Where `value` is set, if it is.
fn span<T>(value: &Option<Located<T>>) -> Option<Span> {
    value.as_ref().map(|v| v.span)
}

/// The keys set in `setup` that the authorization `legacy` says (that of
/// 2025-03-26, or that from 2025-06-18) does not read.
fn unread_keys(setup: &file::AuthSetup, legacy: bool) -> Vec<(&'static str, Span)> {
    let other = if legacy { ReadBy::Later } else { ReadBy::Legacy };
    keys(setup)
        .into_iter()
        .filter(|(_, read_by, _)| *read_by == other)
        .filter_map(|(key, _, span)| Some((key, span?)))
        .collect()
}

/// The keys the authorization of 2025-03-26 reads, for its help:
/// "`a`, `b` and `c`".
fn legacy_key_list() -> String {
    let names: Vec<String> = keys(&file::AuthSetup::default())
        .into_iter()
        .filter(|(_, read_by, _)| *read_by != ReadBy::Later)
        .map(|(key, ..)| format!("`{key}`"))
        .collect();
    match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names in [`keys`] are the keys a scenario writes: those of
    /// `auth:` in the scenario schema, each once.
    #[test]
    fn every_key_of_auth_is_named_as_written() {
        let schema = schemars::schema_for!(file::AuthSetup);
        let mut written: Vec<&str> = schema
            .get("properties")
            .and_then(|p| p.as_object())
            .expect("AuthSetup's schema has properties")
            .keys()
            .map(String::as_str)
            .collect();
        let mut named: Vec<&str> = keys(&file::AuthSetup::default()).map(|(key, ..)| key).to_vec();
        written.sort_unstable();
        named.sort_unstable();
        assert_eq!(named, written);
    }

    #[test]
    fn the_help_of_2025_03_26_names_the_keys_it_reads() {
        assert_eq!(
            legacy_key_list(),
            "`server_metadata`, `registration` and `pre_registered`"
        );
    }
}
