//! The bundled suite under `cargo test`: against `MCP_CONFORM_SERVER` (a
//! command line) when set, else against the bundled reference server, whose
//! transcripts are snapshotted.

use mcp_conform::libtest::Suite;

fn main() -> std::process::ExitCode {
    match std::env::var("MCP_CONFORM_SERVER") {
        Ok(command_line) => {
            let suite = Suite::stdio(&command_line);
            match std::env::var("MCP_CONFORM_PROFILE") {
                Ok(profile) => suite.profile(profile).run(),
                Err(_) => suite.run(),
            }
        }
        Err(_) => Suite::program(env!("CARGO_BIN_EXE_mcp-conform"), ["reference-server"])
            .profile("reference")
            .snapshots(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/snapshots/reference"))
            .run(),
    }
}
