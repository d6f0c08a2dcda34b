#!/usr/bin/env bash
# Long reliability runs (issue 23; RELIABILITY.md). The test suite runs each fault a bounded
# number of times; this runs them long, with a fresh seed unless one is given, and keeps the
# tests' summary lines in a log:
#   - the SIGKILL loop (crates/hopdb-core/tests/crash.rs): HOPDB_LONG_KILLS kills (default
#     10,000; about 0.75 s a kill per loop, two loops at once on a 2-core machine: 10,000 kills
#     in about an hour), every acknowledged write checked;
#   - the same loop with the newest WAL cut at a random offset after each kill;
#   - the loop under injected I/O faults (libfiu): HOPDB_LONG_IO_FAULTS writers (default 1,000;
#     about 3 s each) for each of a full disk (ENOSPC), failing fsync, and short + failing writes;
#   - HOPDB_LONG_FLIPS bit flips in table files (default 2,000; about 0.1 s each).
# HOPDB_LONG_ONLY="kill torn io flips" picks which of the four to run (default: all).
# Each loop is split into HOPDB_LONG_PARALLEL parts (default: the number of cores) run at once,
# part i with seed SEED+i and its own log beside the main one (LOG.NAME.i, progress lines every
# 100 kills as it goes); the main log gets every part's summary lines.
# A failure stops the run; the crash tests keep the failing store for inspection (they say where).
# Usage: scripts/reliability.sh [LOG]   (default: reliability-<date>.log under the build dir)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
kills="${HOPDB_LONG_KILLS:-10000}"
flips="${HOPDB_LONG_FLIPS:-2000}"
io="${HOPDB_LONG_IO_FAULTS:-1000}"
only=" ${HOPDB_LONG_ONLY:-kill torn io flips} "
parallel="${HOPDB_LONG_PARALLEL:-$(nproc)}"
seed="${HOPDB_CRASH_SEED:-$(date +%s)}"
log="${1:-$CARGO_TARGET_DIR/reliability-$(date +%Y%m%dT%H%M%S).log}"
echo "reliability: seed $seed, $kills kills per crash test, $io writers per I/O fault, $flips bit flips, $parallel parts at once; log $log" | tee "$log"
trap 'rm -f "$log".*.bin' EXIT
summary='crash test:|crash progress:|torn WAL:|injected I/O faults|mixed work:|flipped bits:|^test result|^error|panicked|kept for inspection'

# The test binary of tests/NAME.rs, built once and copied beside the log: the parts run the
# copy, so none holds cargo's build lock while the others wait, and a build during the run
# (which rewrites the binary in the build directory) cannot pull it from under a writer the
# test spawns from its own path (it did: "spawning the writer: No such file or directory").
test_binary() {
  local built
  built=$(cargo test --release -p hopdb-core --test "$1" --no-run --message-format=json 2>/dev/null \
    | grep -o '"executable":"[^"]*"' | tail -1 | cut -d'"' -f4)
  [ -x "$built" ] || return 0
  cp "$built" "$log.$1.bin"
  echo "$log.$1.bin"
}

# run FILE TEST SEED_VAR COUNT_VAR TOTAL: TOTAL iterations of TEST in tests/FILE.rs, split
# into the parts; the last line of each part's log that the summary pattern matches (and
# every failure line) goes to the main log.
run() {
  local file=$1 test=$2 seed_var=$3 count_var=$4 total=$5 started=$SECONDS exe
  exe=$(test_binary "$file")
  [ -x "$exe" ] || { echo "reliability: no test binary for tests/$file.rs" | tee -a "$log"; exit 1; }
  local per=$(((total + parallel - 1) / parallel)) pids=() failed=0
  for i in $(seq 0 $((parallel - 1))); do
    env "$seed_var=$((seed + i))" "$count_var=$per" \
      "$exe" "$test" --exact --nocapture --test-threads=1 >"$log.$test.$i" 2>&1 &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || failed=1
    echo "  part $i (seed $((seed + i)), $per):" | tee -a "$log"
    grep -E "$summary" "$log.$test.$i" | grep -v "crash progress:" | tee -a "$log" || true
  done
  echo "  $test: $((per * parallel)) in all, $((SECONDS - started)) s" | tee -a "$log"
  if [ $failed = 1 ]; then
    echo "reliability: FAILED in $test (see $log.$test.*)" | tee -a "$log"
    exit 1
  fi
}

if [[ $only == *" kill "* ]]; then
  run crash kill9_writer_recovers_every_acknowledged_write HOPDB_CRASH_SEED HOPDB_CRASH_KILLS "$kills"
fi
if [[ $only == *" torn "* ]]; then
  run crash a_torn_wal_tail_recovers_a_consistent_prefix HOPDB_CRASH_SEED HOPDB_TORN_WAL_KILLS "$kills"
fi
if [[ $only == *" io "* ]]; then
  for t in enospc_at_random_writes_loses_nothing_acknowledged failing_fsync_loses_nothing_acknowledged \
    short_and_failing_writes_lose_nothing_acknowledged; do
    run crash "$t" HOPDB_CRASH_SEED HOPDB_IO_FAULT_RUNS "$io"
  done
fi
if [[ $only == *" flips "* ]]; then
  run corruption a_flipped_bit_in_a_table_file_is_reported_never_read_as_data HOPDB_FLIP_SEED HOPDB_FLIP_TRIALS "$flips"
fi
if grep -q "FAILED\|panicked" "$log"; then
  echo "reliability: FAILED (see $log)"
  exit 1
fi
echo "reliability: passed (see $log)"
