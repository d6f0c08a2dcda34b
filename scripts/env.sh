# Sourced by the scripts: one persistent build directory outside the checkout, so a clean
# clone reuses the RocksDB build (about 12 minutes from scratch on 2 cores).
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/hopdb/target}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
mkdir -p "$CARGO_TARGET_DIR"
