#!/usr/bin/env bash
# Every test of the project: installs the real peers the tests run against
# (idempotent), then formatting, lints and the whole test suite.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/install-peers.sh
cargo fmt --all --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked
