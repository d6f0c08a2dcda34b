#!/usr/bin/env bash
# Bounded coverage-guided fuzzing (libFuzzer through cargo-fuzz) of what a network client can
# send the server: the Bolt layer's PackStream decoder, its message decoder and a whole session
# (crates/hopdb-bolt/fuzz). Each target runs for HOPDB_FUZZ_SECONDS (default 20); a crash,
# panic, leak or timeout fails the run and leaves the input under
# crates/hopdb-bolt/fuzz/artifacts/TARGET/ (replay: `cargo +nightly fuzz run TARGET FILE`).
# The corpus grows across runs under the build directory. cargo-fuzz needs a nightly
# toolchain: without one this says so and skips.
#
# Not run here: the Cypher parser's target (crates/hopdb-cypher/fuzz), which would rebuild
# RocksDB under nightly and the sanitizer (about 15 minutes); the test suite runs a bounded
# mutation loop over the parser instead (crates/hopdb-cypher/tests/parser.rs).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
secs="${HOPDB_FUZZ_SECONDS:-20}"
if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  echo "fuzz: skipped: no nightly Rust toolchain (cargo-fuzz needs one: rustup toolchain install nightly)"
  exit 0
fi
# Pinned, so a new cargo-fuzz release cannot change the run; installed once per machine.
want="0.13.2"
if [ "$(cargo fuzz --version 2>/dev/null | awk '{print $2}')" != "$want" ]; then
  echo "fuzz: installing cargo-fuzz $want from crates.io" >&2
  cargo install --quiet --locked cargo-fuzz --version "$want"
fi
corpus_root="$CARGO_TARGET_DIR/fuzz-corpus"
cd crates/hopdb-bolt
for target in packstream message session; do
  corpus="$corpus_root/bolt-$target"
  mkdir -p "$corpus"
  echo "fuzz: hopdb-bolt $target for ${secs} s"
  log="$CARGO_TARGET_DIR/fuzz-$target.log"
  # -rss_limit_mb bounds one input's memory: a decoder that trusts a declared size fails here.
  status=0
  cargo +nightly fuzz run --target-dir "$CARGO_TARGET_DIR/fuzz" "$target" "$corpus" -- \
    -max_total_time="$secs" -rss_limit_mb=1024 -timeout=10 >"$log" 2>&1 || status=$?
  # libFuzzer's progress lines are left in the log; its verdict and any report are shown.
  grep -E '^(Done|==[0-9]+==|SUMMARY|thread .* panicked|Test unit written|INFO: Running with)' "$log" || true
  if [ "$status" != 0 ]; then
    tail -40 "$log" >&2
    echo "fuzz: hopdb-bolt $target FAILED (exit $status); the input is in crates/hopdb-bolt/fuzz/artifacts/$target/" >&2
    exit 1
  fi
done
echo "fuzz: the 3 Bolt targets ran clean for ${secs} s each"
