"""Runs one engine of the deep-query benchmark in its own process (run.py starts it).

    python3 -m bench.deep.worker probe ENGINE
        -> one JSON line: {"available": bool, "version": ..., "reason": ...}
    python3 -m bench.deep.worker run ENGINE --data D --cache C --queries Q.json --out R.json
                                 [--slow-seeds 50] [--slow-ms 500] [--reload]
        -> R.json: {"engine", "version", "q8": [{"seed", "ids", "us"} | {"seed", "error", "us"}],
                    "q11": [{"a", "b", "length", "us"} | {"a", "b", "error", "us"}], "prepare": {...}, ...}
    python3 -m bench.deep.worker cleanup ENGINE --cache C
        -> stops a server a killed run left behind

Q.json is what `hopdb-bench deep` reads too: {"timeout_ms", "q8": [seed, ...], "q11": [[a, b], ...],
"warmup": N}. For each query kind the worker runs the first `warmup` items untimed (warm-up), then
times every item once, one at a time: the wall time of the engine's Python client call, from the
request to the last row fetched. If the median of the first 10 warm-up queries exceeds --slow-ms,
the warm-up stops there and only the first --slow-seeds items are timed (the engine is "slow";
R.json says so). The engines are bench/engines/ENGINE.py's Deep classes; HopDB runs through its own
binary (bench/engines/hopdb.py's run_bench_deep), which does the same warm-up and timing inside
the process.
"""

import argparse
import json
import os
import statistics
import time

from bench.engines.base import QueryTimeout, Unavailable, report_outcome

PEERS = {
    "networkx": ("bench.engines.networkx", "NetworkXDeep", {}),
    "sqlite": ("bench.engines.sqlite", "SQLiteDeep", {}),
    "postgres": ("bench.engines.postgres", "PostgresDeep", {}),
    "kuzu": ("bench.engines.kuzu", "KuzuDeep", {}),
    "kuzu-params": ("bench.engines.kuzu", "KuzuDeep", {"params": True}),
    "falkordb": ("bench.engines.falkordb", "FalkorDBDeep", {}),
    "cozo": ("bench.engines.cozo", "CozoDeep", {}),
    "neo4j": ("bench.engines.neo4j", "Neo4jDeep", {}),
    # HopDB's store from Python: Cypher through g.query, and the native calls it is compared with.
    "hopdb-cypher": ("bench.engines.hopdb_cypher", "HopDBCypherDeep", {}),
    "hopdb-python": ("bench.engines.hopdb_cypher", "HopDBPythonDeep", {}),
}
HOPDB_MODES = {"hopdb": "auto", "hopdb-store": "store", "hopdb-projection": "projection"}
ENGINES = list(HOPDB_MODES) + list(PEERS)


def cache_name(engine):
    """Engines that share one database: the HopDB modes and Python clients, Kuzu with and without parameters."""
    if engine in HOPDB_MODES or engine in ("hopdb-cypher", "hopdb-python"):
        return "hopdb"
    if engine == "kuzu-params":
        return "kuzu"
    return engine


def engine_class(engine):
    import importlib

    mod, cls, kw = PEERS[engine]
    return getattr(importlib.import_module(mod), cls), kw


def probe(engine):
    try:
        if engine in HOPDB_MODES:
            from bench.engines import hopdb

            version = hopdb.deep_probe()
            if HOPDB_MODES[engine] not in hopdb.deep_modes():
                raise Unavailable(f"`hopdb-bench deep` has no --mode {HOPDB_MODES[engine]} (has {hopdb.deep_modes()})")
            return {"available": True, "version": f"{version}, hopdb-bench deep --mode {HOPDB_MODES[engine]} (Rust API)"}
        cls, kw = engine_class(engine)
        return {"available": True, "version": cls(**kw).probe()}
    except Unavailable as e:
        return {"available": False, "reason": str(e)}
    except Exception as e:
        return {"available": False, "reason": f"{type(e).__name__}: {e}"}


def time_one(fn, *args):
    t = time.perf_counter()
    try:
        ans, err = fn(*args), None
    except QueryTimeout:
        ans, err = None, "timeout"
    except Exception as e:
        ans, err = None, f"{type(e).__name__}: {str(e)[:300]}"
    return ans, err, (time.perf_counter() - t) * 1e6


def run_kind(fn, items, warmup, timeout_ms, slow_seeds, slow_ms, make_rec):
    """Warm-up then timed pass over items; returns (records, info)."""
    warm_us = []
    slow = False
    for i, it in enumerate(items[:warmup]):
        _ans, _err, us = time_one(fn, *it, timeout_ms)
        warm_us.append(us)
        if i + 1 == min(10, warmup) and slow_seeds and statistics.median(warm_us) > slow_ms * 1000:
            slow = True
            break
    timed = items[:slow_seeds] if slow else items
    recs = []
    for it in timed:
        ans, err, us = time_one(fn, *it, timeout_ms)
        recs.append(make_rec(it, ans, err, us))
    info = {"warmup_run": len(warm_us), "warmup_median_ms": statistics.median(warm_us) / 1000 if warm_us else None, "slow": slow, "timed": len(timed), "of": len(items)}
    return recs, info


def q8_rec(it, ans, err, us):
    r = {"seed": it[0], "us": us}
    if err:
        r["error"] = err
    else:
        r["ids"] = list(ans)
    return r


def q11_rec(it, ans, err, us):
    r = {"a": it[0], "b": it[1], "us": us}
    if err:
        r["error"] = err
        r["length"] = None
    else:
        r["length"] = ans
    return r


def run(a):
    q = json.load(open(a.queries))
    timeout_ms = q["timeout_ms"]
    warmup = q.get("warmup", 50)
    os.makedirs(a.cache, exist_ok=True)
    t0 = time.perf_counter()
    if a.engine in HOPDB_MODES:
        from bench.engines import hopdb

        version = hopdb.deep_probe()
        res, info = hopdb.run_bench_deep(HOPDB_MODES[a.engine], a.data, a.cache, a.queries, a.out + ".hopdb.json", a.reload, a.budget)
        res["engine"] = a.engine
        res["version"] = f"{version}, hopdb-bench deep --mode {HOPDB_MODES[a.engine]}"
        notes = res.get("notes") or {}
        proj = notes.get("projection")
        info["open_s"] = proj["seconds"] if proj else 0.0
        info["notes"] = (
            (f"CSR projection built before the queries in {proj['seconds']:.2f} s ({proj['bytes'] / 2**20:.0f} MiB); " if proj else "")
            + "answered on: " + ", ".join(f"{k} {v}" for k, v in (notes.get("answered_on") or {}).items()) + f"; wall time of the whole hopdb-bench deep process {info['process_wall_s']:.1f} s"
        )
        res["prepare"] = info
        res["runs"] = {"q8": {"timed": len(res.get("q8", [])), "of": len(q["q8"]), "slow": False}, "q11": {"timed": len(res.get("q11", [])), "of": len(q["q11"]), "slow": False}}
        res["timing"] = "per-query wall time inside the hopdb process (Rust API), from hopdb-bench deep's R.json"
        json.dump(res, open(a.out, "w"))
        return
    cls, kw = engine_class(a.engine)
    eng = cls(**kw)
    version = eng.probe()
    try:
        prep = eng.prepare(a.data, a.cache, a.reload)
        prep["prepare_wall_s"] = time.perf_counter() - t0
        out = {"engine": a.engine, "version": version, "prepare": prep, "timeout_ms": timeout_ms, "runs": {}}
        out["q8"], out["runs"]["q8"] = run_kind(eng.q8, [(s,) for s in q["q8"]], warmup, timeout_ms, a.slow_seeds, a.slow_ms, q8_rec)
        out["q11"], out["runs"]["q11"] = run_kind(eng.q11, [tuple(p) for p in q["q11"]], warmup, timeout_ms, a.slow_seeds, a.slow_ms, q11_rec)
        out["timing"] = "per-query wall time of the Python client call (request to last row), this process"
    finally:
        eng.close()
    json.dump(out, open(a.out, "w"))


def main():
    ap = argparse.ArgumentParser(prog=f"python3 -m {__spec__.name}")
    ap.add_argument("cmd", choices=["probe", "run", "cleanup"])
    ap.add_argument("engine", choices=ENGINES)
    ap.add_argument("--data")
    ap.add_argument("--cache")
    ap.add_argument("--queries")
    ap.add_argument("--out")
    ap.add_argument("--slow-seeds", type=int, default=50)
    ap.add_argument("--slow-ms", type=float, default=500)
    ap.add_argument("--reload", action="store_true")
    ap.add_argument("--budget", type=float, default=3600, help="seconds the hopdb process may take")
    a = ap.parse_args()
    if a.cmd == "probe":
        print(json.dumps(probe(a.engine)), flush=True)
        return
    if a.cmd == "cleanup":
        if a.engine in PEERS:
            cls, _kw = engine_class(a.engine)
            cls.cleanup(a.cache)
        return
    report_outcome(lambda: run(a), a.engine, a.out)


if __name__ == "__main__":
    main()
