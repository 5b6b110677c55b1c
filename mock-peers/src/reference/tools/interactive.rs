//! Tools that ask the client something (elicitation, sampling, roots) in a
//! legacy session: a request to the client, whose answer they wait for
//! while the connection keeps being served.

use std::sync::atomic::{AtomicU64, Ordering};

use mcp_conform_core::version::ProtocolVersion;
use serde_json::{Value, json};

use super::answers::{self, connection_outcome, elicitation_outcome, roots_outcome, sampling_outcome};
use super::args::ArgError;
use super::multi_turn::{self, Turn};
use super::{Call, error_result};
use crate::reference::dispatch::Server;
use crate::reference::outbound::OutboundError;
use crate::reference::session::{Negotiated, Phase};
use mcp_conform_core::wire::jsonrpc::{self, RpcError};

type Outcome = Result<Value, ArgError>;

/// The error code of a request that needs a URL elicitation completed first.
const URL_ELICITATION_REQUIRED: i64 = -32042;

/// The negotiated session, if requests to the client are allowed yet
/// (only after `notifications/initialized`).
fn operating(server: &Server) -> Result<Negotiated, Value> {
    match server.session.phase() {
        Phase::Operating(negotiated) => Ok(negotiated),
        _ => Err(error_result(
            "the client has not sent notifications/initialized yet",
        )),
    }
}

/// Sends `method` and turns a failure into a tool error naming the cause.
async fn ask(server: &Server, method: &str, params: Value) -> Result<Value, Value> {
    server
        .outbound
        .request(&server.sink, method, params)
        .await
        .map_err(|failure| match failure {
            OutboundError::Rejected(error) => error_result(format!(
                "the client answered {method} with error {}: {}",
                error.code, error.message
            )),
            OutboundError::Disconnected => {
                error_result(format!("the client went away before answering {method}"))
            }
            OutboundError::TimedOut => error_result(format!("the client did not answer {method} in time")),
        })
}

pub(super) async fn elicit(server: &Server, call: Call<'_>) -> Outcome {
    let message = call
        .args
        .optional_string("message")?
        .unwrap_or(answers::ELICIT_MESSAGE);
    let negotiated = match operating(server) {
        Ok(negotiated) => negotiated,
        Err(refusal) => return Ok(refusal),
    };
    if negotiated.version < ProtocolVersion::V2025_06_18 || !negotiated.client.elicitation_form {
        return Ok(error_result(
            "elicitation is not supported: it needs protocol 2025-06-18 or later and a client that declared form elicitation",
        ));
    }
    let mut params = json!({ "message": message, "requestedSchema": answers::requested_schema() });
    if negotiated.version >= ProtocolVersion::V2025_11_25 {
        params["mode"] = json!("form");
    }
    Ok(match ask(server, "elicitation/create", params).await {
        Ok(answer) => elicitation_outcome(&answer),
        Err(tool_error) => tool_error,
    })
}

pub(super) async fn sample(server: &Server, call: Call<'_>) -> Outcome {
    let prompt = call.args.string("prompt")?;
    let negotiated = match operating(server) {
        Ok(negotiated) => negotiated,
        Err(refusal) => return Ok(refusal),
    };
    if !negotiated.client.sampling {
        return Ok(error_result(
            "sampling is not supported: the client did not declare the sampling capability",
        ));
    }
    Ok(
        match ask(server, "sampling/createMessage", answers::sampling_params(prompt)).await {
            Ok(answer) => sampling_outcome(&answer),
            Err(tool_error) => tool_error,
        },
    )
}

/// `book`: places its hold, then asks each question of the conversation
/// as a request to the client until it is done.
pub(super) async fn book(server: &Server, call: Call<'_>) -> Outcome {
    let destination = multi_turn::destination(call.args)?;
    let negotiated = match operating(server) {
        Ok(negotiated) => negotiated,
        Err(refusal) => return Ok(refusal),
    };
    let client = &negotiated.client;
    if negotiated.version < ProtocolVersion::V2025_06_18 || !client.elicitation_form || !client.sampling {
        return Ok(error_result(
            "book needs protocol 2025-06-18 or later and a client that declared form elicitation and sampling",
        ));
    }
    multi_turn::place_hold(destination);
    let modes = negotiated.version >= ProtocolVersion::V2025_11_25;
    let mut answers = Vec::new();
    loop {
        match multi_turn::next(destination, &answers) {
            Turn::Done(result) => return Ok(result),
            Turn::Ask(question) => match ask(server, question.method, question.params(modes)).await {
                Ok(answer) => answers.push(answer),
                Err(tool_error) => return Ok(tool_error),
            },
        }
    }
}

pub(super) async fn roots(server: &Server) -> Outcome {
    let negotiated = match operating(server) {
        Ok(negotiated) => negotiated,
        Err(refusal) => return Ok(refusal),
    };
    if !negotiated.client.roots {
        return Ok(error_result(
            "roots are not supported: the client did not declare the roots capability",
        ));
    }
    Ok(match ask(server, "roots/list", json!({})).await {
        Ok(answer) => roots_outcome(&answer),
        Err(tool_error) => tool_error,
    })
}

/// Ids of URL elicitations, unique for the life of the process.
static NEXT_ELICITATION: AtomicU64 = AtomicU64::new(1);

/// A URL elicitation as this server asks for it.
fn url_elicitation() -> Value {
    let id = format!("connect-{}", NEXT_ELICITATION.fetch_add(1, Ordering::Relaxed));
    json!({
        "mode": "url",
        "elicitationId": id,
        "url": answers::connect_url(&id),
        "message": answers::CONNECT_MESSAGE,
    })
}

/// `connect`: needs the user to visit a URL first. With `required: true`
/// it refuses with error -32042 listing the URL elicitation; otherwise it
/// asks through `elicitation/create` in URL mode and, once accepted,
/// announces `notifications/elicitation/complete`.
pub(super) async fn connect(server: &Server, call: Call<'_>) -> Result<Value, RpcError> {
    let negotiated = match operating(server) {
        Ok(negotiated) => negotiated,
        Err(refusal) => return Ok(refusal),
    };
    if negotiated.version < ProtocolVersion::V2025_11_25 || !negotiated.client.elicitation_url {
        return Ok(error_result(
            "connect needs protocol 2025-11-25 and a client that declared URL elicitation",
        ));
    }
    let elicitation = url_elicitation();
    if call.args.0.get("required") == Some(&Value::Bool(true)) {
        return Err(
            RpcError::new(URL_ELICITATION_REQUIRED, "the account must be connected first")
                .with_data(json!({ "elicitations": [elicitation] })),
        );
    }
    let answer = match ask(server, "elicitation/create", elicitation.clone()).await {
        Ok(answer) => answer,
        Err(tool_error) => return Ok(tool_error),
    };
    if answer.get("action").and_then(Value::as_str) == Some("accept") {
        let done = json!({ "elicitationId": elicitation["elicitationId"] });
        server
            .sink
            .send(jsonrpc::notification("notifications/elicitation/complete", done));
    }
    Ok(connection_outcome(&answer))
}
