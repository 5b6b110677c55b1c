//! `schemas fetch` against a local HTTP server: files written per version,
//! a 404 reported with its URL while the other versions are still written,
//! a body that is no schema rejected and never written.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;

use mcp_conform::schemas::{FetchError, fetch};
use mcp_conform_core::version::ProtocolVersion;

/// A schema body in the official layout, written for this test.
const SCHEMA: &str = r#"{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{"X":{}}}"#;

/// Serves `/2025-06-18/schema.json` and `/2025-11-25/schema.json`, a body
/// that is no JSON at `/broken/2025-06-18/schema.json`, and 404 for anything
/// else. Returns the base URL.
fn serve() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request_line = String::new();
            reader.read_line(&mut request_line).unwrap();
            let path = request_line.split_whitespace().nth(1).unwrap_or("").to_owned();
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let (status, body) = match path.as_str() {
                "/2025-06-18/schema.json" | "/2025-11-25/schema.json" => ("200 OK", SCHEMA),
                "/broken/2025-06-18/schema.json" => ("200 OK", "<html>not json</html>"),
                _ => ("404 Not Found", "no"),
            };
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    base
}

#[test]
fn fetches_each_version_and_reports_a_missing_one_with_its_url() {
    let base = serve();
    let dest = tempfile::tempdir().unwrap();
    let versions = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
    ];
    let report = fetch(&format!("{base}/"), &versions, dest.path()).unwrap();
    assert_eq!(
        report.written,
        [
            dest.path().join("2025-06-18/schema.json"),
            dest.path().join("2025-11-25/schema.json")
        ]
    );
    for path in &report.written {
        assert_eq!(std::fs::read_to_string(path).unwrap(), SCHEMA);
    }
    assert!(!report.is_complete());
    assert_eq!(report.failed.len(), 1);
    let missing = &report.failed[0];
    assert!(matches!(missing, FetchError::Download { .. }), "{missing}");
    assert_eq!(
        missing.to_string(),
        format!("{base}/2024-11-05/schema.json: HTTP 404 Not Found")
    );
    assert!(!dest.path().join("2024-11-05").exists());
    let leftovers: Vec<_> = std::fs::read_dir(dest.path().join("2025-06-18"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert_eq!(leftovers, ["schema.json"], "no temporary file is left behind");
    assert!(report.to_string().ends_with("2 schema file(s) written, 1 failed"));
}

#[test]
fn a_body_that_is_no_schema_is_rejected_and_not_written() {
    let base = serve();
    let dest = tempfile::tempdir().unwrap();
    let report = fetch(
        &format!("{base}/broken"),
        &[ProtocolVersion::V2025_06_18],
        dest.path(),
    )
    .unwrap();
    assert!(report.written.is_empty());
    let error = &report.failed[0];
    assert!(matches!(error, FetchError::NotASchema { .. }), "{error}");
    assert!(error.to_string().contains("not JSON"), "{error}");
    assert!(!dest.path().join("2025-06-18/schema.json").exists());
}

#[test]
fn a_refreshed_file_replaces_the_old_one() {
    let base = serve();
    let dest = tempfile::tempdir().unwrap();
    let path = dest.path().join("2025-11-25/schema.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, "stale").unwrap();
    let report = fetch(&base, &[ProtocolVersion::V2025_11_25], dest.path()).unwrap();
    assert!(report.is_complete());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), SCHEMA);
}
