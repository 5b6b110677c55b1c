//! What the integration tests share: running `mcp-conform` and reading the
//! verdicts of the `report.json` it wrote, and tests that need a tool from
//! outside the repository (the real peers, the referee, chromium).

// Every test binary compiles this module and uses a part of it.
#![allow(dead_code)]

pub mod cli;
pub mod findings;
pub mod golden;
pub mod needs;
pub mod observable;
pub mod report;
pub mod scripted_http;
pub mod tokens;
