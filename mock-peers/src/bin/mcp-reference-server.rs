//! The bundled reference MCP server on stdio.

fn main() -> std::process::ExitCode {
    match mcp_mock_peers::reference::serve_stdio_blocking() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mcp-reference-server: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}
