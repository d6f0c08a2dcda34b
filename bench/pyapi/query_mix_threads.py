"""The study's Q1-Q7 retrieval mix called straight on a `hopdb.Graph`, from 1 and 2 threads,
without bench/retrieval's per-query timing: what the package itself costs per query, and how
far two threads get. Used to compare builds of the extension (decision 0013).

usage: python3 -m bench.pyapi.query_mix_threads [--queries 100000] [--reps 3] [--only q1] [--store DIR]

The S=1 store made by `hopdb import` (bench/deep's, else bench/deep_rust's), opened read-only,
with the projection of every edge type built first (as bench/retrieval's HopDB adapter does).
Seeds: 500 random chunks, entities and documents (fixed RNG seed); the kinds in the study's
proportions (Q1 30%, Q2 30%, Q3 20%, Q4 10%, Q5 3%, Q6 4%, Q7 3%), or one kind alone with
--only. Prints q/s per repetition; 2 threads split the same sequence.
"""
import argparse
import random
import threading
import time

import hopdb
from bench.pyapi import s1_store

STORES = [s1_store.DEEP, s1_store.DEEP_RUST]
LIMIT, TOP = 50, 10
C2C = [("out", "MENTIONS"), ("in", "MENTIONS")]
E2E = [("in", "MENTIONS"), ("out", "MENTIONS")]


def plan(g, n, rng, only=None):
    """n calls (closures) in the study's proportions over pools of existing seeds (of kind
    `only` alone when given: "q1".."q7")."""
    counts = dict(g.labels())

    def pool(prefix, label):
        return [f"{prefix}-{rng.randrange(1, counts[label] + 1)}" for _ in range(500)]

    chunks, ents, docs = pool("chunk", "Chunk"), pool("ent", "Entity"), pool("doc", "Document")
    kinds = [
        (30, lambda c, e, d, es: g.node(c)),
        (30, lambda c, e, d, es: g.neighbors(c, "out", "MENTIONS", LIMIT)),
        (20, lambda c, e, d, es: g.neighbors(e, "in", "MENTIONS", LIMIT)),
        (10, lambda c, e, d, es: g.expand(c, C2C, limit=LIMIT, exclude_seeds=True)),
        (3, lambda c, e, d, es: g.neighbors(d, "out", "HAS_CHUNK")),
        (4, lambda c, e, d, es: g.expand_counts(c, C2C, top=TOP, exclude_seeds=True)),
        (3, lambda c, e, d, es: g.expand(es, E2E, limit=LIMIT)),
    ]
    picked = [kinds[int(only[1:]) - 1]] if only else kinds
    weighted = [f for w, f in picked for _ in range(w)]
    return [(rng.choice(weighted), rng.choice(chunks), rng.choice(ents), rng.choice(docs),
             [rng.choice(ents) for _ in range(5)]) for _ in range(n)]


def run(calls):
    for f, c, e, d, es in calls:
        f(c, e, d, es)


def main():
    ap = argparse.ArgumentParser(prog=f"python3 -m {__spec__.name}", description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=100_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--only", choices=[f"q{i}" for i in range(1, 8)], help="one query kind alone")
    s1_store.add_argument(ap, STORES)
    a = ap.parse_args()
    store = s1_store.resolve(a.store, STORES)
    with hopdb.Graph(store, read_only=True) as g:
        g.project()
        calls = plan(g, a.queries, random.Random(5), a.only)
        run(calls[: a.queries // 10])  # warm-up
        for threads in (1, 2):
            for _ in range(a.reps):
                parts = [calls[i::threads] for i in range(threads)]
                ts = [threading.Thread(target=run, args=(p,)) for p in parts]
                t0 = time.perf_counter()
                for t in ts:
                    t.start()
                for t in ts:
                    t.join()
                print(f"{threads} thread{'s' * (threads > 1)}: {len(calls) / (time.perf_counter() - t0):,.0f} q/s", flush=True)


if __name__ == "__main__":
    main()
