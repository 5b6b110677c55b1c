//! The bundled reference client: a correct MCP client that does what a
//! `role: client` scenario's plan asks (the `MCP_CONFORM_PLAN` environment
//! variable), so that the client scenarios have a peer that passes them all.
//! With a [`ClientFault`] it breaks one rule on purpose: the broken-client
//! fixtures that prove each client check catches what it should.
//!
//! It is a dual-era client: a `server/discover` probe finds the server's
//! era (`reference_client/era.rs`); a legacy server gets the `initialize`
//! handshake, a stateless one (2026-07-28) requests that each carry the
//! client's envelope, input rounds instead of server requests, and a
//! `subscriptions/listen` stream for list changes (`reference_client/stateless.rs`).
//!
//! Over HTTP (`--url`) it speaks Streamable HTTP; its HTTP faults are a
//! proxy in front of the correct transport (`reference_client/http_faults.rs`).
//! A server that answers 401 gets the OAuth authorization code flow
//! (`reference_client/oauth.rs`), and the token on every request after it.
//!
//! A tool call goes out as a task where the server allows it (2025-11-25),
//! or opts in to the tasks extension (2026-07-28), and a task it makes is
//! polled to its end (`reference_client/tasks.rs`).
//!
//! Plan keys (all optional): `elicitation` (`accept`, `decline`, `cancel`,
//! `ignore`), `sampling` (`approve`, `deny`, `ignore`), `host_timeout_ms`
//! (how long the host waits for a person who never answers before it
//! answers itself: cancel, or error -1), `list` (list methods' nouns to
//! walk: `tools`, `prompts`, `resources`; walked again when the server says
//! the list changed), `calls` (`[{name, arguments}]` tools to call),
//! `call_timeout_ms` (then the call is cancelled), `progress` (calls ask for
//! progress), `roots_change_after_ms` (then a root is added, and announced),
//! `withhold` (capabilities not declared: `roots`, `sampling`,
//! `elicitation`; `tasks`: no opt-in to the tasks extension), `linger_ms` (how long to keep serving before leaving).
//! In the stateless era an ignored input request gives the call up at once
//! (there is no request to answer later), and roots change unannounced
//! (there is no notification for it), so `roots_change_after_ms` is skipped.

mod answers;
mod connect;
mod era;
mod http_faults;
mod listen;
mod oauth;
mod plan;
mod stateless;
mod tasks;

use std::collections::HashMap;
use std::time::Duration;

use mcp_conform_core::version::{ProtocolVersion, VersionSet};
use serde_json::{Value, json};
use tokio::time::Instant;

use self::answers::Answers;
use self::era::ServerEra;
pub use self::plan::Plan;
use crate::session::{MockSession, Received, WaitError};
use crate::transport::StdioCommand;
use mcp_conform_core::wire::mirror;

crate::faults::faults! {
    ClientFault, "client";
    RequestBeforeInitialize = "request-before-initialize", "LIFE-001", "tools/list is sent before initialize." => [
        "client.cancellation.honoured", "client.cancellation.own-timeout",
        "client.elicitation.accept", "client.elicitation.cancel", "client.elicitation.decline",
        "client.elicitation.defaults", "client.elicitation.no-answer",
        "client.elicitation.undeclared", "client.elicitation.url-undeclared", "client.lifecycle",
        "client.lifecycle.server-capabilities", "client.list-changed.tools",
        "client.pagination.prompts", "client.pagination.resources", "client.pagination.tools",
        "client.progress", "client.roots.list", "client.roots.list-changed",
        "client.roots.undeclared", "client.sampling.approve", "client.sampling.deny",
        "client.sampling.no-answer", "client.sampling.tools-undeclared",
        "client.sampling.undeclared",
    ];
    NoClientInfo = "no-client-info", "LIFE-002", "initialize carries no clientInfo." => [
        "client.cancellation.honoured", "client.cancellation.own-timeout",
        "client.elicitation.accept", "client.elicitation.cancel", "client.elicitation.decline",
        "client.elicitation.defaults", "client.elicitation.no-answer",
        "client.elicitation.undeclared", "client.elicitation.url-undeclared", "client.lifecycle",
        "client.lifecycle.server-capabilities", "client.lifecycle.unknown-version",
        "client.lifecycle.wait-for-initialize", "client.list-changed.tools",
        "client.pagination.prompts", "client.pagination.resources", "client.pagination.tools",
        "client.progress", "client.roots.list", "client.roots.list-changed",
        "client.roots.undeclared", "client.sampling.approve", "client.sampling.deny",
        "client.sampling.no-answer", "client.sampling.tools-undeclared",
        "client.sampling.undeclared", "client.stateless.fallback",
    ];
    NoInitialized = "no-initialized", "LIFE-007", "notifications/initialized is never sent." => [
        "client.cancellation.honoured", "client.cancellation.own-timeout",
        "client.elicitation.accept", "client.elicitation.cancel", "client.elicitation.decline",
        "client.elicitation.defaults", "client.elicitation.no-answer",
        "client.elicitation.undeclared", "client.elicitation.url-undeclared", "client.lifecycle",
        "client.lifecycle.server-capabilities", "client.list-changed.tools",
        "client.pagination.prompts", "client.pagination.resources", "client.pagination.tools",
        "client.progress", "client.roots.list", "client.roots.list-changed",
        "client.roots.undeclared", "client.sampling.approve", "client.sampling.deny",
        "client.sampling.no-answer", "client.sampling.tools-undeclared",
        "client.sampling.undeclared",
    ];
    PingWithContent = "ping-with-content", "PING-001", "ping is answered with a non-empty result." => ["client.lifecycle", "client.progress"];
    RootsNotFile = "roots-not-file", "ROOT-002", "A root has an https:// URI." => ["client.roots.list", "client.roots.list-changed"];
    ContentIgnoresSchema = "content-ignores-schema", "ELIC-010", "Accepted elicitation content has a string where the schema asks for an integer." => ["client.elicitation.accept"];
    DeclineWithContent = "decline-with-content", "ELIC-009", "A declined elicitation still carries content." => ["client.elicitation.decline"];
    UndeclaredUrlMode = "undeclared-url-mode", "ELIC-004", "A URL-mode elicitation is accepted although only form mode was declared." => ["client.elicitation.url-undeclared"];
    SamplingWithoutModel = "sampling-without-model", "SAMP-004", "A sampling result names no model." => ["client.sampling.approve"];
    AltersCursor = "alters-cursor", "PAGE-002", "A list walk hands the next cursor back with a suffix of its own." => ["client.pagination.prompts", "client.pagination.resources", "client.pagination.tools"];
    IgnoresNextCursor = "ignores-next-cursor", "PAGE-003", "A list walk stops after the first page despite nextCursor." => ["client.pagination.prompts", "client.pagination.resources", "client.pagination.tools"];
    NoCancelOnTimeout = "no-cancel-on-timeout", "LIFE-015", "A request that timed out is abandoned without notifications/cancelled." => ["client.cancellation.own-timeout"];
    IgnoresServerCapabilities = "ignores-server-capabilities", "LIST-006", "Lists what the plan names even when the server did not declare it." => ["client.lifecycle.server-capabilities"];
    WithheldRootsServed = "withheld-roots-served", "ROOT-004", "roots/list is answered with roots although roots was not declared." => ["client.roots.undeclared"];
    WithheldSamplingServed = "withheld-sampling-served", "SAMP-001", "sampling/createMessage is answered with a sample although sampling was not declared." => ["client.sampling.undeclared"];
    WithheldElicitationServed = "withheld-elicitation-served", "ELIC-001", "elicitation/create is accepted although elicitation was not declared." => ["client.elicitation.undeclared"];
    WithheldWrongCode = "withheld-wrong-code", "RPC-019", "Requests for undeclared features are refused with -32600 instead of -32601." => ["client.elicitation.undeclared", "client.sampling.undeclared"];
    IgnoresDefaults = "ignores-defaults", "ELIC-007", "An accepted form leaves out the schema's defaults and fills in values of its own." => ["client.elicitation.defaults"];
    SamplingToolsUndeclared = "sampling-tools-undeclared", "SAMP-008", "A sampling request with tools is answered although sampling.tools was not declared." => ["client.sampling.tools-undeclared"];
    AcceptsUnanswered = "accepts-unanswered", "ELIC-008", "An elicitation the person never answered is accepted when the host's timeout ends." => ["client.elicitation.no-answer"];
    SamplesUnanswered = "samples-unanswered", "SAMP-010", "A sampling request the person never approved gets a sample when the host's timeout ends." => ["client.sampling.no-answer"];
    AnswersAfterCancel = "answers-after-cancel", "CANC-002", "A request the server cancelled is still answered when the host's timeout ends." => ["client.cancellation.honoured"];
    SilentRootsChange = "silent-roots-change", "ROOT-003", "Its roots change without notifications/roots/list_changed." => ["client.roots.list-changed"];
    IgnoresListChanged = "ignores-list-changed", "LIST-001", "A list the server says changed is not listed again." => ["client.list-changed.tools"];
    ProgressTokenFloat = "progress-token-float", "PROG-001", "Its progressToken is a fractional number." => ["client.progress"];
    StallsOnProgress = "stalls-on-progress", "PING-001", "While its call that asked for progress runs, ping goes unanswered." => ["client.progress"];
    AcceptsUnknownVersion = "accepts-unknown-version", "LIFE-006", "It goes on (initialized, requests) with a protocol version it does not know." => ["client.lifecycle.unknown-version"];
    NoWaitForInitialize = "no-wait-for-initialize", "LIFE-008", "tools/list is sent before the answer to initialize has come." => ["client.lifecycle.wait-for-initialize"];
    HttpAcceptJsonOnly = "http-accept-json-only", "HTTP-004", "Over HTTP, POSTs accept application/json only, not text/event-stream." => [
        "client.cancellation.honoured", "client.cancellation.own-timeout",
        "client.elicitation.accept", "client.elicitation.cancel", "client.elicitation.decline",
        "client.elicitation.defaults", "client.elicitation.no-answer",
        "client.elicitation.undeclared", "client.elicitation.url-undeclared",
        "client.http.session", "client.lifecycle", "client.lifecycle.server-capabilities",
        "client.lifecycle.unknown-version", "client.lifecycle.wait-for-initialize",
        "client.list-changed.tools", "client.pagination.prompts", "client.pagination.resources",
        "client.pagination.tools", "client.progress", "client.roots.list",
        "client.roots.list-changed", "client.roots.undeclared", "client.sampling.approve",
        "client.sampling.deny", "client.sampling.no-answer", "client.sampling.tools-undeclared",
        "client.sampling.undeclared", "client.stateless.fallback",
    ];
    HttpBatch = "http-batch", "HTTP-005", "Over HTTP, notifications/initialized is POSTed inside a JSON array." => [
        "client.cancellation.honoured", "client.cancellation.own-timeout",
        "client.elicitation.accept", "client.elicitation.cancel", "client.elicitation.decline",
        "client.elicitation.defaults", "client.elicitation.no-answer",
        "client.elicitation.undeclared", "client.elicitation.url-undeclared",
        "client.http.session", "client.lifecycle", "client.lifecycle.server-capabilities",
        "client.lifecycle.wait-for-initialize", "client.list-changed.tools",
        "client.pagination.prompts", "client.pagination.resources", "client.pagination.tools",
        "client.progress", "client.roots.list", "client.roots.list-changed",
        "client.roots.undeclared", "client.sampling.approve", "client.sampling.deny",
        "client.sampling.no-answer", "client.sampling.tools-undeclared",
        "client.sampling.undeclared", "client.stateless.fallback",
    ];
    HttpGetWrongAccept = "http-get-wrong-accept", "HTTP-012", "Over HTTP, the standalone GET stream is asked for with Accept: application/json." => [
        "client.cancellation.honoured", "client.cancellation.own-timeout",
        "client.elicitation.accept", "client.elicitation.cancel", "client.elicitation.decline",
        "client.elicitation.defaults", "client.elicitation.no-answer",
        "client.elicitation.undeclared", "client.elicitation.url-undeclared",
        "client.http.session", "client.lifecycle", "client.lifecycle.server-capabilities",
        "client.lifecycle.wait-for-initialize", "client.list-changed.tools",
        "client.pagination.prompts", "client.pagination.resources", "client.pagination.tools",
        "client.progress", "client.roots.list", "client.roots.list-changed",
        "client.roots.undeclared", "client.sampling.approve", "client.sampling.deny",
        "client.sampling.no-answer", "client.sampling.tools-undeclared",
        "client.sampling.undeclared", "client.stateless.fallback",
    ];
    HttpNoSessionId = "http-no-session-id", "HTTP-016", "Over HTTP, requests leave out the Mcp-Session-Id the server issued." => [
        "client.cancellation.honoured", "client.cancellation.own-timeout",
        "client.elicitation.accept", "client.elicitation.cancel", "client.elicitation.decline",
        "client.elicitation.defaults", "client.elicitation.no-answer",
        "client.elicitation.undeclared", "client.elicitation.url-undeclared",
        "client.http.session", "client.lifecycle", "client.lifecycle.server-capabilities",
        "client.lifecycle.unknown-version", "client.lifecycle.wait-for-initialize",
        "client.list-changed.tools", "client.pagination.prompts", "client.pagination.resources",
        "client.pagination.tools", "client.progress", "client.roots.list",
        "client.roots.list-changed", "client.roots.undeclared", "client.sampling.approve",
        "client.sampling.deny", "client.sampling.no-answer", "client.sampling.tools-undeclared",
        "client.sampling.undeclared", "client.stateless.fallback",
    ];
    HttpNoDelete = "http-no-delete", "HTTP-017", "Over HTTP, the client leaves without a DELETE for its session." => ["client.http.session"];
    HttpNoVersionHeader = "http-no-version-header", "HTTP-018", "Over HTTP, requests after initialize leave out MCP-Protocol-Version." => [
        "client.cancellation.honoured", "client.cancellation.own-timeout",
        "client.elicitation.accept", "client.elicitation.cancel", "client.elicitation.decline",
        "client.elicitation.defaults", "client.elicitation.no-answer",
        "client.elicitation.undeclared", "client.elicitation.url-undeclared",
        "client.http.session", "client.lifecycle", "client.lifecycle.server-capabilities",
        "client.lifecycle.wait-for-initialize", "client.list-changed.tools",
        "client.pagination.prompts", "client.pagination.resources", "client.pagination.tools",
        "client.progress", "client.roots.list", "client.roots.list-changed",
        "client.roots.undeclared", "client.sampling.approve", "client.sampling.deny",
        "client.sampling.no-answer", "client.sampling.tools-undeclared",
        "client.sampling.undeclared", "client.stateless.fallback",
    ];
    ModernNoCancelOnTimeout = "modern-no-cancel-on-timeout", "LIFE-015", "Under 2026-07-28, a request that timed out is abandoned without notifications/cancelled." => ["client.cancellation.own-timeout-stateless"];
    ModernNoProbe = "modern-no-probe", "MODN-009", "On stdio, it opens with initialize and probes server/discover only once initialize is refused." => [
        "client.elicitation.accept", "client.elicitation.cancel", "client.elicitation.decline",
        "client.elicitation.defaults", "client.elicitation.no-answer", "client.list-changed.tools",
        "client.mrtr.no-state", "client.mrtr.rounds", "client.pagination.empty-cursor",
        "client.pagination.prompts", "client.pagination.resources", "client.pagination.tools",
        "client.roots.list", "client.sampling.approve", "client.stateless.opening",
    ];
    ProbeFallsBackOnOneCode = "probe-falls-back-on-one-code", "MODN-010", "It falls back to initialize only when server/discover is refused with -32601, and leaves on any other error." => ["client.stateless.fallback"];
    ModernNoCapabilities = "modern-no-capabilities", "MODN-001", "Under 2026-07-28, requests after the probe leave io.modelcontextprotocol/clientCapabilities out of _meta." => [
        "client.elicitation.accept", "client.elicitation.cancel", "client.elicitation.decline",
        "client.elicitation.defaults", "client.elicitation.no-answer", "client.list-changed.tools",
        "client.mrtr.no-state", "client.mrtr.rounds", "client.pagination.empty-cursor",
        "client.pagination.prompts", "client.pagination.resources", "client.pagination.tools",
        "client.roots.list", "client.sampling.approve", "client.stateless.opening",
    ];
    ModernNoClientInfo = "modern-no-client-info", "MODN-003", "Under 2026-07-28, requests after the probe leave io.modelcontextprotocol/clientInfo out of _meta." => ["client.stateless.opening"];
    ModernRetrySameId = "modern-retry-same-id", "MRTR-006", "Under 2026-07-28, the retry of an input-required request reuses its id." => [
        "client.elicitation.accept", "client.elicitation.cancel", "client.elicitation.decline",
        "client.elicitation.defaults", "client.elicitation.no-answer", "client.mrtr.no-state",
        "client.mrtr.rounds", "client.roots.list", "client.sampling.approve",
    ];
    ModernStateAltered = "modern-state-altered", "MRTR-006", "Under 2026-07-28, the retry of an input-required request echoes an altered requestState." => [
        "client.elicitation.accept", "client.elicitation.cancel", "client.elicitation.decline",
        "client.elicitation.defaults", "client.elicitation.no-answer", "client.mrtr.rounds",
        "client.roots.list", "client.sampling.approve",
    ];
    ModernStateInvented = "modern-state-invented", "MRTR-006", "Under 2026-07-28, the retry of an input-required result that carried no requestState sends one anyway." => ["client.mrtr.no-state"];
    ModernMissingInput = "modern-missing-input", "MRTR-006", "Under 2026-07-28, the first retry of an input-required request leaves out one input response." => [
        "client.elicitation.accept", "client.elicitation.cancel", "client.elicitation.decline",
        "client.elicitation.defaults", "client.elicitation.no-answer", "client.mrtr.no-state",
        "client.mrtr.rounds", "client.roots.list", "client.sampling.approve",
    ];
    ModernIgnoresEmptyCursor = "modern-ignores-empty-cursor", "PAGE-004", "Under 2026-07-28, a list walk stops at a nextCursor of \"\"." => ["client.pagination.empty-cursor"];
    ModernHttpNoMethodHeader = "modern-http-no-method-header", "HTTP-020", "Over HTTP under 2026-07-28, POSTs after the probe leave out Mcp-Method." => [
        "client.elicitation.accept", "client.elicitation.cancel", "client.elicitation.decline",
        "client.elicitation.defaults", "client.elicitation.no-answer", "client.http.stateless",
        "client.list-changed.tools", "client.mrtr.no-state", "client.mrtr.rounds",
        "client.pagination.empty-cursor", "client.pagination.prompts",
        "client.pagination.resources", "client.pagination.tools", "client.roots.list",
        "client.sampling.approve", "client.stateless.opening",
    ];
    ModernHttpVersionMismatch = "modern-http-version-mismatch", "HTTP-020", "Over HTTP under 2026-07-28, POSTs after the probe name MCP-Protocol-Version 2025-11-25 while the body says 2026-07-28." => [
        "client.elicitation.accept", "client.elicitation.cancel", "client.elicitation.decline",
        "client.elicitation.defaults", "client.elicitation.no-answer", "client.http.stateless",
        "client.list-changed.tools", "client.mrtr.no-state", "client.mrtr.rounds",
        "client.pagination.empty-cursor", "client.pagination.prompts",
        "client.pagination.resources", "client.pagination.tools", "client.roots.list",
        "client.sampling.approve", "client.stateless.opening",
    ];
    ModernHttpNoParamHeader = "modern-http-no-param-header", "HTTP-023", "Over HTTP under 2026-07-28, tools/call leaves out the Mcp-Param-{Name} headers of x-mcp-header arguments." => ["client.http.stateless"];
    ModernHttpKeepsInvalidTool = "modern-http-keeps-invalid-tool", "HTTP-024", "Over HTTP under 2026-07-28, a tool whose x-mcp-header use is invalid stays in its list and is called." => ["client.http.stateless"];
    AuthNoPkce = "http-auth-no-pkce", "AUTH-050", "Over HTTP, its authorization request carries no PKCE challenge, and its token request no verifier." => ["client.auth.authorization-code"];
    AuthPlainPkce = "http-auth-plain-pkce", "AUTH-051", "Over HTTP, its PKCE challenge uses the plain method, not S256." => ["client.auth.authorization-code"];
    AuthNoResource = "http-auth-no-resource", "AUTH-053", "Over HTTP, its authorization and token requests leave out resource." => ["client.auth.authorization-code"];
    AuthTokenInQuery = "http-auth-token-in-query", "AUTH-057", "Over HTTP, it sends its access token as access_token in the query string." => ["client.auth.authorization-code"];
    AuthIgnoresResourceMetadata = "http-auth-ignores-resource-metadata", "AUTH-034", "Over HTTP, it ignores the challenge's resource_metadata and looks only at the well-known URLs." => ["client.auth.metadata-from-challenge"];
    AuthRootFirst = "http-auth-root-first", "AUTH-036", "Over HTTP, it looks for protected resource metadata at the root well-known URL before the one with the endpoint's path." => ["client.auth.metadata-at-root"];
    AuthIgnoresState = "http-auth-ignores-state", "AUTH-061", "Over HTTP, it redeems the code of an authorization response whose state is not the one it sent." => ["client.auth.state-wrong"];
    AuthNoApplicationType = "modern-http-auth-no-application-type", "AUTH-045", "Over HTTP under 2026-07-28, its Dynamic Client Registration names no application_type." => ["client.auth.authorization-code"];
    AuthRemoteRedirect = "http-auth-remote-redirect", "AUTH-059", "Over HTTP, its redirect URI is a plain http URL on another host." => ["client.auth.authorization-code"];
    AuthScopeFromMetadata = "http-auth-scope-from-metadata", "AUTH-062", "Over HTTP, its first authorization asks for every scope of scopes_supported, though the challenge names a scope." => ["client.auth.scope-from-challenge"];
    AuthScopeInvented = "http-auth-scope-invented", "AUTH-062", "Over HTTP, when neither the challenge nor scopes_supported names a scope, its first authorization asks for one of its own choosing (`mcp`)." => ["client.auth.scope-undefined"];
    AuthScopeWithinSupported = "http-auth-scope-within-supported", "AUTH-063", "Over HTTP, it asks only for the challenged scopes that scopes_supported lists." => ["client.auth.scope-not-supported"];
    AuthNeverStepsUp = "http-auth-never-steps-up", "AUTH-064", "Over HTTP, a 403 insufficient_scope ends its request: it never authorizes again." => ["client.auth.step-up"];
    AuthUnboundedStepUp = "http-auth-unbounded-step-up", "AUTH-065", "Over HTTP, it steps up again after every 403 insufficient_scope (eight times, so that the run ends)." => ["client.auth.step-up-refused"];
    AuthStepUpDropsScopes = "modern-http-auth-step-up-drops-scopes", "AUTH-066", "Over HTTP under 2026-07-28, its step-up asks only for the challenged scope, dropping those it held." => ["client.auth.step-up"];
    AuthNeedsRefreshToken = "modern-http-auth-needs-refresh-token", "AUTH-071", "Over HTTP under 2026-07-28, it gives up when the token response carries no refresh token." => ["client.auth.no-refresh-token"];
    AuthSkipsIssuerCheck = "modern-http-auth-skips-issuer-check", "AUTH-067", "Over HTTP under 2026-07-28, it redeems the code whatever the authorization response's iss says." => ["client.auth.iss-missing", "client.auth.iss-normalized", "client.auth.iss-wrong"];
    AuthIssuerPathAppended = "http-auth-issuer-path-appended", "AUTH-039", "Over HTTP, it looks for the metadata of an issuer with a path at the issuer's URL with the well-known part appended, before the path-inserted URL." => ["client.auth.issuer-path"];
    AuthNoOpenIdDiscovery = "http-auth-no-openid-discovery", "AUTH-039", "Over HTTP, it looks for the authorization server's metadata at the RFC 8414 URL only, never at OpenID Connect Discovery's." => ["client.auth.metadata-openid", "client.auth.metadata-openid-appended"];
    AuthAssumesServerOrigin = "http-auth-assumes-server-origin", "AUTH-035", "Over HTTP, it first looks for the authorization server's metadata at the MCP server's origin, as 2025-03-26 had it, though the protected resource metadata names another." => ["client.auth.authorization-server-elsewhere"];
    AuthAcceptsOtherResource = "http-auth-accepts-other-resource", "AUTH-037", "Over HTTP, it uses protected resource metadata whose resource is another server." => ["client.auth.resource-mismatch"];
    AuthAcceptsOtherIssuer = "modern-http-auth-accepts-other-issuer", "AUTH-040", "Over HTTP under 2026-07-28, it uses authorization server metadata that names another issuer." => ["client.auth.issuer-mismatch"];
    AuthWebApplicationType = "modern-http-auth-web-application-type", "AUTH-046", "Over HTTP under 2026-07-28, it registers as a web application though its redirect URI is on loopback." => ["client.auth.authorization-code"];
    AuthUnregisteredRedirect = "http-auth-unregistered-redirect", "AUTH-060", "Over HTTP, its authorization request names a redirect URI other than the one it registered." => ["client.auth.authorization-code"];
    AuthIgnoresPreRegistration = "http-auth-ignores-pre-registration", "AUTH-041", "Over HTTP, it registers by Dynamic Client Registration though it was handed pre-registered credentials." => ["client.auth.pre-registered"];
    AuthTriesForeignCredentials = "modern-http-auth-tries-foreign-credentials", "AUTH-049", "Over HTTP under 2026-07-28, it tries credentials pre-registered with another authorization server than the one the metadata names." => ["client.auth.pre-registered-elsewhere"];
    AuthRetriesRefusedRegistration = "modern-http-auth-retries-refused-registration", "AUTH-047", "Over HTTP under 2026-07-28, it sends a refused Dynamic Client Registration again, unchanged, five times." => ["client.auth.registration-refused"];
    AuthDocumentNamesAnotherUrl = "http-auth-document-names-another-url", "AUTH-043", "Over HTTP, the Client ID Metadata Document it serves names as its client_id another URL than the one it is served at." => ["client.auth.client-id-document"];
    AuthReusesClientId = "modern-http-auth-reuses-client-id", "AUTH-048", "Over HTTP under 2026-07-28, when the metadata names another authorization server it authorizes there with the client ID the first one registered, never registering again." => ["client.auth.authorization-server-switch"];
    AuthKeepsOldToken = "http-auth-keeps-old-token", "AUTH-058", "Over HTTP, when the metadata names another authorization server it reads that, and goes on sending the first one's token." => ["client.auth.authorization-server-switch"];
    AuthUndeclaredRefreshGrant = "modern-http-auth-undeclared-refresh-grant", "AUTH-069", "Over HTTP under 2026-07-28, it refreshes its tokens but registers grant_types without refresh_token." => ["client.auth.token-expired"];
    AuthUnregisteredClientId = "modern-http-auth-unregistered-client-id", "AUTH-042", "Over HTTP under 2026-07-28, it registers, then authorizes with a client ID of its own making." => ["client.auth.authorization-code"];
    AuthLegacyMetadataUnderPath = "http-legacy-auth-metadata-under-path", "AUTH-031", "Over HTTP under 2025-03-26, it asks for the authorization server's metadata at the well-known URL with the MCP endpoint's path, not at the server's origin, then uses the default endpoints." => ["client.auth.legacy-default-endpoints", "client.auth.legacy-metadata", "client.auth.legacy-registration"];
    AuthLegacyNoFallback = "http-legacy-auth-no-fallback", "AUTH-032", "Over HTTP under 2025-03-26, it gives up when the metadata lookup answers 404 instead of using the default endpoints." => ["client.auth.legacy-default-endpoints"];
    AuthLegacyNoVersionHeader = "http-legacy-auth-no-version-header", "AUTH-033", "Over HTTP under 2025-03-26, its metadata lookup carries no MCP-Protocol-Version header." => ["client.auth.legacy-default-endpoints", "client.auth.legacy-metadata"];
    AuthLegacyNoRegistration = "http-legacy-auth-no-registration", "AUTH-044", "Over HTTP under 2025-03-26, it never registers: it authorizes with a client ID of its own making." => ["client.auth.legacy-registration"];
    TaskPollsFast = "task-polls-fast", "TASK-010", "A tool call run as a task is polled ten times faster than its pollInterval." => ["client.tasks.polling", "client.tasks.tool-support"];
    TaskPollsPastEnd = "task-polls-past-end", "TASK-010", "A task is polled once more after tasks/get showed it completed." => ["client.tasks.polling", "client.tasks.tool-support"];
    TaskForbiddenTool = "task-forbidden-tool", "TASK-002", "Every tool call goes out as a task once the server lists tasks.requests.tools.call, whatever the tool's execution.taskSupport." => ["client.tasks.tool-support"];
    ModernTaskPollsFast = "modern-task-polls-fast", "TASKX-028", "Under 2026-07-28, a call answered with a task is polled ten times faster than its pollIntervalMs." => ["client.tasks.extension-polling"];
    ModernTaskAnswersTwice = "modern-task-answers-twice", "TASKX-019", "Under 2026-07-28, an input-required task's requests are answered again on every poll that still shows them." => ["client.tasks.extension-input"];
    ModernTaskUnknownKey = "modern-task-unknown-key", "TASKX-020", "Under 2026-07-28, each tasks/update also answers an input key the task never showed." => ["client.tasks.extension-input"];
    ModernTaskStopsAfterUpdate = "modern-task-stops-after-update", "TASKX-019", "Under 2026-07-28, a task is no longer polled once its input was answered with tasks/update." => ["client.tasks.extension-input"];
    ModernHttpTaskNoName = "modern-http-task-no-name", "TASKX-030", "Over HTTP under 2026-07-28, tasks/get leaves out the Mcp-Name header naming its task." => ["client.tasks.extension-polling"];
    FuzzUnknownMethodResult = "fuzz-unknown-method-result", "RPC-019", "A request of a method outside MCP's namespaces (`x-…/…`, `mcp-conform/…`) gets an empty result instead of -32601 (found by `test-client --fuzz`).";
    FuzzUnansweredEmptyId = "fuzz-unanswered-empty-id", "PING-001", "A ping whose id is the empty string is never answered (found by `test-client --fuzz`).";
}

impl ClientFault {
    /// Whether the fault breaks a rule of the HTTP transport (it shows only
    /// over `--url`).
    pub fn is_http(self) -> bool {
        self.name().starts_with("http-") || self.name().starts_with("modern-http-")
    }

    /// Whether the fault breaks a rule of the stateless revision
    /// (2026-07-28); it does nothing to a legacy conversation.
    pub fn is_modern(self) -> bool {
        self.name().starts_with("modern-")
    }

    /// Whether the fault breaks a duty of the OAuth flow (`oauth.rs`)
    /// rather than of the HTTP transport's proxy.
    pub fn is_auth(self) -> bool {
        self.name().contains("-auth-")
    }

    /// Whether the fault breaks the authorization of 2025-03-26 (the MCP
    /// server's origin as its authorization server): it shows only on that
    /// version.
    pub fn is_legacy_auth(self) -> bool {
        self.name().starts_with("http-legacy-auth-")
    }

    /// Whether only generated scenarios set the fault off (`test-client
    /// --fuzz`, swept by harness/tests/fuzz.rs): no bundled scenario does.
    pub fn is_fuzz(self) -> bool {
        self.name().starts_with("fuzz-")
    }
}

/// How the reference client reaches its server.
#[derive(Debug, Clone)]
pub enum ServerAddress {
    /// A command line it starts, spoken to over stdio.
    Command(StdioCommand),
    /// A Streamable HTTP endpoint.
    Url(String),
}

/// How long the server has to answer initialize and each list page.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);
/// How often the client looks at what arrived while it waits: cancellations,
/// list changes, progress, and its own deadlines.
const TICK: Duration = Duration::from_millis(50);

/// Starts (or reaches) the server, follows the plan, and leaves.
pub async fn run(server: &ServerAddress, plan: Plan, fault: Option<ClientFault>) -> Result<(), String> {
    let answers = Answers::new(plan, fault);
    let envelope = era::envelope(answers.capabilities());
    let connection = connect::connect(server, fault, &envelope).await?;
    let mut host = Host {
        session: connection.session,
        answers,
        fault,
        stateless: false,
        server_capabilities: json!({}),
        notifications_seen: 0,
        listening: None,
        listed: Vec::new(),
        tools: None,
        task_support: HashMap::new(),
        relist: Vec::new(),
        roots_change_at: None,
        calls: 0,
        authorized: connection.authorized,
    };
    let outcome = host.follow_plan(connection.found).await;
    host.session.shutdown(Duration::from_secs(1)).await;
    drop(connection.proxy);
    outcome
}

/// The client: its connection, how it answers, and what it keeps track of.
struct Host {
    session: MockSession,
    answers: Answers,
    fault: Option<ClientFault>,
    /// Whether the server speaks the stateless era (2026-07-28).
    stateless: bool,
    server_capabilities: Value,
    /// Notifications already acted on.
    notifications_seen: usize,
    /// Stateless era: the listen request whose stream announces list changes.
    listening: Option<Value>,
    /// The nouns whose lists were walked, and those to walk again.
    listed: Vec<String>,
    /// The tools the last walk of `tools/list` kept, once there was one: a
    /// host offers its model only those.
    tools: Option<Vec<String>>,
    /// The `execution.taskSupport` of each listed tool (`None`: absent).
    task_support: HashMap<String, Option<String>>,
    relist: Vec<String>,
    roots_change_at: Option<Instant>,
    /// Calls made so far (for fresh progress tokens).
    calls: u32,
    /// The token the server asked for, if it asked: stepped up on a 403.
    authorized: Option<oauth::Authorized>,
}

impl Host {
    /// Opens the conversation in the era `found`, then follows the plan.
    async fn follow_plan(&mut self, found: Result<ServerEra, String>) -> Result<(), String> {
        let plan = self.answers.plan.clone();
        let nouns: Vec<String> = plan
            .list("list")
            .iter()
            .map(|noun| noun.as_str().unwrap_or("tools").to_owned())
            .collect();
        match found? {
            ServerEra::Modern { capabilities } => self.go_stateless(capabilities),
            ServerEra::Legacy if !self.initialize().await? => return Ok(()),
            ServerEra::Legacy => {}
        }
        if self.stateless {
            self.listen(&nouns).await?;
        } else {
            self.roots_change_at = plan
                .optional_millis("roots_change_after_ms")
                .map(|after| Instant::now() + after);
        }
        for noun in &nouns {
            self.walk(noun).await?;
        }
        let call_timeout = plan.millis("call_timeout_ms", 5000);
        for tool in plan.list("calls") {
            let kept = |tools: &Vec<String>| tools.iter().any(|t| tool["name"] == t.as_str());
            if self.tools.as_ref().is_some_and(|tools| !kept(tools)) {
                continue;
            }
            let mut params = json!({"name": tool["name"], "arguments": tool.get("arguments").cloned().unwrap_or(json!({}))});
            if plan.flag("progress") {
                params["_meta"] = json!({"progressToken": self.progress_token()});
                self.answers.stalled = self.fault == Some(ClientFault::StallsOnProgress);
            }
            let name = tool["name"].as_str().unwrap_or_default();
            let support = self.task_support.get(name).cloned().flatten();
            if !self.stateless && tasks::augments(&self.server_capabilities, support.as_deref(), self.fault) {
                params["task"] = tasks::request();
            }
            let answer = self.call("tools/call", params, call_timeout).await?;
            if let Some((task, flavor)) = tasks::created(&answer) {
                self.follow_task(&task, flavor).await?;
            }
        }
        let leave_at = Instant::now() + plan.millis("linger_ms", 1500);
        loop {
            for noun in std::mem::take(&mut self.relist) {
                self.walk(&noun).await?;
            }
            match self.serve(None, leave_at).await {
                Ok(_) => {}
                Err(WaitError::TimedOut | WaitError::Closed(_)) => return Ok(()),
                Err(other) => return Err(format!("{other:?}")),
            }
        }
    }

    /// The legacy handshake; `false` when the server's version is one the
    /// client cannot speak, and it leaves (LIFE-006).
    async fn initialize(&mut self) -> Result<bool, String> {
        if self.fault == Some(ClientFault::RequestBeforeInitialize) {
            self.send("tools/list", json!({})).await?;
        }
        let mut params = json!({
            "protocolVersion": "2025-11-25",
            "capabilities": self.answers.capabilities(),
            "clientInfo": {"name": "mcp-conform-reference-client", "version": env!("CARGO_PKG_VERSION")},
        });
        if self.fault == Some(ClientFault::NoClientInfo) {
            params.as_object_mut().map(|p| p.remove("clientInfo"));
        }
        let initialize = self.send("initialize", params).await?;
        if self.fault == Some(ClientFault::NoWaitForInitialize) {
            self.send("tools/list", json!({})).await?;
        }
        let initialized = self.answer_to("initialize", &initialize, ANSWER_TIMEOUT).await?;
        if self.fault == Some(ClientFault::ModernNoProbe) && initialized.get("error").is_some() {
            return self.probe_after_refusal().await;
        }
        self.server_capabilities = initialized
            .pointer("/result/capabilities")
            .cloned()
            .unwrap_or_else(|| json!({}));
        let version = initialized
            .pointer("/result/protocolVersion")
            .and_then(Value::as_str)
            .and_then(|v| v.parse::<ProtocolVersion>().ok());
        if !version.is_some_and(|v| VersionSet::LEGACY.contains(v))
            && self.fault != Some(ClientFault::AcceptsUnknownVersion)
        {
            return Ok(false);
        }
        if self.fault != Some(ClientFault::NoInitialized) {
            self.session
                .notify("notifications/initialized", None)
                .await
                .map_err(|e| e.to_string())?;
        }
        Ok(true)
    }

    /// A fresh token for a call that asks for progress.
    fn progress_token(&mut self) -> Value {
        self.calls += 1;
        if self.fault == Some(ClientFault::ProgressTokenFloat) {
            json!(f64::from(self.calls) + 0.5)
        } else {
            json!(format!("reference-call-{}", self.calls))
        }
    }

    /// Sends a request and waits for its answer; past `timeout` the request
    /// is cancelled and abandoned (`initialize` is never cancelled: LIFE-012).
    /// Over HTTP, a 403 `insufficient_scope` steps the authorization up
    /// and sends the request again (AUTH-064), and a 401 `invalid_token`
    /// (an expired token) renews it with the refresh token, once; a renewed
    /// token refused again authorizes from the start, once (the metadata
    /// may name another authorization server now).
    async fn call(&mut self, method: &str, params: Value, timeout: Duration) -> Result<Value, String> {
        let mut refreshed = false;
        let mut authorized_again = false;
        loop {
            let seen = self.session.transcript().len();
            let id = self.send(method, params.clone()).await?;
            let answer = self.answer_to(method, &id, timeout).await;
            let since = self.session.transcript().get(seen..).unwrap_or_default();
            let refused = oauth::insufficient_scope_in(since);
            let invalid = oauth::invalid_token_in(since);
            let Some(authorized) = self.authorized.as_mut() else {
                return answer;
            };
            let token = match (refused, invalid) {
                (Some(challenge), _) => authorized.step_up(&challenge, self.fault).await,
                (None, Some(_)) if !refreshed => {
                    refreshed = true;
                    authorized.refresh().await
                }
                (None, Some(challenge)) if !authorized_again => {
                    authorized_again = true;
                    authorized.authorize_again(&challenge, self.fault).await
                }
                _ => return answer,
            }
            .map_err(|why| format!("{method}: {why}"))?;
            self.session.set_bearer(&token).map_err(|e| e.to_string())?;
        }
    }

    async fn send(&mut self, method: &str, mut params: Value) -> Result<Value, String> {
        if let Some(key) = self.meta_left_out() {
            // `null` tells the session to leave the envelope's key out.
            params["_meta"][key] = Value::Null;
        }
        self.session
            .request(method, Some(params), None)
            .await
            .map_err(|e| e.to_string())
    }

    /// Whether a request that timed out is given up without a cancellation:
    /// always with `no-cancel-on-timeout`, in the stateless era with its modern twin.
    fn abandons_without_cancel(&self) -> bool {
        match self.fault {
            Some(ClientFault::NoCancelOnTimeout) => true,
            Some(ClientFault::ModernNoCancelOnTimeout) => self.stateless,
            _ => false,
        }
    }

    /// Waits for the answer to the request `id` (see [`Host::call`]).
    async fn answer_to(&mut self, method: &str, id: &Value, timeout: Duration) -> Result<Value, String> {
        let outcome = self.serve(Some(id), Instant::now() + timeout).await;
        self.answers.stalled = false;
        match outcome {
            Ok(response) => Ok(response.map_or(Value::Null, |r| r.message)),
            Err(WaitError::TimedOut) if method == "initialize" => Err("initialize: no answer".into()),
            Err(WaitError::TimedOut) if self.abandons_without_cancel() => Ok(Value::Null),
            Err(WaitError::TimedOut) => {
                self.session
                    .cancel(id, Some("timed out"))
                    .await
                    .map_err(|e| e.to_string())?;
                Ok(Value::Null)
            }
            Err(other) => Err(format!("{method}: {other:?}")),
        }
    }

    /// Walks `<noun>/list` to its last page, if the server offers that list.
    async fn walk(&mut self, noun: &str) -> Result<(), String> {
        let offered = self.server_capabilities.get(noun).is_some_and(|c| !c.is_null());
        if !offered && self.fault != Some(ClientFault::IgnoresServerCapabilities) {
            return Ok(());
        }
        if !self.listed.iter().any(|n| n == noun) {
            self.listed.push(noun.to_owned());
        }
        let method = format!("{noun}/list");
        let mut params = json!({});
        let mut tools = Vec::new();
        loop {
            let response = self.call(&method, params.clone(), ANSWER_TIMEOUT).await?;
            let listed = response.pointer("/result/tools").and_then(Value::as_array);
            let kept: Vec<&Value> = listed
                .into_iter()
                .flatten()
                .filter(|tool| self.keeps(tool))
                .collect();
            for tool in &kept {
                let support = tool.pointer("/execution/taskSupport").and_then(Value::as_str);
                if let Some(name) = tool["name"].as_str() {
                    self.task_support
                        .insert(name.to_owned(), support.map(str::to_owned));
                }
            }
            tools.extend(
                kept.iter()
                    .filter_map(|tool| tool["name"].as_str())
                    .map(str::to_owned),
            );
            let next = response.pointer("/result/nextCursor").filter(|c| !c.is_null());
            match next {
                Some(cursor) if !self.stops_at(cursor) => {
                    params = json!({"cursor": self.handed_back(cursor)})
                }
                _ => break,
            }
        }
        if noun == "tools" {
            self.tools = Some(tools);
        }
        Ok(())
    }

    /// Whether a listed tool stays in the host's list: over HTTP from
    /// 2026-07-28, not when its `x-mcp-header` use is invalid (HTTP-024).
    fn keeps(&self, tool: &Value) -> bool {
        let drops = self.stateless && self.session.http_facts().is_some();
        !drops
            || self.fault == Some(ClientFault::ModernHttpKeepsInvalidTool)
            || mirror::header_params(tool).is_ok()
    }

    /// The cursor as the next page's request carries it: unaltered, but
    /// by a broken walk (PAGE-002).
    fn handed_back(&self, cursor: &Value) -> Value {
        match (self.fault, cursor.as_str()) {
            (Some(ClientFault::AltersCursor), Some(text)) => json!(format!("{text}-next")),
            _ => cursor.clone(),
        }
    }

    /// Whether a broken walk ends at `cursor` although it is one (PAGE-003;
    /// PAGE-004, where an empty cursor is a cursor too).
    fn stops_at(&self, cursor: &Value) -> bool {
        match self.fault {
            Some(ClientFault::IgnoresNextCursor) => true,
            Some(ClientFault::ModernIgnoresEmptyCursor) => self.stateless && cursor == "",
            _ => false,
        }
    }

    /// Serves the server until the response to `awaited` comes (returned),
    /// or, with nothing awaited, until a list must be walked again (`None`).
    /// Past `deadline`: `TimedOut`.
    async fn serve(
        &mut self,
        awaited: Option<&Value>,
        deadline: Instant,
    ) -> Result<Option<Received>, WaitError> {
        loop {
            self.tick().await?;
            if awaited.is_none() && !self.relist.is_empty() {
                return Ok(None);
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(WaitError::TimedOut);
            }
            let slice = deadline.min(now + TICK);
            match awaited {
                Some(id) => match self.session.wait_response(id, slice, &mut self.answers).await {
                    Ok(response) => return Ok(Some(response)),
                    Err(WaitError::TimedOut) => {}
                    Err(other) => return Err(other),
                },
                None => {
                    if let Some(exit) = self.session.idle_until(slice, &mut self.answers).await {
                        return Err(WaitError::Closed(exit));
                    }
                }
            }
        }
    }

    /// Acts on what arrived since the last tick, gives the answers whose
    /// host timeout ended, and changes the roots when the plan says.
    async fn tick(&mut self) -> Result<(), WaitError> {
        let fresh: Vec<Value> = self.session.notifications()[self.notifications_seen..]
            .iter()
            .map(|n| n.message.clone())
            .collect();
        self.notifications_seen += fresh.len();
        for notification in fresh {
            let method = notification["method"].as_str().unwrap_or_default();
            if method == "notifications/cancelled" {
                self.answers.cancelled(notification.pointer("/params/requestId"));
                continue;
            }
            let changed = method
                .strip_prefix("notifications/")
                .and_then(|m| m.strip_suffix("/list_changed"));
            if let Some(noun) = changed
                && self.heard(&notification)
                && self.listed.iter().any(|n| n == noun)
                && !self.relist.iter().any(|n| n == noun)
                && self.fault != Some(ClientFault::IgnoresListChanged)
            {
                self.relist.push(noun.to_owned());
            }
        }
        let now = Instant::now();
        for (id, reply) in self.answers.due(now) {
            self.session.answer(&id, reply).await?;
        }
        if self.roots_change_at.is_some_and(|at| at <= now) {
            self.roots_change_at = None;
            self.answers.roots_changed = true;
            if self.fault != Some(ClientFault::SilentRootsChange) {
                self.session
                    .notify("notifications/roots/list_changed", None)
                    .await
                    .map_err(|e| WaitError::Transport(e.to_string()))?;
            }
        }
        Ok(())
    }
}
