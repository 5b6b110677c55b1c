//! `mcp-conform schemas fetch`: downloads the official MCP schema files into
//! a user cache, for `run --schema-dir`. They are the user's copy, never
//! shipped with the project. Plain `http://` needs nothing more; `https://`
//! needs the `tls` feature (off by default, so the default build carries no
//! TLS stack).

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use mcp_conform_core::version::ProtocolVersion;

/// Where the specification repository keeps its schemas; files are at
/// `{base}/{version}/schema.json`.
pub const DEFAULT_BASE_URL: &str =
    "https://raw.githubusercontent.com/modelcontextprotocol/modelcontextprotocol/main/schema";

/// For the whole exchange of one file, connect to last byte.
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

/// What a fetch did: the files written, and the versions that failed (the
/// others are still written). A fetch with failures should end in an error
/// exit status.
#[derive(Debug, Default)]
pub struct FetchReport {
    pub written: Vec<PathBuf>,
    pub failed: Vec<FetchError>,
}

impl FetchReport {
    /// Whether every version asked for was written.
    pub fn is_complete(&self) -> bool {
        self.failed.is_empty()
    }
}

impl fmt::Display for FetchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for path in &self.written {
            writeln!(f, "wrote {}", path.display())?;
        }
        for error in &self.failed {
            writeln!(f, "failed: {error}")?;
        }
        write!(
            f,
            "{} schema file(s) written, {} failed",
            self.written.len(),
            self.failed.len()
        )
    }
}

/// Why a fetch, or the fetch of one version, failed.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("{url}: https needs the `tls` feature (build with `--features tls`), or give an http:// mirror")]
    TlsNeeded { url: String },
    #[error("{url}: only http:// and https:// URLs are supported")]
    UnsupportedUrl { url: String },
    #[error("{url}: {reason}")]
    Download { url: String, reason: String },
    #[error("{url}: not an MCP schema file: {reason}")]
    NotASchema { url: String, reason: String },
    #[error("{}: {source}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
}

/// Downloads `{base_url}/{version}/schema.json` for each version into
/// `dest/{version}/schema.json`. Each body must be JSON with a `$schema` and
/// `definitions` or `$defs`, and is written atomically (a temporary file
/// renamed into place), so a failed fetch never leaves a half-written
/// schema. An unusable base URL fails the whole fetch; a version that fails
/// is listed in the report and the others are still fetched.
pub fn fetch(base_url: &str, versions: &[ProtocolVersion], dest: &Path) -> Result<FetchReport, FetchError> {
    let base = base_url.trim_end_matches('/');
    check_scheme(base)?;
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(TIMEOUT))
        .http_status_as_error(false)
        .build()
        .into();
    let mut report = FetchReport::default();
    for version in versions {
        let url = format!("{base}/{version}/schema.json");
        let fetched = download(&agent, &url)
            .and_then(|body| check_schema(&url, &body).map(|()| body))
            .and_then(|body| write_atomically(&dest.join(version.as_str()), &body));
        match fetched {
            Ok(path) => report.written.push(path),
            Err(error) => report.failed.push(error),
        }
    }
    Ok(report)
}

fn check_scheme(url: &str) -> Result<(), FetchError> {
    let url = url.to_owned();
    if url.starts_with("http://") {
        Ok(())
    } else if url.starts_with("https://") {
        if cfg!(feature = "tls") {
            Ok(())
        } else {
            Err(FetchError::TlsNeeded { url })
        }
    } else {
        Err(FetchError::UnsupportedUrl { url })
    }
}

fn download(agent: &ureq::Agent, url: &str) -> Result<Vec<u8>, FetchError> {
    let failed = |reason: String| FetchError::Download {
        url: url.to_owned(),
        reason,
    };
    let response = agent.get(url).call().map_err(|e| failed(e.to_string()))?;
    if !response.status().is_success() {
        return Err(failed(format!("HTTP {}", response.status())));
    }
    response
        .into_body()
        .read_to_vec()
        .map_err(|e| failed(e.to_string()))
}

fn check_schema(url: &str, body: &[u8]) -> Result<(), FetchError> {
    let not_a_schema = |reason: String| FetchError::NotASchema {
        url: url.to_owned(),
        reason,
    };
    let document: serde_json::Value =
        serde_json::from_slice(body).map_err(|e| not_a_schema(format!("not JSON: {e}")))?;
    if !document.get("$schema").is_some_and(serde_json::Value::is_string) {
        return Err(not_a_schema("no `$schema`".into()));
    }
    if !["definitions", "$defs"]
        .iter()
        .any(|key| document.get(key).is_some_and(serde_json::Value::is_object))
    {
        return Err(not_a_schema("no `definitions` or `$defs`".into()));
    }
    Ok(())
}

/// Writes `dir/schema.json` through a temporary file in the same folder, so
/// the rename is atomic.
fn write_atomically(dir: &Path, body: &[u8]) -> Result<PathBuf, FetchError> {
    let path = dir.join("schema.json");
    let partial = dir.join(format!(".schema.json.{}.partial", std::process::id()));
    let result = std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&partial, body))
        .and_then(|()| std::fs::rename(&partial, &path));
    if result.is_err() {
        // Best effort: the write error is what gets reported.
        let _ = std::fs::remove_file(&partial);
    }
    result
        .map(|()| path.clone())
        .map_err(|source| FetchError::Write { path, source })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn https_needs_the_tls_feature() {
        let checked = check_scheme(DEFAULT_BASE_URL);
        if cfg!(feature = "tls") {
            assert!(checked.is_ok());
        } else {
            let error = checked.unwrap_err();
            assert!(matches!(error, FetchError::TlsNeeded { .. }));
            assert!(
                error.to_string().contains("https needs the `tls` feature"),
                "{error}"
            );
        }
    }

    #[test]
    fn other_schemes_are_refused() {
        let dest = tempfile::tempdir().unwrap();
        let error = fetch("ftp://example.invalid/schema", &[], dest.path()).unwrap_err();
        assert!(matches!(error, FetchError::UnsupportedUrl { .. }), "{error}");
    }

    #[test]
    fn a_schema_needs_a_dialect_and_definitions() {
        assert!(check_schema("u", br#"{"$schema": "x", "$defs": {}}"#).is_ok());
        assert!(check_schema("u", br#"{"$schema": "x", "definitions": {}}"#).is_ok());
        let no_dialect = check_schema("u", br#"{"$defs": {}}"#).unwrap_err();
        assert!(no_dialect.to_string().contains("no `$schema`"), "{no_dialect}");
        let no_defs = check_schema("u", br#"{"$schema": "x"}"#).unwrap_err();
        assert!(no_defs.to_string().contains("no `definitions`"), "{no_defs}");
    }
}
