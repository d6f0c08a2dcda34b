#!/usr/bin/env bash
# Keeps the persistent build directory from filling the disk: every change of a crate leaves a
# new test binary and incremental cache beside the old ones. Removes test and bench executables
# and incremental caches untouched for 3 days, and stale copies of the workspace's own
# libraries; the dependencies' libraries (RocksDB's above all) are kept, so no run rebuilds
# them. Run it before a build, never during one (scripts/test.sh does): it deletes files a
# running build may be writing.
set -euo pipefail
source "$(dirname "$0")/env.sh"
for profile in release debug; do
  deps="$CARGO_TARGET_DIR/$profile/deps"
  if [ -d "$deps" ]; then
    find "$deps" -maxdepth 1 -type f -perm -u+x ! -name '*.*' -mtime +3 -delete
    # Of the test and bench executables of one name (name-HASH), only the newest can be run
    # by the next build; the others (hundreds of MB each with debug info) are dropped now.
    find "$deps" -maxdepth 1 -type f -perm -u+x ! -name '*.*' -printf '%T@ %f\n' \
      | sort -rn | awk '{ stem = $2; sub(/-[0-9a-f]+$/, "", stem); if (seen[stem]++) print $2 }' \
      | while read -r f; do rm -f "$deps/$f"; done
    # The workspace's own libraries get a new hash per checkout path and flag set (each CI
    # clone in /tmp, each git worktree builds its own, about 0.5 GB a set): the newest four of
    # each crate and kind stay, older ones are rebuilt if ever needed again.
    find "$deps" -maxdepth 1 -type f \( -name 'libhopdb_*.rlib' -o -name 'libhopdb_*.rmeta' \) -printf '%T@ %f\n' \
      | sort -rn | awk '{ kind = $2; sub(/-[0-9a-f]+\./, ".", kind); if (seen[kind]++ >= 4) print $2 }' \
      | while read -r f; do rm -f "$deps/$f"; done
  fi
  inc="$CARGO_TARGET_DIR/$profile/incremental"
  if [ -d "$inc" ]; then
    find "$inc" -mindepth 1 -maxdepth 1 -type d -mtime +3 -exec rm -rf {} +
    # A day of edits grows it past 10 GB (one copy per crate and build flavour): past 6 GB it
    # goes, costing one non-incremental build of the workspace crates (not of RocksDB).
    if [ "$(du -sm "$inc" | cut -f1)" -gt 6144 ]; then
      rm -rf "$inc"
    fi
  fi
done
# A build from another checkout path (each CI clone) makes a whole new set of test, bench and
# example executables, about 30 GB with debug info, beside the old set it cannot reuse. When
# the disk has less free than that, the old set goes now: a checkout that still needs them
# relinks its own (minutes), where a full disk fails the build. Measured 2026-11-28: 73 test
# and bench executables, 26 GB, plus 7 GB of examples.
need_gb=40
free_gb=$(df -P -BG "$CARGO_TARGET_DIR" | awk 'NR == 2 { sub(/G$/, "", $4); print $4 }')
if [ "${free_gb:-0}" -lt "$need_gb" ]; then
  for profile in release debug; do
    for dir in "$CARGO_TARGET_DIR/$profile/deps" "$CARGO_TARGET_DIR/$profile/examples"; do
      [ -d "$dir" ] && find "$dir" -maxdepth 1 -type f -perm -u+x ! -name '*.*' -delete
    done
  done
  echo "prune-target: ${free_gb} GB free (< ${need_gb} GB): removed the old test, bench and example executables" >&2
fi
