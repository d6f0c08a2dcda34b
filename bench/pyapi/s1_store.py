"""The S=1 knowledge-graph store that the Python microbenchmarks read, made by `hopdb import`:
bench/deep's (DATA/deep/s1/hopdb/store) or bench/deep_rust's (DATA/deep-rust/store), or the
one `--store` names."""
import argparse
from pathlib import Path

DATA = Path.home() / ".cache/hopdb/bench-data"
DEEP = DATA / "deep/s1/hopdb/store"
DEEP_RUST = DATA / "deep-rust/store"


def add_argument(ap: argparse.ArgumentParser, candidates: list[Path]) -> None:
    """Adds --store, defaulting to the first of `candidates` that exists."""
    ap.add_argument("--store", help="an S=1 store (default: the first of %s that exists)" % ", ".join(map(str, candidates)))


def resolve(given: str | None, candidates: list[Path]) -> str:
    """`given`, else the first existing candidate; exits with how to make one if none exists."""
    store = given or next((str(s) for s in candidates if s.exists()), None)
    if store is None:
        raise SystemExit("no S=1 store: run python3 -m bench.deep.run or bench/deep_rust/run.sh first, or pass --store")
    return store
