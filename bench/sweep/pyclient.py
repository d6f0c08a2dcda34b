"""The Python client of the sweep, for the engines measured from Python (run.py starts it, one
process per engine):

    python3 -m bench.sweep.pyclient ENGINE --data D --cache C --queries Q.json --mixes retrieval,lightrag
                                    --clients 1,10,50 --ramp-s R --window-s W --out R.json

Opens the engine with its bench/retrieval class (bench/engines/ENGINE.py's Retrieval class: the
deep engine's, on the kept database), checks the sample answers (bench/retrieval's
reference.check; the LightRAG calls against Q.json's `.lightrag.json`, through the engine's
LightRAG client in bench/engines), warms up, then for each mix and client count runs N Python
threads, each with its own client (the class's fork(): a connection or session where the
engine's client needs one), in a tight loop over a ramp and a steady window (window.py). The
GIL serialises the Python work of the threads: these figures are a Python client's.

R.json: {"engine", "version", "prepare", "check": {mix: {"checked", "problems"}}, "runs": [the
load generator's result shape, per mix x clients], "skipped": {mix: reason}}.
"""

import argparse
import json
import platform
import sys
import time

from bench.engines import base
from bench.engines.cypher import CypherLightRAG
from bench.retrieval import reference
from bench.retrieval.peers import engine_class
from bench.retrieval.workload import KIND_NAMES, resolve
from bench.sweep import lightrag_mix, queries, window

LIGHTRAG_SEED = 7  # the LightRAG sequence's RNG seed (every engine runs the same calls)


def lightrag_client(eng, data, pool):
    # each engine's LightRAG client, from its module in bench/engines (imported here: one engine per process)
    if eng.name == "networkx":
        from bench.engines.networkx import NetworkXLightRAG

        return NetworkXLightRAG(eng.G)
    if eng.name not in ("neo4j", "falkordb", "kuzu", "cozo"):
        return None
    wanted = set(pool)
    props = {k: p for k, label, p in reference.iter_nodes(data) if label == "Entity" and k in wanted}
    if eng.name == "kuzu":
        from bench.engines.kuzu import KuzuLightRAG

        return KuzuLightRAG(eng.db, props)
    if eng.name == "cozo":
        from bench.engines.cozo import CozoLightRAG

        return CozoLightRAG(eng.db, props)
    if eng.name == "neo4j":
        from bench.engines.neo4j import Neo4jRun

        return CypherLightRAG(lambda: Neo4jRun(eng.driver), props)
    # FalkorDB: GRAPH.QUERY for the upsert, GRAPH.RO_QUERY for the reads; the client's pool gives each thread a connection
    from bench.engines.falkordb import lightrag_run

    return CypherLightRAG(lambda: lightrag_run(eng), props)


def calls(client, kinds):
    fns = {k: getattr(client, k) for k in kinds}
    return lambda kind, seed: fns[kind](seed)


def main():
    ap = argparse.ArgumentParser(prog=f"python3 -m {__spec__.name}")
    ap.add_argument("engine")
    for o in ("--data", "--cache", "--queries", "--out", "--mixes", "--clients"):
        ap.add_argument(o, required=True)
    ap.add_argument("--ramp-s", type=float, required=True)
    ap.add_argument("--window-s", type=float, required=True)
    ap.add_argument("--warmup-s", type=float, default=2.0)
    a = ap.parse_args()
    base.report_outcome(lambda: run(a), a.engine, a.out)


def run(a):
    q = json.load(open(a.queries))
    items = resolve(q["pools"], q["sequence"])
    ents = q["pools"]["entity"]
    lr_items = [(k, ents[i]) for k, i in lightrag_mix.sequence(len(items), len(ents), LIGHTRAG_SEED)]
    eng = engine_class(a.engine)()
    if a.engine == "kuzu" and "lightrag" in a.mixes.split(","):
        # upsert_node writes: open the kept database read-write (this is the only process using it
        # now; the upserts write each entity's own properties back, so the data stay the same)
        eng.read_only = False
    out = {"engine": a.engine, "version": eng.probe(), "python": platform.python_version(), "check": {}, "runs": [], "skipped": {}}
    t = time.perf_counter()
    out["prepare"] = eng.prepare(a.data, a.cache, False)
    out["prepare"]["prepare_wall_s"] = time.perf_counter() - t
    try:
        mixes = {}
        if "retrieval" in a.mixes.split(","):
            out["check"]["retrieval"] = reference.check_engine(eng, q["check"])
            mixes["retrieval"] = (eng, items, KIND_NAMES)
        if "lightrag" in a.mixes.split(","):
            lr = lightrag_client(eng, a.data, ents)
            if lr is None:
                out["skipped"]["lightrag"] = "no LightRAG-call adapter for this engine"
            else:
                expected = json.load(open(queries.lightrag_path(a.queries)))
                out["check"]["lightrag"] = {"checked": len(lightrag_mix.check_items(expected)), "problems": lightrag_mix.check(lr, expected)}
                mixes["lightrag"] = (lr, lr_items, lightrag_mix.KIND_NAMES)
        for mix, (client, its, kinds) in mixes.items():
            f = calls(client, kinds)
            t_end = time.perf_counter() + a.warmup_s
            for k, s in its:  # warm-up: caches, prepared statements
                f(k, s)
                if time.perf_counter() > t_end:
                    break
            for n in map(int, a.clients.split(",")):
                forks = [client.fork() for _ in range(n)]
                try:
                    # thread i starts at its own offset of the shared sequence: the threads do not ask the same seeds in lockstep
                    res = window.run([calls(c, kinds) for c in forks], lambda i, its=its, n=n: its[i * len(its) // n :] + its[: i * len(its) // n], a.ramp_s, a.window_s, kinds)
                finally:
                    for c in forks:
                        if c is not client:
                            c.release()
                res.update(engine=a.engine, mix=mix, durability=None, version=out["version"], notes=out["prepare"].get("notes", ""))
                out["runs"].append(res)
                print(f"{a.engine} {mix} {n} clients: {res['qps']:,.0f} q/s", file=sys.stderr, flush=True)
    finally:
        eng.close()
    json.dump(out, open(a.out, "w"))


if __name__ == "__main__":
    main()
