#!/usr/bin/env bash
# Runs every test (unit, property, crash, real-graph, doc tests, bounded fuzzing, the Python package, the
# benchmark harnesses) plus format and lint checks, with exactly what scripts/setup.sh installs.
# Tests on real graphs read ../shared/datasets (or $HOPDB_DATASETS) and skip, saying so, when
# it is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/env.sh
bash scripts/prune-target.sh
# Every third-party module a test or bench imports is pinned (a hand-installed one cannot hide).
python3 scripts/check_requirements.py
rustup component add rustfmt clippy >/dev/null 2>&1 || true
cargo fmt --all -- --check
ruff check python bench scripts
# The explorer's page as committed is what its source builds (crates/hopdb-explorer/web).
if [ -d crates/hopdb-explorer/web/node_modules ]; then
  (cd crates/hopdb-explorer/web && npm run --silent build >/dev/null)
  git diff --exit-code --stat -- crates/hopdb-explorer/assets || {
    echo "test: crates/hopdb-explorer/assets is stale: run npm run build in crates/hopdb-explorer/web and commit" >&2
    exit 1
  }
fi
# One profile (release) for tests, benches, the CLI and the Python wheel: RocksDB is built once.
cargo clippy --release --workspace --all-targets -- -D warnings
cargo test --release --workspace
# The Python and bench tests run the command-line binaries (hopdb, hopdb-bench, hopdb-loadgen):
# `cargo test` links only those with tests of their own, so a fresh build directory lacks some.
cargo build --release --workspace --bins
# Bounded coverage-guided fuzzing of the Bolt decoders and session (what network clients send).
bash scripts/fuzz.sh
# The Python package (installed by setup.sh), from the repository root so `import hopdb` is the wheel.
python3 -m pytest -q -p no:cacheprovider python/tests
# The benchmark harnesses' own tests (no database servers), one package, one process.
python3 -m pytest -q -p no:cacheprovider bench
