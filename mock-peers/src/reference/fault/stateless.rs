//! The faults of the stateless revision (2026-07-28). Each acts only once
//! the connection has sent a stateless request, so a legacy session served
//! with one of them stays correct.

use mcp_conform_core::version::ProtocolVersion;
use serde_json::{Map, Value, json};

use super::{Around, Fault, FaultLayer, Inbound, LISTS};
use crate::reference::era::{
    self, CLIENT_CAPABILITIES, LOG_LEVEL, PROTOCOL_VERSION, SERVER_INFO, SUBSCRIPTION_ID,
};
use crate::reference::identity;
use crate::reference::session;
use mcp_conform_core::wire::jsonrpc::{self, RpcError, code, id_key};

/// The methods that may ask for input (MRTR-001).
const MAY_ASK: [&str; 3] = ["tools/call", "prompts/get", "resources/read"];

const LISTEN: &str = "subscriptions/listen";
const ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";

/// A log message of this server's own, about nothing in particular.
fn log_message(meta: Option<Value>) -> Value {
    let mut params = json!({ "level": "info", "logger": "reference", "data": "a message nobody asked for" });
    if let Some(meta) = meta {
        params["_meta"] = meta;
    }
    jsonrpc::notification("notifications/message", params)
}

fn error(id: &Value, code: i64, message: &str) -> Value {
    jsonrpc::response(id, Err(RpcError::new(code, message)))
}

/// The `_meta` member of a request's params.
fn meta(params: &Value) -> Option<&Value> {
    params.get("_meta")
}

/// The name or URI a request is about.
fn target(params: &Value) -> String {
    params
        .get("name")
        .or_else(|| params.get("uri"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

impl FaultLayer {
    /// Whether a stateless fault acts on this connection.
    pub(super) fn acts_stateless(&self) -> bool {
        self.fault.is_modern() && self.state().stateless
    }

    /// Rewrites or drops one incoming message; `None` when it is not this
    /// layer's to touch.
    pub(super) fn stateless_incoming(&self, message: &mut Value, method: &str) -> Option<Inbound> {
        self.state().stateless |= era::is_stateless_request(message);
        if !self.acts_stateless() {
            return None;
        }
        let is_request = message.get("id").is_some();
        if message.get("params").is_none() && is_request {
            message["params"] = json!({});
        }
        let mut empty = Value::Null;
        let params = message.get_mut("params").unwrap_or(&mut empty);
        match (self.fault, method) {
            (Fault::ModernAnswersCancelled, "notifications/cancelled") => return Some(Inbound::default()),
            (Fault::ModernUnknownCancelAnswered, "notifications/cancelled") => {
                let id = params.get("requestId").map(id_key).unwrap_or_default();
                if self.state().requests.contains_key(&id) {
                    return None;
                }
                return Some(Inbound {
                    answer: Some(error(&Value::Null, code::INVALID_PARAMS, "no such request")),
                    ..Inbound::default()
                });
            }
            (Fault::ModernMissingMetaAccepted, _) if is_request => {
                let meta = &mut params["_meta"];
                if meta.get(PROTOCOL_VERSION).is_none() {
                    meta[PROTOCOL_VERSION] = json!("2026-07-28");
                }
                if meta.get(CLIENT_CAPABILITIES).is_none() {
                    meta[CLIENT_CAPABILITIES] = json!({});
                }
            }
            (Fault::ModernRemembersCapabilities, _) => {
                let declared = params["_meta"].get_mut(CLIENT_CAPABILITIES)?;
                let mut memory = self.memory();
                for (name, capability) in declared.as_object().into_iter().flatten() {
                    memory
                        .remembered_capabilities
                        .entry(name.clone())
                        .or_insert_with(|| capability.clone());
                }
                *declared = Value::Object(memory.remembered_capabilities.clone());
            }
            (Fault::ModernUnknownLogLevelAccepted, _) => {
                let meta = params.get_mut("_meta")?.as_object_mut()?;
                let level = meta.get(LOG_LEVEL)?;
                if level.as_str().and_then(session::log_rank).is_some() {
                    return None;
                }
                meta.remove(LOG_LEVEL);
            }
            (Fault::ModernInvalidParamsInternal, "tools/call")
                if params.get("arguments").is_some_and(|a| !a.is_object()) =>
            {
                let id = message.get("id").cloned().unwrap_or(Value::Null);
                return Some(Inbound {
                    answer: Some(error(&id, code::INTERNAL_ERROR, "internal error")),
                    ..Inbound::default()
                });
            }
            (Fault::ModernInputForUndeclaredCapability, "tools/call") => {
                params["_meta"][CLIENT_CAPABILITIES] =
                    json!({ "elicitation": { "form": {}, "url": {} }, "sampling": {}, "roots": {} });
            }
            (Fault::ModernStateTamperAccepted, method) if MAY_ASK.contains(&method) => {
                let sent = params.get("requestState")?.as_str()?.to_owned();
                let memory = self.memory();
                let issued = memory.issued_states.get(&(method.to_owned(), target(params)))?;
                if *issued == sent {
                    return None;
                }
                params["requestState"] = json!(issued);
            }
            (Fault::ModernUnrequestedNotification, LISTEN) => {
                for member in ["toolsListChanged", "promptsListChanged", "resourcesListChanged"] {
                    params["notifications"][member] = json!(true);
                }
            }
            _ => return None,
        }
        Some(Inbound::pass(message.to_string()))
    }

    /// Rewrites the answer to a stateless request; `around` gets frames
    /// that go out before and after it.
    pub(super) fn stateless_response(
        &self,
        method: &str,
        params: &Value,
        frame: &mut Value,
        around: &mut Around,
    ) {
        let result_state = frame.pointer("/result/requestState").and_then(Value::as_str);
        if let Some(issued) = result_state {
            let key = (method.to_owned(), target(params));
            self.memory().issued_states.insert(key, issued.to_owned());
        }
        if !self.acts_stateless() {
            return;
        }
        let id = frame["id"].clone();
        let error_code = frame.pointer("/error/code").and_then(Value::as_i64);
        let input_required = frame.pointer("/result/resultType") == Some(&json!("input_required"));
        let missing_resource = error_code.is_some() && frame.pointer("/error/data/uri").is_some();
        match (self.fault, method) {
            (Fault::ModernNoResultType, _) => remove(frame.get_mut("result"), "resultType"),
            (Fault::ModernNoServerInfo, _) => {
                let meta = frame.get_mut("result").and_then(|r| r.get_mut("_meta"));
                remove(meta, SERVER_INFO);
                if frame.pointer("/result/_meta") == Some(&json!({})) {
                    remove(frame.get_mut("result"), "_meta");
                }
            }
            (Fault::ModernWrongVersionCode, _) if error_code == Some(code::UNSUPPORTED_PROTOCOL_VERSION) => {
                *frame = error(&id, code::INVALID_PARAMS, "unsupported protocol version");
            }
            (Fault::ModernDiscoverMissing, "server/discover") => {
                *frame = error(&id, code::METHOD_NOT_FOUND, "method not found: server/discover");
            }
            (Fault::ModernMissingCapabilityData, _)
                if error_code == Some(code::MISSING_REQUIRED_CLIENT_CAPABILITY) =>
            {
                remove(frame.get_mut("error"), "data");
            }
            (Fault::ModernRemovedMethodServed, "ping") => {
                *frame = json!({ "jsonrpc": "2.0", "id": id, "result": { "resultType": "complete" } });
            }
            (Fault::ModernServerRequest, "tools/call") => {
                let asking = format!("reference-roots-{}", id_key(&id));
                around
                    .before
                    .push(json!({ "jsonrpc": "2.0", "id": asking, "method": "roots/list" }));
            }
            (Fault::ModernUrlRequiredError, "tools/call")
                if target(params) == "connect"
                    && params.pointer("/arguments/required") == Some(&json!(true))
                    && input_required =>
            {
                let url = frame
                    .pointer("/result/inputRequests/connection/params/url")
                    .cloned();
                let elicitation = json!({ "mode": "url", "elicitationId": "connect-1", "url": url,
                    "message": "Connect your example.com account in the browser." });
                *frame = json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32042,
                    "message": "the account must be connected first", "data": { "elicitations": [elicitation] } } });
            }
            (Fault::ModernInputRequiredForList, "tools/list") if error_code.is_none() => {
                let meta = frame.pointer("/result/_meta").cloned();
                frame["result"] =
                    json!({ "resultType": "input_required", "requestState": "list-state", "_meta": meta });
            }
            (Fault::ModernInputRequiredEmpty, _) if input_required => {
                remove(frame.get_mut("result"), "inputRequests");
                remove(frame.get_mut("result"), "requestState");
            }
            (Fault::ModernMissingInputError, _) if input_required && params.get("requestState").is_some() => {
                *frame = error(&id, code::INVALID_PARAMS, "the input requested before is missing");
            }
            (Fault::ModernDeclineBreaks, _) if declined(params) => {
                *frame = error(&id, code::INTERNAL_ERROR, "the elicitation did not succeed");
            }
            (Fault::ModernToolsReordered, "tools/list") => {
                let mut memory = self.memory();
                if params.get("cursor").is_none() {
                    memory.tools_walks += 1;
                }
                if memory.tools_walks.is_multiple_of(2)
                    && let Some(tools) = frame.pointer_mut("/result/tools").and_then(Value::as_array_mut)
                {
                    tools.reverse();
                }
            }
            (Fault::ModernLogWithoutLevel, _) if meta(params).is_none_or(|m| m.get(LOG_LEVEL).is_none()) => {
                around.before.push(log_message(None));
            }
            (Fault::ModernLegacyNotFoundCode, "resources/read") if missing_resource => {
                frame["error"]["code"] = json!(code::LEGACY_RESOURCE_NOT_FOUND);
            }
            (Fault::ModernEmptyContentsNotFound, "resources/read") if missing_resource => {
                let meta = json!({ SERVER_INFO: identity::server_info(ProtocolVersion::V2026_07_28) });
                *frame = json!({ "jsonrpc": "2.0", "id": id, "result": {
                    "resultType": "complete", "contents": [], "ttlMs": 0, "cacheScope": "public", "_meta": meta } });
            }
            (Fault::ModernNoCacheFields, _) => {
                remove(frame.get_mut("result"), "ttlMs");
                remove(frame.get_mut("result"), "cacheScope");
            }
            (Fault::ModernPageScopeVaries, list)
                if LISTS.iter().any(|(m, _)| *m == list) && params.get("cursor").is_some() =>
            {
                if let Some(result) = frame.get_mut("result").filter(|r| r.get("cacheScope").is_some()) {
                    result["cacheScope"] = json!("private");
                }
            }
            (Fault::ModernHttpUnrelatedNotification, "tools/call") if target(params) == "add_tool" => around
                .before
                .push(json!({ "jsonrpc": "2.0", "method": "notifications/tools/list_changed" })),
            _ => {}
        }
    }

    /// Rewrites a notification of a stateless connection; `true` drops it.
    pub(super) fn stateless_message(&self, frame: &mut Value, around: &mut Around) -> bool {
        if !self.acts_stateless() {
            return false;
        }
        let method = frame["method"].as_str().unwrap_or_default().to_owned();
        let subscription = frame
            .pointer("/params/_meta")
            .and_then(|m| m.get(SUBSCRIPTION_ID))
            .cloned();
        match (self.fault, method.as_str()) {
            (Fault::ModernUnacknowledgedListen, ACKNOWLEDGED) => return true,
            (Fault::ModernNotificationWithoutSubscriptionId, method) if method != ACKNOWLEDGED => {
                let meta = frame.get_mut("params").and_then(|p| p.get_mut("_meta"));
                remove(meta, SUBSCRIPTION_ID);
            }
            (Fault::ModernUnrequestedNotification, ACKNOWLEDGED) => {
                let requested = subscription
                    .and_then(|id| self.state().requests.get(&id_key(&id)).map(|(_, p)| p.clone()))
                    .and_then(|params| params.get("notifications").cloned())
                    .unwrap_or(Value::Null);
                if let Some(honoured) = frame
                    .pointer_mut("/params/notifications")
                    .and_then(Value::as_object_mut)
                {
                    honoured.retain(|member, _| requested.get(member).is_some_and(|v| v != &json!(false)));
                }
            }
            (Fault::ModernLogOnListenStream, ACKNOWLEDGED) => {
                around
                    .after
                    .push(log_message(subscription.map(|id| json!({ SUBSCRIPTION_ID: id }))));
            }
            (Fault::ModernProgressOnListen, "notifications/progress") => {
                let token = frame.pointer("/params/progressToken").cloned();
                let stream = self.listen_or_request(token.as_ref());
                frame["params"]["_meta"] = json!({ SUBSCRIPTION_ID: stream });
            }
            _ => {}
        }
        false
    }

    /// The id of an open listen request, else of the request that carries
    /// progress `token`.
    fn listen_or_request(&self, token: Option<&Value>) -> Value {
        let state = self.state();
        let id_of = |(key, _): (&String, &(String, Value))| serde_json::from_str::<Value>(key).ok();
        let listen = state.requests.iter().find(|(_, (method, _))| method == LISTEN);
        let carrier = state
            .requests
            .iter()
            .find(|(_, (_, params))| token.is_some() && params.pointer("/_meta/progressToken") == token);
        listen.or(carrier).and_then(id_of).unwrap_or(Value::Null)
    }
}

/// Whether a retry answers an elicitation with decline or cancel.
fn declined(params: &Value) -> bool {
    let responses = params.get("inputResponses").and_then(Value::as_object);
    responses.into_iter().flat_map(Map::values).any(|answer| {
        matches!(
            answer.get("action").and_then(Value::as_str),
            Some("decline" | "cancel")
        )
    })
}

fn remove(object: Option<&mut Value>, member: &str) {
    if let Some(members) = object.and_then(Value::as_object_mut) {
        members.remove(member);
    }
}
