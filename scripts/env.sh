# Sourced by the scripts: one persistent build directory and one Python virtual environment,
# both outside the checkout, so a clean clone reuses the RocksDB build (about 12 minutes from
# scratch on 2 cores) and the pinned Python packages (scripts/setup.sh creates both).
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/hopdb/target}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
export HOPDB_VENV="${HOPDB_VENV:-$HOME/.cache/hopdb/venv}"
mkdir -p "$CARGO_TARGET_DIR"
# Everything Python (tests, benches, maturin) runs from the project's environment: only what the
# pinned requirements install is importable, whatever the machine's own python3 has.
if [ -x "$HOPDB_VENV/bin/python3" ]; then
  export VIRTUAL_ENV="$HOPDB_VENV"
  case ":$PATH:" in *":$HOPDB_VENV/bin:"*) ;; *) export PATH="$HOPDB_VENV/bin:$PATH" ;; esac
fi
