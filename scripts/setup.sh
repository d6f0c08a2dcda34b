#!/usr/bin/env bash
# Installs what building HopDB needs on a fresh Debian machine (idempotent, quiet when done).
set -euo pipefail

need_apt=()
# bindgen (RocksDB's Rust bindings) needs libclang; the C++ build needs a compiler.
dpkg -s libclang-dev >/dev/null 2>&1 || need_apt+=(libclang-dev)
command -v c++ >/dev/null 2>&1 || need_apt+=(g++)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing ${need_apt[*]} from apt" >&2
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: cargo not found; install Rust (rustup) first" >&2
  exit 1
fi
# The algorithm tests cross-check against NetworkX and igraph (pinned versions).
if ! python3 -c "import networkx, igraph, leidenalg, pyarrow, polars, lightrag, kuzu, cozo_embedded" >/dev/null 2>&1; then
  echo "setup: installing Python test references (scripts/requirements-test.txt)" >&2
  python3 -m pip install -q -r "$(dirname "$0")/requirements-test.txt" 2>&1 | grep -v "as the 'root' user" >&2 || true
  python3 -c "import networkx, igraph, leidenalg, pyarrow, polars, lightrag, kuzu, cozo_embedded"
fi
# The Python package: one wheel, built with the shared release profile (RocksDB compiled once
# for tests, CLI and wheel), then installed for python3. Elsewhere: `cd python && maturin build
# --release --strip`, copy the wheel from target/wheels and `pip install` it.
python3 -c "import maturin" >/dev/null 2>&1 || python3 -m pip install -q "maturin==1.16.0" 2>&1 | grep -v "as the 'root' user" >&2 || true
python3 -c "import pytest" >/dev/null 2>&1 || python3 -m pip install -q "pytest==9.2.0" 2>&1 | grep -v "as the 'root' user" >&2 || true
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/hopdb/target}"
wheels="$CARGO_TARGET_DIR/hopdb-wheels"
rm -rf "$wheels"
(cd "$(dirname "$0")/../python" && python3 -m maturin build --quiet --release --strip -o "$wheels" >&2)
python3 -m pip install -q --force-reinstall --no-deps "$wheels"/hopdb-*.whl 2>&1 | grep -v "as the 'root' user" >&2 || true
python3 -c "import hopdb" || { echo "setup: the hopdb wheel did not install" >&2; exit 1; }
