//! A proxy on a loopback port in front of an HTTP server: each request is
//! passed on and each answer passed back, its body chunk by chunk as it
//! arrives (an SSE stream stays a stream). What the proxy does besides is
//! its [`Hop`]'s: the reference client's HTTP faults rewrite requests,
//! `mcp-conform record` watches both ways.

use std::sync::Arc;

use bytes::Bytes;
use hyper::Request;
use hyper::body::Incoming;
use hyper::header;
pub use hyper::header::HeaderMap;
pub use hyper::{Method, StatusCode};
use reqwest::Url;
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::http_server::request::read_body;
use super::http_server::respond::{Body, refuse, status_only};
use super::http_server::serve::serve_with;
use super::http_server::streams::EventBody;

/// Headers about one hop, never passed on.
const HOP_BY_HOP: [header::HeaderName; 4] = [
    header::CONNECTION,
    header::CONTENT_LENGTH,
    header::HOST,
    header::TRANSFER_ENCODING,
];

/// Sees an answer's body: each chunk as it passes, then `None` at its end.
pub type BodySink = Box<dyn FnMut(Option<&[u8]>) + Send>;

/// What a proxy does with the traffic besides passing it on.
pub trait Hop: Send + Sync + 'static {
    /// A request before it goes on (hop-by-hop headers already removed):
    /// the body to send, or a status to answer it with here instead.
    fn outbound(
        &self,
        _method: &Method,
        _headers: &mut HeaderMap,
        body: String,
    ) -> Result<String, StatusCode> {
        Ok(body)
    }

    /// An answer's status and headers; what sees its body, if anything.
    fn inbound(&self, _status: StatusCode, _headers: &HeaderMap) -> Option<BodySink> {
        None
    }
}

/// A running proxy; it stops when dropped.
#[derive(Debug)]
pub struct HttpProxy {
    url: String,
    task: JoinHandle<()>,
}

impl Drop for HttpProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

struct Forward<H> {
    target: Url,
    client: reqwest::Client,
    hop: H,
}

impl HttpProxy {
    /// Starts a proxy for the server at `target`; `who` names it in messages.
    pub async fn start<H: Hop>(target: &str, who: &'static str, hop: H) -> Result<HttpProxy, String> {
        let target = Url::parse(target).map_err(|e| format!("`{target}`: {e}"))?;
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| format!("{who} cannot listen: {e}"))?;
        let bound = listener.local_addr().map_err(|e| e.to_string())?;
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| e.to_string())?;
        let url = format!("http://{bound}{}", target.path());
        let forward = Arc::new(Forward { target, client, hop });
        let task = tokio::spawn(async move {
            let handle = move |request| Arc::clone(&forward).pass(request);
            let _ = serve_with(listener, who, handle).await;
        });
        Ok(HttpProxy { url, task })
    }

    /// Where the client should send its requests (the target's path on the proxy).
    pub fn url(&self) -> &str {
        &self.url
    }
}

impl<H: Hop> Forward<H> {
    /// Passes one request on, as the hop has it, and its answer back.
    async fn pass(self: Arc<Self>, request: Request<Incoming>) -> hyper::Response<Body> {
        let (parts, body) = request.into_parts();
        let body = match read_body(body).await {
            Ok(body) => body,
            Err(refused) => return refused.response(),
        };
        let mut headers = parts.headers;
        for name in &HOP_BY_HOP {
            headers.remove(name);
        }
        let body = match self.hop.outbound(&parts.method, &mut headers, body) {
            Ok(body) => body,
            Err(status) => return status_only(status),
        };
        let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
        let Ok(url) = self.target.join(path) else {
            return refuse(StatusCode::BAD_GATEWAY, "the proxy cannot build the server's URL");
        };
        let sent = self
            .client
            .request(parts.method, url)
            .headers(headers)
            .body(body)
            .send()
            .await;
        match sent {
            Ok(answer) => {
                let sink = self.hop.inbound(answer.status(), answer.headers());
                relay(answer, sink)
            }
            Err(error) => refuse(
                StatusCode::BAD_GATEWAY,
                &format!("the server could not be reached: {error}"),
            ),
        }
    }
}

/// The server's answer, passed back: status, headers and body, the body
/// chunk by chunk as it arrives, each chunk shown to `sink` too.
fn relay(mut answer: reqwest::Response, mut sink: Option<BodySink>) -> hyper::Response<Body> {
    let mut headers = answer.headers().clone();
    for name in &HOP_BY_HOP {
        headers.remove(name);
    }
    let (tx, rx) = mpsc::unbounded_channel::<Bytes>();
    let mut response = hyper::Response::new(Body::Events(EventBody::from_channel(rx)));
    *response.status_mut() = answer.status();
    *response.headers_mut() = headers;
    tokio::spawn(async move {
        while let Ok(Some(chunk)) = answer.chunk().await {
            if let Some(sink) = sink.as_mut() {
                sink(Some(&chunk));
            }
            if tx.send(chunk).is_err() {
                break;
            }
        }
        if let Some(sink) = sink.as_mut() {
            sink(None);
        }
    });
    response
}
