#!/usr/bin/env bash
# Runs every test (unit, property, crash, real-graph, doc tests) plus format and lint checks.
# Tests on real graphs read ../shared/datasets (or $HOPDB_DATASETS) and skip, saying so, when
# it is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/env.sh
rustup component add rustfmt clippy >/dev/null 2>&1 || true
cargo fmt --all -- --check
# One profile (release) for tests, benches, the CLI and the Python wheel: RocksDB is built once.
cargo clippy --release --workspace --all-targets -- -D warnings
cargo test --release --workspace
# The Python package (installed by setup.sh), from the repository root so `import hopdb` is the wheel.
python3 -m pytest -q -p no:cacheprovider python/tests
# The benchmark harnesses' own tests (no database), one process each: every bench folder has its
# own top-level modules (engines, workload, report, ...) that would shadow each other in one.
for d in bench/tests bench/retrieval/tests bench/sweep/tests bench/unum/tests bench/cozo_suite/tests bench/ingest/tests; do
    python3 -m pytest -q -p no:cacheprovider "$d"
done
