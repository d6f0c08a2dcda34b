#!/usr/bin/env bash
# The main job: set up, build, generate the full-scale knowledge graph (745,504 nodes,
# 1,252,253 edges), load it into a durable store, run the study's Q1-Q7 queries and the
# LightRAG call mix, and print the answers and timings (`hopdb-bench demo`, the benchmark
# side), then verify the store with the product command (`hopdb check`).
#   usage: scripts/quickstart.sh [STORE_DIR] [extra `hopdb-bench demo` flags, e.g. --scale 0.1]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/env.sh
cargo build --release -p hopdb-cli -p hopdb-bench
store="${1:-$HOME/.cache/hopdb/demo-store}"
shift || true
"$CARGO_TARGET_DIR/release/hopdb-bench" demo "$store" --fresh "$@"
"$CARGO_TARGET_DIR/release/hopdb" check "$store"
