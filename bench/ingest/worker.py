"""One ingestion run in its own process (run.py starts it under `taskset`): generate the graph
(untimed), load it into one engine in one mode, optionally run the traversal queries, and print
one line `RESULT {json}` on stdout.

    python3 -m bench.ingest.worker --engine hopdb --mode batch --n 100000 --work DIR [--time-limit 60]
                                   [--batch 10000] [--queries --reps 10]

Engines and modes: hopdb row|batch|arrow|polars, sqlite row|batch, kuzu arrow|polars,
arcadedb batch (its GraphBatch bulk API); the loaders are bench/engines/ENGINE.py's ingest_load
(ingest_count counts what the engine holds after it, ingest_queries runs the traversals). Peak
RSS is this process's (getrusage), which holds the engine (ArcadeDB's JVM too) and the generated
graph; base_rss_mib is the RSS before the load.
"""

import argparse
import importlib
import json
import os
import resource
import time

import psutil

from bench.benchlib import dir_bytes
from bench.ingest import synth
from bench.ingest.loading import clock

MODES = {"hopdb": ["row", "batch", "arrow", "polars"], "sqlite": ["row", "batch"], "kuzu": ["arrow", "polars"], "arcadedb": ["batch"]}


def version(engine):
    import importlib.metadata

    dist = {"hopdb": "hopdb", "kuzu": "kuzu", "arcadedb": "arcadedb-embedded"}.get(engine)
    if dist is None:
        import sqlite3

        return sqlite3.sqlite_version
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def timed_queries(queries, reps):
    """Each query: first answer (checked by run.py), then `reps` timed runs (ms)."""
    out = {}
    for name, q in queries.items():
        answer = q()
        ms = []
        for _ in range(reps):
            t = time.perf_counter()
            q()
            ms.append((time.perf_counter() - t) * 1000)
        out[name] = {"answer": answer, "ms": ms}
    return out


def main():
    ap = argparse.ArgumentParser(prog=f"python3 -m {__spec__.name}", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", required=True, choices=sorted(MODES))
    ap.add_argument("--mode", required=True)
    ap.add_argument("--n", type=int, required=True, help="nodes")
    ap.add_argument("--work", required=True, help="empty directory for the store")
    ap.add_argument("--time-limit", type=float, default=60, help="cap of a row-by-row load, s")
    ap.add_argument("--batch", type=int, default=10_000, help="rows per batch in batch mode")
    ap.add_argument("--queries", action="store_true", help="then run the traversal queries")
    ap.add_argument("--reps", type=int, default=10, help="timed runs per query")
    a = ap.parse_args()
    if a.mode not in MODES[a.engine]:
        raise SystemExit(f"{a.engine} has no mode {a.mode}")
    # ArcadeDB writes its logs under ./log: beside the store, out of the caller's directory.
    os.chdir(os.path.dirname(os.path.abspath(a.work)))
    g = synth.generate(a.n)
    ref = synth.reference(g) if a.queries else None
    base = psutil.Process().memory_info().rss
    done = {"rows": 0, "capped": False}
    eng = importlib.import_module(f"bench.engines.{a.engine}")  # after base_rss_mib is taken, like the engine's package
    db = eng.ingest_load(g, a.mode, a.work, a, done)
    secs = time.perf_counter() - clock.t0
    usage = resource.getrusage(resource.RUSAGE_SELF)
    res = {
        "version": version(a.engine), "nodes": g.n, "edges": g.m, "rows": done["rows"], "secs": round(secs, 4),
        "rows_per_s": round(done["rows"] / secs, 1), "capped": done["capped"],
        "base_rss_mib": round(base / 2**20, 1),
        "peak_rss_mib": round(usage.ru_maxrss / 1024, 1), "cpu_s": round(usage.ru_utime + usage.ru_stime - clock.cpu0, 2),
        "disk_bytes": dir_bytes(a.work),
    }
    res["counted"] = eng.ingest_count(db)
    if a.queries:
        res["queries"] = timed_queries(eng.ingest_queries(db, ref), a.reps)
        res["reference"] = ref
    print("RESULT " + json.dumps(res), flush=True)
    os._exit(0)  # skip slow teardown (ArcadeDB's JVM): everything is measured and printed


if __name__ == "__main__":
    main()
