//! The bundled reference server on stdio, or on HTTP: a dual-era server,
//! legacy after `initialize` and stateless (2026-07-28) for requests that
//! carry its per-request `_meta`.
//!
//! `mcp-reference-server [--http 127.0.0.1:PORT] [--fault NAME]`: with
//! `--http` it serves Streamable HTTP at `/mcp` (and HTTP+SSE at `/sse`),
//! printing `listening on http://127.0.0.1:<port>/mcp` once bound (PORT 0
//! picks a free port). With a fault, the server breaks that one rule on
//! purpose (see `fixtures/broken-servers`). With `--auth ISSUER_URL` (HTTP
//! only) it is an OAuth-protected resource trusting that issuer (see
//! `reference::Protection`), which with `--auth-introspect` it asks about
//! each token (RFC 7662) instead of verifying the JWT itself, and which
//! with `--auth-default-endpoints` offers no authorization server metadata
//! and serves 2025-03-26's default `/authorize` and `/token` instead.

use std::process::ExitCode;

use mcp_mock_peers::reference::{
    AuthorizationEndpoints, Fault, TokenValidation, serve_http_blocking, serve_stdio_blocking_with,
};

const USAGE: &str = "usage: mcp-reference-server [--http 127.0.0.1:PORT [--auth ISSUER_URL [--auth-introspect] [--auth-default-endpoints]]] [--fault NAME]";

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut fault = None;
    let mut http = None;
    let mut issuer = None;
    let mut validation = TokenValidation::Jwks;
    let mut endpoints = AuthorizationEndpoints::Metadata;
    while let Some(flag) = args.next() {
        if flag == "--auth-introspect" {
            validation = TokenValidation::Introspection;
            continue;
        }
        if flag == "--auth-default-endpoints" {
            endpoints = AuthorizationEndpoints::Defaults;
            continue;
        }
        match (flag.as_str(), args.next()) {
            ("--http", Some(address)) => http = Some(address),
            ("--auth", Some(url)) => issuer = Some(url),
            ("--fault", Some(name)) => match name.parse::<Fault>() {
                Ok(parsed) => fault = Some(parsed),
                Err(error) => {
                    eprintln!("mcp-reference-server: {error}");
                    return ExitCode::from(2);
                }
            },
            _ => {
                eprintln!("{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let outcome = match (http, issuer) {
        (Some(address), issuer) => {
            serve_http_blocking(&address, fault, issuer.as_deref(), validation, endpoints)
        }
        (None, None) => serve_stdio_blocking_with(fault),
        (None, Some(_)) => {
            eprintln!("mcp-reference-server: --auth protects an HTTP server; give --http too\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mcp-reference-server: {error}");
            ExitCode::FAILURE
        }
    }
}
