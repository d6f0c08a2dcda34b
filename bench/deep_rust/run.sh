#!/usr/bin/env bash
# HopDB's execution paths for the study's Q8/Q11 (decision 0010), through the Rust API, on the
# S=1 knowledge graph: store (cold, then warm), projection, auto, and auto with a writer.
# usage: bash bench/deep_rust/run.sh [OUT_FILE]   (default bench/results/deep_rust.txt)
# Needs the release `hopdb` and `hopdb-bench` binaries (cargo build --release -p hopdb-cli -p
# hopdb-bench); data under ~/.cache/hopdb.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/env.sh
OUT="${1:-bench/results/deep_rust.txt}"
B="$CARGO_TARGET_DIR/release/hopdb"
BENCH="$CARGO_TARGET_DIR/release/hopdb-bench"
DATA="$HOME/.cache/hopdb/bench-data/kg-s1"
WORK="$HOME/.cache/hopdb/bench-data/deep-rust"
mkdir -p "$WORK"
[ -f "$DATA/entities.csv" ] || "$B" generate --out "$DATA" --scale 1
rm -rf "$WORK/store"
"$B" import "$WORK/store" --nodes="$DATA/documents.csv" --nodes="$DATA/chunks.csv" --nodes="$DATA/entities.csv" \
    --relationships="$DATA/has_chunk.csv" --relationships="$DATA/mentions.csv" --quiet
python3 - "$WORK/q.json" <<'PY'
import json, random, sys
r = random.Random(7)
n = 587428  # entities at S=1: ent-1 .. ent-587428
q8 = [f"ent-{r.randint(1, n)}" for _ in range(500)]
q11 = [[f"ent-{r.randint(1, n)}", f"ent-{r.randint(1, n)}"] for _ in range(500)]
json.dump({"q8": q8, "q11": q11, "timeout_ms": 2000, "warmup": 50, "max_hops": 12}, open(sys.argv[1], "w"))
PY
run() {  # label, then `hopdb-bench deep` arguments
    local label="$1"; shift
    echo "== $label"
    "$BENCH" deep --store "$WORK/run" --queries "$WORK/q.json" --out "$WORK/r.json" "$@" 2>&1
}
{
    echo "# hopdb-bench deep, S=1 knowledge graph, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores"
    rm -rf "$WORK/run"; cp -r "$WORK/store" "$WORK/run"
    run "store, cold (first pass)" --mode store
    run "store, warm (3 more passes)" --mode store --passes 3
    run "projection (3 passes)" --mode projection --passes 3
    run "auto (3 passes)" --mode auto --passes 3
    run "auto, writer 200/s (20 passes)" --mode auto --passes 20 --writer-rate 200
    run "auto, writer 1000/s (20 passes)" --mode auto --passes 20 --writer-rate 1000
    run "store, writer 1000/s (3 passes)" --mode store --passes 3 --writer-rate 1000
} | tee "$OUT"
