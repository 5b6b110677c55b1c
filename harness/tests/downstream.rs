//! The README's downstream recipe, for real: a scratch crate with a server
//! binary and a 10-line `tests/conformance.rs` runs the suite under
//! `cargo test`. It builds offline: under nextest into the workspace's own
//! target directory, with the workspace's dev profile, so the dependencies
//! already built are reused; under `cargo test`, whose build lock is held
//! while the tests run, into `target/downstream`.

use std::path::Path;
use std::process::Command;

const CONFORMANCE_RS: &str = r#"fn main() -> std::process::ExitCode {
    mcp_conform::libtest::Suite::binary(env!("CARGO_BIN_EXE_downstream-server"))
        .profile("reference")
        .run()
}
"#;

#[test]
fn a_downstream_crate_runs_the_suite_under_cargo_test() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let manifest = format!(
        r#"[package]
name = "downstream-server"
version = "0.1.0"
edition = "2024"

[dependencies]
mcp-mock-peers = {{ path = "{ws}/mock-peers" }}

[dev-dependencies]
mcp-conform = {{ path = "{ws}/harness" }}

[[test]]
name = "conformance"
harness = false

[workspace]

# The workspace's dev profile, so the dependencies it built are reused; its
# members are compiled as it compiles them (opt-level 0 builds quicker).
[profile.dev]
debug = "line-tables-only"

[profile.dev.package."*"]
opt-level = 1
debug = false

[profile.dev.package.mcp-conform]
opt-level = 0
debug = "line-tables-only"

[profile.dev.package.mcp-conform-core]
opt-level = 0
debug = "line-tables-only"

[profile.dev.package.mcp-conform-report]
opt-level = 0
debug = "line-tables-only"

[profile.dev.package.mcp-mock-peers]
opt-level = 0
debug = "line-tables-only"
"#,
        ws = workspace.display()
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::copy(workspace.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    std::fs::write(
        dir.join("src/main.rs"),
        "fn main() -> std::io::Result<()> {\n    mcp_mock_peers::reference::serve_stdio_blocking()\n}\n",
    )
    .unwrap();
    std::fs::write(dir.join("tests/conformance.rs"), CONFORMANCE_RS).unwrap();
    assert!(CONFORMANCE_RS.lines().count() <= 10);
    let workspace_target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| workspace.join("target"));
    let target = match std::env::var_os("NEXTEST") {
        Some(_) => workspace_target,
        None => workspace_target.join("downstream"),
    };
    let output = Command::new(env!("CARGO"))
        .args([
            "test",
            "--offline",
            "--test",
            "conformance",
            "--",
            "--test-threads",
            "2",
        ])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env_remove("CI")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let ping = stdout
        .lines()
        .find(|l| l.split_whitespace().nth(1) == Some("lifecycle.ping"));
    assert!(ping.is_some_and(|l| l.ends_with("ok")), "{stdout}");
    assert!(stdout.contains(" passed; 0 failed;"), "{stdout}");
}
