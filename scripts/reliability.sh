#!/usr/bin/env bash
# Long reliability runs (issue 23; RELIABILITY.md). The test suite runs each fault a bounded
# number of times; this runs them long, with a fresh seed unless one is given, and keeps the
# tests' summary lines in a log:
#   - the SIGKILL loop (crates/hopdb-core/tests/crash.rs): HOPDB_LONG_KILLS kills (default
#     10,000; 0.9 s a kill on a 2-core machine, 1.7 s with the torn WAL: about 7 hours in all),
#     every acknowledged write checked;
#   - the same loop with the newest WAL cut at a random offset after each kill;
#   - HOPDB_LONG_FLIPS bit flips in table files (default 2,000; about 0.1 s each).
# A failure stops the run; the crash tests keep the failing store for inspection (they say where).
# Usage: scripts/reliability.sh [LOG]   (default: reliability-<date>.log under the build dir)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
kills="${HOPDB_LONG_KILLS:-10000}"
flips="${HOPDB_LONG_FLIPS:-2000}"
seed="${HOPDB_CRASH_SEED:-$(date +%s)}"
log="${1:-$CARGO_TARGET_DIR/reliability-$(date +%Y%m%dT%H%M%S).log}"
echo "reliability: seed $seed, $kills kills per crash test, $flips bit flips; log $log" | tee "$log"
run() {
  local started=$SECONDS
  cargo test --release -p hopdb-core "$@" -- --nocapture --test-threads=1 2>&1 \
    | grep -E "crash test:|torn WAL:|flipped bits:|^test result|^error|panicked|kept for inspection" | tee -a "$log"
  echo "  ($((SECONDS - started)) s)" | tee -a "$log"
}
HOPDB_CRASH_SEED="$seed" HOPDB_CRASH_KILLS="$kills" run --test crash kill9_writer_recovers_every_acknowledged_write
HOPDB_CRASH_SEED="$seed" HOPDB_TORN_WAL_KILLS="$kills" run --test crash a_torn_wal_tail_recovers_a_consistent_prefix
HOPDB_FLIP_SEED="$seed" HOPDB_FLIP_TRIALS="$flips" run --test corruption a_flipped_bit_in_a_table_file
if grep -q "FAILED\|panicked" "$log"; then
  echo "reliability: FAILED (see $log)"
  exit 1
fi
echo "reliability: passed (see $log)"
