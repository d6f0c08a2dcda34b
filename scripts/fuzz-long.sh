#!/usr/bin/env bash
# Long coverage-guided fuzzing (libFuzzer through cargo-fuzz, nightly Rust) of every cargo-fuzz
# target in the repository: hopdb-bolt (packstream, message, session), hopdb-cypher (parse),
# hopdb-import (neo4j_csv, edgelist, graphml, parquet, graphrag) and hopdb-core (value,
# records, counters, keys). Each runs HOPDB_FUZZ_LONG_SECONDS (default 300), niced, with its
# corpus under $CARGO_TARGET_DIR/fuzz-corpus/CRATE-TARGET (seeded by scripts/fuzz-seeds.sh
# for import and core; grown across runs). Prints per target: seconds, executions (libFuzzer's
# `Done N runs in S second(s)`) and crashes; a crash leaves its input under
# crates/CRATE/fuzz/artifacts/TARGET/ and the script exits non-zero at the end.
#
# The first run builds RocksDB's C++ under nightly and the sanitizer (about 15 minutes, once;
# the build directory is $CARGO_TARGET_DIR/fuzz-long). HOPDB_FUZZ_TARGETS="crate/target ..."
# runs a subset; HOPDB_FUZZ_SANITIZER=none builds without AddressSanitizer (cargo fuzz -s none).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
secs="${HOPDB_FUZZ_LONG_SECONDS:-300}"
if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  echo "fuzz-long: skipped: no nightly Rust toolchain (cargo-fuzz needs one: rustup toolchain install nightly)"
  exit 0
fi
want="0.13.2"
if [ "$(cargo fuzz --version 2>/dev/null | awk '{print $2}')" != "$want" ]; then
  echo "fuzz-long: installing cargo-fuzz $want from crates.io" >&2
  cargo install --quiet --locked cargo-fuzz --version "$want"
fi
targets="${HOPDB_FUZZ_TARGETS:-bolt/packstream bolt/message bolt/session cypher/parse \
import/neo4j_csv import/edgelist import/graphml import/parquet import/graphrag \
core/value core/records core/counters core/keys}"
sanitizer=()
[ "${HOPDB_FUZZ_SANITIZER:-address}" = none ] && sanitizer=(-s none)
corpus_root="$CARGO_TARGET_DIR/fuzz-corpus"
logs="$CARGO_TARGET_DIR/fuzz-long-logs"
mkdir -p "$corpus_root" "$logs"
if [ ! -d "$corpus_root/import-neo4j_csv" ] || [ ! -d "$corpus_root/core-value" ]; then
  scripts/fuzz-seeds.sh "$corpus_root"
fi
# Inputs bigger than this are not tried: small inputs keep each execution fast.
max_len() {
  case "$1" in
    import/parquet | import/graphrag) echo 32768 ;;
    import/*) echo 4096 ;;
    core/*) echo 1024 ;;
    *) echo 4096 ;;
  esac
}
failed=0
summary=()
for t in $targets; do
  crate="${t%%/*}"
  target="${t#*/}"
  corpus="$corpus_root/$crate-$target"
  mkdir -p "$corpus"
  log="$logs/$crate-$target.log"
  echo "fuzz-long: hopdb-$crate $target for ${secs} s (log: $log)"
  status=0
  (cd "crates/hopdb-$crate" && nice -n 10 cargo +nightly fuzz run "${sanitizer[@]}" \
    --target-dir "$CARGO_TARGET_DIR/fuzz-long" "$target" "$corpus" -- \
    -max_total_time="$secs" -max_len="$(max_len "$t")" -rss_limit_mb=1024 -timeout=10 \
    -print_final_stats=1) >"$log" 2>&1 || status=$?
  done_line=$(grep -E '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -1 || true)
  runs=$(echo "$done_line" | awk '{print $2}')
  took=$(echo "$done_line" | awk '{print $5}')
  crashes=$(find "crates/hopdb-$crate/fuzz/artifacts/$target" -type f -newer "$log" 2>/dev/null | wc -l)
  if [ "$status" != 0 ] && [ "$crashes" = 0 ]; then
    crashes="? (exit $status)"
  fi
  if [ "$status" != 0 ]; then
    failed=1
    grep -E '^(==[0-9]+==|SUMMARY|thread .* panicked|Test unit written)' "$log" | head -20 >&2 || true
  fi
  summary+=("$(printf '%-18s %-12s %8s %12s %s' "hopdb-$crate" "$target" "${took:-?}" "${runs:-?}" "$crashes")")
done
printf '%-18s %-12s %8s %12s %s\n' crate target seconds executions crashes
printf '%s\n' "${summary[@]}"
exit "$failed"
