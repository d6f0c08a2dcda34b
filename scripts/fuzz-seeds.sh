#!/usr/bin/env bash
# Writes the seed corpora of the hopdb-import and hopdb-core fuzz targets under DIR (default
# $CARGO_TARGET_DIR/fuzz-corpus), one directory per target: import-neo4j_csv, import-edgelist,
# import-graphml, import-parquet, import-graphrag, core-value, core-records, core-counters,
# core-keys. The seeds come from the in-suite fuzz tests (one code path): small inputs written
# there, plus the first lines of the real datasets in ../shared/datasets (read in place, a few
# KB each; small Parquet tables of the first rows of the GraphRAG outputs) when present.
# Existing corpus files are kept; the seeds are added next to them.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
dir="${1:-$CARGO_TARGET_DIR/fuzz-corpus}"
mkdir -p "$dir"
export HOPDB_FUZZ_SEEDS_DIR="$(cd "$dir" && pwd)"
cargo test --release -q -p hopdb-import --test fuzz_inputs -- --ignored --exact write_seeds --nocapture
cargo test --release -q -p hopdb-core --test fuzz_decoders -- --ignored --exact write_seeds --nocapture
