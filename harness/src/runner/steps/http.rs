//! The `http` step: one raw exchange with the server, judged as data.

use mcp_conform_core::Verdict;
use mcp_conform_core::auth::{TokenChoice, TokenRequest};
use mcp_conform_core::scenario::model::{
    HttpBody, HttpCheck, HttpExchangeStep, SessionChoice, TransportName,
};
use mcp_conform_core::wire::headers::{PROTOCOL_VERSION, SESSION_ID};
use mcp_conform_core::wire::mirror;
use mcp_mock_peers::transport::SessionFacts;
use mcp_mock_peers::transport::http::carries_version_header;
use mcp_mock_peers::transport::http::exchange::{Exchange, RawRequest, exchange};
use mcp_mock_peers::transport::http::origin;
use serde_json::{Value, json};

use super::super::outcome::Check;
use super::super::verify::{apply_captures, check_matcher};
use super::{StepRunner, Stop};

/// Why a scenario that needs `need` cannot run on a connection that is (or
/// is not) legacy HTTP+SSE; `None` when it can.
pub fn transport_mismatch(need: TransportName, legacy: bool) -> Option<String> {
    match (need, legacy) {
        (TransportName::Streamable, true) => {
            Some("tests Streamable HTTP; this server speaks the HTTP+SSE transport".into())
        }
        (TransportName::Sse, false) => {
            Some("tests the HTTP+SSE transport; this server speaks Streamable HTTP".into())
        }
        _ => None,
    }
}

/// The origin of `url` (scheme and authority) and its path, without
/// query or fragment.
fn origin_and_path(url: &str) -> (&str, &str) {
    let url = url.split(['?', '#']).next().unwrap_or_default();
    let after_scheme = url.find("://").map_or(0, |at| at + 3);
    let path_start = url[after_scheme..]
        .find('/')
        .map_or(url.len(), |at| after_scheme + at);
    url.split_at(path_start)
}

/// Where RFC 9728 §3.1 puts the protected resource metadata of the
/// resource `url`: the well-known name between its origin and its path.
fn well_known_metadata_url(url: &str) -> String {
    let (base, path) = origin_and_path(url);
    format!(
        "{base}/.well-known/oauth-protected-resource{}",
        path.trim_end_matches('/')
    )
}

impl StepRunner<'_> {
    pub(super) async fn http_step(&mut self, step: &HttpExchangeStep) -> Stop {
        let Some(facts) = self.session.http_facts() else {
            return Stop::halted(Verdict::NotApplicable, "an `http` step needs an HTTP server");
        };
        if let Some(note) = self
            .scenario
            .requires
            .transport
            .and_then(|n| transport_mismatch(n, facts.legacy))
        {
            return Stop::halted(Verdict::NotApplicable, note);
        }
        if self.scenario.requires.session && facts.session_id.is_none() {
            return Stop::halted(
                Verdict::NotApplicable,
                "the server issued no session id, and sessions are optional (HTTP-015)",
            );
        }
        // A token the run cannot build (with the user's `--token`): the
        // step is left out, and the case says so.
        let unavailable = self.auth.as_ref().zip(step.token.as_ref());
        if let Some(why) = unavailable.and_then(|(auth, request)| auth.unavailable(request)) {
            self.skipped.push(why);
            return Stop::Done;
        }
        self.bind_http_variables(&facts);
        let token = match step.token.as_ref().map(|t| self.rendered_token(t)).transpose() {
            Ok(token) => token,
            Err(stop) => return stop,
        };
        let request = match self.raw_request(step, &facts, token.as_ref()) {
            Ok(request) => request,
            Err(stop) => return stop,
        };
        let trial = self.ctx.clone();
        let settled = |got: &Exchange| {
            if step.expect.is_empty() && step.require.is_none() {
                // Nothing to judge: the head is enough, unless a capture reads the body.
                return step.capture.is_empty();
            }
            let value = got.to_value();
            step.expect.iter().chain(&step.require).all(|check| {
                let holds = check.matcher.eval(Some(&value), &mut trial.clone()).is_empty();
                holds || check.head_only
            })
        };
        // HTTP+SSE answers a POST on the session's stream: the transcript
        // holds the request, so its answer there is not judged a stray.
        if facts.legacy
            && request.method == "POST"
            && request.url == facts.post_url
            && let Some(body) = &request.body
        {
            self.session.note_raw_post(body);
        }
        let got = exchange(&request, step.timeout, settled).await;
        let value = got.to_value();
        if let Some(require) = &step.require
            && !require
                .matcher
                .eval(Some(&value), &mut self.ctx.clone())
                .is_empty()
        {
            let seen = got
                .status
                .map_or_else(|| "no answer".to_owned(), |s| format!("status {s}"));
            let note = format!("{}: the answer ({seen}) does not allow the rest", require.name);
            return Stop::halted(Verdict::NotApplicable, note);
        }
        for check in &step.expect {
            let judged = self.judge_exchange(check, &request, &got, &value);
            self.checks.push(judged);
        }
        // A capture that finds nothing (no session id issued) stores null,
        // so later steps can still send (and leave the header out).
        for capture in &step.capture {
            self.ctx.vars.insert(capture.var.clone(), Value::Null);
        }
        apply_captures(&step.capture, &value, &mut self.ctx);
        Stop::Done
    }

    fn judge_exchange(
        &mut self,
        check: &HttpCheck,
        request: &RawRequest,
        got: &Exchange,
        value: &Value,
    ) -> Check {
        let tag = &check.tag;
        if got.status.is_none() {
            let why = got.error.clone().unwrap_or_else(|| "no answer".into());
            let message = format!("{} {}: {why}", request.method, request.url);
            return Check::broken(&check.name, &tag.requirement, tag.level, tag.span, message);
        }
        let mut judged = check_matcher(
            check.name.clone(),
            tag,
            &check.matcher,
            Some(value),
            &mut self.ctx,
        );
        if judged.verdict != Verdict::Pass
            && let Some(error) = &got.error
        {
            let message = judged.message.take().unwrap_or_default();
            judged.message = Some(format!("{message}\n({error})"));
        }
        judged
    }

    /// Before each step of a scenario that needs HTTP: the session's facts
    /// as variables (`set` and `request` steps may use them too).
    pub(super) fn refresh_http_variables(&mut self) {
        if self.scenario.requires.transport.is_some()
            && let Some(facts) = self.session.http_facts()
        {
            self.bind_http_variables(&facts);
        }
    }

    /// Makes the session's facts visible to templates and matchers.
    fn bind_http_variables(&mut self, facts: &SessionFacts) {
        let vars = &mut self.ctx.vars;
        vars.insert("url".into(), json!(facts.url));
        vars.insert("post_url".into(), json!(facts.post_url));
        vars.insert("session_id".into(), json!(facts.session_id));
        vars.insert("negotiated_version".into(), json!(facts.protocol_version));
        vars.insert("origin".into(), json!(origin_and_path(&facts.url).0));
        let valid = TokenRequest::Minted(TokenChoice::Valid);
        let token = self.auth.as_ref().and_then(|auth| auth.token(&valid));
        vars.insert("valid_token".into(), json!(token));
        vars.insert(
            "resource_metadata_url".into(),
            json!(well_known_metadata_url(&facts.url)),
        );
    }

    /// The token `request` asks for, with its scope rendered (a scope may
    /// come from an earlier answer, such as the one a challenge names).
    fn rendered_token(&self, request: &TokenRequest) -> Result<TokenRequest, Stop> {
        let TokenRequest::Scoped(scope) = request else {
            return Ok(request.clone());
        };
        let rendered = match self.render(Some(&Value::String(scope.clone())))? {
            Some(Value::String(scope)) => scope,
            other => other.map(|v| v.to_string()).unwrap_or_default(),
        };
        Ok(TokenRequest::Scoped(rendered))
    }

    /// The request as the step writes it, over the engine's defaults,
    /// presenting `token`.
    fn raw_request(
        &self,
        step: &HttpExchangeStep,
        facts: &SessionFacts,
        token: Option<&TokenRequest>,
    ) -> Result<RawRequest, Stop> {
        let text = |template: &str| self.render(Some(&Value::String(template.to_owned())));
        let as_text = |value: Option<Value>| match value {
            Some(Value::String(s)) => s,
            Some(other) => other.to_string(),
            None => String::new(),
        };
        let url = match &step.url {
            Some(url) => as_text(text(url)?),
            None if step.method == "POST" => facts.post_url.clone(),
            None => facts.url.clone(),
        };
        let body = match &step.body {
            HttpBody::None => None,
            HttpBody::Json(template) => {
                Some(serde_json::to_vec(&self.render(Some(template))?).unwrap_or_default())
            }
            HttpBody::Raw(template) => Some(as_text(text(template)?).into_bytes()),
        };
        let mut headers: Vec<(String, Option<String>)> = Vec::new();
        let accept = match step.method.as_str() {
            "POST" => Some("application/json, text/event-stream"),
            "GET" => Some("text/event-stream"),
            _ => None,
        };
        if let Some(accept) = accept {
            headers.push(("accept".into(), Some(accept.into())));
        }
        if body.is_some() {
            headers.push(("content-type".into(), Some("application/json".into())));
        }
        let session = match &step.session {
            SessionChoice::Current => facts.session_id.clone(),
            SessionChoice::None => None,
            // A variable that captured nothing (no session issued) sends none.
            SessionChoice::Value(template) => {
                text(template)?.filter(|v| !v.is_null()).map(|v| as_text(Some(v)))
            }
        };
        if let Some(session) = session {
            headers.push((SESSION_ID.into(), Some(session)));
        }
        if let Some(version) = facts
            .protocol_version
            .as_ref()
            .filter(|v| !facts.legacy && carries_version_header(v))
        {
            headers.push((PROTOCOL_VERSION.into(), Some(version.clone())));
        }
        // The stateless era mirrors the body into headers, as the session does.
        if facts.stateless
            && let HttpBody::Json(_) = &step.body
            && let Some(message) = body
                .as_deref()
                .and_then(|b| serde_json::from_slice::<Value>(b).ok())
        {
            for (name, value) in mirror::mirrored(&message, &facts.tools) {
                headers.push((name, Some(value)));
            }
        }
        // The user's headers (credentials among them) go to their origin only.
        if origin::same_origin(&url, &facts.url) {
            for (name, value) in &facts.headers {
                headers.push((name.to_ascii_lowercase(), Some(value.clone())));
            }
        }
        if let Some(request) = token {
            let Some(auth) = &self.auth else {
                return Err(Stop::halted(
                    Verdict::NotApplicable,
                    "presents a token: needs the harness as the server's authorization server",
                ));
            };
            let value = auth.present(request).map(|token| format!("Bearer {token}"));
            headers.push(("authorization".into(), value));
        }
        for (name, value) in &step.headers {
            let value = match value {
                Some(template) => Some(as_text(text(template)?)),
                None => None,
            };
            let name = as_text(text(name)?).to_ascii_lowercase();
            headers.push((name, value));
        }
        // Later entries win; `None` removes.
        let mut sent: Vec<(String, String)> = Vec::new();
        for (name, value) in headers {
            sent.retain(|(n, _)| *n != name);
            if let Some(value) = value {
                sent.push((name, value));
            }
        }
        Ok(RawRequest {
            method: step.method.clone(),
            url,
            headers: sent,
            body,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::well_known_metadata_url;

    #[test]
    fn the_metadata_url_puts_the_well_known_name_before_the_path() {
        let url = |endpoint| well_known_metadata_url(endpoint);
        assert_eq!(
            url("http://127.0.0.1:1/mcp?x=1"),
            "http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            url("http://h:1/"),
            "http://h:1/.well-known/oauth-protected-resource"
        );
        assert_eq!(url("http://h"), "http://h/.well-known/oauth-protected-resource");
    }
}
