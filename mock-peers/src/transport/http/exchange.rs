//! One raw HTTP exchange, outside the session's own traffic: the scenario
//! step `http` sends exactly what it wrote (odd headers, a stale session id,
//! no body) and gets back everything the server answered, as data.
//!
//! The answer is read incrementally and offered to `enough` after the head
//! and after every chunk, so a caller stops reading a stream that never ends
//! (a standalone GET) as soon as what it looks for is there; otherwise the
//! read ends with the body or at the deadline. Nothing here judges.

use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use reqwest::{Method, Url};
use serde_json::{Map, Value, json};
use tokio::time::Instant;

use super::MAX_BODY;
use super::sse::{SseDecoder, SseEvent};

/// What to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawRequest {
    pub method: String,
    pub url: String,
    /// Sent exactly so, in order.
    pub headers: Vec<(String, String)>,
    pub body: Option<Vec<u8>>,
}

/// What came back, so far.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Exchange {
    /// `None`: no answer at all (see `error`).
    pub status: Option<u16>,
    /// Lower-cased names; repeated headers joined with `, `.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Decoded events, when the answer is `text/event-stream`.
    pub events: Vec<SseEvent>,
    /// The last `retry:` of the stream, in milliseconds.
    pub retry_ms: Option<u64>,
    /// Whether the server ended the body (rather than our deadline or
    /// `enough` stopping the read).
    pub ended: bool,
    /// The stream was cut in the middle of an event.
    pub cut_mid_event: bool,
    /// What went wrong on the way (connection refused, reset, timeout).
    pub error: Option<String>,
}

impl Exchange {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Whether the answer is an event stream.
    pub fn is_event_stream(&self) -> bool {
        self.header("content-type")
            .is_some_and(|t| t.to_ascii_lowercase().starts_with("text/event-stream"))
    }

    /// The exchange as the JSON value scenarios match:
    /// `{status, headers, challenge, body, events, messages, retry, ended,
    /// error}`. `challenge` is the first `WWW-Authenticate` challenge read
    /// as `{scheme, <parameter>: <value>...}` (null without one).
    /// `body` is the parsed JSON when the body is JSON, else its text (`""`
    /// when empty); `events` are `{id, event, data, message}` (`message`:
    /// the data parsed as JSON, when it is); `messages` lists every JSON
    /// message received, from the body or the events.
    pub fn to_value(&self) -> Value {
        let headers: Map<String, Value> = self
            .headers
            .iter()
            .map(|(n, v)| (n.clone(), Value::String(v.clone())))
            .collect();
        let text = String::from_utf8_lossy(&self.body).into_owned();
        let events: Vec<Value> = self
            .events
            .iter()
            .map(|e| {
                let mut event = json!({"data": e.data});
                if let Some(id) = &e.id {
                    event["id"] = json!(id);
                }
                if let Some(name) = &e.event {
                    event["event"] = json!(name);
                }
                if let Ok(message) = serde_json::from_str::<Value>(&e.data) {
                    event["message"] = message;
                }
                event
            })
            .collect();
        // A batch answer (2025-03-26) counts as its messages.
        let mut messages: Vec<Value> = events
            .iter()
            .filter_map(|e| e.get("message").cloned())
            .flat_map(|m| match m {
                Value::Array(batch) => batch,
                one => vec![one],
            })
            .collect();
        let body = if self.is_event_stream() {
            Value::String(text)
        } else {
            match serde_json::from_str::<Value>(&text) {
                Ok(Value::Array(batch)) => {
                    messages.extend(batch.iter().cloned());
                    Value::Array(batch)
                }
                Ok(message) => {
                    messages.push(message.clone());
                    message
                }
                Err(_) => Value::String(text),
            }
        };
        let challenge = self
            .header("www-authenticate")
            .and_then(mcp_conform_core::auth::challenge);
        let mut value = json!({
            "headers": headers,
            "challenge": challenge,
            "body": body,
            "events": events,
            "messages": messages,
            "ended": self.ended,
        });
        if let Some(status) = self.status {
            value["status"] = json!(status);
        }
        if let Some(retry) = self.retry_ms {
            value["retry"] = json!(retry);
        }
        if let Some(error) = &self.error {
            value["error"] = json!(error);
        }
        value
    }
}

/// Sends `request` and reads the answer until it ends, `enough` says so, or
/// `budget` runs out. Never fails: what went wrong is in [`Exchange::error`].
pub async fn exchange(
    request: &RawRequest,
    budget: Duration,
    mut enough: impl FnMut(&Exchange) -> bool,
) -> Exchange {
    let deadline = Instant::now() + budget;
    let mut got = Exchange::default();
    let prepared = match prepare(request, budget) {
        Ok(prepared) => prepared,
        Err(error) => {
            got.error = Some(error);
            return got;
        }
    };
    let mut response = match tokio::time::timeout_at(deadline, prepared.send()).await {
        Ok(Ok(response)) => response,
        Ok(Err(error)) => {
            got.error = Some(format!("{} {}: {error}", request.method, request.url));
            return got;
        }
        Err(_) => {
            got.error = Some(format!("no answer within {} ms", budget.as_millis()));
            return got;
        }
    };
    got.status = Some(response.status().as_u16());
    got.headers = header_pairs(response.headers());
    let streaming = got.is_event_stream();
    let mut decoder = SseDecoder::new();
    loop {
        if enough(&got) {
            return got;
        }
        match tokio::time::timeout_at(deadline, response.chunk()).await {
            Ok(Ok(Some(chunk))) => {
                let room = MAX_BODY.saturating_sub(got.body.len());
                got.body.extend_from_slice(&chunk[..chunk.len().min(room)]);
                if streaming {
                    got.events.extend(decoder.feed(&chunk));
                    got.retry_ms = decoder.retry_ms();
                }
            }
            Ok(Ok(None)) => {
                got.ended = true;
                got.cut_mid_event = streaming && decoder.mid_event();
                return got;
            }
            Ok(Err(error)) => {
                got.error = Some(format!("the body was cut: {error}"));
                got.cut_mid_event = streaming && decoder.mid_event();
                return got;
            }
            Err(_) => return got,
        }
    }
}

fn prepare(request: &RawRequest, budget: Duration) -> Result<reqwest::RequestBuilder, String> {
    let url = Url::parse(&request.url).map_err(|e| format!("invalid URL `{}`: {e}", request.url))?;
    let method = Method::from_bytes(request.method.as_bytes())
        .map_err(|_| format!("`{}` is not an HTTP method", request.method))?;
    let mut headers = HeaderMap::new();
    for (name, value) in &request.headers {
        let name =
            HeaderName::from_bytes(name.as_bytes()).map_err(|_| format!("`{name}` is not a header name"))?;
        let value = HeaderValue::from_str(value)
            .map_err(|_| format!("the value of `{name}` is not a header value"))?;
        headers.append(name, value);
    }
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(budget)
        .build()
        .map_err(|e| format!("could not set up the HTTP client: {e}"))?;
    let builder = client.request(method, url).headers(headers);
    Ok(match &request.body {
        Some(body) => builder.body(body.clone()),
        None => builder,
    })
}

fn header_pairs(headers: &HeaderMap) -> Vec<(String, String)> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for (name, value) in headers {
        let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
        match pairs.iter_mut().find(|(n, _)| n == name.as_str()) {
            Some((_, joined)) => {
                joined.push_str(", ");
                joined.push_str(&value);
            }
            None => pairs.push((name.as_str().to_owned(), value)),
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{Exchange, SseEvent};

    fn answer(content_type: &str, body: &str) -> Exchange {
        Exchange {
            status: Some(200),
            headers: vec![("content-type".into(), content_type.into())],
            body: body.as_bytes().to_vec(),
            ended: true,
            ..Exchange::default()
        }
    }

    #[test]
    fn a_json_batch_answer_counts_as_its_messages() {
        let got = answer(
            "application/json",
            r#"[{"id":1,"result":{}},{"id":2,"result":{}}]"#,
        )
        .to_value();
        assert_eq!(
            got["messages"],
            json!([{"id": 1, "result": {}}, {"id": 2, "result": {}}])
        );
        assert_eq!(got["status"], 200);
    }

    #[test]
    fn sse_events_keep_their_fields_and_parsed_data() {
        let mut got = answer("text/event-stream", "");
        got.events = vec![
            SseEvent {
                id: Some("7-1".into()),
                event: None,
                data: String::new(),
            },
            SseEvent {
                id: Some("7-2".into()),
                event: Some("message".into()),
                data: r#"{"id":1,"result":{}}"#.into(),
            },
            SseEvent {
                id: None,
                event: None,
                data: "not json".into(),
            },
        ];
        got.retry_ms = Some(3000);
        let value = got.to_value();
        assert_eq!(value["events"][0], json!({"id": "7-1", "data": ""}));
        assert_eq!(value["events"][1]["message"], json!({"id": 1, "result": {}}));
        assert_eq!(value["messages"], json!([{"id": 1, "result": {}}]));
        assert_eq!(value["retry"], 3000);
        assert_eq!(value["body"], "");
    }

    #[test]
    fn no_answer_has_no_status_and_says_why() {
        let got = Exchange {
            error: Some("connection refused".into()),
            ..Exchange::default()
        }
        .to_value();
        assert!(got.get("status").is_none());
        assert_eq!(got["error"], "connection refused");
        assert_eq!(answer("text/plain", "").to_value()["body"], "");
    }
}
