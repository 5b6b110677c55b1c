//! The bundled suite under `cargo test` on the stateless revision,
//! 2026-07-28, against the dual-era reference server: every scenario passes
//! or says why it does not apply. (No transcript snapshots: the server seals
//! its requestState afresh on every run.)

use mcp_conform::libtest::Suite;
use mcp_conform_core::version::ProtocolVersion;

fn main() -> std::process::ExitCode {
    Suite::program(env!("CARGO_BIN_EXE_mcp-conform"), ["reference-server"])
        .profile("reference")
        .protocol(ProtocolVersion::V2026_07_28)
        .run()
}
