#!/usr/bin/env bash
# BENCHMARKS.md section 10g: the 1M-node Arrow / Polars load, HopDB before and after (two
# wheels unzipped into directories) and Kuzu, in turn, one bench.ingest worker process each,
# pinned to both cores. Usage: columnar_ab.sh BEFORE_DIR AFTER_DIR OUT.jsonl [ROUNDS]
set -euo pipefail
before=$1 after=$2 out=$3 rounds=${4:-3}
cd "$(dirname "$0")/../../.." && source scripts/env.sh
work=$(mktemp -d)
: > "$out"
for round in $(seq "$rounds"); do
  for mode in arrow polars; do
    for build in before after kuzu; do
      rm -rf "$work/store" && mkdir -p "$work/store"
      case $build in before) eng=hopdb pp=$before ;; after) eng=hopdb pp=$after ;; kuzu) eng=kuzu pp= ;; esac
      r=$(PYTHONPATH=$pp taskset -c 0,1 python3 -m bench.ingest.worker --engine $eng --mode $mode \
        --n 1000000 --work "$work/store" 2>/dev/null | grep '^RESULT' | cut -c8-)
      echo "{\"round\": $round, \"build\": \"$build\", \"mode\": \"$mode\", \"result\": $r}" >> "$out"
    done
  done
done
rm -rf "$work"
