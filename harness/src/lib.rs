//! mcp-conform: runs YAML scenarios against MCP peers and judges every frame.
//!
//! - [`runner`]: scenario execution, producing outcomes and events.
//! - [`select`]: which scenarios and profile a run uses; [`bundled`]: the
//!   suite shipped in the binary.
//! - [`pipeline`]: a judged run, from the runner's events to the report
//!   model, the outputs and the exit code.
//! - [`output`]: the terminal reporter; [`progress`]: its progress bar;
//!   [`snapshot`]: normalized transcripts.
//! - [`report`]: the report model of a run, its files, baseline gating and
//!   shards.
//! - [`libtest`]: the `cargo test` entry point; [`cli`]: the command line;
//!   [`interrupt`]: the signals that stop a run; [`start`]: `--start`;
//!   [`watch`]: `run --watch`; [`completions`]: shell completions and the
//!   man page from the CLI definition.
//! - [`test_client`]: `serve` and `test-client`, the mock server side;
//!   [`test_gateway`]: a gateway between the suite and the reference server.
//! - [`schemas`]: fetching official schema files; [`coverage`]: which
//!   requirements the suite checks.
//! - [`fuzz`]: calls generated from a server's declarations; [`init`]: a
//!   profile from them; [`profile_check`]: a profile against them.
//! - [`mock_client`]: one scripted call from a Rust test, judged like a run.

pub mod about;
pub mod auth;
pub mod bundled;
pub mod cli;
pub mod completions;
pub mod coverage;
pub mod explain_scenario;
pub mod fuzz;
pub mod init;
pub mod interrupt;
pub mod jobs;
pub mod libtest;
pub mod mock_client;
pub mod new_scenario;
pub mod output;
pub mod own_requirements;
pub mod pipeline;
pub mod profile_check;
pub mod progress;
pub mod quiet;
pub mod record;
pub mod report;
pub mod runner;
pub mod schemas;
pub mod select;
pub mod snapshot;
pub mod start;
pub mod test_client;
pub mod test_gateway;
pub mod watch;
