#!/usr/bin/env bash
# Sustained-write comparison, HopDB then SQLite in one run (one process per engine so each
# peak RSS is the engine's own). Writes bench/results/sustained_writes_s$SCALE.jsonl.
#   usage: bench/core_sustained.sh [SCALE]   (default 10: 7.45M nodes, 12.5M edges)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
scale="${1:-10}"
out="bench/results/sustained_writes_s${scale}.jsonl"
mkdir -p bench/results
: > "$out"
for engine in hopdb sqlite; do
  cargo bench -q -p hopdb-core --bench sustained_writes -- "$engine" "$scale" | tee /dev/stderr | sed -n 's/^RESULT //p' >> "$out"
done
echo "wrote $out"
