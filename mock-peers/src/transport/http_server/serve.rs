//! The one Streamable HTTP server core: the connection loop, the loopback
//! guard, and the route table that hands each request to its [`Handler`]:
//! Streamable HTTP at [`MCP_PATH`] (POST, GET, DELETE; POST only for the
//! stateless era), the HTTP+SSE transport of 2024-11-05 at [`SSE_PATH`] and
//! [`MESSAGES_PATH`]. What the handlers share past the routing (stream
//! opening, resumption, the HTTP+SSE stream) is here too; what a server
//! does with the messages is the handler's own.

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;

use hyper::body::Incoming;
use hyper::header::HeaderMap;
use hyper::http::request::Parts;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use mcp_conform_core::wire::headers::LAST_EVENT_ID;
use tokio::net::TcpListener;

use super::request::{header_str, local_only};
use super::respond::{Answer, Body, Refusal, not_allowed, status_only};
use super::streams::{EventBody, Router, STANDALONE};

pub use mcp_conform_core::evidence::http::MCP_PATH;
/// The HTTP+SSE (2024-11-05) stream and message endpoints.
pub const SSE_PATH: &str = "/sse";
pub const MESSAGES_PATH: &str = "/messages";

/// A request with its body read.
#[derive(Debug)]
pub(crate) struct Inbound {
    pub parts: Parts,
    pub body: String,
}

/// One server on the core: what it answers on each route. `Seen` is what
/// it keeps about one request while serving it (the mock server records
/// each request for the judge; the reference server keeps nothing).
pub(crate) trait Handler: Send + Sync + 'static {
    type Seen: Send;

    /// Serves one HTTP request: [`route`], with whatever the server does
    /// around it (the reference server's HTTP faults, the mock server's
    /// record).
    fn handle(self: Arc<Self>, request: Request<Incoming>) -> impl Future<Output = Response<Body>> + Send;

    /// Whether the request is served by the stateless era (2026-07-28).
    fn stateless(&self, request: &Inbound) -> bool;

    /// POST on the endpoint in the eras with sessions.
    fn post(self: Arc<Self>, request: Inbound, seen: &mut Self::Seen) -> impl Future<Output = Answer> + Send;

    /// POST on the endpoint in the stateless era.
    fn stateless_post(
        self: Arc<Self>,
        request: Inbound,
        seen: &mut Self::Seen,
    ) -> impl Future<Output = Answer> + Send;

    /// GET on the endpoint: the standalone stream or a resumption.
    fn get(self: Arc<Self>, request: &Inbound, seen: &mut Self::Seen) -> Answer;

    /// DELETE on the endpoint: the client ends its session.
    fn delete(self: Arc<Self>, request: &Inbound) -> Answer;

    /// GET on the HTTP+SSE stream endpoint: a new HTTP+SSE session.
    fn legacy_open(self: Arc<Self>, request: &Inbound, seen: &mut Self::Seen) -> Answer;

    /// POST on the HTTP+SSE message endpoint.
    fn legacy_post(
        self: Arc<Self>,
        request: Inbound,
        seen: &mut Self::Seen,
    ) -> impl Future<Output = Answer> + Send;

    /// Any other method on an HTTP+SSE endpoint: 405 unless the server
    /// has no such endpoint at the moment.
    fn legacy_not_allowed(&self) -> Answer {
        Ok(status_only(StatusCode::METHOD_NOT_ALLOWED))
    }

    /// A request for no endpoint; says where the server is.
    fn not_found(&self) -> Refusal;
}

/// Serves HTTP/1.1 on every connection `listener` accepts, each request
/// answered by `handler`, until accepting fails. The connections are tasks
/// of this future: dropping it ends them too. `who` names the server in
/// messages about failed connections.
pub(crate) async fn serve<H: Handler>(
    listener: TcpListener,
    who: &'static str,
    handler: Arc<H>,
) -> std::io::Result<()> {
    serve_with(listener, who, move |request| Arc::clone(&handler).handle(request)).await
}

/// [`serve`] with each request answered by `handle` (the servers that are
/// no Streamable HTTP endpoint, such as a fault proxy, use it directly).
pub(crate) async fn serve_with<H, F>(
    listener: TcpListener,
    who: &'static str,
    handle: H,
) -> std::io::Result<()>
where
    H: Fn(Request<Incoming>) -> F + Clone + Send + Sync + 'static,
    F: Future<Output = Response<Body>> + Send + 'static,
{
    let mut connections = tokio::task::JoinSet::new();
    loop {
        let (tcp, _) = listener.accept().await?;
        while connections.try_join_next().is_some() {}
        let handle = handle.clone();
        connections.spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let answer = handle(request);
                async move { Ok::<_, Infallible>(answer.await) }
            });
            let connection =
                hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(tcp), service);
            if let Err(error) = connection.await
                && !error.is_incomplete_message()
            {
                eprintln!("{who}: HTTP connection failed: {error}");
            }
        });
    }
}

/// Hands a request to the handler's answer for its route, once `Host` and
/// `Origin` passed the DNS rebinding guard (403).
pub(crate) async fn route<H: Handler>(handler: Arc<H>, request: Inbound, seen: &mut H::Seen) -> Answer {
    if let Err(why) = local_only(&request.parts.headers) {
        return Err(Refusal::new(StatusCode::FORBIDDEN, why));
    }
    let stateless = handler.stateless(&request);
    match (request.parts.method.clone(), request.parts.uri.path()) {
        (Method::POST, MCP_PATH) if stateless => handler.stateless_post(request, seen).await,
        (Method::POST, MCP_PATH) => handler.post(request, seen).await,
        // No stream to open and no session to end in 2026-07-28.
        (_, MCP_PATH) if stateless => Ok(not_allowed("POST")),
        (Method::GET, MCP_PATH) => handler.get(&request, seen),
        (Method::DELETE, MCP_PATH) => handler.delete(&request),
        (_, MCP_PATH) => Ok(not_allowed("GET, POST, DELETE")),
        (Method::GET, SSE_PATH) => handler.legacy_open(&request, seen),
        (Method::POST, MESSAGES_PATH) => handler.legacy_post(request, seen).await,
        (_, SSE_PATH | MESSAGES_PATH) => handler.legacy_not_allowed(),
        _ => Err(handler.not_found()),
    }
}

/// What a GET on the endpoint opened.
pub(crate) enum GetStream {
    /// The stream `Last-Event-ID` named, from the event after it.
    Resumed(EventBody),
    /// The standalone stream.
    Standalone(EventBody),
}

/// GET on the endpoint of a session whose streams are `router`: resumes
/// the stream `Last-Event-ID` names (400 when it names no event of the
/// session), else opens the standalone stream (409 while one is open),
/// with a priming event when `primes`.
pub(crate) fn get_stream(router: &Router, headers: &HeaderMap, primes: bool) -> Result<GetStream, Refusal> {
    if let Some(last) = header_str(headers, LAST_EVENT_ID) {
        return router.resume(last).map(GetStream::Resumed).map_err(|_| {
            Refusal::new(
                StatusCode::BAD_REQUEST,
                "Last-Event-ID names no event of this session",
            )
        });
    }
    if router.standalone_open() {
        return Err(Refusal::new(
            StatusCode::CONFLICT,
            "Conflict: a standalone SSE stream is already open for this session",
        ));
    }
    router
        .connect(STANDALONE, primes, None)
        .map(GetStream::Standalone)
        .ok_or_else(stream_failed)
}

/// The one stream of the new HTTP+SSE session `id`, whose streams are
/// `router`: it opens with the `endpoint` event naming where to POST, and
/// the client hanging up ends the session (`on_close`).
pub(crate) fn legacy_stream(
    router: &Router,
    id: &str,
    on_close: impl FnOnce() + Send + 'static,
) -> Result<EventBody, Refusal> {
    let endpoint = format!("event: endpoint\ndata: {MESSAGES_PATH}?session_id={id}\n\n");
    router
        .connect(STANDALONE, false, Some(endpoint.into()))
        .map(|body| body.on_drop(on_close))
        .ok_or_else(stream_failed)
}

/// A stream that could not be connected (it was forgotten meanwhile).
pub(crate) fn stream_failed() -> Refusal {
    Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, "the stream could not open")
}

#[cfg(test)]
mod tests {
    use http_body_util::BodyExt;

    use super::*;
    use crate::transport::http_server::respond::json_response;

    /// Answers each route with its name; stateless when asked to be.
    struct Routes {
        stateless: bool,
    }

    fn named(route: &str) -> Answer {
        Ok(json_response(StatusCode::OK, route.to_owned()))
    }

    impl Handler for Routes {
        type Seen = Vec<&'static str>;

        async fn handle(self: Arc<Self>, _: Request<Incoming>) -> Response<Body> {
            unreachable!("the tests call route")
        }

        fn stateless(&self, _: &Inbound) -> bool {
            self.stateless
        }

        async fn post(self: Arc<Self>, _: Inbound, seen: &mut Self::Seen) -> Answer {
            seen.push("post");
            named("post")
        }

        async fn stateless_post(self: Arc<Self>, _: Inbound, _: &mut Self::Seen) -> Answer {
            named("stateless post")
        }

        fn get(self: Arc<Self>, _: &Inbound, _: &mut Self::Seen) -> Answer {
            named("get")
        }

        fn delete(self: Arc<Self>, _: &Inbound) -> Answer {
            named("delete")
        }

        fn legacy_open(self: Arc<Self>, _: &Inbound, _: &mut Self::Seen) -> Answer {
            named("legacy open")
        }

        async fn legacy_post(self: Arc<Self>, _: Inbound, _: &mut Self::Seen) -> Answer {
            named("legacy post")
        }

        fn not_found(&self) -> Refusal {
            Refusal::new(StatusCode::NOT_FOUND, "nowhere")
        }
    }

    /// The status, `Allow` header and body (or refusal) of one request.
    async fn answer(stateless: bool, method: Method, path: &str, host: &str) -> (u16, String, String) {
        let (parts, ()) = Request::builder()
            .method(method)
            .uri(path)
            .header("host", host)
            .body(())
            .unwrap()
            .into_parts();
        let request = Inbound {
            parts,
            body: String::new(),
        };
        match route(Arc::new(Routes { stateless }), request, &mut Vec::new()).await {
            Ok(response) => {
                let status = response.status().as_u16();
                let allow = response
                    .headers()
                    .get("allow")
                    .map_or("", |v| v.to_str().unwrap())
                    .to_owned();
                let body = response.into_body().collect().await.unwrap().to_bytes();
                (status, allow, String::from_utf8_lossy(&body).into_owned())
            }
            Err(refused) => (refused.status.as_u16(), String::new(), refused.message),
        }
    }

    #[tokio::test]
    async fn each_request_goes_to_its_route_or_gets_its_status() {
        let local = "127.0.0.1:1";
        let cases = [
            (false, Method::POST, MCP_PATH, (200, "", "post")),
            (true, Method::POST, MCP_PATH, (200, "", "stateless post")),
            (false, Method::GET, MCP_PATH, (200, "", "get")),
            (false, Method::DELETE, MCP_PATH, (200, "", "delete")),
            (false, Method::PUT, MCP_PATH, (405, "GET, POST, DELETE", "")),
            (true, Method::GET, MCP_PATH, (405, "POST", "")),
            (true, Method::DELETE, MCP_PATH, (405, "POST", "")),
            (false, Method::GET, SSE_PATH, (200, "", "legacy open")),
            (false, Method::POST, MESSAGES_PATH, (200, "", "legacy post")),
            (false, Method::POST, SSE_PATH, (405, "", "")),
            (false, Method::GET, "/elsewhere", (404, "", "nowhere")),
        ];
        for (stateless, method, path, (status, allow, body)) in cases {
            let got = answer(stateless, method.clone(), path, local).await;
            assert_eq!(
                got,
                (status, allow.to_owned(), body.to_owned()),
                "{method} {path}"
            );
        }
        let foreign = answer(false, Method::POST, MCP_PATH, "evil.example").await;
        assert_eq!(foreign.0, 403);
    }
}
