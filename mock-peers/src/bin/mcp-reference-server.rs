//! The bundled reference server on stdio.
//!
//! `mcp-reference-server [--fault NAME]`: with a fault, the server breaks
//! that one rule on purpose (see `fixtures/broken-servers`).

use std::process::ExitCode;

use mcp_mock_peers::reference::{Fault, serve_stdio_blocking_with};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let fault = match args.as_slice() {
        [] => None,
        [flag, name] if flag == "--fault" => match name.parse::<Fault>() {
            Ok(fault) => Some(fault),
            Err(error) => {
                eprintln!("mcp-reference-server: {error}");
                return ExitCode::from(2);
            }
        },
        _ => {
            eprintln!("usage: mcp-reference-server [--fault NAME]");
            return ExitCode::from(2);
        }
    };
    match serve_stdio_blocking_with(fault) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mcp-reference-server: {error}");
            ExitCode::FAILURE
        }
    }
}
