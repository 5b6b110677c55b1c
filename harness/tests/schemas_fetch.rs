//! `schemas fetch` against a local HTTP server: files written per version,
//! a 404 reported with its URL, a non-schema body rejected.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;

use mcp_conform::schemas::{FetchError, fetch};
use mcp_conform_core::version::ProtocolVersion;

/// Serves `/2025-06-18/schema.json` and `/2025-11-25/schema.json`, a non-schema
/// at `/broken/2025-06-18/schema.json`, and 404 for anything else.
fn serve() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request_line = String::new();
            reader.read_line(&mut request_line).unwrap();
            let path = request_line.split_whitespace().nth(1).unwrap_or("").to_owned();
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let (status, body) = match path.as_str() {
                "/2025-06-18/schema.json" | "/2025-11-25/schema.json" => ("200 OK", r#"{"$defs":{"X":{}}}"#),
                "/broken/2025-06-18/schema.json" => ("200 OK", "<html>not json</html>"),
                _ => ("404 Not Found", "no"),
            };
            let mut stream = stream;
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            );
        }
    });
    base
}

#[test]
fn fetches_each_version_into_its_folder() {
    let base = serve();
    let dest = tempfile::tempdir().unwrap();
    let versions = [ProtocolVersion::V2025_06_18, ProtocolVersion::V2025_11_25];
    let report = fetch(&base, &versions, dest.path()).unwrap();
    assert_eq!(report.written.len(), 2);
    let text = std::fs::read_to_string(dest.path().join("2025-11-25/schema.json")).unwrap();
    assert_eq!(text, r#"{"$defs":{"X":{}}}"#);
}

#[test]
fn a_missing_version_is_reported_with_its_url() {
    let base = serve();
    let dest = tempfile::tempdir().unwrap();
    let error = fetch(&base, &[ProtocolVersion::V2024_11_05], dest.path()).unwrap_err();
    assert!(matches!(error, FetchError::Download { .. }));
    assert!(
        error.to_string().contains("/2024-11-05/schema.json: HTTP 404"),
        "{error}"
    );
}

#[test]
fn a_body_that_is_no_schema_is_rejected() {
    let base = serve();
    let dest = tempfile::tempdir().unwrap();
    let error = fetch(
        &format!("{base}/broken"),
        &[ProtocolVersion::V2025_06_18],
        dest.path(),
    )
    .unwrap_err();
    assert!(matches!(error, FetchError::NotASchema { .. }), "{error}");
    assert!(!dest.path().join("2025-06-18/schema.json").exists());
}
