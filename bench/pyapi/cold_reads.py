"""Reads straight after an import, and the first (cold) pass after reopening, from Python:
issue 21's "cold reads" row. HopDB beside sqlite3 in the same process and run.

usage: python3 -m bench.pyapi.cold_reads [--dataset snap-web-NotreDame] [--reads 20000] [--rounds 3]

The graph is one of bench/unum's real edge lists (its normalised CSV, built on first use from
../shared/datasets). Each round, for each engine, in a fresh directory:
  1. import the edge list (HopDB: `import_files(edge_lists=...)`; SQLite: one transaction of
     INSERTs, then the unique (src, dst) and (dst, src) indexes, ANALYZE, a WAL checkpoint);
  2. "after import": one pass of random degree reads (HopDB `degree(v, "out")`; SQLite
     `SELECT count(*), sum(weight) ... WHERE src = ?`) on the same handle, no warm-up;
  3. close, reopen, "cold": the first pass of the same reads (the OS page cache keeps what it
     kept: both engines' files were just written);
  4. "warm": the same pass again.
Printed: each pass's reads/s, the median over rounds, and HopDB/SQLite per pass.
"""

import argparse
import os
import random
import sqlite3
import statistics
import tempfile
import time

import hopdb
from bench.unum import datasets


def timed(fn, items) -> float:
    t = time.perf_counter()
    for it in items:
        fn(it)
    return len(items) / (time.perf_counter() - t)


def hopdb_round(csv: str, dir: str, vs: list) -> dict:
    path = os.path.join(dir, "hopdb")
    with hopdb.Graph(path) as g:
        g.import_files(edge_lists=[csv], weighted=True)
        after = timed(lambda v: g.degree(v, "out"), vs)
    with hopdb.Graph(path) as g:
        cold = timed(lambda v: g.degree(v, "out"), vs)
        warm = timed(lambda v: g.degree(v, "out"), vs)
    return {"after import": after, "cold": cold, "warm": warm}


def sqlite_round(ds, dir: str, vs: list) -> dict:
    path = os.path.join(dir, "sqlite.db")
    q = "SELECT count(*), sum(weight) FROM edges WHERE src = ?"

    def connect():
        c = sqlite3.connect(path)
        c.execute("PRAGMA journal_mode=WAL")
        c.execute("PRAGMA synchronous=NORMAL")
        return c

    c = connect()
    c.execute("CREATE TABLE edges (src INTEGER NOT NULL, dst INTEGER NOT NULL, weight REAL NOT NULL)")
    c.executemany("INSERT INTO edges VALUES (?, ?, ?)", ((s, d, w) for (s, d), w in ds.edges.items()))
    c.execute("CREATE UNIQUE INDEX e_sd ON edges (src, dst)")
    c.execute("CREATE INDEX e_ds ON edges (dst, src)")
    c.execute("ANALYZE")
    c.commit()
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    after = timed(lambda v: c.execute(q, (v,)).fetchone(), vs)
    c.close()
    c = connect()
    cold = timed(lambda v: c.execute(q, (v,)).fetchone(), vs)
    warm = timed(lambda v: c.execute(q, (v,)).fetchone(), vs)
    c.close()
    return {"after import": after, "cold": cold, "warm": warm}


def main() -> None:
    ap = argparse.ArgumentParser(prog=f"python3 -m {__spec__.name}", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default="snap-web-NotreDame", help=f"one of {', '.join(datasets.DATASETS)}")
    ap.add_argument("--reads", type=int, default=20_000, help="random degree reads per pass")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--data-root", default=datasets.default_root())
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/hopdb/bench-data/unum"))
    a = ap.parse_args()
    ds = datasets.load(a.dataset, a.data_root, a.cache)
    if ds is None:
        raise SystemExit(f"{a.dataset} is not under {a.data_root}")
    rng = random.Random(a.seed)
    vs = [rng.choice(ds.nodes) for _ in range(a.reads)]
    runs: dict = {"HopDB": [], "SQLite": []}
    for r in range(a.rounds):
        with tempfile.TemporaryDirectory(dir=os.path.expanduser("~/.cache/hopdb")) as dir:
            runs["HopDB"].append(hopdb_round(ds.csv, dir, vs))
            runs["SQLite"].append(sqlite_round(ds, dir, vs))
        print(f"round {r + 1}: " + "; ".join(f"{e} " + ", ".join(f"{k} {v:,.0f}/s" for k, v in runs[e][-1].items()) for e in runs), flush=True)
    med = {e: {k: statistics.median(x[k] for x in rs) for k in rs[0]} for e, rs in runs.items()}
    print(f"\n{a.dataset}, {a.reads:,} random degree reads a pass, medians of {a.rounds} rounds (reads/s):")
    print("| pass | HopDB | SQLite | HopDB/SQLite |\n|---|---:|---:|---:|")
    for k in med["HopDB"]:
        h, s = med["HopDB"][k], med["SQLite"][k]
        print(f"| {k} | {h:,.0f} | {s:,.0f} | {h / s:.2f}x |")
    print(f"HopDB cold / warm: {med['HopDB']['cold'] / med['HopDB']['warm']:.2f}; SQLite: {med['SQLite']['cold'] / med['SQLite']['warm']:.2f}")


if __name__ == "__main__":
    main()
