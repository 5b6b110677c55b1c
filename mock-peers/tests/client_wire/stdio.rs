//! The reference client over stdio, with both directions recorded by `tee`s
//! between it and the server it starts.

use std::path::Path;

use mcp_mock_peers::reference_client::{self, ClientFault, Plan, ServerAddress};
use mcp_mock_peers::transport::StdioCommand;
use serde_json::{Value, json};

/// Turns the first request (whatever it is) away as a legacy server turns
/// away an unknown method, then hands the rest to the reference server.
const REFUSE_FIRST: &str = r#"IFS= read -r first
id=$(printf '%s\n' "$first" | sed -E 's/.*"id":("[^"]*"|-?[0-9]+).*/\1/')
printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}\n' "$id"
exec "$SERVER"
"#;

/// Never answers the first request, then hands the rest to the reference server.
const IGNORE_FIRST: &str = r#"IFS= read -r first
exec "$SERVER"
"#;

/// Answers the n-th request with the lines of `reply-n` (none if there is
/// no such file), the request's id in place of [`REQUEST_ID`]; ignores
/// notifications.
const SCRIPTED: &str = r#"n=0
while IFS= read -r line; do
  case "$line" in *'"id":'*) ;; *) continue ;; esac
  n=$((n + 1))
  id=$(printf '%s\n' "$line" | sed -E 's/.*"id":("[^"]*"|-?[0-9]+).*/\1/')
  if [ -f "reply-$n" ]; then sed "s/\"@ID@\"/$id/g" "reply-$n"; fi
done
"#;

/// Stands for the id of the request a scripted message answers.
pub const REQUEST_ID: &str = "@ID@";

/// A scripted response to the request, with `member` (`result` or `error`).
pub fn reply(member: &str, value: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": REQUEST_ID, member: value})
}

/// The server the client starts.
#[derive(Debug, Clone)]
pub enum Server {
    /// The dual-era reference server.
    Reference,
    /// [`REFUSE_FIRST`]: legacy to a probing client, modern-only to one
    /// that opens with `initialize`.
    RefuseFirst,
    /// [`IGNORE_FIRST`]: a legacy server silent to the probe.
    IgnoreFirst,
    /// [`SCRIPTED`], with the messages that answer each request, in order.
    Scripted(Vec<Vec<Value>>),
}

/// What went over the wire, and how the client's run ended.
#[derive(Debug)]
pub struct Wire {
    pub sent: Vec<Value>,
    pub received: Vec<Value>,
    pub outcome: Result<(), String>,
}

impl Wire {
    /// The requests the client sent, in order.
    pub fn requests(&self) -> Vec<&Value> {
        self.sent.iter().filter(|m| super::is_request(m)).collect()
    }

    /// The requests with `method`, in order.
    pub fn requests_of(&self, method: &str) -> Vec<&Value> {
        self.sent
            .iter()
            .filter(|m| super::is_request(m) && super::method(m) == method)
            .collect()
    }

    /// The response the server sent to request `id`, the first if several.
    pub fn response_to(&self, id: &Value) -> Option<&Value> {
        self.received
            .iter()
            .find(|m| m.get("method").is_none() && m.get("id") == Some(id))
    }
}

/// Runs the client with `plan` (and `fault`) against `server`.
pub async fn run(server: Server, plan: Value, fault: Option<ClientFault>) -> Wire {
    let dir = tempfile::tempdir().expect("temporary directory");
    let inner = match server {
        Server::Reference => "\"$SERVER\"",
        Server::RefuseFirst => script(dir.path(), REFUSE_FIRST),
        Server::IgnoreFirst => script(dir.path(), IGNORE_FIRST),
        Server::Scripted(replies) => {
            for (n, messages) in replies.iter().enumerate() {
                let lines: String = messages.iter().map(|m| format!("{m}\n")).collect();
                std::fs::write(dir.path().join(format!("reply-{}", n + 1)), lines).expect("write a reply");
            }
            script(dir.path(), SCRIPTED)
        }
    };
    let command = StdioCommand {
        program: "sh".into(),
        args: vec!["-c".into(), format!("tee sent | {inner} | tee received")],
        env: vec![("SERVER".into(), env!("CARGO_BIN_EXE_mcp-reference-server").into())],
        cwd: Some(dir.path().to_owned()),
    };
    let outcome = reference_client::run(&ServerAddress::Command(command), Plan::new(plan), fault).await;
    Wire {
        sent: lines(&dir.path().join("sent")),
        received: lines(&dir.path().join("received")),
        outcome,
    }
}

/// Writes `text` as `script` in `dir`; the shell line that runs it.
fn script(dir: &Path, text: &str) -> &'static str {
    std::fs::write(dir.join("script"), text).expect("write script");
    "sh script"
}

fn lines(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
        .collect()
}
