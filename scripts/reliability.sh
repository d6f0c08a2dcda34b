#!/usr/bin/env bash
# Long reliability runs (issue 23; RELIABILITY.md). The test suite runs each fault a bounded
# number of times; this runs them long, with a fresh seed unless one is given, and keeps the
# tests' summary lines in a log:
#   - the SIGKILL loop (crates/hopdb-core/tests/crash.rs): HOPDB_LONG_KILLS kills (default
#     10,000; 0.9 s a kill on a 2-core machine, 1.7 s with the torn WAL: about 7 hours in all),
#     every acknowledged write checked;
#   - the same loop with the newest WAL cut at a random offset after each kill;
#   - the loop under injected I/O faults (libfiu): HOPDB_LONG_IO_FAULTS writers (default 1,000;
#     about 3 s each) for each of a full disk (ENOSPC), failing fsync, and short + failing writes;
#   - HOPDB_LONG_FLIPS bit flips in table files (default 2,000; about 0.1 s each).
# HOPDB_LONG_ONLY="kill torn io flips" picks which of the four to run (default: all).
# A failure stops the run; the crash tests keep the failing store for inspection (they say where).
# Usage: scripts/reliability.sh [LOG]   (default: reliability-<date>.log under the build dir)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
kills="${HOPDB_LONG_KILLS:-10000}"
flips="${HOPDB_LONG_FLIPS:-2000}"
io="${HOPDB_LONG_IO_FAULTS:-1000}"
only=" ${HOPDB_LONG_ONLY:-kill torn io flips} "
seed="${HOPDB_CRASH_SEED:-$(date +%s)}"
log="${1:-$CARGO_TARGET_DIR/reliability-$(date +%Y%m%dT%H%M%S).log}"
echo "reliability: seed $seed, $kills kills per crash test, $io writers per I/O fault, $flips bit flips; log $log" | tee "$log"
run() {
  local started=$SECONDS
  cargo test --release -p hopdb-core "$@" -- --nocapture --test-threads=1 2>&1 \
    | grep --line-buffered -E "crash test:|crash progress:|torn WAL:|injected I/O faults|mixed work:|flipped bits:|^test result|^error|panicked|kept for inspection" | tee -a "$log"
  echo "  ($((SECONDS - started)) s)" | tee -a "$log"
}
if [[ $only == *" kill "* ]]; then
  HOPDB_CRASH_SEED="$seed" HOPDB_CRASH_KILLS="$kills" run --test crash kill9_writer_recovers_every_acknowledged_write
fi
if [[ $only == *" torn "* ]]; then
  HOPDB_CRASH_SEED="$seed" HOPDB_TORN_WAL_KILLS="$kills" run --test crash a_torn_wal_tail_recovers_a_consistent_prefix
fi
if [[ $only == *" io "* ]]; then
  for t in enospc_at_random_writes failing_fsync short_and_failing_writes; do
    HOPDB_CRASH_SEED="$seed" HOPDB_IO_FAULT_RUNS="$io" run --test crash "$t"
  done
fi
if [[ $only == *" flips "* ]]; then
  HOPDB_FLIP_SEED="$seed" HOPDB_FLIP_TRIALS="$flips" run --test corruption a_flipped_bit_in_a_table_file
fi
if grep -q "FAILED\|panicked" "$log"; then
  echo "reliability: FAILED (see $log)"
  exit 1
fi
echo "reliability: passed (see $log)"
