//! Deliberate faults: each breaks one rule of the spec, so that a test can
//! prove the suite catches it under the right requirement ID (the suite's
//! mutation score).
//!
//! A fault is a layer between the wire and the correct server: it rewrites,
//! drops or adds frames on their way in or out. The server itself stays
//! correct and free of fault switches; every broken behaviour lives here.
//! The faults of the stateless revision (`modern-…`) live in `stateless.rs`
//! and act only once the connection speaks 2026-07-28.

mod fuzz;
mod multi_turn;
mod stateless;
mod task_extension;
mod tasks;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value, json};

use mcp_conform_core::wire::jsonrpc::{code, id_key};

/// The tool name `tools.unknown-tool` calls.
const UNKNOWN_TOOL: &str = "mcp-conform-no-such-tool";

crate::faults::faults! {
    Fault, "server";
    NoParseError = "no-parse-error", "RPC-009", "Text that is not JSON gets no answer at all." => ["base.parse-error"];
    InvalidRequestIgnored = "invalid-request-ignored", "RPC-010", "An invalid request gets no -32600 answer." => ["base.invalid-request"];
    NotificationAnswered = "notification-answered", "RPC-008", "Unknown notifications are answered with a response." => ["base.notification-no-response"];
    UnknownMethodCode = "unknown-method-code", "RPC-011", "Unknown methods get -32603 instead of -32601." => ["base.unknown-method"];
    InvalidParamsAccepted = "invalid-params-accepted", "RPC-012", "tools/call without a tool name runs echo instead of failing with -32602." => ["base.invalid-params"];
    PingWrongJsonrpc = "ping-wrong-jsonrpc", "RPC-001", "The answer to ping says jsonrpc \"1.0\"." => [
        "base.invalid-params", "base.invalid-request", "base.notification-no-response",
        "base.parse-error", "base.stale-response", "base.unknown-method",
        "cancellation.after-response", "cancellation.no-response", "cancellation.unknown-request",
        "lifecycle.initialize", "lifecycle.ping", "lifecycle.ping-before-initialize",
        "lifecycle.requests-after-initialized", "tools.bad-arguments",
    ];
    StdoutBanner = "stdout-banner", "STDIO-002", "A banner line that is not JSON goes to stdout at start." => [
        "base.invalid-params", "base.invalid-request", "base.notification-no-response",
        "base.parse-error", "base.stale-response", "base.unknown-method",
        "cancellation.after-response", "cancellation.no-response", "cancellation.unknown-request",
        "completion.complete", "completion.unknown-prompt", "elicitation.accept",
        "elicitation.cancel", "elicitation.decline", "elicitation.invalid-content",
        "elicitation.not-declared", "elicitation.url-mode", "elicitation.url-required",
        "lifecycle.initialize", "lifecycle.ping", "lifecycle.ping-before-initialize",
        "lifecycle.requests-after-initialized", "lifecycle.undeclared-features",
        "lifecycle.unknown-version", "list-changed.tools",
        "logging.filtering", "logging.set-level", "pagination.invalid-cursor",
        "pagination.prompts", "pagination.resource-templates", "pagination.resources",
        "pagination.tools", "progress.token", "prompts.get-unknown", "prompts.missing-argument",
        "resources.read-listed", "resources.read-unknown", "resources.subscribe-updated",
        "roots.not-declared", "roots.round-trip", "sampling.not-declared", "sampling.preferences",
        "sampling.round-trip", "tools.bad-arguments", "tools.call", "tools.execution-error",
        "tools.list", "tools.structured-output", "tools.unknown-tool",
    ];
    EchoUnknownVersion = "echo-unknown-version", "LIFE-005", "initialize echoes any requested protocol version, even unknown ones." => ["lifecycle.unknown-version"];
    PingRefusedBeforeInit = "ping-refused-before-init", "PING-001", "ping before initialize gets an error." => ["lifecycle.ping-before-initialize"];
    RequestBeforeInitialized = "request-before-initialized", "LIFE-009", "roots/list is sent right after the initialize answer, before notifications/initialized." => ["lifecycle.requests-after-initialized"];
    PromptsUndeclared = "prompts-undeclared", "PROM-001", "Prompts are served but the prompts capability is not declared." => ["lifecycle.undeclared-features"];
    BadToolName = "bad-tool-name", "TOOL-003", "A tool is listed under a name with a space and an exclamation mark." => ["tools.list"];
    InvalidInputSchema = "invalid-input-schema", "JSCH-002", "A tool's inputSchema is not valid JSON Schema." => [
        "lifecycle.undeclared-features", "pagination.tools", "tools.list",
        "tools.structured-output",
    ];
    UnknownToolResult = "unknown-tool-result", "TOOL-004", "An unknown tool is answered with an isError result instead of a JSON-RPC error." => ["tools.unknown-tool"];
    ToolErrorAsProtocolError = "tool-error-as-protocol-error", "TOOL-005", "A tool that fails while running answers with a JSON-RPC error instead of isError." => ["tools.execution-error"];
    CrashOnBadArguments = "crash-on-bad-arguments", "TOOL-006", "tools/call with arguments that are not an object kills the server." => ["tools.bad-arguments"];
    StructuredMismatch = "structured-mismatch", "TOOL-007", "structuredContent gives numbers as strings, against the outputSchema." => ["tools.structured-output"];
    StructuredNotSerialized = "structured-not-serialized", "TOOL-009", "structuredContent is not repeated as JSON text in content." => ["tools.structured-output"];
    InvalidCursorIgnored = "invalid-cursor-ignored", "PAGE-005", "A cursor the server never issued is ignored and the first page returned." => ["pagination.invalid-cursor"];
    DuplicateAcrossPages = "duplicate-across-pages", "PAGE-005", "Each later page repeats the last item of the page before." => ["pagination.resources", "pagination.tools"];
    ListChangedSilent = "list-changed-silent", "LIST-001", "No list_changed notification is ever sent, though listChanged is declared." => ["list-changed.tools"];
    ListChangedUndeclared = "list-changed-undeclared", "LIST-002", "tools/list_changed is sent though tools.listChanged is not declared." => ["list-changed.tools-undeclared"];
    ResourceNotFoundCode = "resource-not-found-code", "RES-004", "An unknown resource gets -32603 instead of -32002." => ["resources.read-unknown"];
    BadBase64 = "bad-base64", "RES-003", "Binary resource contents are not base64." => ["resources.read-listed"];
    UpdatedAfterUnsubscribe = "updated-after-unsubscribe", "RES-007", "resources/unsubscribe is acknowledged but the subscription stays." => ["resources.subscribe-updated"];
    UnknownPromptCode = "unknown-prompt-code", "PROM-002", "An unknown prompt gets -32603 instead of -32602." => ["prompts.get-unknown"];
    MissingArgumentAccepted = "missing-argument-accepted", "PROM-003", "prompts/get without a required argument fills one in instead of failing." => ["prompts.missing-argument"];
    CompletionTooMany = "completion-too-many", "COMP-002", "completion/complete returns 150 values." => ["completion.complete"];
    LogUndeclared = "log-undeclared", "LOG-001", "A log message follows the answer to initialize, though logging is not declared." => ["tools.call", "lifecycle.ping"];
    UnknownLogLevelAccepted = "unknown-log-level-accepted", "LOG-004", "logging/setLevel accepts an unknown level." => ["logging.set-level"];
    LogIgnoresLevel = "log-ignores-level", "LOG-003", "Log messages below the level set by logging/setLevel still arrive." => ["logging.filtering"];
    ProgressTokenAsString = "progress-token-as-string", "PROG-003", "Progress notifications carry a numeric token as a string (\"1\" for 1)." => ["progress.token"];
    ProgressWrongToken = "progress-wrong-token", "PROG-003", "Progress notifications carry a token nobody sent." => ["progress.token"];
    ProgressDecreasing = "progress-decreasing", "PROG-002", "Progress goes down instead of up." => ["progress.token"];
    AnswersCancelled = "answers-cancelled", "CANC-002", "notifications/cancelled is ignored and the call answered anyway." => ["cancellation.no-response"];
    DiesOnLateCancel = "dies-on-late-cancel", "CANC-005", "A cancellation of a request already answered kills the server." => ["cancellation.after-response"];
    UnknownToolSilent = "unknown-tool-silent", "RPC-004", "A call of an unknown tool gets no answer at all." => ["tools.unknown-tool"];
    StringIdAsNumber = "string-id-as-number", "RPC-004", "Answers to requests with a string id carry the number at its end instead (3 for \"mcp-conform-3\")." => ["lifecycle.ping"];
    InitializeIdAsString = "initialize-id-as-string", "RPC-004", "The answer to initialize carries its id as a string (\"1\" for 1)." => ["lifecycle.ping"];
    DiesOnStaleResponse = "dies-on-stale-response", "RPC-013", "A response to an id the server never used kills the server." => ["base.stale-response"];
    DiesOnUnknownNotification = "dies-on-unknown-notification", "RPC-020", "A notification the server does not know kills it (it sends no response: not RPC-008's breach)." => ["base.notification-no-response"];
    ElicitUndeclared = "elicit-undeclared", "ELIC-002", "Elicitation requests go to clients that did not declare elicitation." => ["elicitation.not-declared"];
    AcceptsInvalidContent = "accepts-invalid-content", "ELIC-010", "Accepted elicitation content is used without checking it against the form." => ["elicitation.invalid-content"];
    UrlRequiredWithForm = "url-required-with-form", "ELIC-015", "Error -32042 lists a form-mode elicitation." => ["elicitation.url-required"];
    UrlElicitationWithoutId = "url-elicitation-without-id", "ELIC-012", "A URL-mode elicitation has no elicitationId." => ["elicitation.url-mode"];
    ElicitNestedSchema = "elicit-nested-schema", "ELIC-005", "The elicitation form schema holds a nested object." => [
        "elicitation.accept", "elicitation.cancel", "elicitation.decline",
        "elicitation.invalid-content",
    ];
    RootsUndeclared = "roots-undeclared", "ROOT-001", "roots/list goes to clients that did not declare roots." => ["roots.not-declared"];
    SampleUndeclared = "sample-undeclared", "SAMP-001", "Sampling requests go to clients that did not declare sampling." => ["sampling.not-declared"];
    SampleIncludeContext = "sample-include-context", "SAMP-006", "Sampling asks for includeContext thisServer of a client that did not declare sampling.context." => ["sampling.round-trip"];
    SamplingPriorityRange = "sampling-priority-range", "SAMP-003", "Sampling asks with intelligencePriority 1.5." => ["sampling.preferences", "sampling.round-trip"];
    HttpPlainJsonRpc = "http-plain-json-rpc", "HTTP-006", "Over HTTP, requests answered at once get application/json and notifications 204 No Content, as plain JSON-RPC over POST does." => ["http.notification-202", "http.standalone-stream"];
    HttpOriginIgnored = "http-origin-ignored", "HTTP-003", "Over HTTP, Origin and Host are not checked, so a foreign site's page can reach the server (DNS rebinding)." => ["http.origin"];
    HttpVersionHeaderIgnored = "http-version-header-ignored", "HTTP-019", "Over HTTP, an unsupported or malformed MCP-Protocol-Version is served instead of refused with 400." => ["http.protocol-version-header"];
    HttpUnknownSession400 = "http-unknown-session-400", "HTTP-015", "Over HTTP, a request naming an unknown or ended session gets 400 instead of 404." => ["http.session-end"];
    HttpDeleteKeepsSession = "http-delete-keeps-session", "HTTP-015", "Over HTTP, DELETE is answered 200 but the session lives on." => ["http.session-end"];
    HttpGetJson = "http-get-json", "HTTP-012", "Over HTTP, GET on the endpoint is answered 200 with a JSON body instead of an SSE stream or 405." => ["http.standalone-stream"];
    HttpNoPriming = "http-no-priming", "HTTP-009", "Over HTTP, SSE answers start without the id-bearing empty priming event." => ["http.sse-priming"];
    HttpStreamLeftOpen = "http-stream-left-open", "HTTP-008", "Over HTTP, an SSE answer stays open after its response." => ["http.post-answer-forms"];
    HttpEndpointEventLate = "http-endpoint-event-late", "HTTP-001", "Over HTTP+SSE, the stream opens with a message event before the endpoint event." => ["http.sse-endpoint-event"];
    AuthAcceptsAnyToken = "auth-accepts-any-token", "AUTH-003", "In protected mode, any bearer token is accepted: forged, expired, unsigned or garbage." => ["auth.invalid-tokens"];
    AuthIgnoresAudience = "auth-ignores-audience", "AUTH-004", "In protected mode, the token's audience is not checked, so a token issued for another resource is accepted." => ["auth.wrong-audience"];
    AuthAcceptsExpired = "auth-accepts-expired", "AUTH-003", "In protected mode, the token's expiry is not checked." => ["auth.invalid-tokens"];
    AuthInvalidToken403 = "auth-invalid-token-403", "AUTH-003", "In protected mode, an invalid token gets 403 instead of 401." => ["auth.invalid-tokens"];
    AuthInsufficientScope401 = "auth-insufficient-scope-401", "AUTH-007", "In protected mode, a valid token without the needed scope gets 401 instead of 403." => ["auth.insufficient-scope"];
    AuthNoResourceMetadata = "auth-no-resource-metadata", "AUTH-011", "In protected mode, the 401 challenge has no resource_metadata parameter." => ["auth.challenge-resource-metadata"];
    AuthResourceMismatch = "auth-resource-mismatch", "AUTH-010", "In protected mode, the protected resource metadata names the server's origin as its resource, not the MCP endpoint." => ["auth.resource-metadata"];
    AuthServesBeforeValidating = "auth-serves-before-validating", "AUTH-005", "In protected mode, a request is processed before its token is checked; the refusal comes after the side effects." => ["auth.no-side-effects"];
    AuthSessionAuthenticates = "auth-session-authenticates", "AUTH-018", "In protected mode, a request naming a live session is served without a token." => ["auth.session-without-token"];
    AuthQueryToken = "auth-query-token", "AUTH-002", "In protected mode, a token in the access_token query parameter is accepted in place of the Authorization header." => ["auth.query-token"];
    AuthAudienceCaseSensitive = "auth-audience-case-sensitive", "AUTH-055", "In protected mode, the token's audience is compared as a string, so HTTP://127.0.0.1:… is refused though it names this server." => ["auth.audience-case"];
    AuthStateAuthenticates = "auth-state-authenticates", "AUTH-021", "In protected mode under 2026-07-28, a request echoing a requestState is served without a token." => ["auth.state-handle-without-token"];
    AuthMetadataHidden = "auth-metadata-hidden", "AUTH-012", "In protected mode, the protected resource metadata is at neither well-known URL and the challenge names none." => ["auth.metadata-discoverable"];
    AuthNoServerMetadata = "auth-no-server-metadata", "AUTH-025", "In protected mode, no RFC 8414 metadata is served at the server's origin (2025-03-26, where the server is its own authorization server)." => ["auth.authorization-server-metadata"];
    AuthMalformed401 = "auth-malformed-401", "AUTH-008", "In protected mode, a malformed authorization request (a token in both the header and the query, a Bearer credential of two words) gets 401 instead of 400." => ["auth.malformed-credential"];
    AuthSessionSharedByUsers = "auth-session-shared-by-users", "AUTH-020", "In protected mode, a session opened with one user's token is served to another user's valid token naming it." => ["auth.session-bound-to-user"];
    AuthStateSharedByUsers = "auth-state-shared-by-users", "AUTH-022", "In protected mode under 2026-07-28, a requestState issued to one user is honoured for another user's valid token." => ["auth.state-handle-bound-to-user"];
    AuthScopeOneAtATime = "auth-scope-one-at-a-time", "AUTH-015", "In protected mode, the 403 insufficient_scope challenge names only the first of the two scopes every request needs, so a token with exactly the scopes named is refused again." => ["auth.insufficient-scope-all-at-once"];
    AuthPlainHttpEndpoints = "auth-plain-http-endpoints", "AUTH-028", "In protected mode, the metadata at the server's origin (2025-03-26) names its endpoints on a host off loopback over plain http." => ["auth.endpoints-https"];
    AuthTasksSharedByUsers = "auth-tasks-shared-by-users", "TASK-009", "In protected mode under 2025-11-25, a tasks/* request with another user's valid token naming a session is served in that session, its tasks included." => ["auth.tasks-bound-to-user"];
    AuthExtensionTasksSharedByUsers = "auth-extension-tasks-shared-by-users", "TASKX-031", "In protected mode under 2026-07-28, the tasks extension's tasks/* requests are served without telling whose the task is, so any user's token reaches another's task." => ["auth.extension-tasks-bound-to-user"];
    AuthPredictableSessionIds = "auth-predictable-session-ids", "AUTH-019", "In protected mode, session ids are counted: session-1, session-2, …" => ["auth.session-ids"];
    AuthIntrospectionIgnoresActive = "auth-introspection-ignores-active", "AUTH-003", "In protected mode validating by introspection (--auth-introspect), a token is accepted whenever the introspection endpoint answers, even with active: false." => ["auth.invalid-tokens"];
    AuthDefaultNoToken = "auth-default-no-token", "AUTH-027", "In protected mode with the default endpoints (2025-03-26, no metadata), /token is not served: a POST there is refused as an MCP request without a token." => ["auth.default-endpoints"];
    AuthOpenRedirect = "auth-open-redirect", "AUTH-029", "In protected mode, the metadata at the server's origin (2025-03-26) names the server's own /authorize, which redirects every request to its redirect_uri, registered or not." => ["auth.open-redirect"];
    ModernNoResultType = "modern-no-result-type", "RPC-015", "Under 2026-07-28, results carry no resultType." => [
        "base.invalid-request", "base.notification-no-response", "base.parse-error",
        "base.unknown-method", "cancellation.stateless", "completion.complete",
        "completion.unknown-prompt", "elicitation.accept", "elicitation.cancel",
        "elicitation.decline", "elicitation.invalid-content", "elicitation.not-declared",
        "elicitation.outcomes-handled", "elicitation.url-stateless", "list-changed.tools",
        "logging.per-request", "mrtr.missing-input", "mrtr.round-trip", "mrtr.supported-requests", "pagination.invalid-cursor", "pagination.prompts",
        "pagination.resource-templates", "pagination.resources", "pagination.tools",
        "progress.token", "prompts.get-unknown", "prompts.missing-argument",
        "resources.read-listed", "resources.read-unknown-stateless", "roots.not-declared",
        "roots.round-trip", "sampling.not-declared", "sampling.preferences", "sampling.round-trip",
        "stateless.independent-requests", "stateless.lists-stable", "stateless.meta-required",
        "stateless.missing-capability", "stateless.removed-methods", "stateless.stdin-close",
        "stateless.unsupported-version", "subscriptions.acknowledged", "subscriptions.filter",
        "subscriptions.resource-updated", "subscriptions.server-ends", "tools.bad-arguments",
        "tools.call", "tools.execution-error", "tools.list", "tools.structured-output",
        "tools.unknown-tool",
    ];
    ModernNoServerInfo = "modern-no-server-info", "MODN-003", "Under 2026-07-28, results carry no io.modelcontextprotocol/serverInfo in _meta." => ["stateless.discover"];
    ModernMissingMetaAccepted = "modern-missing-meta-accepted", "MODN-002", "Under 2026-07-28, a request whose _meta lacks protocolVersion or clientCapabilities is served instead of refused with -32602." => ["stateless.meta-required"];
    ModernRemembersCapabilities = "modern-remembers-capabilities", "MODN-004", "Under 2026-07-28, capabilities an earlier request declared count for later requests that did not declare them." => ["stateless.independent-requests"];
    ModernWrongVersionCode = "modern-wrong-version-code", "MODN-005", "Under 2026-07-28, an unsupported protocol version gets -32602 without the supported versions instead of -32022." => ["stateless.unsupported-version"];
    ModernDiscoverMissing = "modern-discover-missing", "MODN-007", "Under 2026-07-28, server/discover is answered -32601 (method not found)." => ["stateless.discover"];
    ModernMissingCapabilityData = "modern-missing-capability-data", "MODN-008", "Under 2026-07-28, error -32021 does not say which capability is required (no data.requiredCapabilities)." => [
        "elicitation.not-declared", "roots.not-declared", "sampling.not-declared",
        "stateless.independent-requests", "stateless.missing-capability",
    ];
    ModernRemovedMethodServed = "modern-removed-method-served", "PING-002", "Under 2026-07-28, ping (a removed method) is answered with a result." => ["stateless.removed-methods"];
    ModernServerRequest = "modern-server-request", "RPC-017", "Under 2026-07-28, a roots/list request goes to the client before each tools/call answer." => [
        "elicitation.accept", "elicitation.cancel", "elicitation.decline",
        "elicitation.invalid-content", "elicitation.not-declared", "elicitation.outcomes-handled",
        "elicitation.url-stateless", "list-changed.tools", "logging.per-request",
        "mrtr.missing-input", "mrtr.round-trip", "mrtr.tampered-state", "progress.token",
        "roots.not-declared", "roots.round-trip", "sampling.not-declared", "sampling.preferences",
        "sampling.round-trip", "stateless.independent-requests", "stateless.lists-stable",
        "stateless.missing-capability", "subscriptions.filter", "subscriptions.resource-updated",
        "subscriptions.server-ends", "tools.bad-arguments", "tools.call", "tools.execution-error",
        "tools.structured-output", "tools.unknown-tool",
    ];
    ModernUrlRequiredError = "modern-url-required-error", "RPC-018", "Under 2026-07-28, connect with required: true fails with the removed error -32042." => ["elicitation.url-stateless"];
    ModernInputRequiredForList = "modern-input-required-for-list", "MRTR-001", "Under 2026-07-28, tools/list answers with an InputRequiredResult." => [
        "mrtr.supported-requests", "pagination.tools", "stateless.lists-stable", "tools.list",
        "tools.structured-output",
    ];
    ModernInputRequiredEmpty = "modern-input-required-empty", "MRTR-002", "Under 2026-07-28, InputRequiredResults carry neither inputRequests nor requestState." => [
        "elicitation.accept", "elicitation.cancel", "elicitation.decline",
        "elicitation.invalid-content", "elicitation.outcomes-handled", "elicitation.url-stateless",
        "mrtr.missing-input", "mrtr.round-trip", "roots.round-trip",
        "sampling.preferences", "sampling.round-trip", "stateless.independent-requests",
    ];
    ModernInputForUndeclaredCapability = "modern-input-for-undeclared-capability", "MRTR-004", "Under 2026-07-28, tools ask for elicitation, sampling or roots in inputRequests although the request did not declare the capability." => [
        "elicitation.not-declared", "roots.not-declared", "sampling.not-declared",
        "stateless.independent-requests", "stateless.missing-capability",
    ];
    ModernStateTamperAccepted = "modern-state-tamper-accepted", "MRTR-005", "Under 2026-07-28, a retry with a changed requestState is served as if the state were intact." => ["mrtr.tampered-state", "multi-turn.tampered-state"];
    ModernMissingInputError = "modern-missing-input-error", "MRTR-007", "Under 2026-07-28, a retry still lacking the requested input gets an error instead of a new InputRequiredResult." => ["mrtr.missing-input"];
    ModernDeclineBreaks = "modern-decline-breaks", "ELIC-016", "Under 2026-07-28, a retry whose elicitation was declined or cancelled fails with -32603." => ["elicitation.outcomes-handled"];
    ModernUnacknowledgedListen = "modern-unacknowledged-listen", "SUBS-001", "Under 2026-07-28, subscriptions/listen streams are never acknowledged." => [
        "list-changed.tools", "subscriptions.acknowledged", "subscriptions.filter",
        "subscriptions.resource-updated", "subscriptions.server-ends",
    ];
    ModernNotificationWithoutSubscriptionId = "modern-notification-without-subscription-id", "SUBS-003", "Under 2026-07-28, notifications on listen streams (after the acknowledgement) do not name their subscription." => ["list-changed.tools", "subscriptions.resource-updated"];
    ModernUnrequestedNotification = "modern-unrequested-notification", "LIST-003", "Under 2026-07-28, listen streams get every list_changed notification, whatever their filter asked for." => ["subscriptions.filter"];
    ModernToolsReordered = "modern-tools-reordered", "LIST-005", "Under 2026-07-28, every second walk through tools/list gets each page in reverse order." => ["stateless.lists-stable"];
    ModernLogWithoutLevel = "modern-log-without-level", "LOG-006", "Under 2026-07-28, a log message precedes the answer to requests that set no logLevel." => [
        "base.invalid-request", "base.notification-no-response", "base.parse-error",
        "base.unknown-method", "cancellation.stateless", "completion.complete",
        "completion.unknown-prompt", "elicitation.accept", "elicitation.cancel",
        "elicitation.decline", "elicitation.invalid-content", "elicitation.not-declared",
        "elicitation.outcomes-handled", "elicitation.url-stateless", "list-changed.tools",
        "logging.per-request", "mrtr.missing-input", "mrtr.round-trip", "mrtr.supported-requests",
        "mrtr.tampered-state", "pagination.invalid-cursor", "pagination.prompts",
        "pagination.resource-templates", "pagination.resources", "pagination.tools",
        "progress.token", "prompts.get-unknown", "prompts.missing-argument",
        "resources.read-listed", "resources.read-unknown-stateless", "roots.not-declared",
        "roots.round-trip", "sampling.not-declared", "sampling.preferences", "sampling.round-trip",
        "stateless.discover", "stateless.independent-requests", "stateless.lists-stable",
        "stateless.meta-required", "stateless.missing-capability", "stateless.removed-methods",
        "stateless.stdin-close", "stateless.unsupported-version", "subscriptions.acknowledged",
        "subscriptions.filter", "subscriptions.resource-updated", "subscriptions.server-ends",
        "tools.bad-arguments", "tools.call", "tools.execution-error", "tools.list",
        "tools.structured-output", "tools.unknown-tool",
    ];
    ModernLogOnListenStream = "modern-log-on-listen-stream", "LOG-006", "Under 2026-07-28, a log message follows the acknowledgement on listen streams." => [
        "list-changed.tools", "subscriptions.acknowledged", "subscriptions.filter",
        "subscriptions.resource-updated", "subscriptions.server-ends",
    ];
    ModernUnknownLogLevelAccepted = "modern-unknown-log-level-accepted", "LOG-004", "Under 2026-07-28, a request whose _meta logLevel is unknown is served instead of refused with -32602." => ["logging.per-request"];
    ModernProgressOnListen = "modern-progress-on-listen", "PROG-006", "Under 2026-07-28, progress notifications are tagged as listen-stream notifications." => ["progress.token"];
    ModernAnswersCancelled = "modern-answers-cancelled", "CANC-003", "Under 2026-07-28, notifications/cancelled is ignored and the call answered anyway." => ["cancellation.stateless", "subscriptions.resource-updated"];
    ModernLegacyNotFoundCode = "modern-legacy-not-found-code", "RES-005", "Under 2026-07-28, reading a missing resource gets the legacy -32002 instead of -32602." => ["resources.read-unknown-stateless"];
    ModernEmptyContentsNotFound = "modern-empty-contents-not-found", "RES-005", "Under 2026-07-28, reading a missing resource gets an empty contents array instead of an error." => ["resources.read-unknown-stateless"];
    ModernNoCacheFields = "modern-no-cache-fields", "CACHE-001", "Under 2026-07-28, cacheable results carry no ttlMs or cacheScope." => [
        "base.invalid-request", "base.notification-no-response", "base.parse-error",
        "base.unknown-method", "cancellation.stateless", "completion.complete",
        "completion.unknown-prompt", "elicitation.accept", "elicitation.cancel",
        "elicitation.decline", "elicitation.invalid-content", "elicitation.not-declared",
        "elicitation.outcomes-handled", "elicitation.url-stateless", "list-changed.tools",
        "logging.per-request", "mrtr.missing-input", "mrtr.round-trip", "mrtr.supported-requests",
        "mrtr.tampered-state", "pagination.invalid-cursor", "pagination.prompts",
        "pagination.resource-templates", "pagination.resources", "pagination.tools",
        "progress.token", "prompts.get-unknown", "prompts.missing-argument",
        "resources.read-listed", "resources.read-unknown-stateless", "roots.not-declared",
        "roots.round-trip", "sampling.not-declared", "sampling.preferences", "sampling.round-trip",
        "stateless.discover", "stateless.independent-requests", "stateless.lists-stable",
        "stateless.meta-required", "stateless.missing-capability", "stateless.removed-methods",
        "stateless.stdin-close", "stateless.unsupported-version", "subscriptions.acknowledged",
        "subscriptions.filter", "subscriptions.resource-updated", "subscriptions.server-ends",
        "tools.bad-arguments", "tools.call", "tools.execution-error", "tools.list",
        "tools.structured-output", "tools.unknown-tool",
    ];
    ModernPageScopeVaries = "modern-page-scope-varies", "CACHE-002", "Under 2026-07-28, list pages after the first are cacheScope private, the first public." => [
        "pagination.resources", "pagination.tools", "resources.read-listed",
        "stateless.lists-stable", "tools.list", "tools.structured-output",
    ];
    ModernHttpSessionMinted = "modern-http-session-minted", "HTTP-026", "Over HTTP under 2026-07-28, answers carry an Mcp-Session-Id." => ["http.stateless-no-sessions"];
    ModernHttpGetAllowed = "modern-http-get-allowed", "HTTP-026", "Over HTTP under 2026-07-28, GET on the endpoint opens an event stream and DELETE gets 200, instead of 405." => ["http.stateless-no-sessions"];
    ModernHttpHeaderMismatchIgnored = "modern-http-header-mismatch-ignored", "HTTP-021", "Over HTTP under 2026-07-28, MCP-Protocol-Version, Mcp-Method, Mcp-Name and Mcp-Param headers that are missing or disagree with the body are not refused." => ["http.stateless-headers", "http.stateless-param-headers"];
    ModernHttpUnknownMethod200 = "modern-http-unknown-method-200", "HTTP-022", "Over HTTP under 2026-07-28, an unknown method is answered with status 200 instead of 404." => ["http.stateless-errors"];
    ModernInvalidParamsInternal = "modern-invalid-params-internal", "RPC-012", "Under 2026-07-28, a tools/call whose arguments are not an object gets -32603 (internal error) instead of -32602." => ["base.invalid-params-stateless"];
    ModernDiesOnLateCancel = "modern-dies-on-late-cancel", "CANC-005", "Under 2026-07-28, a cancellation of a request already answered kills the server." => ["cancellation.after-response-stateless"];
    ModernUnknownCancelAnswered = "modern-unknown-cancel-answered", "CANC-004", "Under 2026-07-28, a cancellation of a request the server never saw is answered with an error." => ["cancellation.unknown-request-stateless"];
    ModernHttpOriginIgnored = "modern-http-origin-ignored", "HTTP-003", "Over HTTP under 2026-07-28, Origin and Host are not checked, so a foreign site's page can reach the server (DNS rebinding)." => ["http.origin-stateless"];
    ModernHttpNotification204 = "modern-http-notification-204", "HTTP-006", "Over HTTP under 2026-07-28, a POSTed notification is acknowledged with 204 No Content instead of 202." => ["http.notification-202-stateless"];
    ModernHttpStreamLeftOpen = "modern-http-stream-left-open", "HTTP-008", "Over HTTP under 2026-07-28, an SSE answer stays open after its response." => ["http.post-answer-forms-stateless"];
    TaskCreatedFlat = "task-created-flat", "TASK-003", "A task-augmented tools/call is answered with the task's fields at the top of the result instead of under `task`." => [
        "tasks.cancel", "tasks.failing-tool", "tasks.lifecycle", "tasks.list", "tasks.required-tool",
    ];
    TaskReusedId = "task-reused-id", "TASK-003", "Every task created after the first is announced under the first task's id." => ["tasks.list"];
    TaskRevives = "task-revives", "TASK-004", "tasks/get shows a cancelled task working again." => ["tasks.cancel"];
    ResultWithoutRelatedTask = "result-without-related-task", "TASK-005", "tasks/result answers without the related-task key in _meta." => [
        "tasks.failing-tool", "tasks.lifecycle", "tasks.required-tool",
    ];
    TaskUnknownIdCode = "task-unknown-id-code", "TASK-006", "tasks/get, tasks/result, tasks/cancel and tasks/list answer -32603 where -32602 is due (unknown task, invalid cursor, cancel of an ended task)." => [
        "tasks.cancel", "tasks.list", "tasks.unknown-task",
    ];
    CancelAnswersWorking = "cancel-answers-working", "TASK-007", "tasks/cancel answers with the task still working." => ["tasks.cancel"];
    RequiredToolServedPlain = "required-tool-served-plain", "TASK-002", "A tool that runs only as a task answers a plain call with a result instead of -32601." => ["tasks.required-tool"];
    TaskProgressAfterEnd = "task-progress-after-end", "TASK-008", "After tasks/get shows a task completed, one more notifications/progress goes out with the token of the call that created it." => ["tasks.progress"];
    ForbiddenToolServedAsTask = "forbidden-tool-served-as-task", "TASK-002", "A tool without task support called as a task is served as an ordinary call instead of refused with -32601." => ["tasks.forbidden-tool"];
    ModernTaskOldOptIn = "modern-task-old-opt-in", "TASKX-026", "Under 2026-07-28, a tools/call that asks for a task the 2025-11-25 way (params.task) without the extension is answered with a CreateTaskResult." => ["tasks.extension-opt-in"];
    ModernTaskCreatedNested = "modern-task-created-nested", "TASKX-007", "Under 2026-07-28, a CreateTaskResult holds the task's fields under `task`, as 2025-11-25 did, instead of at its top." => [
        "tasks.extension-lifecycle", "tasks.extension-opt-in", "tasks.extension-required-tool",
        "tasks.extension-rpc-error", "tasks.extension-tool-error",
    ];
    ModernTaskNotStoredYet = "modern-task-not-stored-yet", "TASKX-008", "Under 2026-07-28, the first tasks/get of a task just created gets -32602, as if it were announced before it was stored." => [
        "tasks.extension-lifecycle", "tasks.extension-opt-in", "tasks.extension-required-tool",
        "tasks.extension-rpc-error", "tasks.extension-tool-error",
    ];
    ModernTaskNoInlinedResult = "modern-task-no-inlined-result", "TASKX-010", "Under 2026-07-28, tasks/get of a completed task leaves out its result." => [
        "tasks.extension-lifecycle", "tasks.extension-opt-in", "tasks.extension-required-tool",
        "tasks.extension-tool-error",
    ];
    ModernTaskToolErrorFails = "modern-task-tool-error-fails", "TASKX-012", "Under 2026-07-28, a task whose tool result has isError is shown failed, with an error, as 2025-11-25 did." => ["tasks.extension-tool-error"];
    ModernTaskUnknownIdCode = "modern-task-unknown-id-code", "TASKX-013", "Under 2026-07-28, tasks/get of an unknown task gets -32603 instead of -32602." => ["tasks.extension-cancel-update"];
    ModernTaskGetUndeclaredServed = "modern-task-get-undeclared-served", "TASKX-015", "Under 2026-07-28, tasks/get, tasks/update and tasks/cancel from a request without the tasks extension are served instead of refused with -32021." => ["tasks.extension-opt-in"];
    ModernTaskRequiredOldCode = "modern-task-required-old-code", "TASKX-003", "Under 2026-07-28, a tool that runs only as a task refuses a request without the extension with -32003, the code of copies of the extension from before 2026-08-19, instead of -32021." => ["tasks.extension-required-tool"];
    ModernTaskResultServed = "modern-task-result-served", "TASKX-024", "Under 2026-07-28, tasks/result (removed by the extension) is answered with a result instead of -32601." => ["tasks.extension-removed-methods"];
    ModernTaskCancelAsTask = "modern-task-cancel-as-task", "TASKX-022", "Under 2026-07-28, tasks/cancel is answered with resultType \"task\" instead of an acknowledgement whose resultType is \"complete\"." => ["tasks.extension-cancel-update"];
    ModernTaskCreatedMidRound = "modern-task-created-mid-round", "TASKX-009", "Under 2026-07-28, the CreateTaskResult that answers a call's last input round still carries the round's requestState and an inputRequests under the round's keys, as if the round were open." => ["tasks.extension-input-first"];
    ModernTaskInputKeyReused = "modern-task-input-key-reused", "TASKX-018", "Under 2026-07-28, a task whose input was answered asks again under the same inputRequests key, for a different request." => ["tasks.extension-input"];
    ModernTaskNotificationPartial = "modern-task-notification-partial", "TASKX-033", "Under 2026-07-28, notifications/tasks on a listen stream leaves out the result of a completed task, which tasks/get shows." => ["tasks.extension-listen"];
    ModernTaskProgressOnListen = "modern-task-progress-on-listen", "TASKX-034", "Under 2026-07-28, a listen stream that follows a task also gets notifications/progress for it, with the token of the call that created it, before each of its notifications/tasks." => ["tasks.extension-listen"];
    ModernTaskCancelledByNotification = "modern-task-cancelled-by-notification", "TASKX-023", "Under 2026-07-28, a notifications/cancelled for a call answered with a task cancels the task." => ["tasks.extension-cancelled-notification"];
    ModernHttpUnrelatedNotification = "modern-http-unrelated-notification", "HTTP-028", "Over HTTP under 2026-07-28, add_tool's own response stream carries a tools/list_changed notification, which is about no request." => ["http.stateless-request-stream"];
    MultiTurnSkipsSampling = "multi-turn-skips-sampling", "TURN-001", "The multi-turn tool's sampling request goes out as a ping, so it never asks the model and never reaches its confirmation." => [
        "multi-turn.decline-midway", "multi-turn.elicit-sample-elicit",
    ];
    IgnoresSamplingReply = "ignores-sampling-reply", "TURN-001", "The multi-turn tool gets a made-up model reply instead of the client's, so its result does not reflect the sampling answer." => ["multi-turn.elicit-sample-elicit"];
    ModernMultiTurnSkipsSampling = "modern-multi-turn-skips-sampling", "TURN-001", "Under 2026-07-28, the multi-turn tool's sampling round asks for an empty form instead, so the model is never asked." => [
        "multi-turn.decline-midway", "multi-turn.elicit-sample-elicit",
    ];
    ModernRepeatsSideEffect = "modern-repeats-side-effect", "TURN-002", "Under 2026-07-28, every retry of the multi-turn tool also runs as a first call, so the work it does before its first ask happens once per round (stdio only)." => ["multi-turn.once-per-call"];
    FuzzCrashOnEmptyString = "fuzz-crash-on-empty-string", "TOOL-006", "A tools/call with an empty string argument kills the server (found by `mcp-conform fuzz`).";
    FuzzHangOnLongString = "fuzz-hang-on-long-string", "TOOL-006", "A tools/call with a string argument of 10000 bytes or more leaves the server stuck, answering nothing, not even ping (found by `mcp-conform fuzz`).";
    FuzzInternalErrorOnWrongType = "fuzz-internal-error-on-wrong-type", "RPC-012", "echo called with a `text` that is not a string gets -32603 instead of -32602 (found by `mcp-conform fuzz`).";
    FuzzCrashOnLongUri = "fuzz-crash-on-long-uri", "RPC-004", "A resources/read of a URI of 10000 bytes or more kills the server, leaving the request unanswered (found by `mcp-conform fuzz` from a resource template).";
}

impl Fault {
    /// Whether the fault breaks a rule of the HTTP transports (it does
    /// nothing over stdio, or nothing the stdio rules forbid).
    pub fn is_http(self) -> bool {
        self.name().starts_with("http-") || self.name().starts_with("modern-http-") || self.is_auth()
    }

    /// Whether the fault breaks a rule of the protected mode (an HTTP
    /// server run with `--auth`); it does nothing to an open server.
    pub fn is_auth(self) -> bool {
        self.name().starts_with("auth-")
    }

    /// Whether only generated arguments set the fault off (`mcp-conform
    /// fuzz`, swept by harness/tests/fuzz.rs): no bundled scenario does.
    pub fn is_fuzz(self) -> bool {
        self.name().starts_with("fuzz-")
    }

    /// Whether the fault breaks a rule of the stateless revision
    /// (2026-07-28); it does nothing to a legacy session.
    pub fn is_modern(self) -> bool {
        self.name().starts_with("modern-")
    }
}

/// A line to write out: a frame, or raw text (for faults that break framing).
#[derive(Debug)]
pub(crate) enum Emit {
    Frame(Value),
    Raw(String),
}

/// The fault applied to one connection, with what it needs to remember.
#[derive(Debug)]
pub(crate) struct FaultLayer {
    fault: Fault,
    state: Mutex<State>,
    memory: Arc<Mutex<Memory>>,
}

/// What the faults of one server remember beyond a connection: over HTTP
/// every stateless POST has a layer of its own, and shares this.
#[derive(Debug, Default)]
pub(crate) struct Memory {
    /// The latest `requestState` handed out, per method and target.
    issued_states: HashMap<(String, String), String>,
    /// Every client capability a request declared.
    remembered_capabilities: Map<String, Value>,
    /// Walks through `tools/list` begun (requests without a cursor).
    tools_walks: usize,
}

#[derive(Debug, Default)]
struct State {
    /// Requests of the client not answered yet: method and params by id.
    requests: HashMap<String, (String, Value)>,
    /// Every nextCursor the server handed out.
    cursors: HashSet<String>,
    /// The last item of the latest page, per list method.
    last_items: HashMap<String, Value>,
    /// `initialize` has arrived.
    initialize_seen: bool,
    /// Ids of the server's own requests.
    asked: HashSet<String>,
    /// Ids of the client's requests the server has answered.
    answered: HashSet<String>,
    /// The connection speaks 2026-07-28.
    stateless: bool,
    /// The id of the first task created (`task-reused-id`).
    first_task: Option<Value>,
    /// Tasks of the extension created and not polled yet (`modern-task-not-stored-yet`).
    unpolled_tasks: HashSet<String>,
    /// The input requests a task of the extension showed last, by task id
    /// (`modern-task-input-key-reused`).
    task_inputs: HashMap<String, Value>,
    /// The task each tools/call was answered with, by request id, and the
    /// tasks a notifications/cancelled named the call of
    /// (`modern-task-cancelled-by-notification`).
    task_calls: HashMap<String, String>,
    cancelled_tasks: HashSet<String>,
    /// The progress token of the call that created each task, by task id
    /// (`task-progress-after-end`, `modern-task-progress-on-listen`).
    task_tokens: HashMap<String, Value>,
    /// Ids of requests the layer sent the server itself, whose answers
    /// the client must not see.
    swallowed: HashSet<String>,
}

/// Frames that go out with the one being rewritten.
#[derive(Debug, Default)]
struct Around {
    before: Vec<Value>,
    after: Vec<Value>,
}

/// What becomes of one input line.
#[derive(Debug, Default)]
pub(crate) struct Inbound {
    /// Lines the server gets first, sent by the layer itself (stdio only).
    pub first: Vec<String>,
    /// The line the server gets, if any.
    pub line: Option<String>,
    /// A frame written back at once, past the server.
    pub answer: Option<Value>,
}

impl Inbound {
    fn pass(line: String) -> Self {
        Inbound {
            first: Vec::new(),
            line: Some(line),
            answer: None,
        }
    }
}

/// Notifications a client may send; any other one is unknown.
const KNOWN_NOTIFICATIONS: [&str; 4] = [
    "notifications/initialized",
    "notifications/cancelled",
    "notifications/progress",
    "notifications/roots/list_changed",
];

/// The list member of each paginated method's result.
const LISTS: [(&str, &str); 4] = [
    ("tools/list", "tools"),
    ("resources/list", "resources"),
    ("resources/templates/list", "resourceTemplates"),
    ("prompts/list", "prompts"),
];

impl FaultLayer {
    pub fn new(fault: Fault) -> Self {
        FaultLayer::sharing(fault, Arc::default())
    }

    /// A layer for one connection of a server whose layers share `memory`.
    pub fn sharing(fault: Fault, memory: Arc<Mutex<Memory>>) -> Self {
        FaultLayer {
            fault,
            state: Mutex::new(State::default()),
            memory,
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().expect("fault state lock")
    }

    fn memory(&self) -> std::sync::MutexGuard<'_, Memory> {
        self.memory.lock().expect("fault memory lock")
    }

    /// What goes out before anything else.
    pub fn at_start(&self) -> Option<Emit> {
        (self.fault == Fault::StdoutBanner).then(|| Emit::Raw("reference server ready".into()))
    }

    /// Rewrites, drops or answers one input line before the server sees it.
    pub fn incoming(&self, line: &str) -> Inbound {
        let Ok(mut message) = serde_json::from_str::<Value>(line) else {
            return Inbound::pass(line.to_owned());
        };
        let method = message.get("method").and_then(Value::as_str).map(str::to_owned);
        let Some(method) = method else {
            let id = message.get("id").map(id_key).unwrap_or_default();
            if self.fault == Fault::DiesOnStaleResponse && !self.state().asked.contains(&id) {
                self.die("a response to an id it never used");
            }
            if self.multi_turn_response_in(&mut message) {
                return Inbound::pass(message.to_string());
            }
            // What the server sees instead of the client's content: something that fits.
            if self.fault == Fault::AcceptsInvalidContent
                && message.pointer("/result/action") == Some(&json!("accept"))
            {
                message["result"]["content"] = json!({ "name": "someone" });
                return Inbound::pass(message.to_string());
            }
            return Inbound::pass(line.to_owned());
        };
        if self.dies_on_late_cancel() && method == "notifications/cancelled" {
            let id = message
                .pointer("/params/requestId")
                .map(id_key)
                .unwrap_or_default();
            if self.state().answered.contains(&id) {
                self.die("a cancellation of a request it already answered");
            }
        }
        match message.get("id") {
            Some(id) => {
                let params = message.get("params").cloned().unwrap_or(Value::Null);
                let mut state = self.state();
                state.initialize_seen |= method == "initialize";
                state.requests.insert(id_key(id), (method.clone(), params));
            }
            None if self.fault == Fault::DiesOnUnknownNotification
                && !KNOWN_NOTIFICATIONS.contains(&method.as_str()) =>
            {
                self.die("a notification it does not know")
            }
            None if self.fault == Fault::NotificationAnswered
                && !KNOWN_NOTIFICATIONS.contains(&method.as_str()) =>
            {
                return Inbound {
                    line: Some(line.to_owned()),
                    answer: Some(json!({ "jsonrpc": "2.0", "id": null, "result": {} })),
                    ..Inbound::default()
                };
            }
            None => {}
        }
        if let Some(inbound) = self.stateless_incoming(&mut message, &method) {
            return inbound;
        }
        if let Some(inbound) = self.fuzz_incoming(&message, &method) {
            return inbound;
        }
        if let Some(inbound) = self.multi_turn_incoming(&mut message, &method) {
            return inbound;
        }
        if self.fault == Fault::UpdatedAfterUnsubscribe && method == "resources/unsubscribe" {
            let id = message.get("id").cloned().unwrap_or(Value::Null);
            return Inbound::pass(json!({ "jsonrpc": "2.0", "id": id, "method": "ping" }).to_string());
        }
        // Indexing would add `params: null` to messages without params; only
        // the arms that rewrite params reach for them.
        let mut empty = Value::Null;
        let params = message.get_mut("params").unwrap_or(&mut empty);
        match (self.fault, method.as_str()) {
            (Fault::AnswersCancelled, "notifications/cancelled") => return Inbound::default(),
            (Fault::ModernTaskCancelledByNotification, "notifications/cancelled") => {
                self.cancel_task_of(params);
            }
            (Fault::ElicitUndeclared, "initialize") => params["capabilities"]["elicitation"] = json!({}),
            (Fault::SampleUndeclared, "initialize") => params["capabilities"]["sampling"] = json!({}),
            (Fault::RootsUndeclared, "initialize") => params["capabilities"]["roots"] = json!({}),
            (Fault::LogIgnoresLevel, "logging/setLevel") => params["level"] = json!("debug"),
            (Fault::MissingArgumentAccepted, "prompts/get") => {
                if params["arguments"].get("name").is_none() {
                    params["arguments"]["name"] = json!("someone");
                }
            }
            (Fault::InvalidParamsAccepted, "tools/call") if params.get("name").is_none() => {
                *params = json!({ "name": "echo", "arguments": { "text": "" } });
            }
            (Fault::CrashOnBadArguments, "tools/call")
                if params.get("arguments").is_some_and(|a| !a.is_object()) =>
            {
                self.die("arguments that are not an object");
            }
            (Fault::InvalidCursorIgnored, list) if LISTS.iter().any(|(m, _)| *m == list) => {
                let issued = params
                    .get("cursor")
                    .and_then(Value::as_str)
                    .is_none_or(|cursor| self.state().cursors.contains(cursor));
                if !issued && let Some(members) = params.as_object_mut() {
                    members.remove("cursor");
                }
            }
            _ => return Inbound::pass(line.to_owned()),
        }
        Inbound::pass(message.to_string())
    }

    /// What to write for one frame of the server.
    pub fn outgoing(&self, mut frame: Value) -> Vec<Emit> {
        if self.is_swallowed(&frame) {
            return Vec::new();
        }
        let error_code = frame.pointer("/error/code").and_then(Value::as_i64);
        if let (Fault::NoParseError, Some(code::PARSE_ERROR))
        | (Fault::InvalidRequestIgnored, Some(code::INVALID_REQUEST)) = (self.fault, error_code)
        {
            return Vec::new();
        }
        let answered = match (frame.get("method"), frame.get("id")) {
            (None, Some(id)) => {
                let mut state = self.state();
                state.answered.insert(id_key(id));
                state.requests.remove(&id_key(id))
            }
            (Some(_), Some(id)) => {
                self.state().asked.insert(id_key(id));
                None
            }
            _ => None,
        };
        if let (Fault::UnknownToolSilent, Some(_), Some((method, params))) =
            (self.fault, error_code, &answered)
            && method == "tools/call"
            && params["name"] == UNKNOWN_TOOL
        {
            return Vec::new();
        }
        let mut around = Around::default();
        match &answered {
            Some((method, params)) => {
                self.distort_response(method, params, &mut frame, &mut around.after);
                self.stateless_response(method, params, &mut frame, &mut around);
                self.tasks_response(method, params, &mut frame, &mut around.after);
                self.task_extension_response(method, params, &mut frame);
                self.multi_turn_result_out(method, params, &mut frame);
            }
            None => {
                self.multi_turn_request_out(&mut frame);
                self.task_extension_message(&mut frame, &mut around);
                if self.distort_message(&mut frame) || self.stateless_message(&mut frame, &mut around) {
                    return Vec::new();
                }
            }
        }
        let Around { before, after } = around;
        before
            .into_iter()
            .chain(std::iter::once(frame))
            .chain(after)
            .map(Emit::Frame)
            .collect()
    }

    /// Rewrites the server's answer to `method`; `extra` frames follow it.
    fn distort_response(&self, method: &str, params: &Value, frame: &mut Value, extra: &mut Vec<Value>) {
        let error_code = frame.pointer("/error/code").and_then(Value::as_i64);
        if let Some(result) = frame.get_mut("result") {
            self.note_page(method, params, result);
        }
        match (self.fault, method, error_code) {
            (Fault::UnknownMethodCode, _, Some(code::METHOD_NOT_FOUND))
            | (Fault::ResourceNotFoundCode, "resources/read", Some(code::LEGACY_RESOURCE_NOT_FOUND))
            | (Fault::UnknownPromptCode, "prompts/get", Some(_)) => {
                frame["error"]["code"] = json!(code::INTERNAL_ERROR);
            }
            (Fault::UnknownToolResult, "tools/call", Some(_)) => {
                let message = frame["error"]["message"].clone();
                *frame = json!({ "jsonrpc": "2.0", "id": frame["id"], "result": {
                    "content": [{ "type": "text", "text": message }], "isError": true } });
            }
            (Fault::UnknownLogLevelAccepted, "logging/setLevel", Some(_)) => {
                *frame = json!({ "jsonrpc": "2.0", "id": frame["id"], "result": {} });
            }
            (Fault::PingWrongJsonrpc, "ping", None) => frame["jsonrpc"] = json!("1.0"),
            (Fault::StringIdAsNumber, _, _) => {
                let digits = frame["id"]
                    .as_str()
                    .map(|id| id.trim_start_matches(|c: char| !c.is_ascii_digit()));
                if let Some(number) = digits.and_then(|d| d.parse::<i64>().ok()) {
                    frame["id"] = json!(number);
                }
            }
            (Fault::InitializeIdAsString, "initialize", _) => frame["id"] = json!(frame["id"].to_string()),
            (Fault::PingRefusedBeforeInit, "ping", None) if !self.state().initialize_seen => {
                *frame = json!({ "jsonrpc": "2.0", "id": frame["id"],
                    "error": { "code": code::INVALID_REQUEST, "message": "not initialized" } });
            }
            (Fault::EchoUnknownVersion, "initialize", None) => {
                frame["result"]["protocolVersion"] = params["protocolVersion"].clone();
            }
            (Fault::PromptsUndeclared, "initialize", None) => {
                if let Some(capabilities) = frame["result"]["capabilities"].as_object_mut() {
                    capabilities.remove("prompts");
                }
            }
            (Fault::LogUndeclared, "initialize", None) => {
                if let Some(capabilities) = frame["result"]["capabilities"].as_object_mut() {
                    capabilities.remove("logging");
                }
                extra.push(json!({ "jsonrpc": "2.0", "method": "notifications/message",
                    "params": { "level": "info", "data": "initialized" } }));
            }
            (Fault::ListChangedUndeclared, "initialize", None) => {
                frame["result"]["capabilities"]["tools"] = json!({});
            }
            (Fault::RequestBeforeInitialized, "initialize", None) => {
                extra.push(json!({ "jsonrpc": "2.0", "id": "early-roots", "method": "roots/list" }));
            }
            (Fault::BadToolName | Fault::InvalidInputSchema, "tools/list", None) => {
                let tools = frame["result"]["tools"].as_array_mut().into_iter().flatten();
                for tool in tools.filter(|t| t["name"] == "fail") {
                    if self.fault == Fault::BadToolName {
                        tool["name"] = json!("fail now!");
                    } else {
                        tool["inputSchema"]["type"] = json!("objekt");
                    }
                }
            }
            (Fault::ToolErrorAsProtocolError, "tools/call", None)
                if frame["result"]["isError"] == json!(true) =>
            {
                *frame = json!({ "jsonrpc": "2.0", "id": frame["id"],
                    "error": { "code": code::INTERNAL_ERROR, "message": "the tool failed" } });
            }
            (Fault::StructuredMismatch, "tools/call", None) => {
                if let Some(Value::Object(members)) = frame["result"].get_mut("structuredContent") {
                    for value in members.values_mut().filter(|v| v.is_number()) {
                        *value = json!(value.to_string());
                    }
                }
            }
            (Fault::StructuredNotSerialized, "tools/call", None)
                if frame["result"].get("structuredContent").is_some() =>
            {
                frame["result"]["content"] = json!([{ "type": "text", "text": "see structuredContent" }]);
            }
            (Fault::BadBase64, "resources/read", None) => {
                let contents = frame["result"]["contents"].as_array_mut().into_iter().flatten();
                for item in contents.filter(|c| c.get("blob").is_some()) {
                    item["blob"] = json!("not base64!");
                }
            }
            (Fault::UrlRequiredWithForm, "tools/call", Some(-32042)) => {
                frame["error"]["data"]["elicitations"][0]["mode"] = json!("form");
            }
            (Fault::CompletionTooMany, "completion/complete", None) => {
                let values: Vec<String> = (0..150).map(|i| format!("value-{i}")).collect();
                frame["result"]["completion"] = json!({ "values": values, "total": 150, "hasMore": false });
            }
            _ => {}
        }
    }

    /// Rewrites a request or notification of the server; `true` drops it.
    fn distort_message(&self, frame: &mut Value) -> bool {
        let method = frame
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let mut empty = Value::Null;
        let params = frame.get_mut("params").unwrap_or(&mut empty);
        match (self.fault, method.as_str()) {
            (Fault::ListChangedSilent, m) => return m.ends_with("/list_changed"),
            (Fault::ProgressTokenAsString, "notifications/progress")
                if params["progressToken"].is_number() =>
            {
                params["progressToken"] = json!(params["progressToken"].to_string());
            }
            (Fault::ProgressWrongToken, "notifications/progress") => {
                params["progressToken"] = json!(format!("not-{}", params["progressToken"]));
            }
            (Fault::ProgressDecreasing, "notifications/progress") => {
                let progress = params["progress"].as_f64().unwrap_or_default();
                params["progress"] = json!(1000.0 - progress);
                if let Some(members) = params.as_object_mut() {
                    members.remove("total");
                }
            }
            (Fault::ElicitNestedSchema, "elicitation/create") => {
                params["requestedSchema"]["properties"]["address"] =
                    json!({ "type": "object", "properties": { "city": { "type": "string" } } });
            }
            (Fault::UrlElicitationWithoutId, "elicitation/create") => {
                if let Some(members) = params.as_object_mut() {
                    members.remove("elicitationId");
                }
            }
            (Fault::SampleIncludeContext, "sampling/createMessage") => {
                params["includeContext"] = json!("thisServer")
            }
            (Fault::SamplingPriorityRange, "sampling/createMessage") => {
                params["modelPreferences"]["intelligencePriority"] = json!(1.5);
            }
            _ => {}
        }
        false
    }

    /// Whether a late cancellation kills the server: always with
    /// `dies-on-late-cancel`, once the connection speaks 2026-07-28 with its
    /// modern twin.
    fn dies_on_late_cancel(&self) -> bool {
        match self.fault {
            Fault::DiesOnLateCancel => true,
            Fault::ModernDiesOnLateCancel => self.state().stateless,
            _ => false,
        }
    }

    /// Ends the process the way a crashing server would.
    fn die(&self, cause: &str) -> ! {
        eprintln!("reference server (fault {}): crashing on {cause}", self.fault);
        std::process::exit(70);
    }

    /// Remembers what a list page handed out, and (for one fault) repeats
    /// the previous page's last item at the top of the next page.
    fn note_page(&self, method: &str, params: &Value, result: &mut Value) {
        let Some((_, member)) = LISTS.iter().find(|(m, _)| *m == method) else {
            return;
        };
        let mut state = self.state();
        if let Some(cursor) = result.get("nextCursor").and_then(Value::as_str) {
            state.cursors.insert(cursor.to_owned());
        }
        let Some(items) = result.get_mut(*member).and_then(Value::as_array_mut) else {
            return;
        };
        let last = items.last().cloned();
        if self.fault == Fault::DuplicateAcrossPages
            && params.get("cursor").is_some()
            && let Some(previous) = state.last_items.get(method)
        {
            items.insert(0, previous.clone());
        }
        if let Some(last) = last {
            state.last_items.insert(method.to_owned(), last);
        }
    }
}
