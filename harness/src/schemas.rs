//! `mcp-conform schemas fetch`: downloads the official MCP schema files into
//! a user cache, for `run --schema-dir`. They are the user's copy, never
//! shipped with the project. Plain `http://` needs nothing; `https://` needs
//! the `tls` feature (kept off by default to keep builds lean).

use std::fmt;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use mcp_conform_core::version::ProtocolVersion;

/// Where the specification repository keeps its schemas; `{base}/{version}/schema.json`.
pub const DEFAULT_BASE_URL: &str =
    "https://raw.githubusercontent.com/modelcontextprotocol/modelcontextprotocol/main/schema";

const TIMEOUT: Duration = Duration::from_secs(30);

/// The default cache: `$MCP_CONFORM_CACHE`, else `$XDG_CACHE_HOME/mcp-conform`,
/// else `~/.cache/mcp-conform`; schemas go in its `schemas/`.
pub fn default_cache_dir() -> PathBuf {
    let env = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let base = env("MCP_CONFORM_CACHE")
        .or_else(|| env("XDG_CACHE_HOME").map(|d| d.join("mcp-conform")))
        .or_else(|| env("HOME").map(|d| d.join(".cache/mcp-conform")))
        .unwrap_or_else(|| PathBuf::from(".mcp-conform-cache"));
    base.join("schemas")
}

/// What a fetch did.
#[derive(Debug, Clone, PartialEq)]
pub struct FetchReport {
    pub written: Vec<PathBuf>,
}

impl fmt::Display for FetchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for path in &self.written {
            writeln!(f, "wrote {}", path.display())?;
        }
        write!(f, "{} schema file(s)", self.written.len())
    }
}

/// Why a fetch failed.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("{url}: {reason}")]
    Download { url: String, reason: String },
    #[error("{url}: not an MCP schema file: {reason}")]
    NotASchema { url: String, reason: String },
    #[error("{}: {source}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
}

/// Downloads `{base_url}/{version}/schema.json` for each version into
/// `dest/{version}/schema.json`, each checked to be a JSON schema file and
/// written atomically.
pub fn fetch(base_url: &str, versions: &[ProtocolVersion], dest: &Path) -> Result<FetchReport, FetchError> {
    let mut written = Vec::new();
    for version in versions {
        let url = format!("{}/{version}/schema.json", base_url.trim_end_matches('/'));
        let body = get(&url).map_err(|reason| FetchError::Download {
            url: url.clone(),
            reason,
        })?;
        let parsed: serde_json::Value =
            serde_json::from_slice(&body).map_err(|e| FetchError::NotASchema {
                url: url.clone(),
                reason: e.to_string(),
            })?;
        if parsed
            .get("definitions")
            .or_else(|| parsed.get("$defs"))
            .is_none()
        {
            let reason = "no `definitions` or `$defs`".to_owned();
            return Err(FetchError::NotASchema { url, reason });
        }
        let dir = dest.join(version.as_str());
        let path = dir.join("schema.json");
        let write_error = |source| FetchError::Write {
            path: path.clone(),
            source,
        };
        std::fs::create_dir_all(&dir).map_err(write_error)?;
        let partial = dir.join("schema.json.partial");
        std::fs::write(&partial, &body).map_err(write_error)?;
        std::fs::rename(&partial, &path).map_err(write_error)?;
        written.push(path);
    }
    Ok(FetchReport { written })
}

fn get(url: &str) -> Result<Vec<u8>, String> {
    if let Some(rest) = url.strip_prefix("http://") {
        return get_plain(rest);
    }
    if url.starts_with("https://") {
        return get_tls(url);
    }
    Err("only http:// and https:// URLs are supported".into())
}

#[cfg(feature = "tls")]
fn get_tls(url: &str) -> Result<Vec<u8>, String> {
    let response = ureq::get(url).call().map_err(|e| e.to_string())?;
    response.into_body().read_to_vec().map_err(|e| e.to_string())
}

#[cfg(not(feature = "tls"))]
fn get_tls(_url: &str) -> Result<Vec<u8>, String> {
    Err("https needs the `tls` feature (cargo install/run with `--features tls`), or give an http:// mirror with --url".into())
}

/// A minimal HTTP/1.1 GET (no redirects, no chunked encoding needed: we ask
/// for `Connection: close` and read to the end).
fn get_plain(rest: &str) -> Result<Vec<u8>, String> {
    let (authority, path) = rest
        .split_once('/')
        .map_or((rest, "/".to_owned()), |(a, p)| (a, format!("/{p}")));
    let address = if authority.contains(':') {
        authority.to_owned()
    } else {
        format!("{authority}:80")
    };
    let mut stream = TcpStream::connect(&address).map_err(|e| format!("cannot connect to {address}: {e}"))?;
    stream
        .set_read_timeout(Some(TIMEOUT))
        .map_err(|e| e.to_string())?;
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\nUser-Agent: mcp-conform\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).map_err(|e| e.to_string())?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response).map_err(|e| e.to_string())?;
    let split = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("malformed HTTP response")?;
    let head = String::from_utf8_lossy(&response[..split]);
    let status = head.split_whitespace().nth(1).unwrap_or("?");
    if status != "200" {
        return Err(format!("HTTP {status}"));
    }
    if head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
        return Err("chunked responses are not supported over plain http".into());
    }
    Ok(response[split + 4..].to_vec())
}
