#!/usr/bin/env bash
# Prints the peak RSS of `mcp-conform run` against servers that flood it, one
# line per case: figures to compare across changes, not a pass/fail test.
#
#   scripts/flood-rss.sh [BINARY]     default: $CARGO_TARGET_DIR/debug/mcp-conform
#
# Each run is held under a 8 GB address-space limit and a 180 s timeout, so a
# case that would exhaust memory shows up as a failed run, not a dead machine.
set -euo pipefail

bin=${1:-${CARGO_TARGET_DIR:-target}/debug/mcp-conform}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# name → server script; every server keeps reading stdin so the run ends it.
declare -A cases=(
  [stderr-50MB-line]="head -c 50000000 /dev/zero | tr '\\000' x >&2; echo >&2"
  [stdout-200MB-garbage]="head -c 200000000 /dev/urandom | base64"
  [valid-notification-flood]="yes '{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}' | head -n 2000000"
  [server-request-flood]="yes '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}' | head -n 2000000"
)

printf '%-28s %12s %6s %14s\n' case peak_rss_kib exit report_bytes
for name in "${!cases[@]}"; do
  printf '#!/bin/sh\n%s\ncat >/dev/null\n' "${cases[$name]}" >"$work/$name.sh"
  chmod +x "$work/$name.sh"
  status=0
  /usr/bin/time -f '%M' -o "$work/$name.rss" prlimit --as=8000000000 \
    timeout 180 "$bin" run --stdio "$work/$name.sh" -f base.parse-error -j1 \
    --startup-timeout 5 --report-dir "$work/$name.report" >/dev/null 2>&1 || status=$?
  bytes=$(du -sb "$work/$name.report" 2>/dev/null | cut -f1 || echo -)
  printf '%-28s %12s %6s %14s\n' "$name" "$(tail -1 "$work/$name.rss")" "$status" "${bytes:--}"
done
