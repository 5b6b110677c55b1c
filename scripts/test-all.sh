#!/usr/bin/env bash
# Every test of the project: installs the real peers and chromium the tests
# run against (idempotent), checks formatting and lints, then runs the test
# tiers of .config/nextest.toml one after another and closes with one line
# of totals. JUnit per tier: target/nextest/<tier>/junit.xml.
#
#   default     the fast tier: units, scenarios against the reference peers, CLI
#   mutation    the fault sweeps: broken servers, HTTP servers, clients, gateways
#   hostile     the hostile-peer matrix: floods, stalls, immortal children
#   real-peers  the suite against the installed real peers, calibration
#   browser     report.html in headless chromium
#
# Under CI=true a test whose tool is missing fails; elsewhere it is skipped
# and says why.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# One build directory per machine, outside the clone (a shared target dir):
# a fresh clone, as CI makes, compiles the workspace's own crates but reuses
# the built dependencies. The real peers are shared the same way
# (install-peers.sh; its version stamps reinstall whatever is stale). A
# CARGO_TARGET_DIR set by the caller wins.
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mcp-conform/target}

# A shared target dir keeps the workspace's own artifacts of every commit it
# ever built (a CI run once failed with "No space left on device"). Past a
# bound, those are dropped: a fresh clone rebuilds the workspace crates
# anyway, and the built dependencies stay.
prune_target_dir() {
  local deps=$CARGO_TARGET_DIR/debug/deps limit_gib=${MCP_CONFORM_TARGET_LIMIT_GIB:-12} used_gib
  [ -d "$deps" ] || return 0
  used_gib=$(du -s --block-size=1G "$CARGO_TARGET_DIR" | cut -f1)
  [ "$used_gib" -gt "$limit_gib" ] || return 0
  echo "=== $CARGO_TARGET_DIR holds $used_gib GiB (bound $limit_gib): dropping the workspace's old artifacts"
  # Dependencies are lib*; everything else in deps/ is a workspace binary.
  find "$deps" -maxdepth 1 -type f \( ! -name 'lib*' -o -name 'libmcp_*' \) -delete
  rm -rf "$CARGO_TARGET_DIR"/debug/incremental "$CARGO_TARGET_DIR"/debug/.fingerprint/mcp-*
}
prune_target_dir
free_gib=$(df --output=avail --block-size=1G "$(dirname "$CARGO_TARGET_DIR")" | tail -1 | tr -dc 0-9)
if [ "${free_gib:-0}" -lt 6 ]; then
  echo "warning: only ${free_gib} GiB free next to $CARGO_TARGET_DIR; a build needs about 6" >&2
fi

scripts/install-peers.sh
cargo fmt --all --check
cargo clippy --workspace --all-targets --locked -- -D warnings

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
passed=0 failed=0 skipped=0 failing_tiers=()

# count WORDS LOG: the number before WORDS on nextest's summary line, or 0.
count() {
  local n
  n=$(grep -E '^ *Summary ' "$2" | tail -1 | grep -oE "[0-9]+ $1" | grep -oE '^[0-9]+') || true
  echo "${n:-0}"
}

for tier in default mutation hostile real-peers browser; do
  echo "=== tier: $tier"
  log=$logs/$tier.log
  started=$SECONDS
  status=0
  cargo nextest run --workspace --locked --profile "$tier" --no-tests=warn 2>&1 | tee "$log" || status=$?
  echo "=== tier $tier: $((SECONDS - started)) s, exit $status"
  passed=$((passed + $(count passed "$log")))
  failed=$((failed + $(count failed "$log") + $(count "timed out" "$log")))
  skipped=$((skipped + $(count skipped "$log")))
  if [ "$status" -ne 0 ]; then
    failing_tiers+=("$tier")
    # A tier that failed before its summary (a build error) still counts.
    [ "$(count failed "$log")" -gt 0 ] || failed=$((failed + 1))
  fi
done

# nextest shows an ignored test as SKIP without the reason; each test binary
# prints its reasons when run with a filter that selects nothing.
if [ "$skipped" -gt 0 ]; then
  echo "=== why tests were skipped"
  cargo test --workspace --locked --tests -q -- --exact 'no test has this name' 2>/dev/null | grep '^SKIPPED' || true
fi

if [ ${#failing_tiers[@]} -gt 0 ]; then
  echo "failing tiers: ${failing_tiers[*]}"
fi
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ ${#failing_tiers[@]} -eq 0 ]
