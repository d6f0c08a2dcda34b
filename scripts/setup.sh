#!/usr/bin/env bash
# Installs what building HopDB needs on a fresh Debian machine (idempotent, quiet when done).
set -euo pipefail

need_apt=()
# bindgen (RocksDB's Rust bindings) needs libclang; the C++ build needs a compiler.
dpkg -s libclang-dev >/dev/null 2>&1 || need_apt+=(libclang-dev)
command -v c++ >/dev/null 2>&1 || need_apt+=(g++)
# The crash tests inject I/O faults (full disk, failing fsync, short writes) with libfiu.
[ -e /usr/lib/fiu/fiu_posix_preload.so ] || need_apt+=(fiu-utils)
# The cluster's tests start a private PostgreSQL server for its metadata (crates/hopdb-cluster).
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || need_apt+=(postgresql)
# ... and a private Redis Cluster for its hot tier (redis-server brings redis-cli).
command -v redis-server >/dev/null 2>&1 || need_apt+=(redis-server)
# The explorer's browser test drives Debian's Chromium (python/tests/test_explorer.py).
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing ${need_apt[*]} from apt" >&2
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
# The cluster's MinIO test runs a distributed MinIO, built once from the Go module proxy
# (about 4 minutes; its build caches are removed afterwards: they take gigabytes).
MINIO_VERSION=v0.0.0-20260212201848-7aac2a2c5b7c
minio_dir="$HOME/.cache/hopdb/go/bin"
if [ "$(cat "$minio_dir/minio.version" 2>/dev/null)" != "$MINIO_VERSION" ] && command -v go >/dev/null 2>&1; then
  echo "setup: building MinIO $MINIO_VERSION from the Go module proxy (about 4 minutes)" >&2
  mkdir -p "$minio_dir"
  GOBIN="$minio_dir" go install "github.com/minio/minio@$MINIO_VERSION" >&2
  echo "$MINIO_VERSION" >"$minio_dir/minio.version"
  go clean -cache -modcache >/dev/null 2>&1 || true
fi
# The explorer's build and browser-test packages (esbuild, playwright-core, the page's
# libraries: crates/hopdb-explorer/web), from the npm registry, when Node.js is there.
web="$(dirname "$0")/../crates/hopdb-explorer/web"
if command -v npm >/dev/null 2>&1; then
  lock_sum=$(sha256sum "$web/package-lock.json" | cut -d' ' -f1)
  if [ "$(cat "$web/node_modules/.lock.sha256" 2>/dev/null)" != "$lock_sum" ]; then
    echo "setup: installing the explorer's npm packages (crates/hopdb-explorer/web)" >&2
    (cd "$web" && npm ci --no-audit --no-fund --loglevel=error >&2)
    echo "$lock_sum" >"$web/node_modules/.lock.sha256"
  fi
fi
if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: cargo not found; install Rust (rustup) first" >&2
  exit 1
fi
# Python: one virtual environment outside the checkout (scripts/env.sh), holding exactly the
# pinned packages of scripts/requirements-test.txt (build tools, test references, the bench
# harnesses' imports) and the hopdb wheel. Reinstalled only when the requirements change.
source "$(dirname "$0")/env.sh"
if [ ! -x "$HOPDB_VENV/bin/python3" ]; then
  echo "setup: creating the Python environment $HOPDB_VENV" >&2
  python3 -m venv "$HOPDB_VENV"
  source "$(dirname "$0")/env.sh"
fi
reqs="$(dirname "$0")/requirements-test.txt"
stamp="$HOPDB_VENV/.requirements.sha256"
want=$(sha256sum "$reqs" | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setup: installing the pinned Python packages (scripts/requirements-test.txt)" >&2
  "$HOPDB_VENV/bin/python3" -m pip install -q --disable-pip-version-check -r "$reqs"
  echo "$want" >"$stamp"
fi
# The Python package: one wheel, built with the shared release profile (RocksDB compiled once
# for tests, CLI and wheel), then installed into the environment. Elsewhere: `cd python &&
# maturin build --release --strip`, copy the wheel from target/wheels and `pip install` it.
wheels="$CARGO_TARGET_DIR/hopdb-wheels"
rm -rf "$wheels"
(cd "$(dirname "$0")/../python" && "$HOPDB_VENV/bin/python3" -m maturin build --quiet --release --strip -o "$wheels" >&2)
"$HOPDB_VENV/bin/python3" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps "$wheels"/hopdb-*.whl
"$HOPDB_VENV/bin/python3" -c "import hopdb" || { echo "setup: the hopdb wheel did not install" >&2; exit 1; }
