#!/usr/bin/env bash
# Wall time, CPU and peak RSS of a whole-suite run of mcp-conform and of the
# official conformance suite against the same servers, in one run,
# alternating, N runs each; plus time-to-verdict against servers that never
# answer. Prints a Markdown table; `--update-docs` also writes it into
# docs/development.md between the bench markers.
#
#   scripts/bench.sh [--runs N] [--update-docs]
#
# Needs the peers of scripts/install-peers.sh (the everything server, Node 22
# and the official suite, the Python SDK peer). Figures come from GNU time:
# CPU is user + system of the tool and the children it waited for (over
# stdio that includes the server; over HTTP the server is started here and
# not counted), peak RSS is the largest single process among them. Over
# stdio, ours also reports what starting a server process per scenario cost
# (report.json's `startup_ms` under `--timings`, summed over the cases).
set -euo pipefail

runs=5
update_docs=false
while [[ $# -gt 0 ]]; do
    case "$1" in
        --runs) runs="$2"; shift 2 ;;
        --update-docs) update_docs=true; shift ;;
        *) echo "usage: scripts/bench.sh [--runs N] [--update-docs]" >&2; exit 2 ;;
    esac
done

repo="$(cd "$(dirname "$0")/.." && pwd)"
peers="${MCP_CONFORM_PEERS:-$HOME/.cache/mcp-conform/peers}"
if [[ ! -f "$peers/peers.env" ]]; then
    echo "bench: no peers in $peers; run scripts/install-peers.sh first" >&2
    exit 2
fi
# shellcheck disable=SC1091
source "$peers/peers.env"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/mcp-conform/target}"

echo "bench: building release binaries" >&2
cargo build --quiet --release -p mcp-conform -p mcp-mock-peers --bin mcp-conform --bin mcp-reference-server
ours="$CARGO_TARGET_DIR/release/mcp-conform"
reference="$CARGO_TARGET_DIR/release/mcp-reference-server"
theirs=("$NODE22" "$CONFORMANCE_CLI" server)

work="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# Waits until something accepts connections on 127.0.0.1:$1.
wait_port() {
    for _ in $(seq 300); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
        sleep 0.1
    done
    echo "bench: nothing listens on port $1" >&2
    exit 3
}

# Starts a server in the background; its pid is kept for cleanup.
start() {
    "$@" >"$work/server.$RANDOM.log" 2>&1 &
    pids+=("$!")
}

# One measured run, stopped after $guard seconds (300 until it is set):
# appends "target tool wall cpu rss_kib start_ms" to the samples (start_ms:
# the process starts summed from report.json, when ours wrote them).
measure() {
    local target="$1" tool="$2" limit="${guard:-300}"
    shift 2
    local out="$work/time"
    rm -rf "$work/report"
    # A verdict of failure is still a measured run; only the figures matter.
    /usr/bin/time -f "%e %U %S %M" -o "$out" timeout "$limit" "$@" >/dev/null 2>&1 || true
    # GNU time writes a note above its figures when the command failed.
    read -r wall user sys rss < <(tail -n 1 "$out")
    local starts=""
    if [[ -f "$work/report/report.json" ]]; then
        starts="$(python3 -c 'import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
times = [c["startup_ms"] for c in cases if "startup_ms" in c]
print(sum(times) if times else "")' "$work/report/report.json")"
    fi
    echo "$target|$tool|$wall|$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')|$rss|$starts" >>"$work/samples"
}

everything_port="$(free_port)"
PORT="$everything_port" start "$NODE22" --require "$LOOPBACK_SHIM" "$EVERYTHING_SERVER_JS" streamableHttp
reference_port="$(free_port)"
start "$reference" --http "127.0.0.1:$reference_port"
python_port="$(free_port)"
start "$peers/py/venv/bin/python" "$repo/fixtures/peers/python/server.py" http "$python_port"
mute_port="$(free_port)"
# Accepts connections and never answers a byte.
start python3 -c "import socket,time
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', $mute_port)); s.listen(64); held=[]
while True: held.append(s.accept())"
for port in "$everything_port" "$reference_port" "$python_port" "$mute_port"; do wait_port "$port"; done

everything="http://127.0.0.1:$everything_port/mcp"
reference_url="http://127.0.0.1:$reference_port/mcp"
python_url="http://127.0.0.1:$python_port/mcp"
mute_url="http://127.0.0.1:$mute_port/mcp"

# The default --jobs, as a run's header line names it.
default_jobs() {
    NO_COLOR=1 "$ours" run "$@" --filter lifecycle.ping 2>/dev/null | sed -n 's/.* \([0-9]*\) jobs$/\1/p' | head -n 1
}
jobs="$(default_jobs --url "$reference_url" --transport streamable) over HTTP, $(default_jobs --stdio "$reference") over stdio"

echo "bench: $runs runs of each, alternating" >&2
for run in $(seq "$runs"); do
    echo "bench: run $run/$runs" >&2
    measure "everything server, Streamable HTTP" mcp-conform \
        "$ours" run --url "$everything" --transport streamable --profile everything
    measure "everything server, Streamable HTTP" official "${theirs[@]}" --url "$everything" -o "$work/official"
    measure "reference server, Streamable HTTP" mcp-conform \
        "$ours" run --url "$reference_url" --transport streamable --profile reference
    measure "reference server, Streamable HTTP" official "${theirs[@]}" --url "$reference_url" -o "$work/official"
    measure "reference server, stdio" mcp-conform \
        "$ours" run --stdio "$reference" --profile reference --timings --report-dir "$work/report"
    measure "Python SDK peer, Streamable HTTP" mcp-conform \
        "$ours" run --url "$python_url" --transport streamable --profile "$repo/fixtures/peers/python/profile.yaml"
    measure "Python SDK peer, Streamable HTTP" official "${theirs[@]}" --url "$python_url" -o "$work/official"
done
# Time-to-verdict against a mute server is a matter of timeouts, not of
# noise: one run each, cut at the guard.
guard=60
echo "bench: servers that never answer (cut at ${guard} s)" >&2
measure "server that never answers, stdio" mcp-conform "$ours" run --stdio "sleep 600"
measure "server that never answers, HTTP" mcp-conform "$ours" run --url "$mute_url" --transport streamable
measure "server that never answers, HTTP" official "${theirs[@]}" --url "$mute_url" -o "$work/official"

# Scale: one run on every version the reference server speaks against one run
# per version, one after another (issue 20: within 1.5×).
wall_of() {
    /usr/bin/time -f "%e" -o "$work/wall" timeout 300 "$@" >/dev/null 2>&1 || true
    tail -n 1 "$work/wall"
}
echo "bench: --protocol all against five single-version runs" >&2
all_wall="$(wall_of "$ours" run --url "$reference_url" --transport streamable --profile reference --protocol all)"
single_walls=0
for version in 2024-11-05 2025-03-26 2025-06-18 2025-11-25 2026-07-28; do
    wall="$(wall_of "$ours" run --url "$reference_url" --transport streamable --profile reference --protocol "$version")"
    single_walls="$(awk -v a="$single_walls" -v b="$wall" 'BEGIN { print a + b }')"
done
scale="$(awk -v a="$all_wall" -v s="$single_walls" 'BEGIN { printf "%.2f s against %.2f s, %.2f×", a, s, a / s }')"
echo "bench: loading a generated suite (cargo bench --bench scale)" >&2
load="$(cargo bench --quiet -p mcp-conform --bench scale 2>/dev/null | sed -n 's/^ *1000 scenarios: *\([0-9.]*\) ms.*/\1/p')"

table="$(awk -F'|' '
    function sorted(list, n,   i, j, t) {
        for (i = 2; i <= n; i++) for (j = i; j > 1 && list[j-1] > list[j]; j--) { t = list[j]; list[j] = list[j-1]; list[j-1] = t }
    }
    function median(list, n) { return n % 2 ? list[(n+1)/2] : (list[n/2] + list[n/2+1]) / 2 }
    {
        key = $1 SUBSEP $2
        if (!(key in count)) { order[++keys] = key }
        n = ++count[key]
        wall[key, n] = $3 + 0; cpu[key, n] = $4 + 0; rss[key, n] = $5 / 1024
        if ($6 != "") { starts[key, ++started[key]] = $6 / 1000 }
    }
    END {
        print "| server | tool | wall min / median / max (s) | CPU median (s) | peak RSS median (MiB) | process starts median (s, summed) | ours / official (wall, CPU, RSS) |"
        print "|---|---|---|---|---|---|---|"
        for (k = 1; k <= keys; k++) {
            key = order[k]; n = count[key]; split(key, part, SUBSEP)
            delete w; delete c; delete r; delete s
            for (i = 1; i <= n; i++) { w[i] = wall[key, i]; c[i] = cpu[key, i]; r[i] = rss[key, i] }
            sorted(w, n); sorted(c, n); sorted(r, n)
            mw[key] = median(w, n); mc[key] = median(c, n); mr[key] = median(r, n)
            start = ""
            if (started[key]) {
                for (i = 1; i <= started[key]; i++) s[i] = starts[key, i]
                sorted(s, started[key]); start = sprintf("%.2f", median(s, started[key]))
            }
            line[key] = sprintf("| %s | %s | %.2f / %.2f / %.2f | %.2f | %.0f | %s |", part[1], part[2], w[1], mw[key], w[n], mc[key], mr[key], start)
        }
        for (k = 1; k <= keys; k++) {
            key = order[k]; split(key, part, SUBSEP); other = part[1] SUBSEP "official"
            ratio = ""
            if (part[2] == "mcp-conform" && (other in mw) && mw[other] > 0 && mc[other] > 0 && mr[other] > 0)
                ratio = sprintf("%.2f×, %.2f×, %.2f×", mw[key] / mw[other], mc[key] / mc[other], mr[key] / mr[other])
            print line[key] " " ratio " |"
        }
    }' "$work/samples")"

stamp="$(date -u +%Y-%m-%d), $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $runs runs each"
report="$(printf 'Measured by `scripts/bench.sh` (%s), default `--jobs` (here %s):\n\n%s\n\nA wall of %s s against a server that never answers means the run was still going when the\nbench stopped it. The official suite speaks HTTP only, so the stdio rows have no ratio.\n\nReference server over HTTP, `--protocol all` (five versions) against five single-version runs one\nafter another: %s. A generated suite of 1,000 scenarios loads in %s ms (release).\n' "$stamp" "$jobs" "$table" "$guard" "$scale" "$load")"
echo "$report"

if $update_docs; then
    page="$repo/docs/development.md"
    grep -q '<!-- bench:start -->' "$page" || { echo "bench: docs/development.md has no bench markers" >&2; exit 2; }
    REPORT="$report" python3 - "$page" <<'EOF'
import os, re, sys
path = sys.argv[1]
text = open(path).read()
text = re.sub(r"(<!-- bench:start -->\n).*?(<!-- bench:end -->)",
              lambda m: m.group(1) + os.environ["REPORT"] + "\n" + m.group(2), text, flags=re.S)
open(path, "w").write(text)
EOF
    echo "bench: docs/development.md updated" >&2
fi
