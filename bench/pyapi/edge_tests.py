"""Edge tests (``has_edge``) from Python once the store has settled into its steady state: HopDB
on the store path (``projection_mb=0``) and on the projection its reads build (made here at once by g.project()), against Python's
sqlite3 over the same pairs, in one run.

usage: python3 -m bench.pyapi.edge_tests [--dataset snap-web-NotreDame/web-NotreDame.txt.gz] [--pairs 50000]

The pairs: --pairs uniform random node pairs (mostly absent edges), plus up to three real
out-edges of every 97th node. Each set-up times the whole list once per mode, directed and
either direction. SQLite holds the edges as the UnumDB suite's adapter does: one table, unique
(src, dst) and (dst, src) indexes, ANALYZE, WAL, synchronous=NORMAL; an either-direction test
is one query with OR.
"""

import argparse
import gzip
import os
import random
import sqlite3
import tempfile
import time
from pathlib import Path

import hopdb

DATASETS = Path(os.environ.get("HOPDB_DATASETS", Path(__file__).resolve().parents[3] / "shared" / "datasets"))


def edges(path):
    with gzip.open(path, "rt") as f:
        for line in f:
            if line.strip() and line[0] not in "#%":
                a, b = line.split()[:2]
                yield int(a), int(b)


def timed(label, test, pairs):
    for either in (False, True):
        t = time.perf_counter()
        hits = sum(1 for a, b in pairs if test(a, b, either))
        rate = len(pairs) / (time.perf_counter() - t)
        print(
            f"{label:22s} {'either' if either else 'directed':8s} {rate:>12,.0f} tests/s ({hits:,} found)", flush=True
        )


def main():
    ap = argparse.ArgumentParser(prog=f"python3 -m {__spec__.name}", description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default="snap-web-NotreDame/web-NotreDame.txt.gz")
    ap.add_argument("--pairs", type=int, default=50_000)
    a = ap.parse_args()
    path = DATASETS / a.dataset
    g = hopdb.Graph(projection_mb=0)
    g.import_files(edge_lists=[str(path)])
    rng = random.Random(1)
    keys = [n["key"] for n in g.all_nodes()]
    pairs = [(rng.choice(keys), rng.choice(keys)) for _ in range(a.pairs)]
    pairs += [(k, b) for k in keys[::97] for b in g.neighbors(k, "out")[:3]]
    print(f"{a.dataset}: {g.node_count():,} nodes, {g.edge_count():,} edges; {len(pairs):,} pairs")

    with tempfile.TemporaryDirectory() as d:
        db = sqlite3.connect(os.path.join(d, "g.db"))
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("CREATE TABLE e (src INTEGER, dst INTEGER)")
        db.executemany("INSERT OR IGNORE INTO e VALUES (?, ?)", edges(path))
        db.execute("CREATE UNIQUE INDEX e_sd ON e (src, dst)")
        db.execute("CREATE UNIQUE INDEX e_ds ON e (dst, src)")
        db.execute("ANALYZE")
        db.commit()
        one = "SELECT 1 FROM e WHERE src = ? AND dst = ?"
        two = "SELECT 1 FROM e WHERE (src = ? AND dst = ?) OR (src = ? AND dst = ?)"

        def sqlite_test(x, y, either):
            if either:
                return db.execute(two, (x, y, y, x)).fetchone() is not None
            return db.execute(one, (x, y)).fetchone() is not None

        timed("sqlite3", sqlite_test, pairs)
        timed("HopDB, store", lambda x, y, e: g.has_edge(x, y, either_direction=e), pairs)
        g.project()
        timed("HopDB, projection", lambda x, y, e: g.has_edge(x, y, either_direction=e), pairs)
        timed("sqlite3 (again)", sqlite_test, pairs)
        db.close()


if __name__ == "__main__":
    main()
